"""The paper's tables over a LongSocialBench report's runs: Tables 3, 4, 13, 16, 17, 19, 20 and 21, per capability
and platform, episode length vs accuracy (Fig. 9) and the stratified subset. Each states what it holds fixed and what
it pools over; tables that pool over models take the runs of one variant (`grid.by_variant`)."""

from __future__ import annotations

import math
import random
import statistics
import warnings
from collections import defaultdict
from datetime import datetime
from functools import cache
from pathlib import Path
from typing import Any

from scipy.stats import spearmanr

from ...shared.metrics import OVERLENGTH
from ...shared.statistics import ci_fields, exact_binomial_ci
from .grid import (
    Run,
    _paired,
    by_variant,
)
from .items import CAPABILITIES, proportional_quota
from .scorer import UNJUDGED
from .summary import (
    PAPER_PLATFORMS,
    degraded_marks,
    group_line,
)


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
    settings; a diagnostic, as it picks the best setting after the fact; every setting that reaches it is named,
    ``tied: ...``) and C-mac (of Full)."""
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
        # the maximum accuracy; every setting that reaches it is named (in Table 12's order), never one of them
        # picked by its name
        row["best"] = max((a for a, _ in candidates), default=None)
        row["best_tied"] = [label for a, label in candidates if a == row["best"]] if candidates else []
        row["best_setting"] = (
            None
            if not candidates
            else row["best_tied"][0]
            if len(row["best_tied"]) == 1
            else f"tied: {', '.join(row['best_tied'])}"
        )
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
    from .pack import episode_pack, episode_stats

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
    accuracy of its asked and judged items, over episodes; a run with no judged item has no row."""
    out = []
    for run in runs:
        lengths = _episode_tokens(run)
        if lengths is None:
            continue
        per: dict[str, list[float]] = defaultdict(list)
        for r in run.rows:  # over-length items were not asked, unjudged open answers have no verdict (the grid's "–")
            if r["status"] not in (OVERLENGTH, UNJUDGED) and r["episode"] in lengths:
                per[r["episode"]].append(r["correct"])
        if not per:  # nothing judged: no point to place (its grid cell is "–")
            continue
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
    of the two accuracies across models (needs three or more models). An open-answer run pairs with the Full run
    whose identity is its own but the setting and the roles' models (Full calls no grader); a run with no such
    partner, or none in common, is listed in ``unpaired`` with the reason."""
    full: dict[str, list[Run]] = defaultdict(list)
    for run in runs:
        if run.workflow == "full":
            full[run.without_roles].append(run)
    rows, unpaired = [], []
    for opened in (r for r in runs if r.workflow == "open-answer"):
        partners = full.get(opened.without_roles, [])
        if len(partners) != 1:
            reason = (
                "no Full run of the same model and settings (seed, samples, ...) among the logs"
                if not partners
                else f"{len(partners)} Full runs of the same model and settings (they differ in a role's model)"
            )
            unpaired.append({"model": opened.model, "reason": reason, "log": opened.path})
            continue
        choice = partners[0]
        judged = {r["item"] for r in opened.rows if r["status"] not in (OVERLENGTH, UNJUDGED)}
        asked = {r["item"] for r in choice.rows if r["status"] != OVERLENGTH}
        both = judged & asked
        if not both:
            why = "no item both asked in Full and judged in open answer"
            unpaired.append({"model": opened.model, "reason": why, "log": opened.path})
            continue
        paired = _paired(choice, opened)
        rows.append(
            {
                "model": opened.model,
                "items": len(both),
                "full": statistics.fmean(r["correct"] for r in choice.rows if r["item"] in both),
                "open": statistics.fmean(r["correct"] for r in opened.rows if r["item"] in both),
                "drop": paired["delta"],
                "ci95": paired["ci95"],
                "ci_method": paired.get("ci_method"),
                "logs": [choice.path, opened.path],
            }
        )
    rho = None
    if len(rows) >= 3:
        value = spearmanr([r["full"] for r in rows], [r["open"] for r in rows])[0]
        rho = None if math.isnan(value) else float(value)
    return {"models": rows, "spearman_rho": rho, "unpaired": unpaired}


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
            "unpaired": ovc["unpaired"],  # open-answer runs with no Full partner, each with the reason
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
    logs: list[str] = []
    for run in runs:
        tokens = _episode_tokens(run) if run.workflow == "full" else None
        if tokens is None:
            continue
        models.add(run.model_name)
        logs.append(run.path)
        mine: dict[str, list[float]] = defaultdict(list)
        for r in run.rows:
            if r["status"] not in (OVERLENGTH, UNJUDGED) and r["episode"] in tokens:
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
        "logs": logs,
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
        if values.min() == values.max():  # every draw alike (a cell right on every item): no spread to read off
            mean = float(values.mean())
            why = "every draw gives the same accuracy"
            return {"mean": mean, **ci_fields(exact_binomial_ci(round(mean * take), take, why=why))}
        return {
            "mean": float(values.mean()),
            "ci95": [float(np.percentile(values, 2.5)), float(np.percentile(values, 97.5))],
            "ci_method": "percentile across draws",
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

    from ...shared.budgets import knowledge_cutoff

    out = []
    for run in runs:
        if run.workflow != "full" or not (run.stats or _older_stats(run.episodes)):
            continue
        given = (cutoffs or {}).get(run.model_name)
        source = "given"
        cutoff: date | None = date.fromisoformat(given) if given else None
        if cutoff is None:
            known = knowledge_cutoff(run.model_name)
            cutoff = date.fromisoformat(known) if known else None
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
