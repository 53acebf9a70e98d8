"""LongSocialBench's terminal summary of one run: accuracy with its interval per capability and per platform, the
unparsed and over-length counts, C-mac, and the rows every report reads from a log (`score_rows`)."""

from __future__ import annotations

import statistics
from collections import Counter
from typing import Any

from inspect_ai.log import EvalLog
from rich.console import Console

from ...shared.budgets import call_counts
from ...shared.metrics import OVERLENGTH
from ...shared.outputs import describe
from ...shared.statistics import percent as _pct
from ...shared.statistics import proportion_ci
from ...shared.terminal import Table
from .items import CAPABILITIES
from .scorer import CONTEXT, UNJUDGED, UNPARSED

PAPER_PLATFORMS = {"hn": "Hacker News", "stackexchange": "Stack Exchange", "reddit_cmv": "r/ChangeMyView"}


def score_rows(log: EvalLog) -> list[dict[str, Any]]:
    """One row per scored item: capability, platform, episode, status, correct."""
    rows = []
    for sample in log.samples or []:
        scores = sample.scores or {}
        score = scores.get("choice_letter") or scores.get("open_answer_judge")
        if score is None:
            continue
        meta = score.metadata or {}
        cut = (sample.metadata or {}).get("truncated") or {}
        context = (sample.metadata or {}).get(CONTEXT) or {}
        calls = call_counts([sample.metadata])
        rows.append(
            {
                "item": str(sample.id),
                "capability": meta.get("capability"),
                "platform": meta.get("platform"),
                "episode": meta.get("episode_id"),
                "status": meta.get("status"),
                "output_problem": meta.get("output_problem"),
                "fallback": bool(meta.get("fallback")),
                # an intermediate step that gave nothing usable: the setting ran without what it is named for
                "empty_notes": "notes" in context and not str(context["notes"]).strip(),
                "no_labels": "labels" in context and not context["labels"],
                "failed_calls": sorted(kind for kind, c in calls.items() if c.failed),
                "model_calls": (sample.metadata or {}).get("model_calls"),
                "kept_posts": cut.get("kept_posts"),
                "total_posts": cut.get("total_posts"),
                "correct": float(score.as_float()),
            }
        )
    return rows


def group_line(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Items, asked, accuracy with its bootstrap 95% CI (None when nothing was asked), unparsed, over-length."""
    asked = [r for r in rows if r["status"] != OVERLENGTH]
    values = [r["correct"] for r in asked if r["status"] != UNJUDGED]  # a judge's failure is not the model's
    low, high = proportion_ci(values) if values else (None, None)  # Wilson for 0/1 outcomes
    cut = [r for r in asked if r.get("total_posts")]
    return {
        "items": len(rows),
        "asked": len(asked),
        "accuracy": statistics.fmean(values) if values else None,
        "ci95": None if low is None else [low, high],
        "unparsed": sum(1 for r in asked if r["status"] == UNPARSED),
        "unjudged": sum(1 for r in asked if r["status"] == UNJUDGED),
        "fallbacks": sum(1 for r in asked if r.get("fallback")),
        "empty_notes": sum(1 for r in asked if r.get("empty_notes")),
        "no_labels": sum(1 for r in asked if r.get("no_labels")),
        "failed_calls": dict(Counter(kind for r in asked for kind in r.get("failed_calls") or [])),
        "overlength": len(rows) - len(asked),
        "truncated": len(cut),
        "posts_kept": sum(r["kept_posts"] for r in cut) / sum(r["total_posts"] for r in cut) if cut else None,
    }


def degraded_marks(line: dict[str, Any]) -> list[str]:
    """What made a run less than its setting, per asked items: "fell back to Full on 36/36", "notes empty on
    36/36", "no labels on 2/36", "retrieve calls cut off or empty on 36/36" (shown next to its number everywhere)."""
    asked = line["asked"]
    marks = [
        f"{text} on {line[key]}/{asked}"
        for key, text in (
            ("fallbacks", "fell back to Full"),
            ("empty_notes", "notes empty"),
            ("no_labels", "no labels"),
        )
        if line.get(key)
    ]
    failed = sorted((line.get("failed_calls") or {}).items())
    # answers and verdicts that failed are already counted as unparsed / unjudged items
    marks += [f"{kind} calls cut off or empty on {n}/{asked}" for kind, n in failed if kind not in ("answer", "judge")]
    return marks


def truncation_text(line: dict[str, Any]) -> str:
    """``truncated 12 of 36 asked, 41.0% of their posts kept``, or "" when no item was truncated."""
    if not line.get("truncated"):
        return ""
    return f"truncated {line['truncated']} of {line['asked']} asked, {_pct(line['posts_kept'])}% of their posts kept"


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


def _ci(line: dict[str, Any]) -> str:
    return "-" if line["ci95"] is None else f"[{_pct(line['ci95'][0])}, {_pct(line['ci95'][1])}]"


def dense_suffix(embedder: str | None) -> str:
    """`` [dense: NAME]`` for a dense run whose embedder is not an E5 model; empty otherwise."""
    if not embedder or "e5" in embedder.lower():
        return ""
    return f" [dense: {embedder.rsplit('/', 1)[-1]}]"


def summary_table(log: EvalLog) -> tuple[Table, list[dict[str, Any]]]:
    rows = score_rows(log)
    workflow = str(log.eval.task_args.get("workflow", "full")) + dense_suffix((log.eval.metadata or {}).get("embedder"))
    table = Table(title=f"LongSocialBench — {log.eval.model} — workflow {workflow}")
    for col in ("Group", "Items", "Asked", "Acc. %", "95% CI", "Unparsed", "Over-length", "Truncated"):
        table.add_column(col, justify="left" if col == "Group" else "right")

    def add(label: str, subset: list[dict[str, Any]]) -> None:
        line = group_line(subset)
        table.add_row(
            label,
            str(line["items"]),
            str(line["asked"]),
            _pct(line["accuracy"]),
            _ci(line),
            str(line["unparsed"]),
            str(line["overlength"]),
            str(line["truncated"]),
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
    whole = group_line(rows)
    if whole["truncated"]:
        console.print(
            f"[yellow]Truncated:[/] {truncation_text(whole)} (-T overlength=truncate: the prompt kept the thread-order "
            "prefix of the posts that fits the window). These accuracies are not full-discussion results; every "
            "report labels this run as truncated."
        )
    if whole["unjudged"]:
        console.print(
            f"Unjudged: the grader gave no valid verdict on {whole['unjudged']} of {whole['asked']} asked items; "
            "they are left out of the accuracy (n judged = asked - unjudged), not scored wrong."
        )
    if empty := [m for m in degraded_marks(whole) if m.startswith(("notes empty", "no labels"))]:
        console.print(
            f"[yellow]Empty intermediate results:[/] {'; '.join(empty)} (the setting answered without the notes / "
            "labels it is named for; every report marks this run)."
        )
    if whole["fallbacks"]:
        most = (
            " On most items this setting was Full, not the setting named."
            if 2 * whole["fallbacks"] > whole["asked"]
            else ""
        )
        console.print(
            f"Fell back to the full discussion on {whole['fallbacks']} of {whole['asked']} asked items (the model "
            f"named no valid post id).{most}"
        )
    if problems := describe(r["output_problem"] for r in rows):
        console.print(f"Unparsed, by cause: {problems} (each scored wrong).")
    cut = sum(1 for r in rows if r["output_problem"] == "max_tokens")
    if cut:
        budgets = {
            (b["tokens"], b["why"])
            for s in log.samples or []
            if isinstance(b := (s.metadata or {}).get("answer_budget"), dict)
        }
        spent = "; ".join(f"{t} tokens ({why})" for t, why in sorted(budgets)) or "unknown"
        console.print(
            f"Likely cause of the {cut} cut-off answers: the answer budget ({spent}) ran out before a letter. "
            "A reasoning model spends its reasoning tokens against it: raise -T max_tokens, or lower "
            "--reasoning-effort."
        )
    if log.status != "success":
        console.print(f"[red]evaluation status: {log.status}[/] {log.error.message if log.error else ''}")
    console.print(f"log: {log.location}  (open with `inspect view --log-dir {log.location.rsplit('/', 1)[0]}`)")
