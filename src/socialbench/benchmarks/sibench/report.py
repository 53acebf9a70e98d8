"""SI-Bench's terminal summary of a run and its report over logs (Table 1, per situation / context group,
ablation deltas, reply style, reply-to-CoT similarity)."""

from __future__ import annotations

from typing import Any

from inspect_ai.log import EvalLog
from rich.console import Console

from ...core.jsonl import dump_json
from ...shared.ledger import usage_rows
from ...shared.outputs import describe
from ...shared.runs import run_info, run_set
from ...shared.statistics import percent as _pct
from ...shared.terminal import Table
from . import analysis
from .judge import PROCESS_KEYS
from .paper import HUMAN_ALPHA, TABLE1

HUMAN_REFERENCE = {
    "cot_reply": TABLE1["Human expert"]["cot_reply"],
    "direct_reply": TABLE1["Human expert"]["direct_reply"],
    "alpha": HUMAN_ALPHA,
    "source": "SI-Bench §3.3, §4.1, Table 1",
}


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
        console.print(
            "Not judged: CoT answer unreadable {unparsed_cot}, direct reply unreadable {unparsed_direct}, process "
            "verdict invalid {unjudged_process}, reply verdict invalid {unjudged_replies}; over 15 characters: CoT "
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


def report(
    logs: list[str], console: Console, as_json: bool = False, similarity: bool = True, embedder: str = "minilm"
) -> None:
    """Paper tables from inspect logs (several models, modes and ablations at once), with the paper's human
    reference next to them.

    Args:
        similarity: process-to-reply similarity (Fig. 5) with a sentence-transformers model.
        embedder: the embedding model of Fig. 5: ``minilm`` (bundled all-MiniLM-L6-v2, English-only) or a local
            path / cached id of a multilingual model.
    """
    rows = analysis.score_rows(logs)
    tables: dict[str, Any] = {
        "table1": analysis.table1(rows),
        "by_context_group": analysis.by_group(rows, "context_group"),
        "by_situation": analysis.by_group(rows, "situation"),
        "ablation_deltas": analysis.ablation_deltas(rows),
        "process_style": analysis.process_style(rows),
        "reply_style": analysis.reply_style(rows),
    }
    if similarity:
        from .similarity import process_reply_similarity

        tables["process_reply_similarity"] = [
            {k: v for k, v in r.items() if not k.startswith("values_")}
            for r in process_reply_similarity(logs, embedder)
        ]
    tables["paper_human_reference"] = HUMAN_REFERENCE
    chosen = run_set(logs)
    tables["usage"] = usage_rows([r.path for r in chosen.runs])  # the counted runs, as in the terminal
    tables["left_out"] = [x.as_dict() for x in chosen.left_out if run_info(x.path).task == "sibench"]
    if as_json:
        console.file.write(dump_json(tables) + "\n")
        return
    for name, data in tables.items():
        if name in ("paper_human_reference", "left_out"):  # the command prints the left-out logs
            continue
        records = data if isinstance(data, list) else [{"group": g, **v} for g, v in data.items()]
        if not records:
            continue
        if name == "table1":  # one block per prompt language and dialogue subset: never pooled across them
            for block in dict.fromkeys(r["block"] for r in records):
                mine = [{k: v for k, v in r.items() if k != "block"} for r in records if r["block"] == block]
                _print_records(console, f"Table 1: {block} (rows: models; human replies their own row)", mine)
            console.print(
                f"Paper (not your run): the human expert's replies scored {HUMAN_REFERENCE['cot_reply']} (CoT) and "
                f"{HUMAN_REFERENCE['direct_reply']} (direct) by three graduate annotators, Krippendorff's α = "
                f"{HUMAN_REFERENCE['alpha']} ({HUMAN_REFERENCE['source']}). CoT win rate and ties in %."
            )
            continue
        _print_records(console, name, records)
        if name == "ablation_deltas":
            for note in analysis.ablation_notes(records):
                console.print(note)
    sims = tables.get("process_reply_similarity") or []
    if any(r["english_only_embedder"] for r in sims):
        console.print(
            "Fig. 5 similarity used an English-only embedding model on Chinese text; pass -R embedder=PATH of a "
            "multilingual model for comparable numbers."
        )


def _print_records(console: Console, title: str, records: list[dict[str, Any]]) -> None:
    table = Table(title=title)
    for col in records[0]:
        table.add_column(col.replace("_", " "), justify="left" if col in _TEXT_COLUMNS else "right")
    for rec in records:
        table.add_row(*(_cell(v, k) for k, v in rec.items()))
    console.print(table)


_TEXT_COLUMNS = ("model", "group", "mode", "removed", "kind", "protocol", "log", "baseline", "block")
_PERCENT_COLUMNS = ("cot_win_rate", "ties", "cot_shown_first")


def _cell(value: Any, column: str = "") -> str:
    if column in _PERCENT_COLUMNS and isinstance(value, int | float) and value == value:
        return _pct(float(value))
    if value is None or (isinstance(value, float) and value != value):
        return "-"
    if isinstance(value, float):
        return f"{value:.2f}"
    if isinstance(value, list):
        return "[" + ", ".join(_cell(v) for v in value) + "]"
    return str(value)
