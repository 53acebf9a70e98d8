"""SI-Bench's figures and tables for `socialbench report sibench --html / --figures / --tables`: process and
reply scores per model (Table 1 as a figure), scores per situation and per context group (RQ2), ablation deltas
(Table 2), reply length and richness (Fig. 4), reply-CoT similarity (Fig. 5) and CoT-vs-direct win rates.
Every bar is a mean over judged samples with its bootstrap 95% CI and n."""

from __future__ import annotations

from typing import Any

from ...shared.figures import Estimate, bars, estimate
from ...shared.reporting import Document, Figure, Section, Table, provenance
from . import analysis
from .paper import TABLE1, TABLE1_COLUMNS, TABLE1_SOURCE
from .prompts import COMPONENT_KEYS

SCORE_GROUPS = [*COMPONENT_KEYS, "cot_reply", "direct_reply"]


def _values(rows: list[dict[str, Any]], key: str) -> list[float]:
    return [float(r[key]) for r in rows if r.get(key) is not None]


def _score_estimates(rows: list[dict[str, Any]], model: str) -> list[Estimate]:
    mine = [r for r in rows if r["model"] == model]
    cot = analysis._judged([r for r in mine if r["mode"] == "cot" and not r["ablate"]])
    direct = analysis._judged([r for r in mine if r["mode"] == "direct"])
    return [
        *(estimate(_values(cot, k)) for k in COMPONENT_KEYS),
        estimate(_values(cot, "reply")),
        estimate(_values(direct, "reply")),
    ]


def _table(name: str, title: str, columns: list[str], rows: list[list[Any]]) -> Table:
    return Table(name, title, columns, rows)


def _est_cells(est: Estimate) -> list[Any]:
    return [est.value, est.low, est.high, est.n]


def document(logs: list[str], compare_paper: bool = False) -> Document:
    rows = analysis.score_rows(logs)
    models = sorted({r["model"] for r in rows})
    sections: list[Section] = []

    scores = {m: _score_estimates(rows, m) for m in models}
    paper_series = (
        {f"{name} ({TABLE1_SOURCE})": [values.get(k) for k in SCORE_GROUPS] for name, values in TABLE1.items()}
        if compare_paper
        else None
    )
    table1 = bars(
        "Process and reply scores per model (Table 1)",
        SCORE_GROUPS,
        scores,
        ylabel="score (0-10)",
        scale=1.0,
        paper=paper_series,
        ylim=(0, 10.5),
    )
    t1 = _table(
        "sibench-table1",
        "Table 1: mean score (0-10) [95% CI] (n judged)",
        ["model", *[f"{g} {k}" for g in SCORE_GROUPS for k in ("mean", "CI low", "CI high", "n")]],
        [[m, *[c for est in scores[m] for c in _est_cells(est)]] for m in models],
    )
    parts: list[Table | Figure] = [Figure("sibench-table1", "Process and reply scores", table1), t1]
    if compare_paper:
        parts.append(
            _table(
                "sibench-paper",
                f"SI-Bench's published scores ({TABLE1_SOURCE}), where our copy of the table is unambiguous",
                ["who", *TABLE1_COLUMNS],
                [[name, *[values.get(k) for k in TABLE1_COLUMNS]] for name, values in TABLE1.items()],
            )
        )
    sections.append(Section("Scores (RQ1)", parts))

    for key, title, name in (
        ("situation", "CoT reply score per situation (RQ2)", "sibench-situation"),
        ("context_group", "CoT reply score by context group (RQ2)", "sibench-context"),
    ):
        judged = analysis._judged([r for r in rows if r["mode"] == "cot" and not r["ablate"]])
        groups = sorted({str(r.get(key)) for r in judged})
        if not groups:
            continue
        series = {
            m: [
                estimate(_values([r for r in judged if r["model"] == m and str(r.get(key)) == g], "reply"))
                for g in groups
            ]
            for m in models
        }
        figure = bars(title, groups, series, ylabel="reply score (0-10)", scale=1.0, ylim=(0, 10.5))
        table = _table(
            name,
            f"{title}: mean [95% CI] (n)",
            ["model", *[f"{g} {k}" for g in groups for k in ("mean", "CI low", "CI high", "n")]],
            [[m, *[c for est in series[m] for c in _est_cells(est)]] for m in models],
        )
        sections.append(Section(title, [Figure(name, title, figure), table]))

    deltas = analysis.ablation_deltas(rows)
    if deltas:
        removed = sorted({d["removed"] for d in deltas})
        series = {
            m: [
                next((Estimate(d["delta"]) for d in deltas if d["model"] == m and d["removed"] == c), Estimate(None))
                for c in removed
            ]
            for m in sorted({d["model"] for d in deltas})
        }
        figure = bars(
            "Ablation: reply score without a CoT component minus full CoT (Table 2)",
            removed,
            series,
            ylabel="Δ reply score",
            scale=1.0,
        )
        table = _table(
            "sibench-ablation",
            "Ablation deltas (Table 2)",
            ["model", "removed", "reply", "full CoT reply", "Δ"],
            [[d["model"], d["removed"], d["reply"], d["full_cot_reply"], d["delta"]] for d in deltas],
        )
        sections.append(Section("Ablations", [Figure("sibench-ablation", "Ablation deltas", figure), table]))

    styled = [r for r in rows if "reply_length" in r]
    if styled:
        keys = sorted({(r["model"], r["mode"]) for r in styled})
        labels = [f"{m} · {mode}" for m, mode in keys]
        per = {k: [r for r in styled if (r["model"], r["mode"]) == k] for k in keys}
        length = bars(
            "Reply length (Fig. 4)",
            labels,
            {"characters": [estimate(_values(per[k], "reply_length")) for k in keys]},
            ylabel="characters",
            scale=1.0,
        )
        richness = bars(
            "Reply richness (Fig. 4)",
            labels,
            {
                "vocabulary diversity": [estimate(_values(per[k], "reply_diversity")) for k in keys],
                "entropy / 10 bits": [estimate([v / 10 for v in _values(per[k], "reply_entropy")]) for k in keys],
            },
            ylabel="value",
            scale=1.0,
        )
        table = _table(
            "sibench-style",
            "Reply length and richness (Fig. 4), per model and mode",
            ["model", "mode", "n", "length", "diversity", "entropy (bits)"],
            [
                [s["model"], s["mode"], s["n"], s["length"], s["diversity"], s["entropy"]]
                for s in analysis.reply_style(rows)
            ],
        )
        sections.append(
            Section(
                "Reply style",
                [
                    Figure("sibench-length", "Reply length", length),
                    Figure("sibench-richness", "Reply richness", richness),
                    table,
                ],
            )
        )

    pairs = [r for r in rows if r["mode"] == "pairwise" and r.get("judged")]
    if pairs:
        pair_models = sorted({r["model"] for r in pairs})
        figure = bars(
            "CoT reply preferred over direct reply (pairwise, blind)",
            pair_models,
            {
                "CoT win rate": [
                    estimate(_values([r for r in pairs if r["model"] == m], "cot_wins")) for m in pair_models
                ]
            },
            ylabel="win rate (%)",
            references={"no preference (50%)": 0.5},
        )
        sections.append(Section("Pairwise", [Figure("sibench-winrate", "CoT win rate", figure)]))

    similarity = _similarity(logs)
    if similarity:
        comps = sorted({s["component"] for s in similarity})
        sim_models = sorted({s["model"] for s in similarity})
        series = {
            m: [
                next(
                    (
                        Estimate(s["similarity"], n=s["n"])
                        for s in similarity
                        if s["model"] == m and s["component"] == c
                    ),
                    Estimate(None),
                )
                for c in comps
            ]
            for m in sim_models
        }
        figure = bars("Reply-CoT component similarity (Fig. 5)", comps, series, ylabel="cosine similarity", scale=1.0)
        table = _table(
            "sibench-similarity",
            "Reply-CoT similarity (Fig. 5): mean cosine similarity (n)",
            ["model", "component", "similarity", "n"],
            [[s["model"], s["component"], s["similarity"], s["n"]] for s in similarity],
        )
        sections.append(Section("Similarity", [Figure("sibench-similarity", "Reply-CoT similarity", figure), table]))
    return Document("sibench", "SI-Bench report", provenance(logs), sections)


def _similarity(logs: list[str]) -> list[dict[str, Any]]:
    try:
        from .similarity import reply_cot_similarity

        return reply_cot_similarity(logs)
    except RuntimeError:  # the similarity extra is not installed
        return []
