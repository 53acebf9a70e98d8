"""LongSocialBench's terminal summary of a run and its report over logs."""

from __future__ import annotations

import json
import math
import statistics
from typing import Any

from inspect_ai.log import EvalLog, read_eval_log
from rich.console import Console
from rich.table import Table

from ...shared.statistics import bootstrap_ci
from .items import CAPABILITIES
from .scorer import OVERLENGTH, UNPARSED


def score_rows(log: EvalLog) -> list[dict[str, Any]]:
    """One row per scored item: capability, platform, status, correct."""
    rows = []
    for sample in log.samples or []:
        score = (sample.scores or {}).get("choice_letter")
        if score is None:
            continue
        meta = score.metadata or {}
        rows.append(
            {
                "item": sample.id,
                "capability": meta.get("capability"),
                "platform": meta.get("platform"),
                "status": meta.get("status"),
                "correct": float(score.as_float()),
            }
        )
    return rows


def group_line(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Items, asked, accuracy with its bootstrap 95% CI (None when nothing was asked), unparsed, over-length."""
    asked = [r for r in rows if r["status"] != OVERLENGTH]
    values = [r["correct"] for r in asked]
    low, high = bootstrap_ci(values) if values else (None, None)
    return {
        "items": len(rows),
        "asked": len(asked),
        "accuracy": statistics.fmean(values) if values else None,
        "ci95": None if low is None else [low, high],
        "unparsed": sum(1 for r in asked if r["status"] == UNPARSED),
        "overlength": len(rows) - len(asked),
    }


def c_mac_text(rows: list[dict[str, Any]]) -> str:
    """C-mac over C1-C6, or "-" with the capabilities that had no asked items named."""
    per = {cap: group_line([r for r in rows if r["capability"] == cap])["accuracy"] for cap in CAPABILITIES}
    missing = [cap for cap, acc in per.items() if acc is None]
    if not missing:
        return f"{100 * statistics.fmean(per.values()):.1f}%"
    present = [acc for acc in per.values() if acc is not None]
    partial = (
        f"; the mean over the {len(present)} capabilities asked is {100 * statistics.fmean(present):.1f}%"
        if present
        else ""
    )
    return f"- (no asked items for {', '.join(missing)}{partial})"


def _pct(value: float | None) -> str:
    return "-" if value is None or math.isnan(value) else f"{100 * value:.1f}"


def summary_table(log: EvalLog) -> tuple[Table, list[dict[str, Any]]]:
    rows = score_rows(log)
    workflow = log.eval.task_args.get("workflow", "full")
    table = Table(title=f"LongSocialBench — {log.eval.model} — workflow {workflow}")
    for col in ("Group", "Items", "Asked", "Acc. %", "95% CI", "Unparsed", "Over-length"):
        table.add_column(col, justify="left" if col == "Group" else "right")

    def add(label: str, subset: list[dict[str, Any]]) -> None:
        line = group_line(subset)
        ci = "-" if line["ci95"] is None else f"[{_pct(line['ci95'][0])}, {_pct(line['ci95'][1])}]"
        table.add_row(
            label,
            str(line["items"]),
            str(line["asked"]),
            _pct(line["accuracy"]),
            ci,
            str(line["unparsed"]),
            str(line["overlength"]),
        )

    for cap, name in CAPABILITIES.items():
        subset = [r for r in rows if r["capability"] == cap]
        if subset:
            add(f"{cap} {name}", subset)
    table.add_section()
    for platform in sorted({str(r["platform"]) for r in rows}):
        add(platform, [r for r in rows if str(r["platform"]) == platform])
    table.add_section()
    add("All items", rows)
    return table, rows


def summarize(log: EvalLog, console: Console) -> None:
    """Accuracy per capability and per platform with bootstrap 95% CIs, unparsed and over-length counts,
    C-mac, and where the log is."""
    table, rows = summary_table(log)
    console.print(table)
    console.print(f"C-mac (mean over C1-C6): {c_mac_text(rows)}")
    if log.status != "success":
        console.print(f"[red]evaluation status: {log.status}[/] {log.error.message if log.error else ''}")
    console.print(f"log: {log.location}  (open with `inspect view --log-dir {log.location.rsplit('/', 1)[0]}`)")


def report(logs: list[str], console: Console, as_json: bool = False) -> None:
    """Per log (model x workflow): the summary table; with ``--json``, the numbers as one JSON object."""
    results = []
    for path in logs:
        log = read_eval_log(path)
        if log.eval.task_registry_name and not log.eval.task_registry_name.endswith("longsocial"):
            continue
        if as_json:
            rows = score_rows(log)
            results.append(
                {
                    "log": path,
                    "model": log.eval.model,
                    "workflow": log.eval.task_args.get("workflow", "full"),
                    "all": group_line(rows),
                    "capabilities": {c: group_line([r for r in rows if r["capability"] == c]) for c in CAPABILITIES},
                    "c_mac": c_mac_text(rows),
                }
            )
        else:
            summarize(log, console)
    if as_json:
        console.file.write(json.dumps({"runs": results}, ensure_ascii=False) + "\n")
