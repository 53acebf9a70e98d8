"""The runs of a LongSocialBench report and the grid: one `Run` per counted log (its column, setting, family and
variant), Table 14 / Fig. 4's cells with the paired change against Full, and the setting families pooled one variant
at a time (`by_variant`)."""

from __future__ import annotations

import json
import statistics
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from inspect_ai.log import EvalLog

from ...shared.budgets import CallCounts, call_counts
from ...shared.metrics import OVERLENGTH
from ...shared.runs import extracted, run_set
from ...shared.statistics import BOOTSTRAP, bootstrap_ci, ci_fields, exact_binomial_ci
from .scorer import UNJUDGED
from .summary import (
    degraded_marks,
    dense_suffix,
    group_line,
    score_rows,
)
from .workflows import WORKFLOWS

# ---- many runs ---------------------------------------------------------------------------------------------------


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
    without_roles: str = ""
    """The column without the roles' models (a grader): what an open-answer run shares with the Full run it is
    compared with, which calls no grader (Table 4)."""

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
                without_roles=info.label_without((*AXES, "role:*")),
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
    return {"n": len(diffs), "delta": statistics.fmean(diffs), **ci_fields(bootstrap_ci(diffs, outcomes="paired"))}


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
                "setting": run.workflow,
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
        ci = bootstrap_ci(values)
        if ci.method != BOOTSTRAP:  # one cell, or every cell alike: the exact interval over the family's items
            scored = [c["asked"] - c["unjudged"] for c in members]
            right = round(sum(a * n for a, n in zip(values, scored, strict=True)))
            ci = exact_binomial_ci(right, sum(scored), why=f"{len(values)} cell(s), nothing to resample across cells")
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
                **ci_fields(ci),
                "delta_vs_full": delta,
                "delta_models": len(both) if family != "Full-context" else None,
                "no_partner": NO_FULL if family != "Full-context" and not both else None,
                # cells that ran without what their setting is named for are in this mean: said next to it
                "degraded": {c["workflow"]: "; ".join(marks) for c in members if (marks := degraded_marks(c))},
                "logs": [c["log"] for c in members],
            }
        )
    return out
