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
from rich.table import Table

from ...core.jsonl import dump_json
from ...shared.benchmark import read_log
from ...shared.ledger import usage_rows
from ...shared.outputs import describe
from ...shared.statistics import bootstrap_ci, cluster_bootstrap_ci, percent
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
    ci = bootstrap_ci(values) if clusters is None else cluster_bootstrap_ci(values, clusters)
    return {"n": len(values), "accuracy": statistics.fmean(values), "ci95": list(ci)}


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


def collect(logs: list[str]) -> dict[str, Any]:
    runs = []
    for path in logs:
        log = read_log(path)
        kind = (log.eval.metadata or {}).get("task")
        if (log.eval.metadata or {}).get("benchmark") != "perso" or kind not in ("behavioral", "cognitive"):
            continue
        rows = _rows(log)
        summary = behavioral_summary(rows) if kind == "behavioral" else cognitive_summary(rows)
        runs.append(
            {
                "log": path,
                "model": log.eval.model,
                "thinking": thinking(log),
                "task": kind,
                "created": log.eval.created,
                "item_authors": (log.eval.metadata or {}).get("item_authors"),
                "post_cleaning": vars(PostCleaning.of_records(_post_records(rows))),
                "unchecked": (log.eval.metadata or {}).get("unchecked"),
                **summary,
            }
        )
    deltas = []
    by_key = {(r["model"], r["task"], r["thinking"]): r for r in runs}
    for (model, kind, think), run in by_key.items():
        other = by_key.get((model, kind, False))
        if think and other is not None:
            keys = ["all"] if kind == "behavioral" else ["all", *DIMENSIONS]
            deltas.append(
                {
                    "model": model,
                    "task": kind,
                    **{
                        k: (run[k]["accuracy"] - other[k]["accuracy"])
                        if run[k]["accuracy"] is not None and other[k]["accuracy"] is not None
                        else None
                        for k in keys
                    },
                }
            )
    return {"runs": runs, "thinking_deltas": deltas}


def _cell(acc: dict[str, Any]) -> str:
    if not acc or acc.get("accuracy") is None:
        return "-"
    lo, hi = acc["ci95"]
    return f"{percent(acc['accuracy'])} [{percent(lo)}, {percent(hi)}] (n={acc['n']})"


def report(logs: list[str], console: Console, as_json: bool = False) -> None:
    """PerSo tables from logs of `socialbench run perso` (several models and both tasks at once)."""
    data = collect(logs)
    data["usage"] = usage_rows(logs)
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
    for r in runs:
        if r["post_cleaning"]["posts"]:
            cleaning = PostCleaning(**{**r["post_cleaning"], "examples": []})
            console.print(f"{r['model']}, {r['task']}: {cleaning.line()}")
    if data["thinking_deltas"]:
        table = Table(title="Thinking minus non-thinking, accuracy points (§4.4)")
        for col in ("model", "task", "all", *DIMENSIONS):
            table.add_column(col)
        for d in data["thinking_deltas"]:
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
