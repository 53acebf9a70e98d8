"""Why a model's answer could not be read: every unscorable output is scored wrong *and* labelled, so results and
reports count empty completions, refusals, cut-off generations and answers that break the format apart instead of
folding them silently into "wrong".

Labels (``Score.metadata["output_problem"]``):

- ``refused``: the provider stopped for its content filter, or returned a refusal (``ContentText.refusal``);
- ``model_length``: generation stopped because the context window was full (the prompt left no room);
- ``max_tokens``: generation hit the token limit before the answer was complete;
- ``empty``: an empty completion;
- ``format``: text that does not follow the answer format;
- ``template`` / ``copied_chat`` (SI-Bench): a reply that only echoes the answer template's placeholder, or copies
  the chat, is no reply.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from inspect_ai.model import ContentText, ModelOutput
from inspect_ai.scorer import Metric, SampleScore, metric

PROBLEMS = ("refused", "model_length", "max_tokens", "empty", "format")


def output_problem(output: ModelOutput) -> str:
    """The reason an answer could not be read from ``output`` (call it only for outputs that failed to parse)."""
    if output.stop_reason == "content_filter" or _refused(output):
        return "refused"
    if output.stop_reason in ("model_length", "max_tokens"):
        return output.stop_reason
    if not output.completion.strip():
        return "empty"
    return "format"


def _refused(output: ModelOutput) -> bool:
    if not output.choices:
        return False
    content = output.choices[0].message.content
    return isinstance(content, list) and any(isinstance(c, ContentText) and c.refusal for c in content)


_NAMES = {
    "refused": "refused",
    "model_length": "cut off by the context window",
    "max_tokens": "cut off by the token limit",
    "empty": "empty",
    "format": "not in the answer format",
    "template": "the answer template echoed",
    "copied_chat": "a copy of the chat",
}


def describe(problems: Iterable[str | None]) -> str | None:
    """One line counting the causes, e.g. "3 unreadable answers: empty 1, not in the answer format 2"; None when
    there were none."""
    counts = Counter(p for p in problems if p)
    if not counts:
        return None
    total = sum(counts.values())
    parts = ", ".join(f"{_NAMES.get(k, k)} {counts[k]}" for k in sorted(counts, key=lambda k: (-counts[k], k)))
    return f"{total} unreadable answer{'s' * (total != 1)}: {parts}"


def problem_of(score: SampleScore) -> str | None:
    return (score.score.metadata or {}).get("output_problem")


def _count(kind: str) -> Metric:
    def compute(scores: list[SampleScore]) -> int:
        return sum(1 for s in scores if problem_of(s) == kind)

    return compute


@metric
def empty_outputs() -> Metric:
    """Answers that were empty completions (scored wrong)."""
    return _count("empty")


@metric
def refusals() -> Metric:
    """Answers the provider refused (content filter or a refusal message; scored wrong)."""
    return _count("refused")


@metric
def cut_off() -> Metric:
    """Answers cut off by the context window or the token limit before they were complete (scored wrong)."""

    def compute(scores: list[SampleScore]) -> int:
        return sum(1 for s in scores if problem_of(s) in ("model_length", "max_tokens"))

    return compute


OUTPUT_METRICS = [empty_outputs(), refusals(), cut_off()]
"""Added to every benchmark's metrics next to its own count of unparsed answers (which includes these)."""
