"""SI-Bench's figures and tables for `socialbench report sibench --html / --figures / --tables`: process and
reply scores per model (Table 1 as a figure), CoT reply score per situation and per context group (§4.2), ablation
deltas paired on dialogues (Table 2), CoT-process length and richness (Fig. 4), CoT win rates, and the CoT
process's similarity to the CoT vs the direct reply (Fig. 5). Every bar is a mean over judged samples with its
bootstrap 95% CI and n."""

from __future__ import annotations

from typing import Any

from ...shared.figures import Estimate, bars, estimate
from ...shared.ledger import usage_rows
from ...shared.reporting import Document, Figure, Section, Table, provenance
from ...shared.runs import run_info, run_set
from . import analysis
from .paper import HUMAN_ALPHA, TABLE1, TABLE1_COLUMNS, TABLE1_ROW_SOURCES, TABLE1_SOURCE, TABLE2_FULL_COT
from .prompts import COMPONENT_KEYS

SCORE_GROUPS = [*COMPONENT_KEYS, "cot_reply", "direct_reply"]
SCORE_LABELS = [k.replace("_", " ").replace("cot", "CoT") for k in SCORE_GROUPS]
"""Table 1's columns as figures and tables name them: ``emotional attitude``, ``CoT reply``, ..."""
HUMAN_REFERENCE = {
    "cot_reply": TABLE1["Human expert"]["cot_reply"],
    "direct_reply": TABLE1["Human expert"]["direct_reply"],
    "alpha": HUMAN_ALPHA,
    "source": "SI-Bench §3.3, §4.1, Table 1",
}


def _values(rows: list[dict[str, Any]], key: str) -> list[float]:
    """Finite values of ``key`` (NaN marks not judged)."""
    return [float(r[key]) for r in rows if isinstance(r.get(key), int | float) and r[key] == r[key]]


def _score_estimates(rows: list[dict[str, Any]], model: str) -> list[Estimate]:
    """Table 1's columns for one model: from its paper-protocol runs if any, else its single-reply runs."""
    mine = [r for r in rows if r["model"] == model and not r["ablate"]]
    paper = [r for r in mine if r["mode"] == "paper"]
    if paper:
        return [estimate(_values(paper, k)) for k in SCORE_GROUPS]
    cot = analysis._judged([r for r in mine if r["mode"] == "cot"])
    direct = analysis._judged([r for r in mine if r["mode"] == "direct"])
    return [
        *(estimate(_values(cot, k)) for k in COMPONENT_KEYS),
        estimate(_values(cot, "reply")),
        estimate(_values(direct, "reply")),
    ]


def _table1_logs(rows: list[dict[str, Any]], model: str) -> list[str]:
    """The runs Table 1's row of ``model`` is computed from: its paper-protocol runs, else its single-reply runs
    and the pairwise diagnostic its win rate comes from (never an ablation)."""
    mine = [r for r in rows if r["model"] == model and not r["ablate"]]
    used = [r for r in mine if r["mode"] == "paper"] or [r for r in mine if r["mode"] in ("cot", "direct", "pairwise")]
    return _logs_of(used)


def _logs_of(rows: list[dict[str, Any]]) -> list[str]:
    return sorted({str(r["log"]) for r in rows})


def _win_rate(rows: list[dict[str, Any]], model: str) -> Estimate:
    """The CoT win rate of a model's full paper-protocol runs (else its pairwise diagnostic), in %."""
    mine = [r for r in rows if r["model"] == model and not r["ablate"]]
    for mode in ("paper", "pairwise"):
        values = _values([r for r in mine if r["mode"] == mode], "cot_wins")
        if values:
            return estimate(values).scaled()
    return Estimate(None)


def _n_range(ests: list[Estimate]) -> str | int | None:
    counts = sorted({e.n for e in ests if not e.missing})
    if not counts:
        return None
    return counts[0] if len(counts) == 1 else f"{counts[0]}–{counts[-1]}"


def _estimate_table(
    name: str,
    title: str,
    groups: list[str],
    series: dict[str, list[Estimate]],
    rows_are: str = "model",
    group_logs: list[list[str]] | None = None,
) -> Table:
    """A row per series, one column per group: mean [95% CI]; n judged per row (the CSV has each cell's n).
    ``group_logs``: the runs behind each group's column (their samples are a click away in HTML)."""
    return Table(
        name,
        title,
        [rows_are, *groups, "n judged"],
        [[m, *ests, _n_range(ests)] for m, ests in series.items()],
        decimals=2,
        column_logs=[None, *group_logs, None] if group_logs else [],
    )


def _transposed(series: dict[str, list[Estimate]], groups: list[str]) -> dict[str, list[Estimate]]:
    return {g: [ests[i] for ests in series.values()] for i, g in enumerate(groups)}


def _scores_section(rows: list[dict[str, Any]], models: list[str], compare_paper: bool) -> Section:
    scores = {m: _score_estimates(rows, m) for m in models}
    protocols = {r["model"]: r["protocol"] for r in analysis.table1(rows)}
    paper_series = (
        {f"{name} ({TABLE1_SOURCE})": [values.get(k) for k in SCORE_GROUPS] for name, values in TABLE1.items()}
        if compare_paper
        else None
    )
    figure = bars(
        "Process and reply scores per model (Table 1)",
        SCORE_LABELS,
        scores,
        ylabel="score (0-10)",
        scale=1.0,
        paper=paper_series,
        ylim=(0, 11.8),
    )
    parts: list[Table | Figure] = [
        Figure("sibench-table1", "Process and reply scores", figure),
        Table(
            "sibench-table1",
            "Table 1: mean score (0–10) [95% CI], models as rows (human replies their own row; each row names its "
            "language and subset when the logs hold several); CoT win rate in %; how each row was judged",
            ["model", *SCORE_LABELS, "n judged", "CoT win rate %", "protocol"],
            [
                [m, *ests, _n_range(ests), _win_rate(rows, m), analysis.PROTOCOLS.get(protocols.get(m, ""), "-")]
                for m, ests in scores.items()
            ],
            decimals=2,
            row_logs=[_table1_logs(rows, m) for m in scores],
        ),
    ]
    if compare_paper:
        parts.append(
            Table(
                "sibench-paper",
                f"SI-Bench's published scores ({TABLE1_SOURCE}), where our copy of the table is unambiguous",
                ["who", *[k.replace("_", " ").replace("cot", "CoT") for k in TABLE1_COLUMNS], "source"],
                [
                    [name, *[values.get(k) for k in TABLE1_COLUMNS], TABLE1_ROW_SOURCES.get(name, TABLE1_SOURCE)]
                    for name, values in TABLE1.items()
                ],
                decimals=2,
            )
        )
    return Section("Scores (RQ1)", parts)


def _process_score(row: dict[str, Any]) -> float | None:
    """A row's mean process score over the components the judge scored (Fig. 6 plots this per situation)."""
    values = [v for k in COMPONENT_KEYS for v in _values([row], k)]
    return sum(values) / len(values) if values else None


def _group_sections(rows: list[dict[str, Any]], models: list[str]) -> list[Section]:
    full = [r for r in rows if not r["ablate"] and r["mode"] in ("paper", "cot")]
    scored = [{**r, "cot_reply_score": analysis.cot_reply_score(r), "process_score": _process_score(r)} for r in full]
    out = []
    for key, measure, title, name, ylabel in (
        ("situation", "process_score", "CoT process score per situation (Fig. 6)", "sibench-situation",
         "process score (0–10)"),
        ("situation", "cot_reply_score", "CoT reply score per situation (§4.2)", "sibench-situation-reply",
         "reply score (0–10)"),
        ("context_group", "process_score", "CoT process score by context group (§4.2: low- vs high-context)",
         "sibench-context", "process score (0–10)"),
        ("context_group", "cot_reply_score", "CoT reply score by context group", "sibench-context-reply",
         "reply score (0–10)"),
    ):  # fmt: skip
        have = [r for r in scored if r[measure] is not None]
        groups = sorted({str(r.get(key)) for r in have})
        if not groups:
            continue
        series = {
            m: [
                estimate(_values([r for r in have if r["model"] == m and str(r.get(key)) == g], measure))
                for g in groups
            ]
            for m in models
            if any(r["model"] == m for r in have)
        }
        figure = bars(title, groups, series, ylabel=ylabel, scale=1.0, ylim=(0, 11.8))
        table = _estimate_table(
            name,
            f"{title}: mean [95% CI], one column per model",
            list(series),
            _transposed(series, groups),
            rows_are=key.replace("_", " "),
            group_logs=[_logs_of([r for r in have if r["model"] == m]) for m in series],
        )
        out.append(Section(title, [Figure(name, title, figure), table]))
    return out


def _ablation_section(rows: list[dict[str, Any]], compare_paper: bool = False) -> Section | None:
    deltas = analysis.ablation_deltas(rows)
    if not deltas:
        return None
    removed = sorted({d["removed"] for d in deltas})

    def cell(model: str, component: str) -> Estimate:
        for d in deltas:
            if d["model"] == model and d["removed"] == component:
                low, high = d["ci95"] or (None, None)
                return Estimate(d["delta"], low, high, d["n"])
        return Estimate(None)

    series = {m: [cell(m, c) for c in removed] for m in sorted({d["model"] for d in deltas})}
    figure = bars(
        "Ablation: CoT reply score without a component minus full CoT, same dialogues (Table 2)",
        removed,
        series,
        ylabel="Δ reply score",
        scale=1.0,
    )
    table = Table(
        "sibench-ablation",
        "Ablation deltas (Table 2), paired on dialogues: Δ [95% CI]",
        ["model", "removed", "compared with (full run)", "dialogues", "reply", "full CoT reply", "Δ", "unpaired"],
        [
            [
                d["model"],
                d["removed"],
                d["baseline"] or "none: no full run of the same model, language, mode, subset, seed and grader",
                d["n"],
                d["reply"],
                d["full_cot_reply"],
                Estimate(d["delta"], (d["ci95"] or (None, None))[0], (d["ci95"] or (None, None))[1], d["n"]),
                d["unpaired"],
            ]
            for d in deltas
        ],
        decimals=2,
        note=" ".join(analysis.ablation_notes(deltas)),
        row_logs=[d["logs"] for d in deltas],
    )
    parts: list[Table | Figure] = [Figure("sibench-ablation", "Ablation deltas", figure), table]
    if compare_paper:
        parts.append(
            Table(
                "sibench-paper-table2",
                "SI-Bench Table 2: the Full CoT reply score on the 100 random ablation dialogues (the per-component "
                "cells are not in our copy)",
                ["model", "full CoT reply", "source"],
                [[m, v, "SI-Bench Table 2"] for m, v in TABLE2_FULL_COT.items()],
                decimals=2,
            )
        )
    return Section("Ablations (§4.4)", parts)


def _style_section(rows: list[dict[str, Any]]) -> Section | None:
    processed = [r for r in rows if "process_words" in r and not r["ablate"]]
    if not processed:
        return None
    labels = sorted({r["model"] for r in processed})
    per = {m: [r for r in processed if r["model"] == m] for m in labels}
    length = bars(
        "CoT process length (Fig. 4)",
        labels,
        {"words": [estimate(_values(per[m], "process_words")) for m in labels]},
        ylabel="words (jieba for Chinese)",
        scale=1.0,
    )
    richness = bars(
        "CoT process content richness (Fig. 4)",
        labels,
        {
            "richness (0.5 diversity + 0.5 normalised entropy)": [
                estimate(_values(per[m], "process_richness")) for m in labels
            ],
            "vocabulary diversity": [estimate(_values(per[m], "process_diversity")) for m in labels],
        },
        ylabel="value (0-1)",
        scale=1.0,
    )
    style_rows = analysis.process_style(rows) + analysis.reply_style(rows)
    table = Table(
        "sibench-style",
        "Fig. 4: words, vocabulary diversity, entropy (bits) and content richness of the CoT process and replies",
        ["model", "text", "n", "words", "diversity", "entropy", "richness"],
        [
            [r["model"], r.get("kind", "CoT process"), r["n"], r["words"], r["diversity"], r["entropy"], r["richness"]]
            for r in style_rows
        ],
        decimals=2,
        row_logs=[r["logs"] for r in style_rows],
    )
    return Section(
        "Process richness (Fig. 4)",
        [
            Figure("sibench-length", "Process length", length),
            Figure("sibench-richness", "Process richness", richness),
            table,
        ],
    )


def _wins_section(rows: list[dict[str, Any]]) -> Section | None:
    wins = [r for r in rows if not r["ablate"] and r["mode"] in ("paper", "pairwise") and _values([r], "cot_wins")]
    if not wins:
        return None
    keys = sorted({(r["model"], r["mode"]) for r in wins})
    labels = [f"{m} · {'paper protocol' if mode == 'paper' else 'pairwise diagnostic'}" for m, mode in keys]
    series = {
        "CoT win rate": [estimate(_values([r for r in wins if (r["model"], r["mode"]) == k], "cot_wins")) for k in keys]
    }
    figure = bars(
        "CoT reply preferred over the direct reply (blind)",
        labels,
        series,
        ylabel="win rate (%)",
        references={"no preference (50%)": 0.5},
    )
    table = Table(
        "sibench-winrate",
        "CoT win rate % [95% CI]",
        ["run", "win rate %", "dialogues"],
        [[label, est.scaled(), est.n] for label, est in zip(labels, series["CoT win rate"], strict=True)],
        row_logs=[_logs_of([r for r in wins if (r["model"], r["mode"]) == k]) for k in keys],
    )
    return Section("CoT win rate (RQ3)", [Figure("sibench-winrate", "CoT win rate", figure), table])


def _similarity_section(similarity: list[dict[str, Any]]) -> Section | None:
    if not similarity:
        return None
    figure = bars(
        f"CoT process similarity to the CoT reply vs the direct reply (Fig. 5; {similarity[0]['embedder']})",
        [r["model"] for r in similarity],
        {
            "process ↔ CoT reply": [estimate(r["values_cot"]) for r in similarity],
            "process ↔ direct reply": [estimate(r["values_direct"]) for r in similarity],
        },
        ylabel="cosine similarity",
        scale=1.0,
    )
    english_only = any(r["english_only_embedder"] for r in similarity)
    table = Table(
        "sibench-similarity",
        "Fig. 5: mean cosine similarity of the CoT process to each reply, paired difference [95% CI] (n dialogues)",
        ["model", "embedder", "dialogues", "process ↔ CoT reply", "process ↔ direct reply", "difference"],
        [
            [
                r["model"],
                r["embedder"],
                r["n"],
                r["process_cot_reply"],
                r["process_direct_reply"],
                Estimate(r["difference"], (r["ci95"] or [None])[0], (r["ci95"] or [None, None])[1], r["n"]),
            ]
            for r in similarity
        ],
        decimals=3,
        row_logs=[r["logs"] for r in similarity],
        note="The embedding model is English-only: on Chinese text treat the numbers with care (pass -R "
        "embedder=PATH of a multilingual model for comparable numbers)."
        if english_only
        else "",
    )
    return Section("Similarity (Fig. 5)", [Figure("sibench-similarity", "Process-reply similarity", figure), table])


def _similarity(logs: list[str], embedder: str, notes: list[str]) -> list[dict[str, Any]]:
    """Fig. 5's rows, or none with a note saying why (a model that could not be loaded)."""
    try:
        from .similarity import process_reply_similarity

        return process_reply_similarity(logs, embedder)
    except RuntimeError as exc:
        notes.append(f"Fig. 5 similarity not computed: {exc}")
        return []


def document(
    logs: list[str], compare_paper: bool = False, similarity: bool = True, embedder: str = "minilm"
) -> Document:
    """Paper tables from inspect logs (several models, modes and ablations at once), with the paper's human
    reference next to them: one document, which the terminal, the HTML page, the LaTeX and CSV tables and ``--json``
    (`Document.data`) all render.

    Args:
        similarity: process-to-reply similarity (Fig. 5) with a sentence-transformers model.
        embedder: the embedding model of Fig. 5: ``minilm`` (bundled all-MiniLM-L6-v2, English-only) or a local
            path / cached id of a multilingual model.
    """
    rows = analysis.score_rows(logs)
    notes: list[str] = []
    similar = _similarity(logs, embedder, notes) if similarity else []
    chosen = run_set(logs)
    data: dict[str, Any] = {
        "table1": analysis.table1(rows),
        "by_context_group": analysis.by_group(rows, "context_group"),
        "by_situation": analysis.by_group(rows, "situation"),
        "ablation_deltas": analysis.ablation_deltas(rows),
        "process_style": analysis.process_style(rows),
        "reply_style": analysis.reply_style(rows),
        **(
            {"process_reply_similarity": [{k: v for k, v in r.items() if not k.startswith("values_")} for r in similar]}
            if similarity
            else {}
        ),
        "paper_human_reference": HUMAN_REFERENCE,
        "usage": usage_rows([r.path for r in chosen.runs]),  # the counted runs, as the ledger prints them
        "left_out": [x.as_dict() for x in chosen.left_out if run_info(x.path).task == "sibench"],
    }
    models = sorted({r["model"] for r in rows})
    scores = _scores_section(rows, models, compare_paper)
    # Table 1 (each model's scores with intervals and n) is the report's first table; its figure stays in its section
    table1 = next(p for p in scores.parts if isinstance(p, Table) and p.name == "sibench-table1")
    scores.parts.remove(table1)
    sections = [scores, *_group_sections(rows, models)]
    for extra in (
        _ablation_section(rows, compare_paper),
        _style_section(rows),
        _wins_section(rows),
        _similarity_section(similar),
    ):
        if extra is not None:
            sections.append(extra)
    if rows:
        notes.append(
            f"Paper (not your run): the human expert's replies scored {HUMAN_REFERENCE['cot_reply']} (CoT) and "
            f"{HUMAN_REFERENCE['direct_reply']} (direct) by three graduate annotators, Krippendorff's α = "
            f"{HUMAN_REFERENCE['alpha']} ({HUMAN_REFERENCE['source']})."
        )
    return Document("sibench", "SI-Bench report", provenance(logs), sections, headline=table1, data=data, notes=notes)
