"""inspect metrics every multiple-choice benchmark reports: accuracy and its bootstrap 95% CI over the samples the
model was asked, and counts of sample statuses (``Score.metadata["status"]``).

A sample skipped before any call (status ``overlength``: its prompt does not fit the model's context) was not
asked: it is left out of accuracy and counted apart. Every accuracy is NaN (shown as "-") when nothing was asked.
"""

from __future__ import annotations

import statistics

from inspect_ai.scorer import Metric, SampleScore, metric

from .statistics import cluster_bootstrap_ci, proportion_ci

OVERLENGTH = "overlength"
NAN = float("nan")


def status(score: SampleScore) -> str | None:
    return (score.score.metadata or {}).get("status")


def asked(scores: list[SampleScore]) -> list[SampleScore]:
    """Scores of samples the model was asked (over-length samples were skipped and are reported apart)."""
    return [s for s in scores if status(s) != OVERLENGTH]


UNJUDGED = "unjudged"


def correct(scores: list[SampleScore]) -> list[float]:
    """Scores of the asked samples, less those a grader could not judge (status ``unjudged``: counted apart, not
    scored wrong -- the failure is the judge's, not the model's)."""
    return [float(s.score.as_float()) for s in asked(scores) if status(s) != UNJUDGED]


@metric
def accuracy() -> Metric:
    """Accuracy over asked samples (unparsed or invalid answers count as wrong); NaN when nothing was asked."""

    def compute(scores: list[SampleScore]) -> float:
        values = correct(scores)
        return statistics.fmean(values) if values else NAN

    return compute


def _ci(scores: list[SampleScore], cluster: str | None) -> tuple[float, float]:
    values = correct(scores)
    if not values:
        return NAN, NAN
    if cluster is None:
        return proportion_ci(values)
    keys = [(s.score.metadata or {}).get(cluster, s.sample_id) for s in asked(scores)]
    return cluster_bootstrap_ci(values, keys)


@metric
def ci95_low(cluster: str | None = None) -> Metric:
    """Lower bound of the percentile bootstrap 95% CI of accuracy (B=1000); with ``cluster`` (a score metadata
    key, e.g. ``pair_id``) whole clusters are resampled, so dependent samples move together."""

    def compute(scores: list[SampleScore]) -> float:
        return _ci(scores, cluster)[0]

    return compute


@metric
def ci95_high(cluster: str | None = None) -> Metric:
    """Upper bound of the percentile bootstrap 95% CI of accuracy (``cluster`` as for `ci95_low`)."""

    def compute(scores: list[SampleScore]) -> float:
        return _ci(scores, cluster)[1]

    return compute


@metric
def asked_items() -> Metric:
    """Number of samples the model was asked."""

    def compute(scores: list[SampleScore]) -> int:
        return len(asked(scores))

    return compute


@metric
def overlength() -> Metric:
    """Number of samples skipped because their prompt exceeds the model's context."""

    def compute(scores: list[SampleScore]) -> int:
        return sum(1 for s in scores if status(s) == OVERLENGTH)

    return compute
