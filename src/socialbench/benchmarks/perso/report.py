"""PerSo tables from inspect logs: behavioral accuracy (all pairs and the length-robust subset) next to the length
heuristic on the same pairs, first-position rates (Fig. 2), per-dimension cognitive accuracy and option-choice
distributions (§A.5), and thinking vs non-thinking deltas when logs of both exist (§4.4). Every accuracy comes
with its n and bootstrap 95% CI; a cell with nothing asked is "-", never 0."""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from typing import Any

from inspect_ai.log import EvalLog
from rich.console import Console

from ...core.jsonl import dump_json
from ...shared.ledger import usage_rows
from ...shared.outputs import describe
from ...shared.runs import extracted, label_runs, run_info, run_set
from ...shared.statistics import EXACT_NOTE, ci_fields, cluster_bootstrap_ci, exact_mark, percent, proportion_ci
from ...shared.terminal import Table
from .baselines import length_heuristic
from .behavioral import INVALID, TIE, VALID
from .cognitive import LETTERS, UNPARSED
from .data import DIMENSIONS, LENGTH_RATIO_LIMIT
from .posts import PostCleaning

PAPER_FIRST_CHOICE = "45-58% for 12 of 15 models (Fig. 2)"


def thinking(log: EvalLog) -> bool:
    """A run "thinks" when its generate config (the model's, or the one given to the eval) asks for reasoning:
    an effort above minimal, or a reasoning token budget."""
    for config in (log.eval.model_generate_config, log.plan.config):
        effort = getattr(config, "reasoning_effort", None)
        if getattr(config, "reasoning_tokens", None) or effort not in (None, "none", "minimal"):
            return True
    return False


def _accuracy(values: list[float], clusters: list[Any] | None = None) -> dict[str, Any]:
    """Accuracy, n and a bootstrap 95% CI; with ``clusters`` (pair ids) whole pairs are resampled, so the two
    presentation orders of a pair move together."""
    if not values:
        return {"n": 0, "accuracy": None, "ci95": None}
    ci = proportion_ci(values) if clusters is None else cluster_bootstrap_ci(values, clusters)
    line = {"n": len(values), "accuracy": statistics.fmean(values), **ci_fields(ci)}
    if clusters is not None:  # the unit the interval resamples, which a figure's n must count
        line["pairs"] = len(set(clusters))
    return line


def _rows(log: EvalLog) -> list[dict[str, Any]]:
    rows = []
    for sample in log.samples or []:
        score = next(iter((sample.scores or {}).values()), None)
        if score is None:
            continue
        rows.append(
            {
                **sample.metadata,
                "correct": float(score.as_float()),
                "answer": score.answer,
                "status": (score.metadata or {}).get("status"),
            }
        )
    return rows


def _post_records(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per thread of the logged samples, what the edit and footnote rule removed from its post."""
    return {str(r.get("thread_id")): r["post_cleaning"] for r in rows if isinstance(r.get("post_cleaning"), dict)}


def behavioral_summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    robust = [r for r in rows if r["length_ratio"] <= LENGTH_RATIO_LIMIT]
    valid = [r for r in rows if r["status"] == VALID]
    pairs = {r["pair_id"]: (r["winner_words"], r["loser_words"]) for r in rows}
    robust_pairs = {r["pair_id"] for r in robust}
    chosen: dict[str, set[bool]] = defaultdict(set)  # per pair: did each valid answer pick the delta reply?
    for r in valid:
        chosen[r["pair_id"]].add(r["answer"] == ("1" if r["order"] == "winner-first" else "2"))
    seen_twice = [p for p, n in Counter(r["pair_id"] for r in valid).items() if n == 2]
    return {
        "samples": len(rows),
        "pairs": len(pairs),
        "all": _accuracy([r["correct"] for r in rows], [r["pair_id"] for r in rows]),
        "length_robust": {
            **_accuracy([r["correct"] for r in robust], [r["pair_id"] for r in robust]),
            "pairs": len(robust_pairs),
            "removed_pairs": len(pairs) - len(robust_pairs),
        },
        "invalid": sum(1 for r in rows if r["status"] == INVALID),
        "ties": sum(1 for r in rows if r["status"] == TIE),
        "pairs_with_unchecked_rules": len({r["pair_id"] for r in rows if r.get("unchecked_rules")}),
        "first_choice_rate": statistics.fmean(r["answer"] == "1" for r in valid) if valid else None,
        "first_choice": _accuracy([float(r["answer"] == "1") for r in valid], [r["pair_id"] for r in valid]),
        "order_consistent_pairs": (statistics.fmean(len(chosen[p]) == 1 for p in seen_twice) if seen_twice else None),
        "length_heuristic_same_pairs": length_heuristic(list(pairs.values())) if pairs else None,
    }


def cognitive_summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {"all": _accuracy([r["correct"] for r in rows])}
    for dim in DIMENSIONS:
        dim_rows = [r for r in rows if r["dimension"] == dim]
        answered = [r["answer"] for r in dim_rows if r["status"] != UNPARSED]
        out[dim] = {
            **_accuracy([r["correct"] for r in dim_rows]),
            "unparsed": sum(1 for r in dim_rows if r["status"] == UNPARSED),
            "option_shares": {x: (answered.count(x) / len(answered) if answered else None) for x in LETTERS},
        }
    return out


AXES = ("task", "generate:reasoning*")
"""What a PerSo table shows in its own columns: the task kind, and thinking (the reasoning settings: the §4.4 delta
is thinking minus non-thinking of runs that differ in nothing else)."""


def _logged(log: EvalLog) -> tuple[list[dict[str, Any]], dict[str, Any], bool]:
    return _rows(log), dict(log.eval.metadata or {}), thinking(log)


def collect(logs: list[str]) -> dict[str, Any]:
    """Every PerSo run among the logs (one per run identity, `shared.runs`), each labelled by what tells it apart
    from the other runs of its task, and the thinking deltas between runs that differ only in reasoning."""
    chosen = run_set(logs)
    infos = []
    for info in chosen.runs:
        rows, meta, thinks = extracted(info.path, _logged)
        kind = meta.get("task")
        if meta.get("benchmark") == "perso" and kind in ("behavioral", "cognitive"):
            infos.append((info, rows, meta, thinks, kind))
    label_runs([i[0] for i in infos], key=lambda r: r.fields["task"].value)  # differences within a task kind
    runs = []
    for info, rows, meta, thinks, kind in infos:
        summary = behavioral_summary(rows) if kind == "behavioral" else cognitive_summary(rows)
        runs.append(
            {
                "log": info.path,
                "model": info.label_without(AXES),
                "model_name": info.model,
                "differs": info.differs,
                "thinking": thinks,
                "task": kind,
                "created": info.created,
                "item_authors": meta.get("item_authors"),
                "post_cleaning": vars(PostCleaning.of_records(_post_records(rows))),
                "unchecked": meta.get("unchecked"),
                **summary,
            }
        )
    deltas = []
    for run in runs:
        if not run["thinking"]:
            continue
        partners = [o for o in runs if o["model"] == run["model"] and o["task"] == run["task"] and not o["thinking"]]
        keys = ["all"] if run["task"] == "behavioral" else ["all", *DIMENSIONS]
        row: dict[str, Any] = {"model": run["model"], "task": run["task"], "thinking_log": run["log"]}
        if len(partners) != 1:
            why = "no non-thinking run" if not partners else f"{len(partners)} non-thinking runs differ in reasoning"
            deltas.append({**row, "no_partner": f"{why} with the same model and settings", **dict.fromkeys(keys)})
            continue
        other = partners[0]
        deltas.append(
            {
                **row,
                "partner_log": other["log"],
                "no_partner": None,
                **{
                    k: (run[k]["accuracy"] - other[k]["accuracy"])
                    if run[k]["accuracy"] is not None and other[k]["accuracy"] is not None
                    else None
                    for k in keys
                },
            }
        )
    left = [x.as_dict() for x in chosen.left_out if run_info(x.path).task == "perso"]
    return {"runs": runs, "thinking_deltas": deltas, "left_out": left}


def _cell(acc: dict[str, Any]) -> str:
    if not acc or acc.get("accuracy") is None:
        return "-"
    if not acc.get("ci95"):
        return f"{percent(acc['accuracy'])} [n/a: {acc.get('ci_method', 'no interval')}] (n={acc['n']})"
    lo, hi = acc["ci95"]
    return f"{percent(acc['accuracy'])} [{percent(lo)}, {percent(hi)}]{exact_mark(acc)} (n={acc['n']})"


def report(logs: list[str], console: Console, as_json: bool = False) -> None:
    """PerSo tables from logs of `socialbench run perso` (several models and both tasks at once)."""
    data = collect(logs)
    data["usage"] = usage_rows([r.path for r in run_set(logs).runs])  # the counted runs, as in the terminal
    if as_json:
        console.file.write(dump_json(data) + "\n")
        return
    runs = data["runs"]
    if not runs:
        console.print("no PerSo behavioral or cognitive logs among the inputs")
        return
    behavioral = [r for r in runs if r["task"] == "behavioral"]
    if behavioral:
        table = Table(
            title="PerSo behavioral: accuracy % [95% CI over pairs] (n samples); both orders count, resampled together"
        )
        for col in (
            "model",
            "all pairs",
            f"length-robust (ratio ≤ {LENGTH_RATIO_LIMIT})",
            "longer-reply heuristic, same pairs",
            "first-position choice %",
            "same choice in both orders %",
            "invalid",
            "ties",
        ):
            table.add_column(col)
        for r in behavioral:
            table.add_row(
                r["model"] + (" (thinking)" if r["thinking"] else ""),
                _cell(r["all"]),
                _cell(r["length_robust"])
                + f" {r['length_robust']['pairs']} pairs ({r['length_robust']['removed_pairs']} removed)",
                percent(r["length_heuristic_same_pairs"]),
                percent(r["first_choice_rate"]),
                percent(r["order_consistent_pairs"]),
                str(r["invalid"]),
                str(r["ties"]),
            )
        console.print(table)
        console.print(
            f"Paper: first-position choice {PAPER_FIRST_CHOICE}; length heuristic 65.5% (Table 9); the length-robust "
            "subset removed 33 of its 200 pairs (§A.8). Invalid and tied answers are scored wrong."
        )
        for r in behavioral:
            if r["unchecked"] == "admit":
                console.print(
                    f"{r['model']}: sampled with unchecked=admit: {r['pairs_with_unchecked_rules']} of {r['pairs']} "
                    "pairs have a construction rule that could not be checked (listed per sample in the log)."
                )
    cognitive = [r for r in runs if r["task"] == "cognitive"]
    if cognitive:
        table = Table(title="PerSo cognitive: accuracy % [95% CI] (n items) per dimension")
        table.add_column("model", no_wrap=True)
        for col in (*DIMENSIONS, "all", "unparsed"):
            table.add_column(col)
        for r in cognitive:
            table.add_row(
                r["model"] + (" (thinking)" if r["thinking"] else ""),
                *(_cell(r[d]) for d in DIMENSIONS),
                _cell(r["all"]),
                str(sum(r[d]["unparsed"] for d in DIMENSIONS)),
            )
        console.print(table)
        shares = Table(title="Option choice distribution % (A/B/C/D) per dimension (§A.5)")
        for col in ("model", *DIMENSIONS):
            shares.add_column(col)
        for r in cognitive:
            shares.add_row(
                r["model"],
                *("/".join(percent(r[d]["option_shares"][x]) for x in LETTERS) for d in DIMENSIONS),
            )
        console.print(shares)
        authors = sorted({a for r in cognitive for a in r["item_authors"] or []})
        console.print(f"Items written by: {'; '.join(authors)}")
    shown = [r[k] for r in runs for k in ("all", "length_robust", *DIMENSIONS) if isinstance(r.get(k), dict)]
    if any(exact_mark(line) for line in shown):
        console.print(EXACT_NOTE)
    for r in runs:
        if r["post_cleaning"]["posts"]:
            cleaning = PostCleaning(**{**r["post_cleaning"], "examples": []})
            console.print(f"{r['model']}, {r['task']}: {cleaning.line()}")
    if data["thinking_deltas"]:
        table = Table(title="Thinking minus non-thinking, accuracy points (§4.4)")
        for col in ("model", "task", "all", *DIMENSIONS):
            table.add_column(col)
        for d in data["thinking_deltas"]:
            if d["no_partner"]:
                table.add_row(d["model"], d["task"], f"no partner: {d['no_partner']}")
                continue
            table.add_row(
                d["model"],
                d["task"],
                *("-" if d.get(k) is None else f"{100 * d[k]:+.1f}" for k in ("all", *DIMENSIONS)),
            )
        console.print(table)


def summarize(log: EvalLog, console: Console) -> None:
    """The tables of `report` for one run; for a generation run, what was written."""
    if (log.eval.metadata or {}).get("task") == "generate":
        metrics = {k: v.value for s in (log.results.scores if log.results else []) for k, v in s.metrics.items()}
        console.print(
            f"PerSo generation: {metrics.get('items_written', 0):.0f} items written, "
            f"{metrics.get('items_flagged', 0):.0f} with lint flags, {metrics.get('malformed_answers', 0):.0f} "
            f"malformed generator answers. Export: socialbench analyze perso export-items -A log={log.location} "
            "-A out=ITEMS.jsonl"
        )
    elif log.location:
        report([log.location], console)
        causes = [
            (score.metadata or {}).get("output_problem")
            for e in log.samples or []
            for score in (e.scores or {}).values()
        ]
        if problems := describe(causes):
            console.print(f"Answers that could not be read, by cause: {problems} (each scored wrong).")
    console.print(f"log: {log.location}")
