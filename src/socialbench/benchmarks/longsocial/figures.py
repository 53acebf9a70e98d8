"""LongSocialBench's figures and tables for `socialbench report longsocial --html / --figures / --tables`: the
setting x model heatmap (Table 14 cells,
diagnostic settings marked), method bands (Table 14 as a figure), accuracy by capability and by platform
(Figs. 5-6), reasoning lifts (Table 17), episode length vs accuracy with Spearman's rho (Fig. 9) and evidence
recall per retriever (Table 18)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ...shared.benchmark import read_log
from ...shared.figures import Estimate, bars, estimate, from_line, heatmap, scatter, share
from ...shared.ledger import usage_rows
from ...shared.reporting import Document, Figure, Section, Table, provenance
from ...shared.runs import INPUTS, file_digest, run_set
from ...shared.statistics import exact_mark
from . import paper
from .grid import NO_FULL, load_runs, pooling_text, variant_text
from .items import CAPABILITIES
from .recall import evidence_recall
from .report import analyses, load_mapping
from .summary import PAPER_PLATFORMS, degraded_marks


def _run_label(row: dict[str, Any]) -> str:
    return f"{row['model']} · {row['workflow']}"


def _pct(value: float | None) -> float | None:
    return None if value is None else 100 * value


def _draws(value: dict[str, Any]) -> Estimate:
    if value.get("mean") is None:
        return Estimate(None)
    return Estimate(value["mean"], value["ci95"][0], value["ci95"][1], exact=bool(exact_mark(value))).scaled()


def _pct_estimate(line: dict[str, Any] | None, value: str = "accuracy", n: str = "asked") -> Estimate:
    """A report row's proportion as an `Estimate` in percent (missing when the row or value is)."""
    return from_line(line, value=value, n=n).scaled()


def headline(cells: list[dict[str, Any]], table13: list[dict[str, Any]]) -> Table:
    """The report's first table: per model (and variant), how many settings it ran, its Full accuracy and its best
    non-diagnostic setting (Table 13's Best†: every setting that reaches the maximum is named), each % [95% CI]
    with n, from the grid's cells."""
    rows: list[list[Any]] = []
    logs: list[str | list[str] | None] = []
    for row in table13:
        mine = [c for c in cells if c["model"] == row["model"]]
        full = next((c for c in mine if c["setting"] == "full"), None)
        best = [c for c in mine if c["workflow"] in row["best_tied"]]
        rows.append(
            [
                row["model"],
                len(mine),
                _pct_estimate(full),
                (", ".join(row["best_tied"]) if len(best) < 4 else f"{len(best)} settings tie") or None,
                _pct_estimate(best[0] if best else None),
            ]
        )
        logs.append(sorted({c["log"] for c in [*([full] if full else []), *best]}))
    return Table(
        "longsocial-headline",
        "Each model's Full accuracy and its best setting† (% [95% CI], n = items asked); † the highest of its "
        "non-diagnostic settings, chosen after the fact (Table 13's Best†)",
        ["model", "settings run", "Full", "best setting†", "best†"],
        rows,
        show_n=True,
        row_logs=logs,
    )


def _family_estimate(family: dict[str, Any]) -> Estimate:
    low, high = family["ci95"] or (None, None)
    return Estimate(family["mean"], low, high, family["cells"], bool(exact_mark(family)))


def _delta_estimate(delta: dict[str, Any] | None) -> Estimate:
    return _pct_estimate(delta, value="delta", n="n")


def document(
    logs: list[str], compare_paper: bool = False, tiers: str | None = None, cutoffs: str | None = None
) -> Document:
    """The grid of settings x models (Table 14 / Fig. 4) with CIs and the paired change against Full, setting
    families, reasoning lifts (Table 17), per capability and per paper platform, Tables 3, 4, 13, 16, 18, 19, 20 and
    21, and episode length vs accuracy (Fig. 9), from any number of LongSocialBench logs: one document, which the
    terminal, the HTML page, the LaTeX and CSV tables and ``--json`` (`Document.data`) all render.

    Args:
        tiers: JSON file mapping each model to its tier (Table 16 cohort means, Table 20 by tier).
        cutoffs: JSON file mapping models to knowledge-cutoff dates (YYYY-MM-DD) for Table 20; models not listed
            use inspect's model data.
    """
    data = analyses(logs, load_mapping(tiers, "tiers"), load_mapping(cutoffs, "cutoffs"))
    data["usage"] = usage_rows([r.path for r in run_set(logs).runs])  # the counted runs, as the ledger prints them
    doc_notes: list[str] = []
    cells = data["grid"]
    models = sorted({c["model"] for c in cells})
    settings = list(dict.fromkeys(c["workflow"] for c in cells))
    sections: list[Section] = []

    # diagnostic settings (probes, oracles) last and marked: Table 12 reports them apart from the method grid
    diagnostic = {c["workflow"] for c in cells if c.get("diagnostic")}

    def row(workflow: str) -> str:
        return f"{workflow} (diag.)" if workflow in diagnostic else workflow

    settings = [w for w in settings if w not in diagnostic] + [w for w in settings if w in diagnostic]
    grid_fig = heatmap(
        # the paper's Fig. 4 is the method-family band; this is the grid of Table 14's cells
        "Accuracy by setting and model (Table 14 cells)"
        + ("; diagnostic settings last, marked (diag.)" if diagnostic else ""),
        [row(w) for w in settings],
        models,
        {(row(c["workflow"]), c["model"]): from_line(c, n="asked") for c in cells},
    )
    grid_table = Table(
        "longsocial-grid",
        "Grid (Table 14 cells): accuracy % [95% CI] over the asked items, paired change vs Full in pp [95% CI]",
        [
            "setting",
            "model",
            "accuracy %",
            "asked",
            "over-length",
            "unparsed",
            "truncated",
            "posts kept %",
            "fell back to Full",
            "ran without its setting",
            "Δ Full (pp)",
            "paired items",
        ],
        [
            [
                c["workflow"] + (" (diagnostic)" if c["workflow"] in diagnostic else ""),
                c["model"],
                _pct_estimate(c),
                c["asked"],
                c["overlength"],
                c["unparsed"],
                c["truncated"],
                _pct(c["posts_kept"]),
                c["fallbacks"],
                "; ".join(degraded_marks(c)) or None,
                _delta_estimate(c["delta_vs_full"]) if c["delta_vs_full"] or not c["no_partner"] else "no partner",
                (c["delta_vs_full"] or {}).get("n"),
            ]
            for c in cells
        ],
        row_logs=[c["log"] for c in cells],
        note=" ".join(
            [
                "A setting marked [truncated k/n] kept only the thread-order prefix of the discussion that fit the "
                "window on k of its n asked items (-T overlength=truncate).",
                *(["No partner: " + NO_FULL + "."] if any(c["no_partner"] for c in cells) else []),
                *data["notes"],
            ]
        ),
    )
    sections.append(
        Section("The grid", [Figure("longsocial-heatmap", "Setting × model accuracy", grid_fig), grid_table])
    )

    fams = data["families"]
    several = len({f["variant"] for f in fams}) > 1  # one bar and row per variant and family, the variant named
    names = [f["family"] + (f" ({variant_text(f['variant'])})" if several else "") for f in fams]
    refs = {}
    paper_series = None
    if compare_paper:
        refs[f"paper: human readers {paper.HUMAN[0]:g}% ({paper.HUMAN[1].split(':')[0]})"] = paper.HUMAN[0] / 100
        paper_series = {
            f"LongSocialBench, {paper.FAMILIES_SOURCE} (paper)": [
                paper.FAMILIES[f["family"]][0] / 100 if f["family"] in paper.FAMILIES else None for f in fams
            ]
        }
    bands = bars(
        "Method families: mean of cell accuracies, cell-level 95% CI (Table 14)",
        names,
        {"this report's cells": [_family_estimate(f) for f in fams]},
        references=refs,
        paper=paper_series,
        n_label="cells",
        paper_matches="this report's cells",
    )
    fam_table = Table(
        "longsocial-families",
        "Setting families (Table 14): mean accuracy % over cells [cell-level 95% CI]; a cell is one setting of one "
        "model, n counts cells, not items; pools over the models named, holds the variant fixed",
        [
            "family",
            "variant",
            "cells",
            "models",
            "mean %",
            "Δ Full (pp)",
            "diagnostic",
            "† cells that ran without their setting",
        ],
        [
            [
                f["family"],
                variant_text(f["variant"]),
                f["cells"],
                ", ".join(f["models"]),
                _family_estimate(f).scaled(),
                _pct(f["delta_vs_full"]),
                f["diagnostic"],
                "; ".join(f"{k}: {v}" for k, v in (f.get("degraded") or {}).items()) or None,
            ]
            for f in fams
        ],
        row_logs=[f["logs"] for f in fams],
    )
    sections.append(
        Section(
            "Method bands",
            [Figure("longsocial-families", "Method families (n = cells of the grid)", bands), fam_table],
        )
    )

    for key, title, fig_name, groups in (
        ("by_capability", "Accuracy by capability (Fig. 5)", "longsocial-capability", list(CAPABILITIES)),
        ("by_platform", "Accuracy by platform (Fig. 6)", "longsocial-platform", None),
    ):
        rows = data[key]
        group_names = groups or sorted({g for r in rows for g in r if g not in ("model", "workflow", "log")})
        series = {_run_label(r): [from_line(r.get(g), n="asked") for g in group_names] for r in rows}
        figure = bars(title, group_names, series, references={"chance (25%)": 0.25})
        table = Table(
            fig_name,
            f"{title}: accuracy % [95% CI], n = items asked",
            ["model", "setting", *group_names],
            [[r["model"], r["workflow"], *[_pct_estimate(r.get(g)) for g in group_names]] for r in rows],
            show_n=True,
            row_logs=[r["log"] for r in rows],
        )
        sections.append(Section(title, [Figure(fig_name, title, figure), table]))

    lifts = data["reasoning_lifts"]
    if lifts:
        flows = list(dict.fromkeys(lift["workflow"] for lift in lifts))
        series = {
            m: [
                next(
                    (
                        Estimate(
                            lift["delta"], (lift["ci95"] or [None])[0], (lift["ci95"] or [None, None])[1], lift["n"]
                        )
                        for lift in lifts
                        if lift["model"] == m and lift["workflow"] == w
                    ),
                    Estimate(None),
                )
                for w in flows
            ]
            for m in sorted({lift["model"] for lift in lifts})
        }
        figure = bars("Reasoning lift over Full, paired on items (Table 17)", flows, series, ylabel="Δ accuracy (pp)")
        table = Table(
            "longsocial-lifts",
            "Reasoning lifts over Full (Table 17): Δ accuracy in pp [95% CI], paired on items",
            ["model", "setting", "Δ (pp)", "paired items"],
            [[lift["model"], lift["workflow"], _delta_estimate(lift), lift["n"]] for lift in lifts],
            row_logs=[lift["logs"] for lift in lifts],
        )
        sections.append(Section("Reasoning lifts", [Figure("longsocial-lifts", "Reasoning lifts", figure), table]))

    lengths = data["length_vs_accuracy"]
    if lengths:
        points = {_run_label(r): [tuple(p) for p in r["points"]] for r in lengths}
        notes = {
            _run_label(r): "(ρ = –)"
            if r["rho"] is None
            else f"(ρ = {r['rho']:.2f}, p = {r['p']:.2f}, {r['episodes']} episodes)"
            for r in lengths
        }
        figure = scatter(
            "Episode length vs accuracy (Fig. 9)", points, "episode length (cl100k tokens)", "accuracy (%)", notes
        )
        table = Table(
            "longsocial-length",
            "Episode length vs accuracy (Fig. 9): Spearman's ρ over episodes",
            ["model", "setting", "episodes", "ρ", "p"],
            [[r["model"], r["workflow"], r["episodes"], r["rho"], r["p"]] for r in lengths],
            decimals=2,
            row_logs=[r["log"] for r in lengths],
        )
        sections.append(Section("Length", [Figure("longsocial-length", "Episode length vs accuracy", figure), table]))

    recall_rows, recall_notes = _recall(logs)
    data["table18"] = {"rows": recall_rows, "left_out": recall_notes}
    if recall_rows:
        names = [
            r["setting"]
            + (f" ({str(r['embedder']).split('/')[-1]})" if r["embedder"] else "")
            + (f" [{r['pack']}]" if r["pack"] else "")
            for r in recall_rows
        ]
        items = " / ".join(str(n) for n in dict.fromkeys(r["items"] for r in recall_rows))
        comparable = [
            paper.RECALL.get(r["setting"]) if r["embedder"] is None or "e5" in str(r["embedder"]).lower() else None
            for r in recall_rows
        ]
        figure = bars(
            f"Evidence recall per retriever on the {items} logged items with evidence (Table 18)",
            names,
            {
                "mean recall": [estimate(r["recalls"]) for r in recall_rows],
                "items with ≥ 75% recall": [share([float(x >= 0.75) for x in r["recalls"]]) for r in recall_rows],
            },
            ylabel="recall / share of items (%)",
            paper={f"mean recall, LongSocialBench {paper.RECALL_SOURCE} (paper)": comparable}
            if compare_paper
            else None,
            paper_matches="mean recall",
            ylim=(0.0, 112.0),
        )
        table = Table(
            "longsocial-recall",
            f"Evidence recall of the retrieval settings (Table 18) on the {items} logged items with evidence, "
            "% [95% CI over items]; no model involved",
            [
                "setting",
                "pack",
                "embedder",
                "items",
                "mean recall %",
                "≥ 75% recall %",
                "full coverage %",
                "posts shown",
            ],
            [
                [
                    r["setting"],
                    r["pack"],
                    r["embedder"],
                    r["items"],
                    estimate(r["recalls"]).scaled(),
                    share([float(x >= 0.75) for x in r["recalls"]]).scaled(),
                    share([float(x == 1.0) for x in r["recalls"]]).scaled(),
                    r["mean_posts_shown"],
                ]
                for r in recall_rows
            ],
            note="Dense settings name the embedder that ran; the paper's E5 numbers are compared only with E5 runs. "
            + _recall_note(recall_rows)
            + "".join(" " + n for n in recall_notes),
        )
        drawn = Figure("longsocial-recall", "Evidence recall", figure, note=" ".join(recall_notes))
        sections.append(Section("Evidence recall", [drawn, table]))
    elif recall_notes:
        left = Table(
            "longsocial-recall",
            "Evidence recall of the retrieval settings (Table 18): no run could be measured on its own files",
            ["runs left out of Table 18"],
            [[n] for n in recall_notes],
        )
        sections.append(Section("Evidence recall", [left]))

    pooled = [p for p in data["length_pooled"] if p["points"]]
    if pooled:  # one series per variant: each pools its own models, never variants of one model
        pooled_series: dict[str, list[tuple[float, float]]] = {}
        pooled_notes: dict[str, str] = {}
        pooled_fits: dict[str, tuple[float, float]] = {}
        for p in pooled:
            name = pooling_text(p["variant"], p["model_names"])
            pooled_series[name] = [(float(x), float(y)) for x, y in p["points"]]
            pooled_notes[name] = "(ρ = –)" if p["rho"] is None else f"(ρ = {p['rho']:.2f}, {p['episodes']} episodes)"
            if p["slope"] is not None:
                pooled_fits[name] = (p["slope"], p["intercept"])
        figure = scatter(
            "Episode length vs mean Baseline accuracy, pooled over models (Fig. 9)",
            pooled_series,
            "episode length (cl100k tokens)",
            "accuracy (%)",
            pooled_notes,
            fits=pooled_fits or None,
        )
        pooled_table = Table(
            "longsocial-length-pooled",
            "Fig. 9: mean Baseline (Full) accuracy per episode against its length, pooled over models; Spearman's ρ "
            "over episodes and the least-squares slope; pools over the models named, holds the variant fixed",
            ["pooled over", "models", "episodes", "ρ", "p", "slope (pts per 1,000 tokens)"],
            [
                [
                    pooling_text(p["variant"], p["model_names"]),
                    p["models"],
                    p["episodes"],
                    p["rho"],
                    p["p"],
                    None if p["slope"] is None else 100 * 1000 * p["slope"],
                ]
                for p in pooled
            ],
            decimals=2,
            row_logs=[p["logs"] for p in pooled],
        )
        sections.append(
            Section("Length, pooled", [Figure("longsocial-length-pooled", "Length, pooled", figure), pooled_table])
        )
    summary_tables: list[Table | Figure] = []
    if data["table3"]:
        summary_tables.append(
            Table(
                "longsocial-table3",
                "Table 3: accuracy % per capability, Avg = the C1-C6 macro mean; CoT rows give the change against "
                "Baseline per capability in a second table (pts, paired on the capability's items)",
                ["model", "setting", *CAPABILITIES, "Avg"],
                [
                    [r["model"], r["setting"], *[_pct(r[c]) for c in CAPABILITIES], _pct(r["avg"])]
                    for r in data["table3"]
                ],
                row_logs=[r["log"] for r in data["table3"]],
            )
        )
        cot = [r for r in data["table3"] if r.get("delta_vs_baseline")]
        if cot:
            summary_tables.append(
                Table(
                    "longsocial-table3-cot-delta",
                    "Table 3: CoT minus Baseline per capability, pts [95% CI], paired on items",
                    ["model", *CAPABILITIES],
                    [[r["model"], *[_delta_estimate(r["delta_vs_baseline"][c]) for c in CAPABILITIES]] for r in cot],
                    row_logs=[r["log"] for r in cot],
                )
            )
    summary_tables.append(
        Table(
            "longsocial-table13",
            "Table 13: accuracy % per model; Best† = the model's best non-diagnostic setting, chosen after the fact "
            "(a diagnostic; where settings tie, every one is named, marked tied); C-mac of Full",
            [
                "model",
                "Full",
                "CoT",
                "LLM-r",
                "Best†",
                "Best† setting",
                "C-mac",
                "truncated",
                "† ran without its setting",
            ],
            [
                [
                    r["model"],
                    _pct(r["Full"]),
                    _pct(r["CoT"]),
                    _pct(r["LLM-r"]),
                    _pct(r["best"]),
                    r["best_setting"],
                    _pct(r["c_mac"]),
                    ", ".join(r["truncated"]) or None,
                    "; ".join(f"{k}: {v}" for k, v in (r.get("degraded") or {}).items()) or None,
                ]
                for r in data["table13"]
            ],
            row_logs=[r["logs"] for r in data["table13"]],
        )
    )
    probes = data["table19"]
    unpaired = probes["open_answer"].get("unpaired") or []
    if any(r["models"] for r in probes["probes"]) or probes["open_answer"]["models"] or unpaired:  # else zeros
        summary_tables.append(
            Table(
                "longsocial-table19",
                "Table 19: shortcut probes, mean accuracy % across models (the variant held fixed) and mean paired "
                "change vs Full (pts); the open answer as the mean paired drop against multiple choice with "
                "Spearman's ρ of the model rankings",
                ["probe", "variant", "models", "mean %", "Δ Full (pts)", "ρ"],
                [
                    [
                        r["probe"],
                        variant_text(r["variant"]),
                        r["models"],
                        _pct(r["mean"]),
                        _pct(r["delta_vs_full"]),
                        None,
                    ]
                    for r in probes["probes"]
                ]
                + [
                    [
                        "open answer",
                        None,
                        probes["open_answer"]["models"],
                        None,
                        _pct(-probes["open_answer"]["mean_drop"])
                        if probes["open_answer"]["mean_drop"] is not None
                        else None,
                        probes["open_answer"]["spearman_rho"],
                    ]
                ],
                row_logs=[r["logs"] for r in probes["probes"]] + [None],
                note=" ".join(f"Open answer left out: {u['model']}: {u['reason']}." for u in unpaired),
            )
        )
    ovc = data["open_vs_choice"]
    if ovc["models"] or ovc["unpaired"]:
        summary_tables.append(
            Table(
                "longsocial-table4",
                "Table 4: open answer against multiple choice (Full) per model, on the items asked in Full and judged "
                "in open answer; drop = Full minus open, pts [95% CI], paired on items",
                ["model", "Full %", "open answer %", "items", "drop (pts)"],
                [
                    [
                        r["model"],
                        _pct(r["full"]),
                        _pct(r["open"]),
                        r["items"],
                        from_line({**r, "n": r["items"]}, value="drop").scaled(),
                    ]
                    for r in ovc["models"]
                ],
                row_logs=[r["logs"] for r in ovc["models"]],
                note=" ".join(
                    [
                        *(
                            [f"Spearman's ρ of the model rankings: {ovc['spearman_rho']:+.2f}."]
                            if ovc["spearman_rho"] is not None
                            else []
                        ),
                        *(f"Left out: {u['model']}: {u['reason']}." for u in ovc["unpaired"]),
                    ]
                ),
            )
        )
    if data["table21"]:
        summary_tables.append(
            Table(
                "longsocial-table21",
                "Table 21: component oracle, accuracy % [95% CI] and paired change (pts) vs the model's CoT baseline "
                "(the paper's reference row) and vs Full; the label settings run only on items with gold per-post "
                "labels",
                ["model", "component", "accuracy %", "asked", "Δ CoT (pts)", "Δ Full (pts)"],
                [
                    [
                        r["model"],
                        r["component"],
                        _pct_estimate(r),
                        r["asked"],
                        "no CoT partner" if r.get("no_cot") else _delta_estimate(r["delta_vs_cot"]),
                        _delta_estimate(r["delta_vs_full"]),
                    ]
                    for r in data["table21"]
                ],
                row_logs=[r["log"] for r in data["table21"]],
            )
        )
    t16s = [t for t in data["table16"] if t.get("draws") and t.get("top_cell")]
    if t16s:
        rows16: list[list[Any]] = []
        for t16 in t16s:
            held = pooling_text(t16["variant"], t16["pooled_models"])
            rows16 += [
                [held, "best cell", _draws(t16["best_cell"])],
                [held, f"top cell: {t16['top_cell']['model']} / {t16['top_cell']['setting']}", _draws(t16["top_cell"])],
            ]
            rows16 += [[held, f"{m} (its best cell)", _draws(v)] for m, v in t16["models"].items()]
            rows16 += [
                [held, f"tier {t}: mean of its {len(c['models'])} models' best cells", _pct(c["mean"])]
                for t, c in t16["cohorts"].items()
            ]
        first = t16s[0]
        summary_tables.append(
            Table(
                "longsocial-table16",
                f"Table 16: {first['draws']} bootstrap draws (with replacement) of {first['items_per_draw']} items "
                "in the capability × platform proportions; accuracy % mean [2.5, 97.5 percentiles] across draws; the "
                "best cell is taken over the models and settings of one variant",
                ["pooled over", "what", "accuracy %"],
                rows16,
            )
        )
    if any(r["cutoff"] for r in data["table20"]):  # a table of unknown cutoffs says nothing (the terminal lists them)
        summary_tables.append(
            Table(
                "longsocial-table20",
                "Table 20: Baseline accuracy % before / after each model's knowledge cutoff (episode = root post date)",
                ["model", "tier", "cutoff", "before %", "after %", "gap (pts)", "undated items (in neither)"],
                [
                    [
                        r["model"],
                        r["tier"],
                        r["cutoff"] or "unknown",
                        _pct((r["before"] or {}).get("accuracy")),
                        _pct((r["after"] or {}).get("accuracy")),
                        _pct(r["gap"]),
                        r.get("undated_items"),
                    ]
                    for r in data["table20"]
                ],
                row_logs=[r["log"] for r in data["table20"]],
                note=" ".join(
                    f"{r['model']}: {r['undated_items']} items in neither cohort (episodes without a root post date: "
                    f"{', '.join(r['undated_episodes'])})."
                    for r in data["table20"]
                    if r.get("undated_items")
                ),
            )
        )
    unknown = [r["model"] for r in data["table20"] if not r["cutoff"]]
    if unknown:
        doc_notes.append(
            "Table 20 (Baseline accuracy before / after each model's knowledge cutoff): no cutoff known for "
            + "; ".join(unknown)
            + " (pass -R cutoffs=FILE)."
        )
    sections.append(Section("Tables 3, 4, 13, 16, 19, 20 and 21", summary_tables))
    if data["licences"]:
        doc_notes.append(
            "The discussions behind these items: "
            + "; ".join(f"{len(eps)} episode(s) {licence}" for licence, eps in data["licences"].items())
            + " (the sample pack's sources, URLs and Stack Exchange authors: sample_pack/ATTRIBUTION.md; "
            "`socialbench list --data`)."
        )

    if compare_paper:
        printed: list[list[Any]] = [
            [n, Estimate(v, lo, hi), paper.FAMILIES_SOURCE] for n, (v, lo, hi) in paper.FAMILIES.items()
        ]
        printed.append(["human readers", paper.HUMAN[0], paper.HUMAN[1]])
        printed += [[f"{k} (mean of 18 models)", v, "Table 4"] for k, v in paper.GOLD_SCOPE.items()]
        sections.append(
            Section(
                "The paper's numbers",
                [
                    Table(
                        "longsocial-paper",
                        "LongSocialBench's published numbers: accuracy % [95% CI where the paper gives one]",
                        ["what", "%", "source"],
                        printed,
                    )
                ],
            )
        )
    platforms = ", ".join(PAPER_PLATFORMS.values())
    title = f"LongSocialBench report (paper platforms: {platforms})"
    return Document(
        "longsocial", title, provenance(logs), sections, headline=headline(cells, data["table13"]) if cells else None,
        left_out=recall_notes, data=data, notes=doc_notes,
    )  # fmt: skip


def _recall_note(rows: list[dict[str, Any]]) -> str:
    """Table 18's item-level summaries, one sentence per item pack: each pack's items are its own (issue 59: item i
    of one pack is not item i of another)."""
    from .recall import recall_summary

    packs: dict[str | None, list[dict[str, Any]]] = {}
    for row in rows:
        packs.setdefault(row["pack"], []).append(row)
    notes = []
    for pack, members in packs.items():
        summary = recall_summary(members)
        if not summary["items"]:
            continue
        full = "-" if summary["full_at_largest"] is None else f"{100 * summary['full_at_largest']:.1f}"
        notes.append(
            f"Over the {summary['items']} logged items with evidence"
            + (f" of {pack}" if pack else "")
            + f", {100 * summary['best_ge_75']:.1f}% reach ≥ 75% recall in the best of the retrievers and {full}% "
            f"are fully covered at k = 50 (dense: {', '.join(summary['embedders']) or 'none'})."
        )
    return " ".join(notes) + (" The paper, with E5: 8.8% and 3.5% (Table 18)." if notes else "")


def _recall(logs: list[str]) -> tuple[list[dict[str, Any]], list[str]]:
    """Table 18 per input pack: the retrieval runs grouped by the items and episodes files they read (by digest),
    each group measured on its own files (found by the resolved paths the logs recorded and checked against the
    digests recorded with them) over its own logged items, for the retrieval settings it ran (a RAG setting stands for
    its retriever), with the embedder its dense runs used. A group whose files changed since its runs, or are gone,
    is left out of Table 18 and named (the note), and every other group is still reported: the rows would be of
    other items. Rows carry ``pack`` (the items file and digest) when the logs read more than one. Cached on disk:
    the retrievers' output does not depend on the logs."""
    from .recall import RETRIEVAL_SETTINGS

    groups: dict[tuple[str, str], list[Any]] = {}
    files: dict[tuple[str, str], dict[str, str]] = {}
    notes: list[str] = []
    for run in load_runs(logs):
        setting = (
            re.sub(r"-a\d+$", "", run.workflow.removeprefix("rag-"))
            if run.workflow.startswith("rag-")
            else run.workflow
        )
        if setting not in RETRIEVAL_SETTINGS:
            continue
        meta = read_log(run.path, header_only=True).eval.metadata or {}
        recorded = meta.get(INPUTS) or {}
        paths = {n: str((recorded.get(n) or {}).get("path") or meta.get(n) or "") for n in ("items", "episodes")}
        digests = {n: str((recorded.get(n) or {}).get("sha256") or "") for n in ("items", "episodes")}
        key = (digests["items"] or paths["items"], digests["episodes"] or paths["episodes"])
        groups.setdefault(key, []).append((run, setting))
        files[key] = {**paths, **{f"{n}_sha256": d for n, d in digests.items()}}
    rows: list[dict[str, Any]] = []
    for key, members in groups.items():
        record = files[key]
        names = ", ".join(sorted({Path(run.path).name for run, _ in members}))
        problem = None
        for name in ("items", "episodes"):
            path = record[name]
            if not path or not Path(path).exists():
                problem = f"its {name} file {path or '(not recorded)'} is gone"
            elif record[f"{name}_sha256"] and file_digest(path) != record[f"{name}_sha256"]:
                problem = f"its {name} file {path} changed since the runs read it"
            if problem:
                break
        if problem:
            notes.append(f"Table 18 leaves out {names}: {problem} (its rows would be of other items).")
            continue
        runs = [run for run, _ in members]
        logged = {str(r["item"]) for run in runs for r in run.rows}
        wanted = {setting for _, setting in members}
        embedders = sorted(e for run in runs if run.embedder and "all-MiniLM-L6-v2" not in run.embedder
                           for e in [run.embedder])  # fmt: skip
        try:
            measured = evidence_recall(
                record["items"], record["episodes"], embedders[0] if embedders else "minilm", only=logged,
                settings=wanted,
            )  # fmt: skip
        except ValueError as exc:  # a retriever this installation cannot run (the similarity extra): said, not fatal
            notes.append(f"Table 18 leaves out {names}: {exc}.")
            continue
        pack = f"{Path(record['items']).name}@{record['items_sha256'][:8]}"
        rows += [{**row, "pack": pack} for row in measured]
    if len({r["pack"] for r in rows}) < 2:
        for row in rows:
            row["pack"] = None
    return rows, notes
