"""``socialbench analyze longsocial screen``: the paper's shortcut probes (Table 19) as a screen over candidate
items. Each probe setting that is registered for the report (option-only: the options alone; question-only: stem
and options; title-only: the root post, stem and options) runs over the items with several option-order seeds,
with one model or several; an item the probes answer right well above chance is flagged with the probe that solved
it, to be rewritten or removed before release.

The test, per item and probe: the item's correct answers over every run of that probe (models x seeds), a
one-sided binomial test against chance (1/4; scipy), and Benjamini-Hochberg over all item x probe tests of the
screen (statsmodels), flagging q < ``alpha``. The power depends on the runs: with n runs per item and probe the
smallest possible p is 0.25^n, so the screen says when n is too small to flag anything at all (one model with three
seeds cannot flag an item among 36 x 3 tests) instead of passing items it could not have failed.

Runs come from logs (``-A runs=DIR``: any logs of the probe settings; one item's runs of one probe pooled across
models and seeds) or from a model (``-A model=M``: the screen runs the probes itself through inspect, writing the
logs to ``-A log_dir``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.console import Console

from ...core.errors import InputError
from ...core.jsonl import dump_json
from ...shared.benchmark import log_paths, read_log
from ...shared.runs import run_set
from ...shared.terminal import Table
from .summary import score_rows

PROBES = ("option-only", "question-only", "title-only")
CHANCE = 0.25


def run_probes(model: str, items: str | None, episodes: str | None, seeds: int, log_dir: str) -> list[str]:
    if Path(log_dir).exists() and not Path(log_dir).is_dir():
        raise InputError(log_dir, "-A log_dir names a file: give a folder for the probe runs' logs")
    """Run every probe with ``seeds`` option orders on ``model``; the logs written."""
    from inspect_ai import eval

    from .task import longsocial

    tasks = [
        longsocial(items=items, episodes=episodes, workflow=probe, seed=seed)
        for probe in PROBES
        for seed in range(seeds)
    ]
    logs = eval(tasks, model=model, log_dir=log_dir, display="none")
    failed = [log.location for log in logs if log.status != "success"]
    if failed:
        raise RuntimeError(f"probe runs did not complete: {', '.join(failed)}")
    return [str(log.location) for log in logs]


def probe_answers(paths: list[str]) -> tuple[dict[tuple[str, str], list[float]], list[str]]:
    """(item, probe) -> correct per run (1.0 / 0.0; unread answers are wrong), and the runs read (model, probe,
    seed) for the record."""
    answers: dict[tuple[str, str], list[float]] = {}
    runs = []
    for info in run_set(paths).runs:  # a rerun counts once; an incomplete run is left out
        log = read_log(info.path)
        workflow = str(log.eval.task_args.get("workflow", "full"))
        if workflow not in PROBES:
            continue
        runs.append(f"{log.eval.model} {workflow} seed {log.eval.task_args.get('seed', 0)}")
        for row in score_rows(log):
            if row["status"] == "overlength":
                continue
            answers.setdefault((row["item"], workflow), []).append(row["correct"])
    return answers, runs


def screen_rows(answers: dict[tuple[str, str], list[float]], alpha: float) -> list[dict[str, Any]]:
    from scipy.stats import binomtest
    from statsmodels.stats.multitest import multipletests

    keys = sorted(answers)
    rows = []
    for item, probe in keys:
        runs = answers[(item, probe)]
        correct = round(sum(runs))
        p = float(binomtest(correct, len(runs), CHANCE, alternative="greater").pvalue)
        rows.append({"item": item, "probe": probe, "correct": correct, "runs": len(runs), "p_value": p})
    if rows:
        flagged, q, _, _ = multipletests([r["p_value"] for r in rows], alpha=alpha, method="fdr_bh")
        for row, flag, value in zip(rows, flagged, q, strict=True):
            row["q_value"] = float(value)
            row["flagged"] = bool(flag)
    return rows


def screen(
    console: Console,
    as_json: bool = False,
    runs: str | None = None,
    model: str | None = None,
    items: str | None = None,
    episodes: str | None = None,
    seeds: int = 3,
    log_dir: str = "logs/screen",
    alpha: float = 0.05,
) -> None:
    """Shortcut screen: flags items the Table 19 probes answer without the discussion.

    The probes (option-only, question-only, title-only) run over several option-order seeds; exit status 1 when
    an item is flagged.

    Args:
        runs: inspect logs (a file or a folder) of probe runs to screen; or give ``model``.
        model: run the probes on this model (e.g. ``openai/gpt-4o``) with ``seeds`` option orders.
        items: items JSONL for ``model`` (default: the sample pack's).
        episodes: episodes JSONL for ``model`` (default: the sample pack's).
        seeds: option-order seeds per probe for ``model``.
        log_dir: where the probe runs' logs go.
        alpha: false discovery rate of the flags (Benjamini-Hochberg over every item x probe test).
    """
    if (runs is None) == (model is None):
        raise ValueError("screen takes -A runs=DIR (probe runs to read) or -A model=MODEL (to run them), one of them")
    paths = log_paths([runs]) if runs else run_probes(model or "", items, episodes, seeds, log_dir)
    answers, read = probe_answers(paths)
    if not answers:
        raise ValueError(f"no runs of the probe settings ({', '.join(PROBES)}) among the logs")
    rows = screen_rows(answers, alpha)
    tests = len(rows)
    fewest = min(r["runs"] for r in rows)
    # Benjamini-Hochberg: with k discoveries among m tests an item is flagged when p * m / k <= alpha, and an item
    # right in all of its n runs has p = 0.25^n; at best (k = m) that is p <= alpha, at worst (k = 1) p * m <= alpha
    best = CHANCE**fewest
    flagged = [r for r in rows if r["flagged"]]
    if best > alpha:
        power: str | None = (
            f"with {fewest} runs per item and probe no item can be flagged at q < {alpha:g}, even one right in "
            "every run: add seeds or models"
        )
    elif best * tests > alpha:
        power = (
            f"with {fewest} runs per item and probe, one solved item alone cannot be flagged among {tests} tests "
            "(only several solved items together can): add seeds or models to screen single items"
        )
    else:
        power = None
    if as_json:
        result = {"runs": read, "tests": tests, "flagged": flagged, "rows": rows, "power": power}
        console.file.write(dump_json(result) + "\n")
    else:
        summary = Table(title=f"Shortcut screen: {len(read)} probe runs, {tests} item x probe tests")
        for column in ("probe", "items", "runs per item", "accuracy", "flagged"):
            summary.add_column(column, justify="left" if column == "probe" else "right")
        for probe in PROBES:
            mine = [r for r in rows if r["probe"] == probe]
            if mine:
                right = sum(r["correct"] for r in mine) / sum(r["runs"] for r in mine)
                counts = sorted({r["runs"] for r in mine})
                summary.add_row(
                    probe,
                    str(len(mine)),
                    "/".join(map(str, counts)),
                    f"{right:.1%}",
                    str(sum(r["flagged"] for r in mine)),
                )
        console.print(summary)
        if flagged:
            table = Table(title="Flagged items: rewrite or remove before release")
            for column in ("item", "solved by", "right", "p", "q (BH)"):
                table.add_column(column)
            for r in flagged:
                table.add_row(
                    r["item"],
                    r["probe"],
                    f"{r['correct']} of {r['runs']}",
                    f"{r['p_value']:.2g}",
                    f"{r['q_value']:.2g}",
                )
            console.print(table)
        if power:
            console.print(f"[yellow]{power}[/]")
        folders = ", ".join(sorted({str(Path(p).parent) for p in paths}))
        console.print(f"screen: {len(flagged)} item x probe flags at q < {alpha:g}; logs in {folders}")
    if flagged:
        raise SystemExit(1)
