"""Inter-annotator agreement, from the kept libraries: Cohen's and Fleiss' kappa (statsmodels) and Krippendorff's
alpha (krippendorff). Ratings come as ``{annotator: {unit: label}}``; a unit an annotator skipped is missing."""

from __future__ import annotations

import itertools
import math
from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

import krippendorff
import numpy as np
from statsmodels.stats.inter_rater import aggregate_raters, cohens_kappa, fleiss_kappa, to_table

Ratings = Mapping[str, Mapping[Any, Any]]
Level = Literal["nominal", "ordinal", "interval", "ratio"]


def _codes(ratings: Ratings) -> dict[Hashable, int]:
    labels = sorted({label for by_unit in ratings.values() for label in by_unit.values()}, key=str)
    return {label: i for i, label in enumerate(labels)}


def krippendorff_alpha(ratings: Ratings, level: Level = "nominal") -> float:
    """Alpha over every unit rated by at least one annotator (missing ratings allowed); NaN when undefined
    (fewer than two annotators, or no unit with two ratings, or a single category overall)."""
    annotators = sorted(ratings)
    units = sorted({u for by_unit in ratings.values() for u in by_unit}, key=str)
    numeric = level != "nominal"
    codes = {} if numeric else _codes(ratings)
    matrix = np.full((len(annotators), len(units)), np.nan)
    for i, a in enumerate(annotators):
        for j, u in enumerate(units):
            if u in ratings[a]:
                label = ratings[a][u]
                matrix[i, j] = float(label) if numeric else codes[label]
    pairable = np.sum(~np.isnan(matrix), axis=0) >= 2
    values = matrix[:, pairable]
    if len(annotators) < 2 or not pairable.any() or len(np.unique(values[~np.isnan(values)])) < 2:
        return math.nan
    return float(krippendorff.alpha(reliability_data=matrix, level_of_measurement=level))


def alpha_text(alpha: float, ratings: Ratings) -> str:
    """Krippendorff's alpha as a report prints it: the value, or ``n/a (why)`` where it is undefined."""
    if not math.isnan(alpha):
        return f"{alpha:.3f}"
    annotators = [a for a, by_unit in ratings.items() if by_unit]
    if len(annotators) < 2:
        return f"n/a ({len(annotators)} annotator{'s' if len(annotators) != 1 else ''} with answers; it needs two)"
    counts: dict[Hashable, int] = {}
    for by_unit in ratings.values():
        for unit in by_unit:
            counts[unit] = counts.get(unit, 0) + 1
    if not any(c >= 2 for c in counts.values()):
        return "n/a (no item rated by two annotators yet)"
    return "n/a (every rating is the same value: nothing to agree or disagree on)"


def cohen_kappa(a: Mapping[Hashable, Hashable], b: Mapping[Hashable, Hashable]) -> float:
    """Cohen's kappa of two annotators over the units both rated; NaN when fewer than two such units."""
    shared = sorted(set(a) & set(b), key=str)
    if len(shared) < 2:
        return math.nan
    codes = _codes({"a": {u: a[u] for u in shared}, "b": {u: b[u] for u in shared}})
    data = np.array([[codes[a[u]], codes[b[u]]] for u in shared])
    table, _ = to_table(data, bins=len(codes))
    if len(codes) < 2:
        return math.nan  # one category: agreement is perfect but kappa is undefined
    return float(cohens_kappa(table, return_results=False))


def fleiss(ratings: Ratings) -> float:
    """Fleiss' kappa over the units every annotator rated; NaN when fewer than two annotators or units."""
    annotators = sorted(ratings)
    units = sorted(set.intersection(*(set(ratings[a]) for a in annotators)), key=str) if annotators else []
    if len(annotators) < 2 or len(units) < 2:
        return math.nan
    codes = _codes(ratings)
    data = np.array([[codes[ratings[a][u]] for a in annotators] for u in units])
    table, _ = aggregate_raters(data, n_cat=len(codes))
    return float(fleiss_kappa(table, method="fleiss"))


@dataclass
class Agreement:
    annotators: list[str]
    units: int
    pairwise_cohen: dict[str, float]
    mean_cohen: float
    fleiss: float
    alpha: float


def agreement(ratings: Ratings, level: Level = "nominal") -> Agreement:
    """Pairwise Cohen's kappa (and their mean), Fleiss' kappa and Krippendorff's alpha of one set of ratings."""
    annotators = sorted(ratings)
    pairs = {f"{x}-{y}": cohen_kappa(ratings[x], ratings[y]) for x, y in itertools.combinations(annotators, 2)}
    finite = [v for v in pairs.values() if not math.isnan(v)]
    return Agreement(
        annotators=annotators,
        units=len({u for by_unit in ratings.values() for u in by_unit}),
        pairwise_cohen=pairs,
        mean_cohen=float(np.mean(finite)) if finite else math.nan,
        fleiss=fleiss(ratings),
        alpha=krippendorff_alpha(ratings, level),
    )
