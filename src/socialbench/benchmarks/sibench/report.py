"""SI-Bench's terminal summary of one run (the report over many runs is `figures.document`)."""

from __future__ import annotations

from typing import Any

from inspect_ai.log import EvalLog
from rich.console import Console

from ...shared.outputs import describe
from ...shared.statistics import percent as _pct
from ...shared.terminal import Table
from .judge import PROCESS_KEYS

_HEADERS = {
    "motivation": "motiv.",
    "cause": "cause",
    "emotional_attitude": "emotion",
    "social_intention": "intention",
    "communicative_strategy": "strategy",
    "cot_reply": "CoT reply",
    "direct_reply": "direct reply",
    "unparsed": "unparsed",
    "unjudged": "unjudged",
    "length_violation": "over 15 chars",
}
_PAPER_FLAGS = ("unparsed_cot", "unparsed_direct", "unjudged_process", "unjudged_replies", "length_violation_cot",
                "length_violation_direct", "identical_replies")  # fmt: skip


def _mean_cell(rows: list[dict[str, Any]], key: str, scale: float = 1.0) -> str:
    values = [float(r[key]) for r in rows if isinstance(r.get(key), int | float) and r[key] == r[key]]
    return f"{scale * sum(values) / len(values):.2f}" if values else "-"


def _groups(log: EvalLog) -> dict[str, list[dict[str, Any]]]:
    groups: dict[str, list[dict[str, Any]]] = {"All": []}
    for sample in log.samples or []:
        for score in (sample.scores or {}).values():
            if isinstance(score.value, dict):
                row = dict(score.value)
                meta = sample.metadata or {}
                groups["All"].append(row)
                groups.setdefault(f"{meta.get('context_group')}-context", []).append(row)
                groups.setdefault(str(meta.get("situation")), []).append(row)
    return groups


def _ordered(groups: dict[str, list[dict[str, Any]]]) -> list[list[str]]:
    contexts: list[str] = [g for g in ("high-context", "low-context") if g in groups]
    return [["All"], contexts, sorted(g for g in groups if g != "All" and g not in contexts)]


def summarize(log: EvalLog, console: Console) -> None:
    """Mean scores (0-10) per dimension, overall and per situation / context group, like SI-Bench Table 1 and
    Figure 6; the CoT win rate (paper protocol, pairwise diagnostic); the counts of what was not judged."""
    task_args = log.eval.task_args
    mode = task_args.get("mode", "paper")
    metrics = {name: m.value for s in (log.results.scores if log.results else []) for name, m in s.metrics.items()}
    by_key = {  # dict-valued scores (paper mode): one EvalScore per key, metrics under registry names
        s.name: {k.split("/")[-1]: m.value for k, m in s.metrics.items()}
        for s in (log.results.scores if log.results else [])
    }
    table = Table(title=f"SI-Bench — {log.eval.model} — mode {mode}, prompts {task_args.get('lang', 'zh')}")
    if mode == "pairwise":
        for col in ("CoT win rate %", "95% CI", "Order-swap consistency %", "First shown preferred %",
                    "Preference contradicts scores %"):  # fmt: skip
            table.add_column(col, justify="right")
        table.add_row(
            _pct(metrics.get("cot_win_rate")),
            f"[{_pct(metrics.get('cot_win_ci_low'))}, {_pct(metrics.get('cot_win_ci_high'))}]",
            _pct(metrics.get("position_consistency")),
            _pct(metrics.get("first_position_rate")),
            _pct(metrics.get("preference_contradicts_scores")),
        )
        console.print(table)
        console.print(f"log: {log.location}")
        return
    groups = _groups(log)
    if mode == "paper":
        keys = [*PROCESS_KEYS, "cot_reply", "direct_reply"]
        flags = []  # printed below the table: the paper-mode table is already wide
        extra = ["CoT win %", "ties %"]
    else:
        keys = [k for k in (*PROCESS_KEYS, "reply") if any(k in r for r in groups["All"])]
        flags = ["unparsed", "unjudged", "length_violation"]
        extra = []
    table.add_column("Group")
    table.add_column("n", justify="right")
    for col in [*keys, *extra, *flags]:
        table.add_column(_HEADERS.get(col, col.replace("_", " ")), justify="right")
    for section in _ordered(groups):
        for name in section:
            rows = groups[name]
            judged = rows if mode == "paper" else [r for r in rows if not r.get("unparsed") and not r.get("unjudged")]
            cells = [_mean_cell(judged, k) for k in keys]
            if mode == "paper":
                cells += [_mean_cell(rows, "cot_wins", 100), _mean_cell(rows, "tie", 100)]
            counts = [str(int(sum(float(r.get(f, 0)) for r in rows))) for f in flags]
            table.add_row(name, str(len(rows)), *cells, *counts)
        table.add_section()
    console.print(table)
    causes = [
        (sample.metadata or {}).get(f"output_problem{suffix}")
        for sample in log.samples or []
        for suffix in ("", "_cot", "_direct")
    ]
    if problems := describe(causes):
        console.print(f"Replies that could not be read, by cause: {problems}.")
    if mode == "paper":
        totals = {f: int(sum(float(r.get(f, 0)) for r in groups["All"])) for f in _PAPER_FLAGS}
        # the protocol scores the two replies side by side: a reply whose partner is not a reply is not judged alone
        # (a score given alone would pool two judging conditions in one mean), and is counted here
        totals["alone"] = sum(
            1 for r in groups["All"] if float(r.get("unparsed_cot", 0)) + float(r.get("unparsed_direct", 0)) == 1
        )
        console.print(
            "Not judged: CoT answer unreadable {unparsed_cot}, direct reply unreadable {unparsed_direct}, a readable "
            "reply whose partner is not (the two are judged side by side) {alone}, process verdict invalid "
            "{unjudged_process}, reply verdict invalid {unjudged_replies}; over 15 characters: CoT "
            "{length_violation_cot}, direct {length_violation_direct}; identical CoT and direct replies (a tie, "
            "no preference asked) {identical_replies}.".format(**totals)
        )
        wins = by_key.get("cot_wins", {})
        rate = _pct(wins.get("judged_mean"))
        console.print(
            (
                f"CoT win rate {rate}% [{_pct(wins.get('judged_ci_low'))}, {_pct(wins.get('judged_ci_high'))}]"
                if rate != "-"
                else "CoT win rate: - (no dialogue had both replies judged)"
            )
            + " (replies scored blind in one presentation; a forced preference only on ties)."
        )
        firsts = [
            bool((score.metadata or {}).get("cot_first"))
            for sample in log.samples or []
            for name, score in (sample.scores or {}).items()
            if name == "paper_judge" and "cot_first" in (score.metadata or {})
        ]
        if firsts:
            console.print(
                f"Blind order: the CoT reply was shown first in {sum(firsts)} of {len(firsts)} judged pairs "
                f"({_pct(sum(firsts) / len(firsts))}%; balanced per situation by the task's seed)."
            )
    if log.eval.config.limit:
        situations = len({str((sample.metadata or {}).get("situation")) for sample in log.samples or []})
        order = (log.eval.metadata or {}).get("order", "the task's order")
        console.print(
            f"--limit {log.eval.config.limit}: the first dialogues of the subset in its order ({order}), i.e. "
            + (
                "a uniform random sample"
                if "random" in order
                else f"a situation-balanced sample over {situations} situations"
            )
            + "."
        )
    console.print(f"log: {log.location}")
