"""LongSocialBench's terminal summary of a run and its report over many runs (the paper's grid and analyses).

The report reads inspect logs only: setting x model cells with item accuracy, bootstrap 95% CI and the change
against Full (Table 14 / Fig. 4), setting families (Table 14), reasoning lifts paired on items (Table 17), per
capability (Table 3 / Fig. 5) and per platform (Fig. 6), episode length vs accuracy with Spearman's rho (Fig. 9),
and open-answer vs multiple choice (Table 4). A cell with no asked item is "-", never 0.
"""

from __future__ import annotations

import json
import math
import random
import statistics
import warnings
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from functools import cache, cached_property
from pathlib import Path
from typing import Any

from inspect_ai.log import EvalLog
from rich.console import Console
from scipy.stats import spearmanr

from ...core.jsonl import dump_json
from ...shared.budgets import CallCounts, call_counts
from ...shared.ledger import usage_rows
from ...shared.metrics import OVERLENGTH
from ...shared.outputs import describe
from ...shared.runs import extracted, run_info, run_set
from ...shared.statistics import bootstrap_ci, proportion_ci
from ...shared.statistics import percent as _pct
from ...shared.terminal import Table
from .items import CAPABILITIES, proportional_quota
from .scorer import UNJUDGED, UNPARSED
from .task import CONTEXT
from .workflows import WORKFLOWS

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


# ---- many runs ---------------------------------------------------------------------------------------------------
def dense_suffix(embedder: str | None) -> str:
    """`` [dense: NAME]`` for a dense run whose embedder is not an E5 model; empty otherwise."""
    if not embedder or "e5" in embedder.lower():
        return ""
    return f" [dense: {embedder.rsplit('/', 1)[-1]}]"


AXES = ("workflow", "embedder", "missing_oracle")
"""Run-identity fields the grid shows as its rows (the setting; the embedder is named in a dense setting's label and
``missing_oracle`` only changes an oracle setting's items): a run's column is its label without them, so runs
in one column differ only in the setting and every paired change compares like with like."""


@dataclass
class Run:
    path: str
    model: str
    """The column: the model and every identity field that tells this run from the others, but the setting (a
    seed, a grader, a sample limit, a reasoning effort, ...; `socialbench.shared.runs`)."""
    workflow: str
    family: str
    diagnostic: bool
    episodes: str | None
    rows: list[dict[str, Any]] = field(default_factory=list)
    created: str = ""
    embedder: str | None = None
    model_name: str = ""
    """The model alone (knowledge cutoffs and tiers are per model)."""
    stats: dict[str, dict[str, Any]] | None = None
    """Per episode, what the run recorded of it: cl100k tokens and the root post's date (None in older logs)."""
    differs: dict[str, str] = field(default_factory=dict)
    variant: str = ""
    """What tells this run from the same model's other runs, but the setting (``seed=1 · limit=10``; empty where
    nothing does): tables that pool over models pool one variant at a time (`by_variant`)."""

    def __post_init__(self) -> None:
        self.model_name = self.model_name or self.model

    @property
    def label(self) -> str:
        """The setting as tables and figures name it: its id, and for a dense setting run with an embedder other
        than E5 that embedder (``e5-k20 [dense: all-MiniLM-L6-v2]``), so no MiniLM number passes for E5; a run
        with truncated prompts says so (``full [truncated 12/36]``), so no truncated number passes for Full."""
        line = self.line
        cut = f" [truncated {line['truncated']}/{line['asked']}]" if line["truncated"] else ""
        # a setting that selects posts but fell back to the whole discussion is Full on those items: said, and a
        # run that did so on most items is named as Full
        most = 2 * line["fallbacks"] > line["asked"]
        marks = "".join(f" [{m}]" for m in degraded_marks(line))
        return ("full: " if most else "") + self.workflow + dense_suffix(self.embedder) + cut + marks

    @cached_property
    def line(self) -> dict[str, Any]:
        return group_line(self.rows)

    @cached_property
    def calls(self) -> dict[str, CallCounts]:
        """Per call kind, the run's model calls, their budgets and how many came back cut off or empty."""
        return call_counts({"model_calls": r.get("model_calls")} for r in self.rows)


def _logged(log: EvalLog) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    return score_rows(log), dict(log.eval.metadata or {})


def load_runs(logs: list[str]) -> list[Run]:
    """The LongSocialBench runs among the logs (one per run identity; `shared.runs.run_set`), each log read once."""
    runs = []
    for info in run_set(logs).runs:
        if info.task != "longsocial":
            continue
        rows, meta = extracted(info.path, _logged, persist=True)
        args = json.loads(info.fields["workflow"].value) if "workflow" in info.fields else "full"
        workflow = str(args)
        flow = WORKFLOWS.get(workflow)
        runs.append(
            Run(
                path=info.path,
                model=info.label_without(AXES),
                workflow=workflow,
                family=str(meta.get("workflow_family") or (flow.family if flow else "?"))
                + dense_suffix(meta.get("embedder")),
                diagnostic=bool(meta.get("diagnostic", flow.diagnostic if flow else False)),
                episodes=meta.get("episodes"),
                rows=rows,
                created=info.created,
                embedder=meta.get("embedder"),
                model_name=info.model,
                stats=meta.get("episode_stats"),
                differs={k: v for k, v in info.differs.items() if k not in AXES},
                variant=" · ".join(info.variant_parts(AXES)),
            )
        )
    order = {name: n for n, name in enumerate(WORKFLOWS)}
    return sorted(runs, key=lambda r: (r.diagnostic, order.get(r.workflow, len(order)), r.model))


def by_variant(runs: list[Run]) -> list[tuple[str, list[Run]]]:
    """The runs grouped by variant, for tables that pool over models: each group holds its variant fixed and pools
    over distinct models, so a second seed, a ``--limit`` rerun or a reasoning run of one model is never counted as
    another model. The variant with the most models comes first (then the most runs, then the order of the logs)."""
    return [(v, [r for r in runs if r.variant == v]) for v in variant_order([(r.variant, r.model_name) for r in runs])]


def variant_order(pairs: list[tuple[str, str]]) -> list[str]:
    """Variants of (variant, model) pairs, the one with the most models first (then the most pairs, then first
    seen)."""
    models: dict[str, set[str]] = defaultdict(set)
    count: Counter[str] = Counter()
    for variant, model in pairs:
        models[variant].add(model)
        count[variant] += 1
    first = list(models)
    return sorted(models, key=lambda v: (-len(models[v]), -count[v], first.index(v)))


def variant_text(variant: str) -> str:
    """How a table names the variant it holds fixed."""
    return variant or "the one configuration"


def pooling_text(variant: str, models: list[str]) -> str:
    """What a pooled number holds fixed and pools over: ``pooled over 2 models (a, b); held fixed: seed=1``."""
    held = f"; held fixed: {variant}" if variant else ""
    return f"pooled over {len(models)} model{'s' if len(models) != 1 else ''} ({', '.join(models)}){held}"


def _paired(a: Run, b: Run, capability: str | None = None) -> dict[str, Any]:
    """Mean of per-item differences a - b over items asked in both (of one capability, if given), with a
    bootstrap 95% CI."""

    def scored(run: Run) -> dict[str, float]:
        return {
            r["item"]: r["correct"]
            for r in run.rows
            if r["status"] not in (OVERLENGTH, UNJUDGED) and (capability is None or r["capability"] == capability)
        }

    left, right = scored(a), scored(b)
    # sorted: a set's order changes with the process's string hashing, and a seeded bootstrap with it
    diffs = [left[i] - right[i] for i in sorted(left.keys() & right.keys())]
    if not diffs:
        return {"n": 0, "delta": None, "ci95": None}
    low, high = bootstrap_ci(diffs)
    return {"n": len(diffs), "delta": statistics.fmean(diffs), "ci95": [low, high]}


NO_FULL = "no partner: no Full run of the same model and settings (seed, grader, samples, ...) among the logs"


def grid(runs: list[Run]) -> list[dict[str, Any]]:
    """Table 14 / Fig. 4 cells: one per (setting, column), with the paired change against the Full run of the same
    column (the same model and identity but the setting), or the reason there is none."""
    full = {r.model: r for r in runs if r.workflow == "full"}
    cells = []
    for run in runs:
        line = run.line
        delta = _paired(run, full[run.model]) if run.model in full and run.workflow != "full" else None
        cells.append(
            {
                "workflow": run.label,
                "family": run.family,
                "diagnostic": run.diagnostic,
                "model": run.model,
                "model_name": run.model_name,
                "variant": run.variant,
                **line,
                "delta_vs_full": delta,
                "no_partner": NO_FULL if run.workflow != "full" and run.model not in full else None,
                "log": run.path,
            }
        )
    return cells


def families(cells: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Table 14: per variant (held fixed: seed, limit, reasoning, ... -- `by_variant`) and setting family, the mean
    of its cells' accuracies (one cell per setting and model) with a cell-level bootstrap 95% CI, and its change
    against Full over the models present in both families of that variant: the family's cells of those models minus
    their Full cells, so a family run on fewer models is not compared with other models' Full, and no variant of a
    model is counted as another model."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for cell in cells:
        if cell["accuracy"] is not None:
            groups[(cell["variant"], cell["family"])].append(cell)
    ranked = {v: n for n, v in enumerate(variant_order([(c["variant"], c["model_name"]) for c in cells]))}
    out = []
    for (variant, family), members in sorted(groups.items(), key=lambda g: ranked[g[0][0]]):
        full = {c["model_name"]: c["accuracy"] for c in groups.get((variant, "Full-context"), [])}
        values = [c["accuracy"] for c in members]
        low, high = bootstrap_ci(values)
        mean = statistics.fmean(values)
        both = sorted({c["model_name"] for c in members} & full.keys())
        delta = None
        if family != "Full-context" and both:
            mine = [c["accuracy"] for c in members if c["model_name"] in both]
            delta = statistics.fmean(mine) - statistics.fmean(full[m] for m in both)
        out.append(
            {
                "family": family,
                "variant": variant,
                "diagnostic": members[0]["diagnostic"],
                "cells": len(values),
                "models": sorted({c["model_name"] for c in members}),
                "mean": mean,
                "ci95": [low, high],
                "delta_vs_full": delta,
                "delta_models": len(both) if family != "Full-context" else None,
                "no_partner": NO_FULL if family != "Full-context" and not both else None,
                # cells that ran without what their setting is named for are in this mean: said next to it
                "degraded": {c["workflow"]: "; ".join(marks) for c in members if (marks := degraded_marks(c))},
                "logs": [c["log"] for c in members],
            }
        )
    return out


def _capability_accuracies(run: Run) -> dict[str, float | None]:
    return {cap: group_line([r for r in run.rows if r["capability"] == cap])["accuracy"] for cap in CAPABILITIES}


def table3(runs: list[Run]) -> list[dict[str, Any]]:
    """Table 3: per model, Baseline (Full) and CoT accuracy per capability with the Avg column (the C1-C6 macro
    mean; None unless all six were asked), and for CoT the change against Baseline per capability, paired on the
    capability's items."""
    full = {r.model: r for r in runs if r.workflow == "full"}
    out = []
    for run in runs:
        if run.workflow not in ("full", "cot"):
            continue
        per = _capability_accuracies(run)
        values = [v for v in per.values() if v is not None]
        row: dict[str, Any] = {
            "model": run.model,
            "setting": ("Baseline (Full)" if run.workflow == "full" else "CoT") + run.label.removeprefix(run.workflow),
            **per,
            "avg": statistics.fmean(values) if len(values) == len(CAPABILITIES) else None,
            "log": run.path,
        }
        if run.workflow == "cot" and run.model in full:
            row["delta_vs_baseline"] = {cap: _paired(run, full[run.model], cap) for cap in CAPABILITIES}
        out.append(row)
    return out


TABLE13_SETTINGS = {"full": "Full", "cot": "CoT", "llm-retriever": "LLM-r"}


def table13(runs: list[Run]) -> list[dict[str, Any]]:
    """Table 13: per model, Full, CoT and LLM-r accuracy, Best† (the model's maximum over its non-diagnostic
    settings; a diagnostic, as it picks the best setting after the fact) and C-mac (of Full)."""
    out = []
    for model in sorted({r.model for r in runs}):
        mine = [r for r in runs if r.model == model]
        row: dict[str, Any] = {"model": model, "logs": [r.path for r in mine]}
        row["truncated"] = []
        for workflow, name in TABLE13_SETTINGS.items():
            run = next((r for r in mine if r.workflow == workflow), None)
            row[name] = run.line["accuracy"] if run else None
            if run and run.line["truncated"]:
                row["truncated"].append(name)
            if run and (marks := degraded_marks(run.line)):
                row.setdefault("degraded", {})[name] = "; ".join(marks)
        candidates = [
            (r.line["accuracy"], r.label) for r in mine if not r.diagnostic and r.line["accuracy"] is not None
        ]
        best = max(candidates, default=(None, None))
        row["best"], row["best_setting"] = best
        full = next((r for r in mine if r.workflow == "full"), None)
        per = _capability_accuracies(full) if full else {}
        row["c_mac"] = (
            statistics.fmean(per.values()) if per and all(v is not None for v in per.values()) else None  # type: ignore[arg-type]
        )
        out.append(row)
    return out


def reasoning_lifts(runs: list[Run]) -> list[dict[str, Any]]:
    """Table 17: each reasoning prompt minus Full for the same model, paired on items."""
    full = {r.model: r for r in runs if r.workflow == "full"}
    return [
        {"model": r.model, "workflow": r.label, **_paired(r, full[r.model]), "logs": [r.path, full[r.model].path]}
        for r in runs
        if r.family == "Chain-of-thought" and r.model in full
    ]


def by_group(runs: list[Run], key: str) -> list[dict[str, Any]]:
    """Per run, accuracy per capability (``key="capability"``) or per platform (``"platform"``)."""
    out = []
    for run in runs:
        if key == "capability":
            groups = {cap: [r for r in run.rows if r["capability"] == cap] for cap in CAPABILITIES}
        else:
            names = sorted({str(r["platform"]) for r in run.rows})
            groups = {PAPER_PLATFORMS.get(p, f"{p} (not a paper platform)"): [] for p in names}
            for r in run.rows:
                groups[PAPER_PLATFORMS.get(str(r["platform"]), f"{r['platform']} (not a paper platform)")].append(r)
        out.append(
            {
                "model": run.model,
                "workflow": run.label,
                "log": run.path,
                **{g: group_line(rs) for g, rs in groups.items()},
            }
        )
    return out


def _episode_tokens(run: Run) -> dict[str, int] | None:
    """Episode lengths as the run recorded them (cl100k tokens of the complete rendering), or for a log written
    before socialbench recorded them, counted from the episodes file it names (`unmeasured` says so); None when
    that file is gone."""
    stats = run.stats or _older_stats(run.episodes)
    if not stats:
        return None
    return {eid: int(s["tokens"]) for eid, s in stats.items() if s.get("tokens") is not None}


@cache
def _older_stats(path: str | None) -> dict[str, dict[str, Any]] | None:
    """What a current run records of its episodes, for an older log, from the episodes file it names."""
    from .task import episode_pack, episode_stats

    if not path or not Path(path).exists():
        return None
    pack = episode_pack(path)
    return episode_stats(pack, list(pack))


def unmeasured(runs: list[Run]) -> list[str]:
    """What Fig. 9 and Table 20 could not take from the logs themselves (logs of an older socialbench)."""
    notes = []
    for r in runs:
        if r.stats:
            continue
        if _older_stats(r.episodes):
            notes.append(
                f"{r.model} / {r.label}: its log records no episode lengths or dates (an older socialbench); Fig. 9 "
                f"and Table 20 read them from {r.episodes}, which cannot be checked against the run"
            )
        else:
            notes.append(
                f"{r.model} / {r.label}: its log records no episode lengths or dates and {r.episodes} is gone; left "
                "out of Fig. 9 and Table 20"
            )
    return notes


def length_vs_accuracy(runs: list[Run]) -> list[dict[str, Any]]:
    """Fig. 9: per run, Spearman's rho between an episode's length (cl100k tokens of its rendering) and the
    accuracy of its asked items, over episodes."""
    out = []
    for run in runs:
        lengths = _episode_tokens(run)
        if lengths is None:
            continue
        per: dict[str, list[float]] = defaultdict(list)
        for r in run.rows:
            if r["status"] != OVERLENGTH and r["episode"] in lengths:
                per[r["episode"]].append(r["correct"])
        xs = [lengths[e] for e in per]
        ys = [statistics.fmean(v) for v in per.values()]
        rho, p = spearmanr(xs, ys) if len(per) >= 3 and len(set(ys)) > 1 else (float("nan"), float("nan"))
        out.append(
            {
                "model": run.model,
                "workflow": run.label,
                "episodes": len(per),
                "rho": None if math.isnan(rho) else float(rho),
                "p": None if math.isnan(p) else float(p),
                "points": [[x, y] for x, y in zip(xs, ys, strict=True)],
                "log": run.path,
            }
        )
    return out


def open_vs_choice(runs: list[Run]) -> dict[str, Any]:
    """Table 4: open-answer accuracy against multiple choice (Full) per model, paired on the items asked and
    judged in both (the drop is the mean per-item difference, with a bootstrap 95% CI), and the rank correlation
    of the two accuracies across models (needs three or more models)."""
    full = {r.model: r for r in runs if r.workflow == "full"}
    opened = {r.model: r for r in runs if r.workflow == "open-answer"}
    rows = []
    for model in opened:
        if model not in full:
            continue
        judged = {r["item"] for r in opened[model].rows if r["status"] not in (OVERLENGTH, UNJUDGED)}
        asked = {r["item"] for r in full[model].rows if r["status"] != OVERLENGTH}
        both = judged & asked
        if not both:
            continue
        paired = _paired(full[model], opened[model])
        rows.append(
            {
                "model": model,
                "items": len(both),
                "full": statistics.fmean(r["correct"] for r in full[model].rows if r["item"] in both),
                "open": statistics.fmean(r["correct"] for r in opened[model].rows if r["item"] in both),
                "drop": paired["delta"],
                "ci95": paired["ci95"],
            }
        )
    rho = None
    if len(rows) >= 3:
        value = spearmanr([r["full"] for r in rows], [r["open"] for r in rows])[0]
        rho = None if math.isnan(value) else float(value)
    return {"models": rows, "spearman_rho": rho}


SUBSET_SIZE = 150


def stratified_subset(runs: list[Run], size: int = SUBSET_SIZE, seed: int = 0) -> list[dict[str, Any]]:
    """Table 16: accuracy of every run on one seeded item subset stratified by capability (the paper's 150-item
    sample, also the human reference's), with a percentile bootstrap 95% CI over B = 1000 resamples. With fewer
    items than ``size`` in the logs, all of them are used, and ``items`` says how many."""
    by_cap: dict[str, set[str]] = defaultdict(set)
    for run in runs:
        for r in run.rows:
            by_cap[str(r["capability"])].add(r["item"])
    total = sum(len(v) for v in by_cap.values())
    rng = random.Random(seed)
    chosen: set[str] = set()
    for _capability, members in sorted(by_cap.items()):
        quota = len(members) if total <= size else round(size * len(members) / total)
        chosen |= set(rng.sample(sorted(members), min(quota, len(members))))
    out = []
    for run in runs:
        rows = [r for r in run.rows if r["item"] in chosen]
        out.append({"model": run.model, "workflow": run.label, "items": len(chosen), **group_line(rows)})
    return out


TABLE21 = {
    "gold-scope": "gold scope",
    "gold-labels": "gold per-post labels",
    "gold-scope-labels": "gold scope + gold labels",
    "enumerate-label-aggregate": "enumerate, label, aggregate (model-written labels)",
}


def table21(runs: list[Run]) -> list[dict[str, Any]]:
    """Table 21, the component oracle: per model, its CoT baseline (the paper's reference row) and each component
    setting's accuracy with the paired change against that CoT run (``delta_vs_cot``; "no CoT partner" without one)
    and against Full. The label settings run only on items with gold per-post labels, so ``asked`` says how many."""
    full = {r.model: r for r in runs if r.workflow == "full"}
    cot = {r.model: r for r in runs if r.workflow == "cot"}
    out = []
    for model in sorted({r.model for r in runs if r.workflow in TABLE21}):
        if model in cot:
            out.append(
                {
                    "model": model,
                    "component": "CoT baseline (reference)",
                    "setting": cot[model].label,
                    **cot[model].line,
                    "delta_vs_cot": None,
                    "delta_vs_full": _paired(cot[model], full[model]) if model in full else None,
                    "log": cot[model].path,
                }
            )
        for run in runs:
            if run.model != model or run.workflow not in TABLE21:
                continue
            out.append(
                {
                    "model": model,
                    "component": TABLE21[run.workflow],
                    "setting": run.label,
                    **run.line,
                    "delta_vs_cot": _paired(run, cot[model]) if model in cot else None,
                    "no_cot": None if model in cot else "no CoT partner (run -T workflow=cot on the same items)",
                    "delta_vs_full": _paired(run, full[model]) if model in full else None,
                    "log": run.path,
                }
            )
    return out


PROBES = ("option-only", "question-only", "title-only", "shuffled")


def table19(runs: list[Run]) -> dict[str, Any]:
    """Table 19: per variant (held fixed, `by_variant`) and shortcut probe, the mean accuracy across models (and the
    mean paired change against each model's Full of that variant), and the open-answer row as the mean paired drop
    with Spearman's rho of the model rankings."""
    rows = []
    for variant, group in by_variant(runs):
        full = {r.model: r for r in group if r.workflow == "full"}
        for probe in PROBES:
            mine = [r for r in group if r.workflow == probe and r.line["accuracy"] is not None]
            paired = [d for r in mine if r.model in full and (d := _paired(r, full[r.model]))["delta"] is not None]
            rows.append(
                {
                    "probe": probe,
                    "variant": variant,
                    "models": len({r.model_name for r in mine}),
                    "mean": statistics.fmean(r.line["accuracy"] for r in mine) if mine else None,
                    "delta_vs_full": statistics.fmean(d["delta"] for d in paired) if paired else None,
                    "delta_models": len(paired),
                    "paired_items": [d["n"] for d in paired],
                    "logs": [r.path for r in mine],
                }
            )
    rows = [r for r in rows if r["models"]] or rows[: len(PROBES)]  # variants that ran no probe add no empty rows
    ovc = open_vs_choice(runs)
    drops = [r["drop"] for r in ovc["models"] if r["drop"] is not None]
    return {
        "probes": rows,
        "open_answer": {
            "models": len(drops),
            "mean_drop": statistics.fmean(drops) if drops else None,
            "spearman_rho": ovc["spearman_rho"],
        },
    }


def length_pooled(runs: list[Run]) -> dict[str, Any] | None:
    """Fig. 9 pooled over models: per episode the mean Baseline (Full) accuracy over the models (each model's
    accuracy on the episode's asked items first), Spearman's rho over episodes and a least-squares fit. ``runs``
    are of one variant (`by_variant`): one Full run per model."""
    from scipy.stats import linregress

    per_episode: dict[str, list[float]] = defaultdict(list)
    lengths: dict[str, int] = {}
    models: set[str] = set()
    for run in runs:
        tokens = _episode_tokens(run) if run.workflow == "full" else None
        if tokens is None:
            continue
        models.add(run.model_name)
        mine: dict[str, list[float]] = defaultdict(list)
        for r in run.rows:
            if r["status"] != OVERLENGTH and r["episode"] in tokens:
                mine[r["episode"]].append(r["correct"])
        for episode, values in mine.items():
            per_episode[episode].append(statistics.fmean(values))
            lengths[episode] = tokens[episode]
    if not per_episode:
        return None
    xs = [lengths[e] for e in per_episode]
    ys = [statistics.fmean(v) for v in per_episode.values()]
    enough = len(xs) >= 3 and len(set(ys)) > 1 and len(set(xs)) > 1
    rho, p = spearmanr(xs, ys) if enough else (float("nan"), float("nan"))
    fit = linregress(xs, ys) if enough else None
    return {
        "models": len(models),
        "model_names": sorted(models),
        "episodes": len(xs),
        "rho": None if math.isnan(rho) else float(rho),
        "p": None if math.isnan(p) else float(p),
        "slope": float(fit.slope) if fit else None,
        "intercept": float(fit.intercept) if fit else None,
        "points": [[x, y] for x, y in zip(xs, ys, strict=True)],
    }


def table16(
    runs: list[Run], tiers: dict[str, str] | None = None, draws: int = 1000, size: int = SUBSET_SIZE, seed: int = 0
) -> dict[str, Any]:
    """Table 16: B bootstrap draws (with replacement within each stratum) of ``size`` items in the natural
    capability x platform proportions of the logged items;
    per draw each cell's accuracy on the drawn items. Reported: the best cell (the top non-diagnostic cell of each
    draw) and each model's best cell, as the mean and the 2.5/97.5 percentiles across draws; the top cell (highest
    mean); and, with ``tiers`` (model -> tier), the tier cohorts' means of their models' best cells. The
    percentile interval across draws is computed directly (numpy) because it is a distribution of draws, not a
    bootstrap of one sample."""
    import numpy as np

    deployable = [r for r in runs if not r.diagnostic]
    if not deployable:
        return {"draws": 0}
    strata: dict[tuple[str, str], set[str]] = defaultdict(set)
    for run in deployable:
        for r in run.rows:
            strata[(str(r["capability"]), str(r["platform"]))].add(r["item"])
    pools = {k: sorted(v) for k, v in strata.items()}
    n_items = sum(len(v) for v in pools.values())
    take = min(size, n_items)
    quota = proportional_quota(pools, take)
    rng = random.Random(seed)
    scored = [
        {r["item"]: r["correct"] for r in run.rows if r["status"] not in (OVERLENGTH, UNJUDGED)} for run in deployable
    ]
    per_cell = np.full((draws, len(deployable)), np.nan)
    for b in range(draws):
        # the paper's bootstrap: draws with replacement within each stratum (without replacement, a draw of all
        # <= 150 logged items is the same every time and the interval has zero width)
        drawn = [i for k, members in pools.items() for i in rng.choices(members, k=quota[k])]
        for c, values in enumerate(scored):
            got = [values[i] for i in drawn if i in values]
            if got:
                per_cell[b, c] = statistics.fmean(got)

    def summary(values: Any) -> dict[str, Any]:
        values = values[~np.isnan(values)]
        if not len(values):
            return {"mean": None, "ci95": None}
        return {
            "mean": float(values.mean()),
            "ci95": [float(np.percentile(values, 2.5)), float(np.percentile(values, 97.5))],
        }

    with warnings.catch_warnings(), np.errstate(all="ignore"):  # a run whose items were all skipped is all NaN
        warnings.simplefilter("ignore", RuntimeWarning)
        best = np.nanmax(per_cell, axis=1)
        means = np.nanmean(per_cell, axis=0)
    top = int(np.nanargmax(means)) if not np.isnan(means).all() else None
    models = sorted({r.model for r in deployable})
    per_model = {}
    for model in models:
        columns = [c for c, r in enumerate(deployable) if r.model == model]
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore", RuntimeWarning)
            per_model[model] = summary(np.nanmax(per_cell[:, columns], axis=1))
    cohorts: dict[str, Any] = {}
    name_of = {r.model: r.model_name for r in deployable}
    for tier in sorted(set((tiers or {}).values())):
        members = [m for m in models if (tiers or {}).get(name_of[m]) == tier and per_model[m]["mean"] is not None]
        cohorts[tier] = {
            "models": members,
            "mean": statistics.fmean(per_model[m]["mean"] for m in members) if members else None,
        }
    return {
        "draws": draws,
        "items_per_draw": take,
        "items_logged": n_items,
        "strata": len(pools),
        "best_cell": summary(best),
        "top_cell": None
        if top is None
        else {"model": deployable[top].model, "setting": deployable[top].label, **summary(per_cell[:, top])},
        "models": per_model,
        "cohorts": cohorts,
    }


def _episode_dates(run: Run) -> dict[str, datetime]:
    return {eid: datetime.fromisoformat(str(s["created"])) for eid, s in (run.stats or {}).items() if s.get("created")}


def table20(
    runs: list[Run], cutoffs: dict[str, str] | None = None, tiers: dict[str, str] | None = None
) -> list[dict[str, Any]]:
    """Table 20, the contamination probe: per model, its Baseline (Full) accuracy on episodes dated (root post)
    before vs after its knowledge cutoff, and the gap (after - before). The cutoff is the user's (``cutoffs``:
    model -> YYYY-MM-DD) or inspect's model data (``knowledge_cutoff_date``); a model with neither is listed as
    unknown, never guessed."""
    from datetime import date

    from inspect_ai.model import get_model_info

    out = []
    for run in runs:
        if run.workflow != "full" or not (run.stats or _older_stats(run.episodes)):
            continue
        given = (cutoffs or {}).get(run.model_name)
        source = "given"
        cutoff: date | None = date.fromisoformat(given) if given else None
        if cutoff is None:
            try:
                info = get_model_info(run.model_name)
            except Exception:  # an unknown provider: no model data
                info = None
            cutoff = getattr(info, "knowledge_cutoff_date", None)
            source = "inspect model data"
        row: dict[str, Any] = {
            "model": run.model + run.label.removeprefix(run.workflow),  # [truncated k/n] when it was
            "tier": (tiers or {}).get(run.model_name),
            "cutoff": None,
            "source": None,
            "log": run.path,
        }
        if cutoff is None:
            out.append({**row, "before": None, "after": None, "gap": None})
            continue
        dates = _episode_dates(run)
        before = [r for r in run.rows if (d := dates.get(r["episode"])) is not None and d.date() <= cutoff]
        after = [r for r in run.rows if (d := dates.get(r["episode"])) is not None and d.date() > cutoff]
        undated = [r for r in run.rows if dates.get(r["episode"]) is None]  # no root date: in neither cohort, named
        b, a = group_line(before), group_line(after)
        gap = a["accuracy"] - b["accuracy"] if a["accuracy"] is not None and b["accuracy"] is not None else None
        out.append(
            {
                **row,
                "cutoff": cutoff.isoformat(),
                "source": source,
                "before": b,
                "after": a,
                "gap": gap,
                "undated_items": len(undated),
                "undated_episodes": sorted({str(r["episode"]) for r in undated}),
            }
        )
    return out


def analyses(
    logs: list[str], tiers: dict[str, str] | None = None, cutoffs: dict[str, str] | None = None
) -> dict[str, Any]:
    runs = load_runs(logs)
    cells = grid(runs)
    return {
        "runs": [
            {
                "model": r.model,
                "model_name": r.model_name,
                "variant": r.variant,
                "workflow": r.label,
                "differs": r.differs,
                "log": r.path,
                "created": r.created,
                "truncated": r.line["truncated"],
                "posts_kept": r.line["posts_kept"],
                "degraded": degraded_marks(r.line),
                "model_calls": {k: vars(c) | {"budgets": sorted(c.budgets)} for k, c in r.calls.items()},
            }
            for r in runs
        ],
        "left_out": [x.as_dict() for x in run_set(logs).left_out if _is_longsocial(x.path)],
        "notes": unmeasured(runs),
        "grid": cells,
        "families": families(cells),
        "reasoning_lifts": reasoning_lifts(runs),
        "by_capability": by_group(runs, "capability"),
        "by_platform": by_group(runs, "platform"),
        "length_vs_accuracy": length_vs_accuracy(runs),
        "open_vs_choice": open_vs_choice(runs),
        "subset150": stratified_subset(runs),
        "table3": table3(runs),
        "table13": table13(runs),
        "table16": [
            {"variant": variant, "pooled_models": sorted({r.model_name for r in group}), **table16(group, tiers)}
            for variant, group in by_variant([r for r in runs if not r.diagnostic])
        ],
        "table19": table19(runs),
        "table21": table21(runs),
        "table20": table20(runs, cutoffs, tiers),
        "length_pooled": [
            {"variant": variant, **pooled} for variant, group in by_variant(runs) if (pooled := length_pooled(group))
        ],
    }


def _is_longsocial(path: str) -> bool:
    return run_info(path).task == "longsocial"


def _est(value: dict[str, Any]) -> str:
    if value.get("mean") is None:
        return "-"
    return f"{_pct(value['mean'])} [{_pct(value['ci95'][0])}, {_pct(value['ci95'][1])}]"


def _delta(d: dict[str, Any] | None) -> str:
    """A paired change in points with its CI and its number of paired items."""
    if not d or d["delta"] is None:
        return "-"
    return f"{100 * d['delta']:+.1f} [{100 * d['ci95'][0]:+.1f}, {100 * d['ci95'][1]:+.1f}] (n={d['n']})"


def load_mapping(path: str | None, what: str) -> dict[str, str] | None:
    """A JSON object file ``{"model": "value"}`` (tiers, knowledge cutoffs); None without a path."""
    if not path:
        return None
    from pathlib import Path

    from ...core.errors import InputError

    try:
        data = json.loads(Path(path).read_text())
    except (OSError, ValueError) as exc:
        raise InputError(path, f"{what}: not a readable JSON object ({exc})") from None
    if not isinstance(data, dict) or not all(isinstance(v, str) for v in data.values()):
        raise InputError(path, f'{what}: expected a JSON object {{"model": "value", ...}} with string values')
    if what == "cutoffs":  # a knowledge cutoff is a date: checked here, with the file and the model named
        from datetime import date

        for model, value in data.items():
            try:
                date.fromisoformat(value)
            except ValueError:
                raise InputError(path, f"cutoffs: {value!r} is not a date (YYYY-MM-DD)", record=str(model)) from None
    return {str(k): v for k, v in data.items()}


def report(
    logs: list[str], console: Console, as_json: bool = False, tiers: str | None = None, cutoffs: str | None = None
) -> None:
    """The grid of settings x models (Table 14 / Fig. 4) with CIs and the paired change against Full, setting
    families, reasoning lifts (Table 17), per capability and per paper platform, Tables 3, 13, 16, 19 and 20, and
    episode length vs accuracy (Fig. 9), from any number of LongSocialBench logs.

    Args:
        tiers: JSON file mapping each model to its tier (Table 16 cohort means, Table 20 by tier).
        cutoffs: JSON file mapping models to knowledge-cutoff dates (YYYY-MM-DD) for Table 20; models not listed
            use inspect's model data.
    """
    data = analyses(logs, load_mapping(tiers, "tiers"), load_mapping(cutoffs, "cutoffs"))
    data["usage"] = usage_rows([r.path for r in run_set(logs).runs])  # the counted runs, as in the terminal
    if as_json:
        console.file.write(dump_json(data) + "\n")
        return
    models = sorted({c["model"] for c in data["grid"]})
    table = Table(title="LongSocialBench grid: accuracy % [95% CI] (asked items); change vs Full, paired on items")
    table.add_column("Setting")
    for model in models:
        table.add_column(model, justify="right")
    diagnostic_started = False
    for workflow in dict.fromkeys(c["workflow"] for c in data["grid"]):
        cells = {c["model"]: c for c in data["grid"] if c["workflow"] == workflow}
        first = next(iter(cells.values()))
        if first["diagnostic"] and not diagnostic_started:
            table.add_section()
            diagnostic_started = True
        row = [workflow + (" (diagnostic)" if first["diagnostic"] else "")]
        for model in models:
            cell = cells.get(model)
            if cell is None:
                row.append("")
                continue
            text = f"{_pct(cell['accuracy'])} {_ci(cell)} (n={cell['asked']})"
            if cell["truncated"]:
                text += f"\n{truncation_text(cell)}"
            if cell["delta_vs_full"]:
                text += f"\nΔ {_delta(cell['delta_vs_full'])}"
                if cell["delta_vs_full"]["n"] < cell["asked"]:  # paired on fewer items than the cell asked: said
                    text += f" paired on {cell['delta_vs_full']['n']} of {cell['asked']}"
            elif cell["no_partner"]:
                text += "\nΔ no Full partner"
            row.append(text)
        table.add_row(*row)
    console.print(table)
    if any(c["no_partner"] for c in data["grid"]):
        console.print(f"Δ no Full partner: {NO_FULL}.")
    if len(models) > 1 and any(r["differs"] for r in data["runs"]):
        console.print("Columns: runs that differ in more than the setting, named by what differs: " + "; ".join(models))
    several = len({f["variant"] for f in data["families"]}) > 1
    fam = Table(
        title="Setting families (Table 14): mean of cell accuracies (a cell = one setting x one model), cell-level "
        "bootstrap 95% CI; Δ Full over the models in both. Pools over models; holds the variant fixed"
        + (" (one block per variant)" if several else "")
    )
    for col in ("Family", *(["Variant"] if several else []), "Cells", "Models", "Mean %", "95% CI", "Δ Full (models)"):
        fam.add_column(col, justify="left" if col in ("Family", "Variant") else "right")
    for f in data["families"]:
        delta = "-" if f["delta_vs_full"] is None else f"{100 * f['delta_vs_full']:+.1f} ({f['delta_models']})"
        if f["no_partner"]:
            delta = "no partner"
        name = f["family"] + (" (diagnostic)" if f["diagnostic"] else "")
        if f.get("degraded"):  # a cell of the mean ran without its setting
            name += f" † {len(f['degraded'])} of {f['cells']} cells ran without their setting"
        fam.add_row(
            name,
            *([variant_text(f["variant"])] if several else []),
            str(f["cells"]),
            str(len(f["models"])),
            _pct(f["mean"]),
            f"[{_pct(f['ci95'][0])}, {_pct(f['ci95'][1])}]",
            delta,
        )
    console.print(fam)
    if data["reasoning_lifts"]:
        lifts = Table(title="Reasoning lifts over Full (Table 17), paired on items")
        for col in ("Model", "Setting", "Items", "Δ accuracy (pts) [95% CI]"):
            lifts.add_column(col)
        for lift in data["reasoning_lifts"]:
            lifts.add_row(lift["model"], lift["workflow"], str(lift["n"]), _delta(lift))
        console.print(lifts)
    caps = Table(title="Per capability (Table 3 / Fig. 5): accuracy % (asked)")
    caps.add_column("Run")
    for cap in CAPABILITIES:
        caps.add_column(cap, justify="right")
    for entry in data["by_capability"]:
        caps.add_row(
            f"{entry['model']} / {entry['workflow']}",
            *(f"{_pct(entry[c]['accuracy'])} ({entry[c]['asked']})" for c in CAPABILITIES),
        )
    console.print(caps)
    if data["table3"]:
        t3 = Table(title="Table 3: accuracy % per capability, Avg = C1-C6 macro; CoT rows: Δ vs Baseline (pts, paired)")
        for col in ("Model", "Setting", *CAPABILITIES, "Avg"):
            t3.add_column(col, justify="left" if col in ("Model", "Setting") else "right")
        for r in data["table3"]:
            deltas = r.get("delta_vs_baseline") or {}
            per_cap = [
                _pct(r[c]) + (f"\n{_delta(deltas[c])}" if deltas.get(c) and deltas[c]["delta"] is not None else "")
                for c in CAPABILITIES
            ]
            t3.add_row(r["model"], r["setting"], *per_cap, _pct(r["avg"]))
        console.print(t3)
    t13 = Table(title="Table 13: accuracy % per model; Best† = the model's best non-diagnostic setting (a diagnostic)")
    for col in ("Model", "Full", "CoT", "LLM-r", "Best†", "C-mac (Full)"):
        t13.add_column(col, justify="left" if col == "Model" else "right")
    for r in data["table13"]:
        best = "-" if r["best"] is None else f"{_pct(r['best'])} ({r['best_setting']})"
        cut, marked = r["truncated"], r.get("degraded") or {}
        t13.add_row(
            r["model"],
            *(
                _pct(r[name])
                + (" (truncated)" if name in cut else "")
                + (f" † {marked[name]}" if name in marked else "")
                for name in ("Full", "CoT", "LLM-r")
            ),
            best,
            _pct(r["c_mac"]) + (" (truncated)" if "Full" in cut else ""),
        )
    console.print(t13)
    for t16 in data["table16"]:
        if not (t16.get("draws") and t16.get("top_cell")):  # no top cell: no run has a scored item
            continue
        console.print(
            f"Table 16 ({pooling_text(t16['variant'], t16['pooled_models'])}): {t16['draws']} bootstrap draws (with "
            f"replacement) of {t16['items_per_draw']} items (of {t16['items_logged']} logged) in the "
            f"capability x platform proportions ({t16['strata']} strata); mean [2.5, 97.5 percentiles] across draws: "
            f"best cell {_est(t16['best_cell'])}; top cell {t16['top_cell']['model']} / {t16['top_cell']['setting']} "
            f"{_est(t16['top_cell'])}; per model (its best cell): "
            + "; ".join(f"{m} {_est(v)}" for m, v in t16["models"].items())
            + (
                "; cohorts: "
                + "; ".join(f"{t} {_pct(c['mean'])} ({len(c['models'])} models)" for t, c in t16["cohorts"].items())
                if t16["cohorts"]
                else ""
            )
        )
    t19 = data["table19"]
    if any(r["models"] for r in t19["probes"]) or t19["open_answer"]["models"]:
        probes = Table(
            title="Table 19: shortcut probes, mean accuracy % across models (held fixed: the variant); "
            "Δ = mean paired change vs Full (models paired)"
        )
        for col in ("Probe", "Variant", "Models", "Mean %", "Δ Full (pts)"):
            probes.add_column(col, justify="left" if col in ("Probe", "Variant") else "right")
        for row in data["table19"]["probes"]:
            delta = (
                "-" if row["delta_vs_full"] is None else f"{100 * row['delta_vs_full']:+.1f} ({row['delta_models']})"
            )
            probes.add_row(row["probe"], variant_text(row["variant"]), str(row["models"]), _pct(row["mean"]), delta)
        oa = data["table19"]["open_answer"]
        rho = "-" if oa["spearman_rho"] is None else f"rho {oa['spearman_rho']:+.2f}"
        probes.add_row(
            "open answer (paired drop vs MC; model ranking)",
            "-",
            str(oa["models"]),
            "-",
            ("-" if oa["mean_drop"] is None else f"{-100 * oa['mean_drop']:+.1f}") + f"; {rho}",
        )
        console.print(probes)
    if data["table21"]:
        t21 = Table(
            title="Table 21: component oracle, accuracy % (asked); Δ = paired change (pts) vs the model's CoT baseline "
            "(the paper's reference row) and vs Full"
        )
        for col in ("Model", "Component", "Accuracy %", "Asked", "Δ CoT", "Δ Full"):
            t21.add_column(col, justify="left" if col in ("Model", "Component") else "right")
        for r in data["table21"]:
            vs_cot = "no CoT partner" if r.get("no_cot") else _delta(r["delta_vs_cot"])
            t21.add_row(
                r["model"], r["component"], _pct(r["accuracy"]), str(r["asked"]), vs_cot, _delta(r["delta_vs_full"])
            )
        console.print(t21)
    if data["table20"]:
        t20 = Table(title="Table 20: Baseline accuracy % on episodes before / after each model's knowledge cutoff")
        for col in ("Model", "Tier", "Cutoff", "Before", "After", "Gap (pts)"):
            t20.add_column(col, justify="left" if col in ("Model", "Tier", "Cutoff") else "right")
        for r in data["table20"]:
            if r["cutoff"] is None:
                t20.add_row(r["model"], r["tier"] or "-", "unknown (pass -R cutoffs=FILE)", "-", "-", "-")
                continue
            gap = "-" if r["gap"] is None else f"{100 * r['gap']:+.1f}"
            t20.add_row(
                r["model"],
                r["tier"] or "-",
                f"{r['cutoff']} ({r['source']})",
                f"{_pct(r['before']['accuracy'])} (n={r['before']['asked']})",
                f"{_pct(r['after']['accuracy'])} (n={r['after']['asked']})",
                gap,
            )
        console.print(t20)
        for r in data["table20"]:
            if r.get("undated_items"):
                console.print(
                    f"Table 20, {r['model']}: {r['undated_items']} items in neither cohort (episodes without a root "
                    f"post date: {', '.join(r['undated_episodes'])})."
                )
    for pooled in data["length_pooled"]:
        rho_text = "-" if pooled["rho"] is None else f"{pooled['rho']:+.2f} (p = {pooled['p']:.3f})"
        slope = "-" if pooled["slope"] is None else f"{100 * 1000 * pooled['slope']:+.2f} pts per 1,000 tokens"
        console.print(
            f"Fig. 9 ({pooling_text(pooled['variant'], pooled['model_names'])}; mean Baseline accuracy per episode, "
            f"{pooled['episodes']} episodes): Spearman's rho {rho_text}; least-squares slope {slope}."
        )
    lengths = Table(title="Episode length vs accuracy (Fig. 9): Spearman's rho over episodes")
    for col in ("Run", "Episodes", "rho", "p"):
        lengths.add_column(col, justify="left" if col == "Run" else "right")
    for entry in data["length_vs_accuracy"]:
        rho = "-" if entry["rho"] is None else f"{entry['rho']:+.2f}"
        p = "-" if entry["p"] is None else f"{entry['p']:.3f}"
        lengths.add_row(f"{entry['model']} / {entry['workflow']}", str(entry["episodes"]), rho, p)
    console.print(lengths)
    for note in data["notes"]:
        console.print(note)
    if data["open_vs_choice"]["models"]:
        ovc = data["open_vs_choice"]
        console.print(
            "Open answer vs multiple choice (Table 4): "
            + "; ".join(
                f"{r['model']}: Full {_pct(r['full'])} vs open {_pct(r['open'])} on the same {r['items']} items, "
                f"drop {_delta({'delta': r['drop'], 'ci95': r['ci95']})} points"
                for r in ovc["models"]
            )
            + (f"; Spearman rho across models {ovc['spearman_rho']:+.2f}" if ovc["spearman_rho"] is not None else "")
        )
