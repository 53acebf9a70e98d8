"""Printed summaries of evaluation logs."""

from __future__ import annotations

from typing import Any

from inspect_ai.log import EvalLog
from rich.console import Console
from rich.table import Table

from .analysis.statistics import bootstrap_ci
from .benchmarks.longsocial.items import CAPABILITIES


def _rows(log: EvalLog) -> list[dict[str, Any]]:
    rows = []
    for sample in log.samples or []:
        score = (sample.scores or {}).get("choice_letter")
        if score is None:
            continue
        meta = score.metadata or {}
        rows.append(
            {
                "capability": meta.get("capability"),
                "platform": meta.get("platform"),
                "status": meta.get("status"),
                "correct": float(score.as_float()),
            }
        )
    return rows


def _line(label: str, rows: list[dict[str, Any]]) -> list[str]:
    asked = [r for r in rows if r["status"] != "overlength"]
    values = [r["correct"] for r in asked]
    if values:
        low, high = bootstrap_ci(values)
        acc = f"{100 * sum(values) / len(values):.1f}"
        ci = f"[{100 * low:.1f}, {100 * high:.1f}]"
    else:
        acc, ci = "-", "-"
    unparsed = sum(1 for r in asked if r["status"] == "unparsed")
    over = sum(1 for r in rows if r["status"] == "overlength")
    return [label, str(len(rows)), str(len(asked)), acc, ci, str(unparsed), str(over)]


def print_longsocial_report(log: EvalLog, console: Console) -> None:
    """Accuracy per capability and per platform with bootstrap 95% CIs, unparsed and over-length counts."""
    rows = _rows(log)
    table = Table(title=f"LongSocialBench — {log.eval.model} — workflow {log.eval.task_args.get('workflow', 'full')}")
    for col in ("Group", "Items", "Asked", "Acc. %", "95% CI", "Unparsed", "Over-length"):
        table.add_column(col, justify="left" if col == "Group" else "right")
    for cap, name in CAPABILITIES.items():
        subset = [r for r in rows if r["capability"] == cap]
        if subset:
            table.add_row(*_line(f"{cap} {name}", subset))
    table.add_section()
    for platform in sorted({str(r["platform"]) for r in rows}):
        table.add_row(*_line(platform, [r for r in rows if str(r["platform"]) == platform]))
    table.add_section()
    table.add_row(*_line("All items", rows))
    console.print(table)
    metrics = log.results.scores[0].metrics if log.results and log.results.scores else {}
    if "c_macro" in metrics:
        console.print(f"C-mac (macro mean over capabilities asked): {100 * metrics['c_macro'].value:.1f}%")
    if log.status != "success":
        console.print(f"[red]evaluation status: {log.status}[/] {log.error.message if log.error else ''}")
    console.print(f"log: {log.location}  (open with `inspect view --log-dir {log.location.rsplit('/', 1)[0]}`)")
