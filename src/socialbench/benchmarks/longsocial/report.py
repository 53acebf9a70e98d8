"""LongSocialBench's analyses over many runs (the paper's grid and tables), as records: the numbers `figures.document`
declares its tables from, and what ``socialbench report longsocial --json`` prints.

They read inspect logs only: setting x model cells with item accuracy, bootstrap 95% CI and the change against Full
(Table 14 / Fig. 4), setting families (Table 14), reasoning lifts paired on items (Table 17), per capability (Table 3
/ Fig. 5) and per platform (Fig. 6), episode length vs accuracy with Spearman's rho (Fig. 9), and open-answer vs
multiple choice (Table 4). A cell with no asked item is None (printed "–"), never 0.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ...shared.runs import run_info, run_set
from .grid import (
    by_variant,
    families,
    grid,
    load_runs,
)
from .summary import (
    degraded_marks,
)
from .tables import (
    by_group,
    length_pooled,
    length_vs_accuracy,
    open_vs_choice,
    reasoning_lifts,
    stratified_subset,
    table3,
    table13,
    table16,
    table19,
    table20,
    table21,
    unmeasured,
)


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
        "licences": licences(runs),
    }


def licences(runs: list[Any]) -> dict[str, list[str]]:
    """The licences the counted runs' discussions carry: licence -> the episodes under it (the sample pack's are
    known, `pack.SAMPLE_SOURCES`; any other episode is "not recorded")."""
    from .pack import SAMPLE_SOURCES

    out: dict[str, set[str]] = {}
    for episode in {str(r["episode"]) for run in runs for r in run.rows}:
        licence = SAMPLE_SOURCES[episode][2] if episode in SAMPLE_SOURCES else "not recorded"
        out.setdefault(licence, set()).add(episode)
    return {licence: sorted(episodes) for licence, episodes in sorted(out.items())}


def _is_longsocial(path: str) -> bool:
    return run_info(path).task == "longsocial"


def load_mapping(path: str | None, what: str) -> dict[str, str] | None:
    """A JSON object file ``{"model": "value"}`` (tiers, knowledge cutoffs); None without a path."""
    if not path:
        return None

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
