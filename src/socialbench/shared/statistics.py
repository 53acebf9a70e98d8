"""Thin wrappers over scipy and statsmodels for the statistics the papers report."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from scipy import stats


def bootstrap_ci(
    values: Sequence[float], confidence: float = 0.95, resamples: int = 1000, seed: int = 0
) -> tuple[float, float]:
    """Percentile bootstrap CI of the mean (B=1000 as in LongSocialBench Table 16). Degenerate samples (fewer
    than two values, or all equal) give the point estimate as both bounds."""
    data = np.asarray(values, dtype=float)
    if data.size == 0:
        return (float("nan"), float("nan"))
    if data.size < 2 or np.all(data == data[0]):
        return (float(data.mean()), float(data.mean()))
    result = stats.bootstrap(
        (data,),
        np.mean,
        confidence_level=confidence,
        n_resamples=resamples,
        method="percentile",
        random_state=np.random.default_rng(seed),
    )
    return (float(result.confidence_interval.low), float(result.confidence_interval.high))


def proportion_ci(values: Sequence[float], confidence: float = 0.95) -> tuple[float, float]:
    """The 95% interval of an accuracy. For 0/1 outcomes it is the Wilson score interval of the count
    (statsmodels `proportion_confint`): unlike the percentile bootstrap it has width at small n and at 0% / 100%
    (4 of 4 right: [51.0, 100.0], not [100.0, 100.0]). Anything else (half credit for ties, mean scores) keeps the
    bootstrap of the mean."""
    data = np.asarray(values, dtype=float)
    if data.size == 0:
        return (float("nan"), float("nan"))
    if not np.all((data == 0) | (data == 1)):
        return bootstrap_ci(values, confidence)
    from statsmodels.stats.proportion import proportion_confint

    low, high = proportion_confint(int(data.sum()), int(data.size), alpha=1 - confidence, method="wilson")
    share = float(data.mean())  # the interval holds the estimate exactly (float rounding at 0 and 1 aside)
    return (max(0.0, min(float(low), share)), min(1.0, max(float(high), share)))


def cluster_bootstrap_ci(
    values: Sequence[float],
    clusters: Sequence[object],
    confidence: float = 0.95,
    resamples: int = 1000,
    seed: int = 0,
) -> tuple[float, float]:
    """Percentile bootstrap CI of the mean that resamples whole clusters (e.g. the two presentation orders of one
    pair), so dependent samples move together; the statistic is the pooled mean (sum over count). Degenerate
    samples (fewer than two clusters, or all values equal) give the point estimate as both bounds."""
    data = np.asarray(values, dtype=float)
    if data.size == 0:
        return (float("nan"), float("nan"))
    groups: dict[object, list[float]] = {}
    for value, cluster in zip(data.tolist(), clusters, strict=True):
        groups.setdefault(cluster, []).append(value)
    sums = np.array([sum(g) for g in groups.values()])
    counts = np.array([len(g) for g in groups.values()], dtype=float)
    if len(groups) < 2 or np.all(data == data[0]):
        return (float(data.mean()), float(data.mean()))
    result = stats.bootstrap(
        (sums, counts),
        lambda s, c, axis=-1: np.sum(s, axis=axis) / np.sum(c, axis=axis),
        paired=True,
        vectorized=True,
        confidence_level=confidence,
        n_resamples=resamples,
        method="percentile",
        random_state=np.random.default_rng(seed),
    )
    return (float(result.confidence_interval.low), float(result.confidence_interval.high))


def percent(value: float | None) -> str:
    """A share as a percentage with one decimal; "-" when there is no value (nothing asked or judged), never 0.0."""
    return "-" if value is None or math.isnan(float(value)) else f"{100 * float(value):.1f}"
