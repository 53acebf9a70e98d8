"""One output-budget policy for every model call, and a count of the calls that came back cut off or empty.

Reasoning models (GPT-5, Claude with thinking, Gemini 2.5 Pro, Qwen3 on vLLM: the papers' headline models) spend
reasoning tokens against the same output budget as the answer: a 32-token budget for a one-letter answer, or 160
tokens for a list of post ids, ends them before any output while the whole prompt is billed. So every call a
benchmark makes (answers, retrieval, notes, labels, ratings, forecasts, replies, judging, item writing) asks
`call_budget` for its budget:

- ``-T max_tokens`` (``given``) wins, for every call of the model under test;
- a reasoning model gets room for its reasoning: `REASONING_BUDGET` tokens, or the call's own budget plus
  `REASONING_ROOM` when that is more (and more than a Claude thinking budget it was given), capped by the model's
  output limit. A model reasons when inspect's model data says so, when its generate config asks for reasoning
  (``--reasoning-effort`` above minimal, ``--reasoning-tokens``, vLLM's ``extra_body`` thinking switch), or when the
  user declared it (``-T reasoning=true`` / ``socialbench run --reasoning``: a server inspect does not know, such as
  Qwen3 or DeepSeek-R1 on vLLM);
- any other model gets the call's own budget.

`record_call` writes the budget and the outcome of each call into the sample's metadata under ``model_calls``, per
call kind (`CALL_KINDS`): how many calls, how many were cut off by the budget or the window, how many came back
empty. Reports show these counts wherever the number they affect is shown.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, MutableMapping
from dataclasses import dataclass
from typing import Any

from inspect_ai.model import GenerateConfig, Model, ModelOutput

from .runs import read_alongside

REASONING_BUDGET = 16_000
"""Output budget of a reasoning model's call whose own budget is small (an answer letter, ratings, ids): room for
its reasoning before the output (capped by the model's output limit). Reasoning tokens are billed only as used."""

REASONING_ROOM = 8_000
"""Room for reasoning added to a call whose own output is long (SI-Bench's replies, RAG notes, labels of many
posts) when that is more than `REASONING_BUDGET`."""

CALL_KINDS: dict[str, str] = {
    "answer": "the answer call of a LongSocialBench setting (each turn of CoT / Reflect)",
    "retrieve": "LLM-as-retriever: the post ids relevant to the question, per part of the discussion",
    "notes": "RAG with anchor notes: one note per region of the discussion",
    "labels": "enumerate-label-aggregate: a label per shown post",
    "judge": "a judge in the grader role (LongSocialBench open answers, SI-Bench rubric and pairwise judging)",
    "choose": "PerSo cognitive: the letter of the OP's belief, emotion or intent",
    "rate": "PerSo behavioral: the ratings of both responses (and the retry after an unreadable one)",
    "reply": "SI-Bench: the reply (direct) or the five-part reasoning and reply (CoT)",
    "write_items": "PerSo item writing in the generator role: gold states, then distractors",
}
"""Every kind of model call, as recorded in ``model_calls`` and listed in docs/models.md."""

CUT = ("max_tokens", "model_length")
OWN = "the call's own budget"


def knowledge_cutoff(model: str) -> str | None:
    """The model's knowledge cutoff (ISO date) in inspect's model data, or None. Remembered on disk per inspect
    version and model name (``$SOCIALBENCH_CACHE/model-cutoffs.json``): inspect parses its whole model database on
    the first look-up, a large share of a warm report's time, for a value that changes only with inspect."""
    import json
    from importlib.metadata import version

    from ..core.jsonl import atomic_writer
    from .retrieval import cache_dir

    path = cache_dir() / "model-cutoffs.json"
    key = f"{version('inspect_ai')}\t{model}"
    try:
        known = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(known, dict):
            known = {}
    except (OSError, ValueError):  # none yet, or damaged: looked up again
        known = {}
    if key in known and (known[key] is None or isinstance(known[key], str)):
        return known[key]  # type: ignore[no-any-return]
    found = getattr(_info(model), "knowledge_cutoff_date", None)
    known[key] = found.isoformat()[:10] if found is not None else None  # a date (a datetime: its day)
    try:
        with atomic_writer(path) as handle:
            json.dump(known, handle)
    except (OSError, ValueError):  # a read-only cache only costs the look-up next time
        pass
    return known[key]  # type: ignore[no-any-return]


def _info(model: Model | str) -> Any:
    try:
        from inspect_ai.model import get_model_info

        return get_model_info(model)
    except Exception:  # an unknown provider or name: no model data
        return None


def effective_config(model: Model | str) -> GenerateConfig:
    """The generate config a call of ``model`` runs with: the model's own, merged (for the model under evaluation)
    with the eval's (``--reasoning-effort`` and other ``eval`` options), as inspect merges them."""
    if isinstance(model, str):
        return GenerateConfig()
    from .inspect_private import active_generate_config, active_model

    # inspect has no public accessor for the merged config; Model._resolve_config does the same merge
    config = model.config
    return config.merge(active_generate_config()) if model is active_model() else config


def asks_for_reasoning(config: GenerateConfig | None) -> bool:
    """Does a generate config ask the model to reason (an effort above minimal, a reasoning token budget, or
    vLLM's ``chat_template_kwargs.enable_thinking``)?"""
    if config is None:
        return False
    kwargs = (config.extra_body or {}).get("chat_template_kwargs") or {}
    if isinstance(kwargs, Mapping) and kwargs.get("enable_thinking") is True:
        return True
    return bool(config.reasoning_tokens) or config.reasoning_effort not in (None, "none", "minimal")


def reasons(model: Model | str, declared: bool = False) -> bool:
    """Is this a reasoning model: declared by the user, known from inspect's model data, or asked to reason by its
    generate config?"""
    if declared:
        return True
    info = _info(model)
    name = model if isinstance(model, str) else model.name
    config = effective_config(model)
    can = bool(getattr(info, "reasoning", None)) and thinks_unasked(name) and config.reasoning_effort != "none"
    return can or asks_for_reasoning(config)


_CLAUDE = re.compile(r"claude-(?:(?:opus|sonnet|haiku|fable|mythos)-)?(\d)(?:[-.](\d{1,2})(?!\d))?")


def thinks_unasked(name: str) -> bool:
    """Whether a model that can reason (inspect's model data) does so without being asked. Claude before 4.7
    thinks only when the request turns extended thinking on (inspect: ``reasoning_tokens`` or an effort), so its
    "can reason" gives it no reasoning budget; Claude 4.7 and later think adaptively by default (inspect sends
    ``reasoning_effort="none"`` as thinking off). Every other model that can reason does."""
    found = _CLAUDE.search(name.lower())
    if found is None:
        return True
    return (int(found.group(1)), int(found.group(2) or 0)) >= (4, 7)


@dataclass(frozen=True)
class Budget:
    tokens: int
    why: str
    model: str = ""
    """The model the call goes to (inspect's name, ``anthropic/claude-sonnet-4-5``): each request's usage is
    recorded under it, so the ledger can price requests one by one (`record_call`)."""

    def as_dict(self) -> dict[str, Any]:
        return {"tokens": self.tokens, "why": self.why}


def checked_budget(max_tokens: int | None, name: str = "max_tokens") -> int | None:
    """``-T max_tokens`` as given, refused when it cannot be a budget (zero or negative)."""
    if max_tokens is not None and max_tokens < 1:
        raise ValueError(f"-T {name}={max_tokens}: an output budget is at least 1 token")
    return max_tokens


def thinking_budget(model: Model | str, config: GenerateConfig) -> int | None:
    """The thinking budget inspect will send with a call (Claude's extended thinking: ``budget_tokens``), from
    the provider's own conversion: an explicit ``reasoning_tokens``, or for Claude before 4.6 a
    ``--reasoning-effort`` translated by inspect's effort table (high: 16,000; xhigh: 32,000). None when the request
    carries no thinking budget (adaptive thinking, other providers)."""
    api = None if isinstance(model, str) else getattr(model, "api", None)
    bridged = getattr(api, "bridged_reasoning_tokens", None)  # inspect's Anthropic provider: what it sends
    if callable(bridged):
        sent = bridged(config)
        return int(sent) if sent else None
    return config.reasoning_tokens or None


def call_budget(model: Model | str, default: int, given: int | None = None, declared: bool = False) -> Budget:
    """The output budget of one call: ``given`` (``-T max_tokens``) if set; for a reasoning model room for its
    reasoning (module docstring); else ``default``, the call's own budget."""
    name = model if isinstance(model, str) else str(model)
    if given:
        return Budget(given, "-T max_tokens", name)
    if reasons(model, declared):
        tokens = max(REASONING_BUDGET, default + REASONING_ROOM)
        thinking = thinking_budget(model, effective_config(model))
        if thinking:  # Claude's thinking budget must stay below max_tokens, with room for the output after it
            tokens = max(tokens, thinking + default)
        limit = getattr(_info(model), "output_tokens", None)
        return Budget(min(tokens, limit) if limit else tokens, "reasoning model: room for its reasoning", name)
    return Budget(default, OWN, name)


REQUESTS = "model_requests"
"""Sample metadata: one ``[model, input, cache write, cache read, output]`` token record per request, with
``"1h"`` after them when the request's cache writes were sent with the one-hour TTL (`sent_cache_ttl`)."""


def sent_cache_ttl(model: str) -> str | None:
    """``"1h"`` when the call just answered in this task sent its cache marks with the one-hour TTL, else None
    (five minutes). Under inspect's default ``cache_ttl=auto`` its Anthropic provider switches a sample that waited
    over five minutes between cached requests to one-hour writes (billed 2x input, not 1.25x); it keeps the TTL each
    request was sent with in a context variable of the calling task, which inspect's own cost accounting reads the
    same way after the call."""
    if model.partition("/")[0] != "anthropic":
        return None
    from .inspect_private import cache_write_ttl

    return "1h" if cache_write_ttl() == "1h" else None


def record_call(metadata: MutableMapping[str, Any], kind: str, budget: Budget, output: ModelOutput) -> None:
    """Count one call of ``kind`` in ``metadata["model_calls"]``: its budget, and whether it came back cut off (by
    the budget or the context window) or empty; its tokens in ``metadata["model_requests"]`` (`REQUESTS`: model,
    input, cache writes, cache reads, output, and ``"1h"`` when its cache writes were sent with that TTL)."""
    calls = metadata.setdefault("model_calls", {})
    usage = output.usage
    if usage is not None and budget.model:  # each request's tokens: providers price tiers per request (the ledger)
        written, read = usage.input_tokens_cache_write or 0, usage.input_tokens_cache_read or 0
        request = [budget.model, usage.input_tokens, written, read, usage.output_tokens]
        if written and sent_cache_ttl(budget.model) == "1h":
            request.append("1h")
        metadata.setdefault(REQUESTS, []).append(request)
    entry = calls.setdefault(kind, {"calls": 0, "cut_off": 0, "empty": 0, "budget": budget.as_dict()})
    entry["calls"] += 1
    entry["budget"] = budget.as_dict()
    if output.stop_reason in CUT:
        entry["cut_off"] += 1
    elif not output.completion.strip():
        entry["empty"] += 1


@dataclass
class CallCounts:
    """The calls of one kind over a run's samples."""

    calls: int = 0
    cut_off: int = 0
    empty: int = 0
    samples: int = 0
    """Samples with at least one such call."""
    failed_samples: int = 0
    """Samples where at least one such call came back cut off or empty."""
    budgets: frozenset[tuple[int, str]] = frozenset()

    @property
    def failed(self) -> int:
        return self.cut_off + self.empty


def call_counts(metadatas: Iterable[Mapping[str, Any] | None]) -> dict[str, CallCounts]:
    """Per call kind, the counts recorded in the samples' ``model_calls``."""
    out: dict[str, CallCounts] = {}
    for metadata in metadatas:
        for kind, entry in ((metadata or {}).get("model_calls") or {}).items():
            if not isinstance(entry, Mapping):
                continue
            counts = out.setdefault(kind, CallCounts())
            cut, empty = int(entry.get("cut_off", 0)), int(entry.get("empty", 0))
            counts.calls += int(entry.get("calls", 0))
            counts.cut_off += cut
            counts.empty += empty
            counts.samples += 1
            counts.failed_samples += bool(cut or empty)
            budget = entry.get("budget") or {}
            if isinstance(budget, Mapping) and "tokens" in budget:
                counts.budgets |= {(int(budget["tokens"]), str(budget.get("why", "")))}
    return out


ROLE_OF_KIND = {"judge": "grader", "write_items": "generator"}
"""Call kinds made by a model role (`shared.judging.Judge`), and the role: a hint for them names the role. (When the
model under test plays the role, ``--reasoning`` covers it too.)"""


def describe_calls(counts: Mapping[str, CallCounts]) -> list[str]:
    """One line per call kind whose calls came back cut off or empty, with its budget, e.g. "retrieve calls cut
    off or empty: 36 of 36 (cut off 36) on 36 samples; budget 160 tokens (the call's own budget)"."""
    lines = []
    for kind, c in sorted(counts.items()):
        if not c.failed:
            continue
        causes = ", ".join(f"{name} {n}" for name, n in (("cut off", c.cut_off), ("empty", c.empty)) if n)
        budgets = "; ".join(f"{t} tokens ({why})" for t, why in sorted(c.budgets)) or "unknown"
        role = ROLE_OF_KIND.get(kind)
        declare = (
            f"the {role} role's model a reasoning model inspect does not know? declare it: socialbench run "
            f"--reasoning-role {role} / -T reasoning_roles={role}"
            if role
            else "a reasoning model inspect does not know? declare it: socialbench run --reasoning / -T reasoning=true"
        )
        hint = f" ({declare})" if c.cut_off and all(why == OWN for _, why in c.budgets) else ""
        lines.append(
            f"{kind} calls cut off or empty: {c.failed} of {c.calls} ({causes}) on {c.failed_samples} of "
            f"{c.samples} samples; budget {budgets}{hint}"
        )
    return lines


def known_context(model: Model) -> int | None:
    """The model's context window from inspect's model data (None for an unknown model or server)."""
    value = getattr(_info(model), "context_length", None)
    return int(value) if value else None


@read_alongside
def logged_requests(log: Any) -> list[list[Any]]:
    """Every request's ``[model, input, cache write, cache read, output]`` tokens over a log's samples (each read
    once with the others: `shared.runs.read_alongside`)."""
    return [list(r) for sample in log.samples or [] for r in (sample.metadata or {}).get(REQUESTS) or []]


@read_alongside
def _logged_calls(log: Any) -> dict[str, dict[str, Any]]:
    counts = call_counts(sample.metadata for sample in log.samples or [])
    return {kind: {**vars(c), "budgets": sorted(c.budgets)} for kind, c in counts.items()}


def logged_calls(path: str) -> dict[str, CallCounts]:
    """A log's model calls per kind (read once per log content; `shared.runs.extracted`)."""
    from .runs import extracted

    raw = extracted(path, _logged_calls, persist=True)
    return {
        kind: CallCounts(**{**c, "budgets": frozenset((int(t), str(w)) for t, w in c["budgets"])})
        for kind, c in raw.items()
    }
