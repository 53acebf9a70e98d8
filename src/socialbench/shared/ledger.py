"""The cost ledger of runs: what inspect recorded each model was billed for (``log.stats.model_usage``: input at the
full rate, cache writes, cache reads, output, reasoning tokens, and the cost when prices are known, from inspect's
model data or ``--model-cost-config``), one row per run and model (the model under test and each model role)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.console import Console

from .benchmark import read_log, role_model
from .terminal import Table


def usage_rows(logs: Sequence[str | Path]) -> list[dict[str, Any]]:
    """One row per log and model that made calls. ``cache_hit_rate`` = cache reads / all input tokens (full-rate
    input + cache writes + cache reads); ``cost`` is inspect's, None when no price is known."""
    rows = []
    for path in logs:
        header = read_log(path, header_only=True)
        roles = {role_model(v): k for k, v in (header.eval.model_roles or {}).items()}
        for model, usage in (header.stats.model_usage or {}).items():
            written, read = usage.input_tokens_cache_write or 0, usage.input_tokens_cache_read or 0
            all_input = usage.input_tokens + written + read
            rows.append(
                {
                    "log": str(path),
                    "task": header.eval.task,
                    "model": model,
                    "role": "under test" if model == header.eval.model else roles.get(model, "other"),
                    "input_tokens": usage.input_tokens,
                    "cache_write_tokens": usage.input_tokens_cache_write,
                    "cache_read_tokens": usage.input_tokens_cache_read,
                    "output_tokens": usage.output_tokens,
                    "reasoning_tokens": usage.reasoning_tokens,
                    "cache_hit_rate": read / all_input if all_input else None,
                    "cost": usage.total_cost,
                }
            )
    return rows


def print_usage(console: Console, logs: Sequence[str | Path]) -> None:
    """The ledger as a table (nothing when no log recorded a model call)."""
    rows = usage_rows(logs)
    if not rows:
        return
    table = Table(
        title="Tokens and cost per run (inspect's usage record; cache hit = cache reads / all input tokens; "
        "cost from inspect's model prices or --model-cost-config, '-' when unknown)",
        title_justify="left",
    )
    for col in (
        "run",
        "model (role)",
        "input",
        "cache write",
        "cache read",
        "output",
        "reasoning",
        "cache hit",
        "cost $",
    ):
        table.add_column(col)

    def count(value: int | None) -> str:
        return "-" if value is None else f"{value:,}"

    for r in rows:
        table.add_row(
            Path(r["log"]).name,
            f"{r['model']} ({r['role']})",
            count(r["input_tokens"]),
            count(r["cache_write_tokens"]),
            count(r["cache_read_tokens"]),
            count(r["output_tokens"]),
            count(r["reasoning_tokens"]),
            "-" if r["cache_hit_rate"] is None else f"{100 * r['cache_hit_rate']:.1f}%",
            "-" if r["cost"] is None else f"{r['cost']:.4f}",
        )
    console.print(table)
