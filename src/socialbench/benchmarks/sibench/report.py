"""SI-Bench's terminal summary of a run and its report over logs (Table 1, per situation / context group,
ablation deltas, reply style, reply-to-CoT similarity)."""

from __future__ import annotations

import json
from typing import Any

from inspect_ai.log import EvalLog
from rich.console import Console
from rich.table import Table

from ...shared.statistics import percent as _pct
from . import analysis
from .judge import PROCESS_KEYS


def summarize(log: EvalLog, console: Console) -> None:
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
            _pct(metrics.get("cot_win_rate")),
            f"[{_pct(metrics.get('cot_win_ci_low'))}, {_pct(metrics.get('cot_win_ci_high'))}]",
            _pct(metrics.get("position_consistency")),
            _pct(metrics.get("first_position_rate")),
        )
        console.print(table)
    else:
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


def report(logs: list[str], console: Console, as_json: bool = False, similarity: bool = True) -> None:
    """Paper tables from inspect logs (several models, modes and ablations at once).

    Args:
        similarity: reply-to-CoT similarity with the offline sentence-transformers model (Figure 5).
    """
    rows = analysis.score_rows(logs)
    tables: dict[str, Any] = {
        "table1": analysis.table1(rows),
        "by_context_group": analysis.by_group(rows, "context_group"),
        "by_situation": analysis.by_group(rows, "situation"),
        "ablation_deltas": analysis.ablation_deltas(rows),
        "reply_style": analysis.reply_style(rows),
    }
    if similarity:
        from .similarity import reply_cot_similarity

        tables["reply_cot_similarity"] = reply_cot_similarity(logs)
    if as_json:
        console.file.write(json.dumps(tables, ensure_ascii=False) + "\n")
        return
    for name, data in tables.items():
        records = data if isinstance(data, list) else [{"group": g, **v} for g, v in data.items()]
        if not records:
            continue
        table = Table(title=name)
        for col in records[0]:
            table.add_column(
                col.replace("_", " "), justify="left" if col in ("model", "group", "mode", "removed") else "right"
            )
        for rec in records:
            table.add_row(*(f"{v:.2f}" if isinstance(v, float) else "-" if v is None else str(v) for v in rec.values()))
        console.print(table)
