"""PerSo's non-LLM baselines and the length-robustness check (§A.7, §A.8, Table 9, Table 10).

- Length heuristic: pick the longer reply (root reply, and the persuader's whole path) -- paper: 65.5%.
- Surface features (the 14 of `features`) with a logistic regression, 5-fold stratified cross-validation -- paper:
  62.5-68.0%. Each pair enters once, in a seeded orientation (features of one reply minus the other's; the label
  says whether the first is the delta reply), so "first" carries no signal.
- SBERT on the cognitive items: the option most similar to the dialogue the model sees (post + persuader reply)
  -- paper: 21.00 / 23.25 / 11.75% on belief / emotion / intent, below chance.
- Length robustness: drop pairs whose delta reply is more than 4.97x longer -- paper: 167 of 200 kept.
"""

from __future__ import annotations

import random
import statistics
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from rich.console import Console
from rich.table import Table

from ...conversations.model import Thread
from ...shared.statistics import bootstrap_ci, percent
from . import paper
from .data import DIMENSIONS, LENGTH_RATIO_LIMIT, Pair, clean_post, load_pairs, load_threads, words
from .features import FEATURES, surface_features
from .items import CognitiveItem, load_items

_SBERT = paper.COGNITIVE["SBERT baseline"][0]
PAPER: dict[str, Any] = {  # as printed next to our numbers; the values themselves live in paper.py
    "length heuristic": f"{paper.BASELINES['length heuristic'][0]} (Table 9)",
    "surface-feature classifier": f"62.5-{paper.BASELINES['surface-feature classifier (best)'][0]} (Table 9)",
    "sbert": {dim: f"{_SBERT[dim]:.2f}" for dim in DIMENSIONS},
    "length-robust kept": "167 of 200 (§A.8)",
}


def length_heuristic(rows: Sequence[tuple[float, float]]) -> float:
    """Accuracy of choosing the longer of (delta, other); a tie counts half (no information either way)."""
    if not rows:
        return float("nan")
    return statistics.fmean(1.0 if w > lo else 0.5 if w == lo else 0.0 for w, lo in rows)


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
) -> tuple[float, float, list[float]]:
    """Mean and SD of 5-fold stratified CV accuracy of a standardized logistic regression (scikit-learn)."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold, cross_val_score
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    x, y = oriented(winner, loser, seed)
    if columns is not None:
        x = x[:, list(columns)]
    if len(y) < 10 or len(set(y)) < 2:
        raise ValueError(f"the classifier needs at least 10 pairs of both orientations, got {len(y)}")
    model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))
    folds = StratifiedKFold(n_splits=5, shuffle=True, random_state=seed)
    scores = cross_val_score(model, x, y, cv=folds, scoring="accuracy")
    return float(scores.mean()), float(scores.std()), [float(s) for s in scores]


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
        dialogue = f"{clean_post(thread.root.text)}\n\n{thread.node(item.reply_id).text}"
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


def behavioral_baselines(pairs: Sequence[Pair], seed: int = 0) -> dict[str, Any]:
    robust = [p for p in pairs if p.length_ratio() <= LENGTH_RATIO_LIMIT]
    root = [(words(p.winner.reply.text), words(p.loser.reply.text)) for p in pairs]
    path = [(sum(words(n.text) for n in p.winner.path), sum(words(n.text) for n in p.loser.path)) for p in pairs]
    winner = [surface_features(p.winner) for p in pairs]
    loser = [surface_features(p.loser) for p in pairs]
    out: dict[str, Any] = {
        "pairs": len(pairs),
        "length_root": length_heuristic(root),
        "length_path": length_heuristic(path),
        "length_robust_pairs": len(robust),
        "length_root_robust": length_heuristic(
            [(words(p.winner.reply.text), words(p.loser.reply.text)) for p in robust]
        ),
        "delta_reply_longer_by": statistics.fmean(w / max(1, lo) for w, lo in root) - 1 if root else float("nan"),
        "features": list(FEATURES),
    }
    try:
        mean, sd, folds = feature_classifier(winner, loser, seed)
        words_only = feature_classifier(winner, loser, seed, columns=[FEATURES.index("words")])
        out |= {
            "classifier": mean,
            "classifier_sd": sd,
            "classifier_folds": folds,
            "classifier_words_only": words_only[0],
        }
    except ValueError as exc:
        out["classifier_error"] = str(exc)
    return out


def baselines(
    console: Console,
    as_json: bool = False,
    threads: str | None = None,
    items: str | None = None,
    subset: str = "200",
    seed: int = 0,
    embedder: str = "minilm",
) -> None:
    """Non-LLM baselines on the behavioral pairs (length heuristic, 14-feature logistic regression, 5-fold CV,
    length-robust subset) and the SBERT baseline on the cognitive items.

    Args:
        threads: PerSo threads as an episodes JSONL (default: the shipped ones).
        items: cognitive items JSONL (default: the shipped sample items).
        subset: behavioral threads: a number drawn at random (seeded) or ``all``.
        seed: sampling, pair choice and classifier seed.
        embedder: sentence-transformers model of the SBERT baseline (``minilm`` = bundled all-MiniLM-L6-v2).
    """
    built, pairs = load_pairs(threads, subset, seed)
    behavioral = behavioral_baselines(pairs, seed)
    loaded = load_items(items)
    by_id = {t.id: t for t in load_threads(threads)}
    sbert_rows = sbert_choice(loaded, by_id, embedder)
    sbert: dict[str, Any] = {"embedder": embedder, "items": len(sbert_rows)}
    for dim in DIMENSIONS:
        rows = [r for r in sbert_rows if r["dimension"] == dim]
        values = [r["correct"] for r in rows]
        sbert[dim] = {
            "n": len(rows),
            "accuracy": statistics.fmean(values) if values else None,
            "ci95": bootstrap_ci(values) if values else None,
            "gold_least_similar": statistics.fmean(r["gold_least_similar"] for r in rows) if rows else None,
        }
    result = {"subset": subset, "seed": seed, "behavioral": behavioral, "sbert": sbert, "paper": PAPER}
    if as_json:
        console.print_json(data=result)
        return
    table = Table(title=f"PerSo behavioral baselines on {behavioral['pairs']} pairs (subset={subset}, seed={seed})")
    for col in ("baseline", "accuracy %", "paper %"):
        table.add_column(col)
    table.add_row("longer root reply", percent(behavioral["length_root"]), PAPER["length heuristic"])
    table.add_row("longer persuader path", percent(behavioral["length_path"]), "-")
    if "classifier" in behavioral:
        table.add_row(
            "14 surface features, logistic regression (5-fold CV)",
            f"{percent(behavioral['classifier'])} ± {percent(behavioral['classifier_sd'])}",
            PAPER["surface-feature classifier"],
        )
        table.add_row(
            "word count only, logistic regression (5-fold CV)", percent(behavioral["classifier_words_only"]), "-"
        )
    else:
        table.add_row("14 surface features, logistic regression", "-", behavioral["classifier_error"])
    table.add_row(
        f"longer root reply, length-robust subset ({behavioral['length_robust_pairs']} kept)",
        percent(behavioral["length_root_robust"]),
        PAPER["length-robust kept"],
    )
    console.print(table)
    console.print(
        f"Delta replies are {100 * behavioral['delta_reply_longer_by']:.0f}% longer on average "
        "(mean per-pair word ratio - 1; paper: 56%). "
        "Construction: " + ", ".join(f"{c.name} {c.threads}" for c in built.counts)
    )
    cog = Table(
        title=f"SBERT baseline ({embedder}) on {sbert['items']} cognitive items: most similar option to the dialogue"
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
