"""PerSo's non-LLM baselines and the length-robustness check (§A.7, §A.8, Table 9, Table 10).

Every baseline compares like with like: the same unit on both sides of a pair, and nothing that encodes how the
pairs were built. The single-turn rule keeps only delta paths of one comment, while the other side's path keeps
all its comments, so on a constructed sample a *whole-path* comparison reads the construction, not persuasion.

- Length heuristic: pick the longer of the two, in whitespace-separated words (a tie counts half) -- paper: 65.5%.
  Both units (the persuader's root reply, the whole path) on all the matched pairs of the threads given (before
  the construction rules, where both sides are whole paths as the source has them); the root reply alone on the
  constructed sample. Each with n and a bootstrap 95% CI over pairs.
- Surface features (the 14 of `features`, all on the root reply) with four scikit-learn classifiers (logistic
  regression, linear SVM, random forest, gradient boosting), 5-fold stratified cross-validation, repeated over
  seeds 0-4 of the orientation and fold split: mean, SD and range over seeds -- paper: 62.5-68.0%. Each pair
  enters once, in a seeded orientation (features of one reply minus the other's; the label says whether the first
  is the delta reply), so "first" carries no signal.
- SBERT on the cognitive items: the option most similar to the dialogue the model sees (post + persuader reply)
  -- paper: 21.00 / 23.25 / 11.75% on belief / emotion / intent, below chance. Only items whose thread is in the
  threads file are scored, and the output says how many.
- Length robustness (§A.8): drop pairs whose delta reply is more than 4.97x longer (words) than the other.
"""

from __future__ import annotations

import random
import statistics
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
from rich.console import Console

from ...conversations.model import Thread
from ...core.jsonl import dump_json
from ...shared.statistics import bootstrap_ci, percent
from ...shared.terminal import Table
from . import paper
from .data import (
    DIMENSIONS,
    LENGTH_RATIO_LIMIT,
    Pair,
    Unchecked,
    candidate_pairs,
    load_pairs,
    load_threads,
    shown_post,
    words,
)
from .features import FEATURES, surface_features
from .items import CognitiveItem, load_items

_SBERT = paper.COGNITIVE["SBERT baseline"][0]
PAPER: dict[str, Any] = {  # as printed next to our numbers; the values themselves live in paper.py
    "length heuristic": f"{paper.BASELINES['length heuristic'][0]} (Table 9)",
    "surface-feature classifier": f"62.5-{paper.BASELINES['surface-feature classifier (best)'][0]} (Table 9)",
    "sbert": {dim: f"{_SBERT[dim]:.2f}" for dim in DIMENSIONS},
    "length-robust removed": "33 of its 200 (§A.8)",
    "longer by": "56% (§3.1)",
}
SEEDS = (0, 1, 2, 3, 4)
"""Seeds of the orientation and fold split the classifiers are repeated over (the spread is part of the result)."""


def _classifiers() -> dict[str, Callable[[int], Any]]:
    from sklearn.ensemble import GradientBoostingClassifier, RandomForestClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import LinearSVC

    return {
        "logistic regression": lambda seed: make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)),
        "linear SVM": lambda seed: make_pipeline(StandardScaler(), LinearSVC(random_state=seed)),
        "random forest": lambda seed: RandomForestClassifier(n_estimators=200, random_state=seed),
        "gradient boosting": lambda seed: GradientBoostingClassifier(random_state=seed),
    }


CLASSIFIERS = ("logistic regression", "linear SVM", "random forest", "gradient boosting")


def length_heuristic(rows: Sequence[tuple[float, float]]) -> float:
    """Accuracy of choosing the longer of (delta, other); a tie counts half (no information either way)."""
    if not rows:
        return float("nan")
    return statistics.fmean(_longer_wins(rows))


def _longer_wins(rows: Sequence[tuple[float, float]]) -> list[float]:
    return [1.0 if w > lo else 0.5 if w == lo else 0.0 for w, lo in rows]


def length_estimate(rows: Sequence[tuple[float, float]]) -> dict[str, Any]:
    """The longer-wins accuracy with n, ties and a bootstrap 95% CI over pairs."""
    values = _longer_wins(rows)
    if not values:
        return {"n": 0, "accuracy": None, "ci95": None, "ties": 0}
    return {
        "n": len(values),
        "accuracy": statistics.fmean(values),
        "ci95": list(bootstrap_ci(values, outcomes="binary")),
        "ties": sum(1 for v in values if v == 0.5),
    }


def root_lengths(pairs: Sequence[Pair]) -> list[tuple[float, float]]:
    return [(words(p.winner.reply.text), words(p.loser.reply.text)) for p in pairs]


def path_lengths(pairs: Sequence[Pair]) -> list[tuple[float, float]]:
    return [(sum(words(n.text) for n in p.winner.path), sum(words(n.text) for n in p.loser.path)) for p in pairs]


def oriented(winner: Sequence[Sequence[float]], loser: Sequence[Sequence[float]], seed: int) -> tuple[Any, Any]:
    """Difference vectors in a seeded orientation per pair, and whether the first of each is the delta reply."""
    rng = random.Random(seed)
    x, y = [], []
    for w, lo in zip(winner, loser, strict=True):
        first_is_winner = rng.random() < 0.5
        a, b = (w, lo) if first_is_winner else (lo, w)
        x.append(np.asarray(a, dtype=float) - np.asarray(b, dtype=float))
        y.append(int(first_is_winner))
    return np.array(x), np.array(y)


def feature_classifier(
    winner: Sequence[Sequence[float]],
    loser: Sequence[Sequence[float]],
    seed: int = 0,
    columns: Sequence[int] | None = None,
    model: str = "logistic regression",
) -> tuple[float, float, list[float]]:
    """Mean and SD over the folds of 5-fold stratified CV accuracy of one classifier (scikit-learn), for one seed
    of the orientation and fold split."""
    from sklearn.model_selection import StratifiedKFold, cross_val_score

    x, y = oriented(winner, loser, seed)
    if columns is not None:
        x = x[:, list(columns)]
    if len(y) < 10 or len(set(y)) < 2:
        raise ValueError(f"the classifier needs at least 10 pairs of both orientations, got {len(y)}")
    folds = StratifiedKFold(n_splits=5, shuffle=True, random_state=seed)
    scores = cross_val_score(_classifiers()[model](seed), x, y, cv=folds, scoring="accuracy")
    return float(scores.mean()), float(scores.std()), [float(s) for s in scores]


def classifier_over_seeds(
    winner: Sequence[Sequence[float]],
    loser: Sequence[Sequence[float]],
    model: str = "logistic regression",
    seeds: Sequence[int] = SEEDS,
    columns: Sequence[int] | None = None,
) -> dict[str, Any]:
    """One classifier's 5-fold CV accuracy repeated over ``seeds``: mean, SD (over seeds), range and each seed's."""
    per_seed = [feature_classifier(winner, loser, s, columns, model)[0] for s in seeds]
    return {
        "model": model,
        "seeds": list(seeds),
        "per_seed": per_seed,
        "mean": statistics.fmean(per_seed),
        "sd": statistics.stdev(per_seed) if len(per_seed) > 1 else 0.0,
        "min": min(per_seed),
        "max": max(per_seed),
    }


def sbert_choice(
    items: Sequence[CognitiveItem], threads: Mapping[str, Thread], embedder: str = "minilm"
) -> list[dict[str, Any]]:
    """Per item: is the option most similar to the dialogue the gold one, and is the gold the least similar?"""
    from sentence_transformers import util

    from ...shared.embeddings import load_embedder

    model = load_embedder(embedder)
    rows = []
    for item in items:
        thread = threads[item.thread_id]
        dialogue = f"{shown_post(thread)}\n\n{thread.node(item.reply_id).text}"
        sims = util.cos_sim(model.encode([dialogue], "query"), model.encode(item.options))[0].tolist()
        rows.append(
            {
                "id": item.id,
                "dimension": item.dimension,
                "correct": int(int(np.argmax(sims)) == item.gold),
                "gold_least_similar": int(int(np.argmin(sims)) == item.gold),
            }
        )
    return rows


def length_statistics(pairs: Sequence[Pair]) -> dict[str, Any]:
    """How much longer delta replies are (root replies, words): the paper's statistic read as the ratio of the mean
    lengths, and the mean of the per-pair ratios; both minus 1."""
    rows = root_lengths(pairs)
    if not rows:
        return {"ratio_of_means": None, "mean_of_ratios": None}
    return {
        "ratio_of_means": statistics.fmean(w for w, _ in rows) / max(1e-9, statistics.fmean(lo for _, lo in rows)) - 1,
        "mean_of_ratios": statistics.fmean(w / max(1, lo) for w, lo in rows) - 1,
    }


def behavioral_baselines(
    pairs: Sequence[Pair], source_pairs: Sequence[Pair] = (), seeds: Sequence[int] = SEEDS
) -> dict[str, Any]:
    """The behavioral baselines on a constructed sample (``pairs``) and, for the length heuristic, on all the
    matched pairs of the threads before the construction rules (``source_pairs``)."""
    robust = [p for p in pairs if p.length_ratio() <= LENGTH_RATIO_LIMIT]
    winner = [surface_features(p.winner) for p in pairs]
    loser = [surface_features(p.loser) for p in pairs]
    out: dict[str, Any] = {
        "pairs": len(pairs),
        "source_pairs": len(source_pairs),
        "length_source_root": length_estimate(root_lengths(source_pairs)),
        "length_source_path": length_estimate(path_lengths(source_pairs)),
        "length_root": length_estimate(root_lengths(pairs)),
        "length_path": None,
        "length_path_why": "not comparable on the constructed sample: the single-turn rule keeps only one-comment "
        "delta paths, while the other side keeps all its comments",
        "length_robust_pairs": len(robust),
        "length_robust_removed": len(pairs) - len(robust),
        "length_root_robust": length_estimate(root_lengths(robust)),
        "longer_by": length_statistics(pairs),
        "features": list(FEATURES),
        "classifiers": {},
    }
    try:
        for name in CLASSIFIERS:
            out["classifiers"][name] = classifier_over_seeds(winner, loser, name, seeds)
        out["classifier_words_only"] = classifier_over_seeds(
            winner, loser, "logistic regression", seeds, columns=[FEATURES.index("words")]
        )
    except ValueError as exc:
        out["classifier_error"] = str(exc)
    return out


def _cell(est: dict[str, Any] | None) -> str:
    if not est or est.get("accuracy") is None:
        return "-"
    lo, hi = est["ci95"]
    return f"{percent(est['accuracy'])} [{percent(lo)}, {percent(hi)}] (n={est['n']})"


def baselines(
    console: Console,
    as_json: bool = False,
    threads: str | None = None,
    items: str | None = None,
    subset: str = "200",
    seed: int = 0,
    embedder: str = "minilm",
    unchecked: Unchecked = "admit",
) -> None:
    """Non-LLM baselines on the behavioral pairs (length heuristic on root replies and whole paths, four
    classifiers on 14 surface features over seeds 0-4, length-robust subset) and the SBERT baseline on the
    cognitive items whose threads are in the threads file.

    Args:
        threads: PerSo threads as an episodes JSONL (default: the shipped ones).
        items: cognitive items JSONL (default: the shipped sample items).
        subset: behavioral threads: a number drawn at random (seeded) or ``all``.
        seed: sampling and pair choice seed (the classifiers run over seeds 0-4 of their own split).
        embedder: sentence-transformers model of the SBERT baseline (``minilm`` = bundled all-MiniLM-L6-v2).
        unchecked: ``admit`` threads on which a construction rule could not be checked, recorded per pair
            (default), or ``exclude`` them (strict).
    """
    loaded_threads = load_threads(threads)
    source_pairs = [p for t in loaded_threads for p in candidate_pairs(t)]
    built, pairs = load_pairs(threads, subset, seed, unchecked)
    behavioral = behavioral_baselines(pairs, source_pairs)
    loaded = load_items(items)
    by_id = {t.id: t for t in loaded_threads}
    usable = [i for i in loaded if i.thread_id in by_id and item_node_present(i, by_id[i.thread_id])]
    sbert_rows = sbert_choice(usable, by_id, embedder) if usable else []
    sbert: dict[str, Any] = {"embedder": embedder, "items": len(sbert_rows), "items_in_file": len(loaded)}
    for dim in DIMENSIONS:
        rows = [r for r in sbert_rows if r["dimension"] == dim]
        values = [r["correct"] for r in rows]
        sbert[dim] = {
            "n": len(rows),
            "accuracy": statistics.fmean(values) if values else None,
            "ci95": bootstrap_ci(values, outcomes="binary") if values else None,
            "gold_least_similar": statistics.fmean(r["gold_least_similar"] for r in rows) if rows else None,
        }
    result = {
        "subset": subset,
        "seed": seed,
        "unchecked": unchecked,
        "construction": [vars(c) for c in built.counts],
        "behavioral": behavioral,
        "sbert": sbert,
        "paper": PAPER,
    }
    if as_json:
        console.file.write(dump_json(result) + "\n")
        return
    _print_behavioral(console, behavioral, subset, seed, unchecked)
    if not sbert_rows:
        console.print(
            f"SBERT baseline: none of the {len(loaded)} cognitive items belongs to a thread of this threads file; "
            "pass -A items=FILE with items for these threads."
        )
        return
    cog = Table(
        title=f"SBERT baseline ({embedder}) on {sbert['items']} of {len(loaded)} cognitive items (those whose thread "
        "is in the threads file): the option most similar to the dialogue"
    )
    for col in ("dimension", "n", "accuracy % [95% CI]", "gold least similar %", "paper %"):
        cog.add_column(col)
    for dim in DIMENSIONS:
        row = sbert[dim]
        ci = f" [{percent(row['ci95'][0])}, {percent(row['ci95'][1])}]" if row["ci95"] else ""
        cog.add_row(
            dim, str(row["n"]), percent(row["accuracy"]) + ci, percent(row["gold_least_similar"]), PAPER["sbert"][dim]
        )
    console.print(cog)


def item_node_present(item: CognitiveItem, thread: Thread) -> bool:
    return item.reply_id in {n.id for n in thread.nodes}


def _print_behavioral(console: Console, b: dict[str, Any], subset: str, seed: int, unchecked: str) -> None:
    table = Table(
        title="PerSo behavioral baselines: longer reply wins, words, a tie counts half; accuracy % [95% CI over pairs]"
    )
    for col in ("pairs", "unit", "accuracy %", "ties", "paper %"):
        table.add_column(col)
    table.add_row(
        f"all {b['source_pairs']} matched pairs of the threads (before the rules)",
        "root reply",
        _cell(b["length_source_root"]),
        str(b["length_source_root"]["ties"]),
        "-",
    )
    table.add_row("", "whole path", _cell(b["length_source_path"]), str(b["length_source_path"]["ties"]), "-")
    table.add_row(
        f"constructed sample (subset={subset}, seed={seed}, unchecked={unchecked})",
        "root reply",
        _cell(b["length_root"]),
        str(b["length_root"]["ties"]),
        PAPER["length heuristic"],
    )
    table.add_row("", "whole path", "-", "-", b["length_path_why"])
    table.add_row(
        f"length-robust subset: {b['length_robust_removed']} of {b['pairs']} removed (delta reply > "
        f"{LENGTH_RATIO_LIMIT}x the other)",
        "root reply",
        _cell(b["length_root_robust"]),
        str(b["length_root_robust"]["ties"]),
        f"removed {PAPER['length-robust removed']}",
    )
    console.print(table)
    if b["classifiers"]:
        seeds = ", ".join(map(str, SEEDS))
        clf = Table(
            title=f"14 surface features of the root reply ({', '.join(b['features'])}), 5-fold stratified CV on "
            f"{b['pairs']} pairs, repeated over seeds {seeds}"
        )
        for col in ("classifier", "mean ± SD over seeds %", "range %", "per seed %", "paper %"):
            clf.add_column(col)
        rows = [*b["classifiers"].values(), {**b["classifier_words_only"], "model": "word count only (logistic)"}]
        for r in rows:
            clf.add_row(
                r["model"],
                f"{percent(r['mean'])} ± {percent(r['sd'])}",
                f"{percent(r['min'])}-{percent(r['max'])}",
                " / ".join(percent(v) for v in r["per_seed"]),
                PAPER["surface-feature classifier"] if r["model"] in CLASSIFIERS else "-",
            )
        console.print(clf)
    else:
        console.print(f"Surface-feature classifiers: {b.get('classifier_error')}")
    longer = b["longer_by"]
    if longer["ratio_of_means"] is not None:
        console.print(
            f"Delta replies are longer by {100 * longer['ratio_of_means']:.1f}% (ratio of the mean lengths - 1, "
            f"the paper's statistic: {PAPER['longer by']}); the mean of the per-pair ratios - 1 is "
            f"{100 * longer['mean_of_ratios']:.1f}% (root replies, words, {b['pairs']} pairs)."
        )
