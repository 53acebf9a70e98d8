"""PerSo tables from inspect logs: behavioral accuracy (all pairs and the length-robust subset) next to the length
heuristic on the same pairs, first-position rates (Fig. 2), per-dimension cognitive accuracy and option-choice
distributions (§A.5), and thinking vs non-thinking deltas when logs of both exist (§4.4). Every accuracy comes
with its n and bootstrap 95% CI; a cell with nothing asked is "-", never 0."""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from typing import Any

from inspect_ai.log import EvalLog

from ...shared.runs import extracted, label_runs, run_info, run_set
from ...shared.statistics import ci_fields, cluster_bootstrap_ci, proportion_ci
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
