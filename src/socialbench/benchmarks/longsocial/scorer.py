"""Scoring of multiple-choice answers and the metrics LongSocialBench reports (Tables 3, 13, 14)."""

from __future__ import annotations

import statistics
from collections import defaultdict

from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, metric, scorer
from inspect_ai.solver import TaskState

from ...analysis.statistics import bootstrap_ci
from ...workflows.answers import extract_letter, letter_from_logprobs

ANSWERED, UNPARSED, OVERLENGTH = "answered", "unparsed", "overlength"


def _evaluated(scores: list[SampleScore]) -> list[SampleScore]:
    """Scores of items the model was asked (over-length items were skipped and are reported apart)."""
    return [s for s in scores if (s.score.metadata or {}).get("status") != OVERLENGTH]


def _correct(scores: list[SampleScore]) -> list[float]:
    return [float(s.score.as_float()) for s in _evaluated(scores)]


def _grouped(scores: list[SampleScore], key: str) -> dict[str, float]:
    groups: dict[str, list[float]] = defaultdict(list)
    for s in _evaluated(scores):
        groups[str((s.score.metadata or {}).get(key))].append(float(s.score.as_float()))
    return {k: statistics.fmean(v) for k, v in sorted(groups.items())}


@metric
def accuracy() -> Metric:
    """Accuracy over evaluated items; unparsed answers count as wrong."""

    def compute(scores: list[SampleScore]) -> float:
        values = _correct(scores)
        return statistics.fmean(values) if values else 0.0

    return compute


@metric
def ci95_low() -> Metric:
    def compute(scores: list[SampleScore]) -> float:
        values = _correct(scores)
        return bootstrap_ci(values)[0] if values else 0.0

    return compute


@metric
def ci95_high() -> Metric:
    def compute(scores: list[SampleScore]) -> float:
        values = _correct(scores)
        return bootstrap_ci(values)[1] if values else 0.0

    return compute


@metric
def by_capability() -> Metric:
    def compute(scores: list[SampleScore]) -> dict[str, float]:
        return _grouped(scores, "capability")

    return compute


@metric
def by_platform() -> Metric:
    def compute(scores: list[SampleScore]) -> dict[str, float]:
        return _grouped(scores, "platform")

    return compute


@metric
def c_macro() -> Metric:
    """Macro mean over the capabilities present (Table 13's C-mac over C1-C6)."""

    def compute(scores: list[SampleScore]) -> float:
        per = _grouped(scores, "capability")
        return statistics.fmean(per.values()) if per else 0.0

    return compute


@metric
def unparsed_rate() -> Metric:
    def compute(scores: list[SampleScore]) -> float:
        evaluated = _evaluated(scores)
        bad = sum(1 for s in evaluated if (s.score.metadata or {}).get("status") == UNPARSED)
        return bad / len(evaluated) if evaluated else 0.0

    return compute


@metric
def overlength() -> Metric:
    """Number of items skipped because their prompt exceeds the model's context."""

    def compute(scores: list[SampleScore]) -> int:
        return sum(1 for s in scores if (s.score.metadata or {}).get("status") == OVERLENGTH)

    return compute


@scorer(
    metrics=[
        accuracy(),
        ci95_low(),
        ci95_high(),
        c_macro(),
        by_capability(),
        by_platform(),
        unparsed_rate(),
        overlength(),
    ]
)
def choice_letter() -> Scorer:
    """Correct when the model's letter (from log-probabilities in ``logprobs`` mode, else from its text) is
    the gold letter. Unparseable answers are scored wrong and counted; skipped over-length items are counted
    and left out of accuracy."""

    async def score(state: TaskState, target: Target) -> Score:
        meta = {k: state.metadata.get(k) for k in ("capability", "platform", "episode_id", "item_id")}
        if state.metadata.get(OVERLENGTH):
            return Score(
                value=0,
                answer=None,
                explanation="skipped: prompt exceeds the model's context",
                metadata={**meta, "status": OVERLENGTH},
            )
        if state.metadata.get("answer_mode") == "logprobs":
            letter = letter_from_logprobs(state.output)
        else:
            letter = extract_letter(state.output.completion)
        status = ANSWERED if letter else UNPARSED
        return Score(
            value=1 if letter == target.text else 0,
            answer=letter,
            explanation=state.output.completion[:500],
            metadata={**meta, "status": status},
        )

    return score
