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


def print_sibench_report(log: EvalLog, console: Console) -> None:
    """Mean scores (0-10) per dimension, overall and per situation / context group, like SI-Bench Table 1 and
    Figure 6; or, for the pairwise mode, the CoT win rate with its CI and the position-bias checks."""
    task_args = log.eval.task_args
    mode = task_args.get("mode", "cot")
    metrics = {name: m.value for s in (log.results.scores if log.results else []) for name, m in s.metrics.items()}
    table = Table(title=f"SI-Bench — {log.eval.model} — mode {mode}, prompts {task_args.get('lang', 'zh')}")
    if mode == "pairwise":
        for col in ("CoT win rate %", "95% CI", "Order-swap consistency %", "First shown preferred %"):
            table.add_column(col, justify="right")
        table.add_row(
            f"{100 * metrics.get('cot_win_rate', 0):.1f}",
            f"[{100 * metrics.get('cot_win_ci_low', 0):.1f}, {100 * metrics.get('cot_win_ci_high', 0):.1f}]",
            f"{100 * metrics.get('position_consistency', 0):.1f}",
            f"{100 * metrics.get('first_position_rate', 0):.1f}",
        )
        console.print(table)
    else:
        from .benchmarks.sibench.judge import PROCESS_KEYS

        keys = [
            k
            for k in (*PROCESS_KEYS, "reply")
            if any(
                isinstance(s.scores, dict)
                and any(isinstance(v.value, dict) and k in v.value for v in s.scores.values())
                for s in (log.samples or [])
            )
        ]
        groups: dict[str, list[dict[str, Any]]] = {"All": []}
        for sample in log.samples or []:
            for score in (sample.scores or {}).values():
                if isinstance(score.value, dict):
                    row = dict(score.value)
                    groups["All"].append(row)
                    meta = sample.metadata or {}
                    groups.setdefault(f"{meta.get('context_group')}-context", []).append(row)
                    groups.setdefault(str(meta.get("situation")), []).append(row)
        table.add_column("Group")
        table.add_column("n", justify="right")
        for k in keys:
            table.add_column(k.replace("_", " "), justify="right")
        for col in ("unparsed", "unjudged", "over 15 chars"):
            table.add_column(col, justify="right")
        contexts = [g for g in ("high-context", "low-context") if g in groups]
        situations = sorted(g for g in groups if g != "All" and g not in contexts)
        for section in (["All"], contexts, situations):
            for name in section:
                rows = groups[name]
                judged = [r for r in rows if not r.get("unparsed") and not r.get("unjudged")]
                cells = [f"{sum(float(r[k]) for r in judged) / len(judged):.2f}" if judged else "-" for k in keys]
                flags = [
                    str(int(sum(float(r.get(f, 0)) for r in rows)))
                    for f in ("unparsed", "unjudged", "length_violation")
                ]
                table.add_row(name, str(len(rows)), *cells, *flags)
            table.add_section()
        console.print(table)
    console.print(f"log: {log.location}")
