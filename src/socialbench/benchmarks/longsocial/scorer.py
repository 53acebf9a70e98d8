"""Scoring of multiple-choice answers and the metrics LongSocialBench reports (Tables 3, 13, 14).

Over-length items are skipped before any call and are not "asked": they are left out of accuracy (and counted
by `overlength`). Every accuracy is NaN, shown as "-", when nothing was asked. Per-capability and per-platform
accuracy come from inspect's `grouped()`.
"""

from __future__ import annotations

import math
import statistics

from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, grouped, metric, scorer
from inspect_ai.solver import TaskState

from ...shared.answers import extract_letter, letter_from_logprobs
from ...shared.statistics import bootstrap_ci
from .items import CAPABILITIES

ANSWERED, UNPARSED, OVERLENGTH = "answered", "unparsed", "overlength"
ANSWER_MODE = "answer_mode"
NAN = float("nan")


def asked(scores: list[SampleScore]) -> list[SampleScore]:
    """Scores of items the model was asked (over-length items were skipped and are reported apart)."""
    return [s for s in scores if (s.score.metadata or {}).get("status") != OVERLENGTH]


def correct(scores: list[SampleScore]) -> list[float]:
    return [float(s.score.as_float()) for s in asked(scores)]


@metric
def accuracy() -> Metric:
    """Accuracy over asked items (unparsed answers count as wrong); NaN when nothing was asked."""

    def compute(scores: list[SampleScore]) -> float:
        values = correct(scores)
        return statistics.fmean(values) if values else NAN

    return compute


@metric
def ci95_low() -> Metric:
    """Lower bound of the percentile bootstrap 95% CI of accuracy (B=1000, paper Table 16)."""

    def compute(scores: list[SampleScore]) -> float:
        values = correct(scores)
        return bootstrap_ci(values)[0] if values else NAN

    return compute


@metric
def ci95_high() -> Metric:
    """Upper bound of the percentile bootstrap 95% CI of accuracy."""

    def compute(scores: list[SampleScore]) -> float:
        values = correct(scores)
        return bootstrap_ci(values)[1] if values else NAN

    return compute


def capability_accuracy(scores: list[SampleScore]) -> dict[str, float]:
    """Accuracy per capability C1-C6 over asked items; NaN for a capability with no asked item."""
    out = {}
    for cap in CAPABILITIES:
        values = correct([s for s in scores if (s.sample_metadata or {}).get("capability") == cap])
        out[cap] = statistics.fmean(values) if values else NAN
    return out


@metric
def c_mac() -> Metric:
    """C-mac (Table 13): the mean of the six capability accuracies. NaN unless all of C1-C6 had asked items:
    a mean over fewer capabilities is a different number, and the summary names the missing ones."""

    def compute(scores: list[SampleScore]) -> float:
        per = capability_accuracy(scores)
        return NAN if any(math.isnan(v) for v in per.values()) else statistics.fmean(per.values())

    return compute


@metric
def asked_items() -> Metric:
    """Number of items the model was asked."""

    def compute(scores: list[SampleScore]) -> int:
        return len(asked(scores))

    return compute


@metric
def unparsed() -> Metric:
    """Number of asked items whose answer named no letter (scored wrong)."""

    def compute(scores: list[SampleScore]) -> int:
        return sum(1 for s in asked(scores) if (s.score.metadata or {}).get("status") == UNPARSED)

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
        c_mac(),
        grouped(accuracy(), "capability", all=False),
        grouped(accuracy(), "platform", all=False),
        asked_items(),
        unparsed(),
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
        if state.metadata.get(ANSWER_MODE) == "logprobs":
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
