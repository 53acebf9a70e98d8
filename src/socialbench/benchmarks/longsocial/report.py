"""LongSocialBench's terminal summary of a run and its report over many runs (the paper's grid and analyses).

The report reads inspect logs only: setting x model cells with item accuracy, bootstrap 95% CI and the change
against Full (Table 14 / Fig. 4), setting families (Table 14), reasoning lifts paired on items (Table 17), per
capability (Table 3 / Fig. 5) and per platform (Fig. 6), episode length vs accuracy with Spearman's rho (Fig. 9),
and open-answer vs multiple choice (Table 4). A cell with no asked item is "-", never 0.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rich.console import Console

from ...core.jsonl import dump_json
from ...shared.ledger import usage_rows
from ...shared.runs import run_info, run_set
from ...shared.statistics import EXACT_NOTE, exact_mark
from ...shared.statistics import percent as _pct
from ...shared.terminal import Table
from .grid import (
    NO_FULL,
    by_variant,
    families,
    grid,
    load_runs,
    pooling_text,
    variant_text,
)
from .items import CAPABILITIES
from .summary import (
    _ci,
    degraded_marks,
    truncation_text,
)
from .tables import (
    by_group,
    length_pooled,
    length_vs_accuracy,
    open_vs_choice,
    reasoning_lifts,
    stratified_subset,
    table3,
    table13,
    table16,
    table19,
    table20,
    table21,
    unmeasured,
)


def analyses(
    logs: list[str], tiers: dict[str, str] | None = None, cutoffs: dict[str, str] | None = None
) -> dict[str, Any]:
    runs = load_runs(logs)
    cells = grid(runs)
    return {
        "runs": [
            {
                "model": r.model,
                "model_name": r.model_name,
                "variant": r.variant,
                "workflow": r.label,
                "differs": r.differs,
                "log": r.path,
                "created": r.created,
                "truncated": r.line["truncated"],
                "posts_kept": r.line["posts_kept"],
                "degraded": degraded_marks(r.line),
                "model_calls": {k: vars(c) | {"budgets": sorted(c.budgets)} for k, c in r.calls.items()},
            }
            for r in runs
        ],
        "left_out": [x.as_dict() for x in run_set(logs).left_out if _is_longsocial(x.path)],
        "notes": unmeasured(runs),
        "grid": cells,
        "families": families(cells),
        "reasoning_lifts": reasoning_lifts(runs),
        "by_capability": by_group(runs, "capability"),
        "by_platform": by_group(runs, "platform"),
        "length_vs_accuracy": length_vs_accuracy(runs),
        "open_vs_choice": open_vs_choice(runs),
        "subset150": stratified_subset(runs),
        "table3": table3(runs),
        "table13": table13(runs),
        "table16": [
            {"variant": variant, "pooled_models": sorted({r.model_name for r in group}), **table16(group, tiers)}
            for variant, group in by_variant([r for r in runs if not r.diagnostic])
        ],
        "table19": table19(runs),
        "table21": table21(runs),
        "table20": table20(runs, cutoffs, tiers),
        "length_pooled": [
            {"variant": variant, **pooled} for variant, group in by_variant(runs) if (pooled := length_pooled(group))
        ],
    }


def _is_longsocial(path: str) -> bool:
    return run_info(path).task == "longsocial"


def _est(value: dict[str, Any]) -> str:
    if value.get("mean") is None:
        return "-"
    if not value.get("ci95"):
        return f"{_pct(value['mean'])} [n/a: {value.get('ci_method', 'no interval')}]"
    return f"{_pct(value['mean'])} [{_pct(value['ci95'][0])}, {_pct(value['ci95'][1])}]{exact_mark(value)}"


def _delta(d: dict[str, Any] | None) -> str:
    """A paired change in points with its CI (‡: exact, `EXACT_NOTE`) and its number of paired items."""
    if not d or d["delta"] is None:
        return "-"
    if not d.get("ci95"):
        return f"{100 * d['delta']:+.1f} [n/a: {d.get('ci_method', 'no interval')}] (n={d['n']})"
    ci = f"[{100 * d['ci95'][0]:+.1f}, {100 * d['ci95'][1]:+.1f}]{exact_mark(d)}"
    return f"{100 * d['delta']:+.1f} {ci} (n={d['n']})"


def _any_exact(data: Any) -> bool:
    """Is any interval in the report an exact binomial fallback (printed with ‡)?"""
    if isinstance(data, dict):
        return bool(exact_mark(data)) or any(_any_exact(v) for v in data.values())
    if isinstance(data, list):
        return any(_any_exact(v) for v in data)
    return False


def load_mapping(path: str | None, what: str) -> dict[str, str] | None:
    """A JSON object file ``{"model": "value"}`` (tiers, knowledge cutoffs); None without a path."""
    if not path:
        return None

    from ...core.errors import InputError

    try:
        data = json.loads(Path(path).read_text())
    except (OSError, ValueError) as exc:
        raise InputError(path, f"{what}: not a readable JSON object ({exc})") from None
    if not isinstance(data, dict) or not all(isinstance(v, str) for v in data.values()):
        raise InputError(path, f'{what}: expected a JSON object {{"model": "value", ...}} with string values')
    if what == "cutoffs":  # a knowledge cutoff is a date: checked here, with the file and the model named
        from datetime import date

        for model, value in data.items():
            try:
                date.fromisoformat(value)
            except ValueError:
                raise InputError(path, f"cutoffs: {value!r} is not a date (YYYY-MM-DD)", record=str(model)) from None
    return {str(k): v for k, v in data.items()}


def report(
    logs: list[str], console: Console, as_json: bool = False, tiers: str | None = None, cutoffs: str | None = None
) -> None:
    """The grid of settings x models (Table 14 / Fig. 4) with CIs and the paired change against Full, setting
    families, reasoning lifts (Table 17), per capability and per paper platform, Tables 3, 13, 16, 19 and 20, and
    episode length vs accuracy (Fig. 9), from any number of LongSocialBench logs.

    Args:
        tiers: JSON file mapping each model to its tier (Table 16 cohort means, Table 20 by tier).
        cutoffs: JSON file mapping models to knowledge-cutoff dates (YYYY-MM-DD) for Table 20; models not listed
            use inspect's model data.
    """
    data = analyses(logs, load_mapping(tiers, "tiers"), load_mapping(cutoffs, "cutoffs"))
    data["usage"] = usage_rows([r.path for r in run_set(logs).runs])  # the counted runs, as in the terminal
    if as_json:
        console.file.write(dump_json(data) + "\n")
        return
    _print_grid(data, console)
    _print_families(data, console)
    _print_lifts(data, console)
    _print_capabilities(data, console)
    _print_table13(data, console)
    _print_table16(data, console)
    _print_table19(data, console)
    _print_table21(data, console)
    _print_table20(data, console)
    _print_lengths(data, console)
    _print_open_vs_choice(data, console)
    if _any_exact(data):
        console.print(EXACT_NOTE)


def _print_grid(data: dict[str, Any], console: Console) -> None:
    """The grid (Table 14 / Fig. 4): a row per setting, a column per model and variant, each paired Δ with its n."""
    models = sorted({c["model"] for c in data["grid"]})
    table = Table(title="LongSocialBench grid: accuracy % [95% CI] (asked items); change vs Full, paired on items")
    table.add_column("Setting")
    for model in models:
        table.add_column(model, justify="right")
    diagnostic_started = False
    for workflow in dict.fromkeys(c["workflow"] for c in data["grid"]):
        cells = {c["model"]: c for c in data["grid"] if c["workflow"] == workflow}
        first = next(iter(cells.values()))
        if first["diagnostic"] and not diagnostic_started:
            table.add_section()
            diagnostic_started = True
        row = [workflow + (" (diagnostic)" if first["diagnostic"] else "")]
        for model in models:
            cell = cells.get(model)
            if cell is None:
                row.append("")
                continue
            text = f"{_pct(cell['accuracy'])} {_ci(cell)} (n={cell['asked']})"
            if cell["truncated"]:
                text += f"\n{truncation_text(cell)}"
            if cell["delta_vs_full"]:
                text += f"\nΔ {_delta(cell['delta_vs_full'])}"
                if cell["delta_vs_full"]["n"] < cell["asked"]:  # paired on fewer items than the cell asked: said
                    text += f" paired on {cell['delta_vs_full']['n']} of {cell['asked']}"
            elif cell["no_partner"]:
                text += "\nΔ no Full partner"
            row.append(text)
        table.add_row(*row)
    console.print(table)
    if any(c["no_partner"] for c in data["grid"]):
        console.print(f"Δ no Full partner: {NO_FULL}.")
    if len(models) > 1 and any(r["differs"] for r in data["runs"]):
        console.print("Columns: runs that differ in more than the setting, named by what differs: " + "; ".join(models))


def _print_families(data: dict[str, Any], console: Console) -> None:
    """Table 14's setting families, one block per variant."""
    several = len({f["variant"] for f in data["families"]}) > 1
    fam = Table(
        title="Setting families (Table 14): mean of cell accuracies (a cell = one setting x one model), cell-level "
        "bootstrap 95% CI; Δ Full over the models in both. Pools over models; holds the variant fixed"
        + (" (one block per variant)" if several else "")
    )
    for col in ("Family", *(["Variant"] if several else []), "Cells", "Models", "Mean %", "95% CI", "Δ Full (models)"):
        fam.add_column(col, justify="left" if col in ("Family", "Variant") else "right")
    for f in data["families"]:
        delta = "-" if f["delta_vs_full"] is None else f"{100 * f['delta_vs_full']:+.1f} ({f['delta_models']})"
        if f["no_partner"]:
            delta = "no partner"
        name = f["family"] + (" (diagnostic)" if f["diagnostic"] else "")
        if f.get("degraded"):  # a cell of the mean ran without its setting
            name += f" † {len(f['degraded'])} of {f['cells']} cells ran without their setting"
        fam.add_row(
            name,
            *([variant_text(f["variant"])] if several else []),
            str(f["cells"]),
            str(len(f["models"])),
            _pct(f["mean"]),
            f"[{_pct(f['ci95'][0])}, {_pct(f['ci95'][1])}]{exact_mark(f)}" if f.get("ci95") else "n/a",
            delta,
        )
    console.print(fam)


def _print_lifts(data: dict[str, Any], console: Console) -> None:
    """Table 17's reasoning lifts."""
    if data["reasoning_lifts"]:
        lifts = Table(title="Reasoning lifts over Full (Table 17), paired on items")
        for col in ("Model", "Setting", "Items", "Δ accuracy (pts) [95% CI]"):
            lifts.add_column(col)
        for lift in data["reasoning_lifts"]:
            lifts.add_row(lift["model"], lift["workflow"], str(lift["n"]), _delta(lift))
        console.print(lifts)


def _print_capabilities(data: dict[str, Any], console: Console) -> None:
    """Per capability (Fig. 5) and Table 3."""
    caps = Table(title="Per capability (Table 3 / Fig. 5): accuracy % (asked)")
    caps.add_column("Run")
    for cap in CAPABILITIES:
        caps.add_column(cap, justify="right")
    for entry in data["by_capability"]:
        caps.add_row(
            f"{entry['model']} / {entry['workflow']}",
            *(f"{_pct(entry[c]['accuracy'])} ({entry[c]['asked']})" for c in CAPABILITIES),
        )
    console.print(caps)
    if data["table3"]:
        t3 = Table(title="Table 3: accuracy % per capability, Avg = C1-C6 macro; CoT rows: Δ vs Baseline (pts, paired)")
        for col in ("Model", "Setting", *CAPABILITIES, "Avg"):
            t3.add_column(col, justify="left" if col in ("Model", "Setting") else "right")
        for r in data["table3"]:
            deltas = r.get("delta_vs_baseline") or {}
            per_cap = [
                _pct(r[c]) + (f"\n{_delta(deltas[c])}" if deltas.get(c) and deltas[c]["delta"] is not None else "")
                for c in CAPABILITIES
            ]
            t3.add_row(r["model"], r["setting"], *per_cap, _pct(r["avg"]))
        console.print(t3)


def _print_table13(data: dict[str, Any], console: Console) -> None:
    """Table 13."""
    t13 = Table(
        title="Table 13: accuracy % per model; Best† = the model's best non-diagnostic setting (a diagnostic; every "
        "setting that reaches it is named, marked tied)"
    )
    for col in ("Model", "Full", "CoT", "LLM-r", "Best†", "C-mac (Full)"):
        t13.add_column(col, justify="left" if col == "Model" else "right")
    for r in data["table13"]:
        best = "-" if r["best"] is None else f"{_pct(r['best'])} ({r['best_setting']})"
        cut, marked = r["truncated"], r.get("degraded") or {}
        t13.add_row(
            r["model"],
            *(
                _pct(r[name])
                + (" (truncated)" if name in cut else "")
                + (f" † {marked[name]}" if name in marked else "")
                for name in ("Full", "CoT", "LLM-r")
            ),
            best,
            _pct(r["c_mac"]) + (" (truncated)" if "Full" in cut else ""),
        )
    console.print(t13)


def _print_table16(data: dict[str, Any], console: Console) -> None:
    """Table 16, per variant."""
    for t16 in data["table16"]:
        if not (t16.get("draws") and t16.get("top_cell")):  # no top cell: no run has a scored item
            continue
        console.print(
            f"Table 16 ({pooling_text(t16['variant'], t16['pooled_models'])}): {t16['draws']} bootstrap draws (with "
            f"replacement) of {t16['items_per_draw']} items (of {t16['items_logged']} logged) in the "
            f"capability x platform proportions ({t16['strata']} strata); mean [2.5, 97.5 percentiles] across draws: "
            f"best cell {_est(t16['best_cell'])}; top cell {t16['top_cell']['model']} / {t16['top_cell']['setting']} "
            f"{_est(t16['top_cell'])}; per model (its best cell): "
            + "; ".join(f"{m} {_est(v)}" for m, v in t16["models"].items())
            + (
                "; cohorts: "
                + "; ".join(f"{t} {_pct(c['mean'])} ({len(c['models'])} models)" for t, c in t16["cohorts"].items())
                if t16["cohorts"]
                else ""
            )
        )


def _print_table19(data: dict[str, Any], console: Console) -> None:
    """Table 19, per variant."""
    t19 = data["table19"]
    if any(r["models"] for r in t19["probes"]) or t19["open_answer"]["models"]:
        probes = Table(
            title="Table 19: shortcut probes, mean accuracy % across models (held fixed: the variant); "
            "Δ = mean paired change vs Full (models paired)"
        )
        for col in ("Probe", "Variant", "Models", "Mean %", "Δ Full (pts)"):
            probes.add_column(col, justify="left" if col in ("Probe", "Variant") else "right")
        for row in data["table19"]["probes"]:
            delta = (
                "-" if row["delta_vs_full"] is None else f"{100 * row['delta_vs_full']:+.1f} ({row['delta_models']})"
            )
            probes.add_row(row["probe"], variant_text(row["variant"]), str(row["models"]), _pct(row["mean"]), delta)
        oa = data["table19"]["open_answer"]
        rho = "-" if oa["spearman_rho"] is None else f"rho {oa['spearman_rho']:+.2f}"
        probes.add_row(
            "open answer (paired drop vs MC; model ranking)",
            "-",
            str(oa["models"]),
            "-",
            ("-" if oa["mean_drop"] is None else f"{-100 * oa['mean_drop']:+.1f}") + f"; {rho}",
        )
        console.print(probes)


def _print_table21(data: dict[str, Any], console: Console) -> None:
    """Table 21."""
    if data["table21"]:
        t21 = Table(
            title="Table 21: component oracle, accuracy % (asked); Δ = paired change (pts) vs the model's CoT baseline "
            "(the paper's reference row) and vs Full"
        )
        for col in ("Model", "Component", "Accuracy %", "Asked", "Δ CoT", "Δ Full"):
            t21.add_column(col, justify="left" if col in ("Model", "Component") else "right")
        for r in data["table21"]:
            vs_cot = "no CoT partner" if r.get("no_cot") else _delta(r["delta_vs_cot"])
            t21.add_row(
                r["model"], r["component"], _pct(r["accuracy"]), str(r["asked"]), vs_cot, _delta(r["delta_vs_full"])
            )
        console.print(t21)


def _print_table20(data: dict[str, Any], console: Console) -> None:
    """Table 20."""
    if data["table20"]:
        t20 = Table(title="Table 20: Baseline accuracy % on episodes before / after each model's knowledge cutoff")
        for col in ("Model", "Tier", "Cutoff", "Before", "After", "Gap (pts)"):
            t20.add_column(col, justify="left" if col in ("Model", "Tier", "Cutoff") else "right")
        for r in data["table20"]:
            if r["cutoff"] is None:
                t20.add_row(r["model"], r["tier"] or "-", "unknown (pass -R cutoffs=FILE)", "-", "-", "-")
                continue
            gap = "-" if r["gap"] is None else f"{100 * r['gap']:+.1f}"
            t20.add_row(
                r["model"],
                r["tier"] or "-",
                f"{r['cutoff']} ({r['source']})",
                f"{_pct(r['before']['accuracy'])} (n={r['before']['asked']})",
                f"{_pct(r['after']['accuracy'])} (n={r['after']['asked']})",
                gap,
            )
        console.print(t20)
        for r in data["table20"]:
            if r.get("undated_items"):
                console.print(
                    f"Table 20, {r['model']}: {r['undated_items']} items in neither cohort (episodes without a root "
                    f"post date: {', '.join(r['undated_episodes'])})."
                )


def _print_lengths(data: dict[str, Any], console: Console) -> None:
    """Fig. 9: pooled per variant, then per run; the runs whose lengths are unknown."""
    for pooled in data["length_pooled"]:
        rho_text = "-" if pooled["rho"] is None else f"{pooled['rho']:+.2f} (p = {pooled['p']:.3f})"
        slope = "-" if pooled["slope"] is None else f"{100 * 1000 * pooled['slope']:+.2f} pts per 1,000 tokens"
        console.print(
            f"Fig. 9 ({pooling_text(pooled['variant'], pooled['model_names'])}; mean Baseline accuracy per episode, "
            f"{pooled['episodes']} episodes): Spearman's rho {rho_text}; least-squares slope {slope}."
        )
    lengths = Table(title="Episode length vs accuracy (Fig. 9): Spearman's rho over episodes")
    for col in ("Run", "Episodes", "rho", "p"):
        lengths.add_column(col, justify="left" if col == "Run" else "right")
    for entry in data["length_vs_accuracy"]:
        rho = "-" if entry["rho"] is None else f"{entry['rho']:+.2f}"
        p = "-" if entry["p"] is None else f"{entry['p']:.3f}"
        lengths.add_row(f"{entry['model']} / {entry['workflow']}", str(entry["episodes"]), rho, p)
    console.print(lengths)
    for note in data["notes"]:
        console.print(note)


def _print_open_vs_choice(data: dict[str, Any], console: Console) -> None:
    """Table 4: open answer against multiple choice."""
    if data["open_vs_choice"]["models"]:
        ovc = data["open_vs_choice"]
        console.print(
            "Open answer vs multiple choice (Table 4): "
            + "; ".join(
                f"{r['model']}: Full {_pct(r['full'])} vs open {_pct(r['open'])} on the same {r['items']} items, "
                f"drop {_delta({**r, 'delta': r['drop'], 'n': r['items']})} points"
                for r in ovc["models"]
            )
            + (f"; Spearman rho across models {ovc['spearman_rho']:+.2f}" if ovc["spearman_rho"] is not None else "")
        )
    for r in data["open_vs_choice"].get("unpaired", []):  # an open-answer run left out of Table 4 is named
        console.print(f"Open answer vs multiple choice (Table 4): {r['model']} left out: {r['reason']}")
