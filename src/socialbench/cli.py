"""The `socialbench` command."""

from __future__ import annotations

import json
import sys
import traceback
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal, cast

import click
from rich.console import Console
from rich.progress import BarColumn, DownloadColumn, Progress, SpinnerColumn, TextColumn, TransferSpeedColumn
from rich.table import Table

from .conversations.model import Episode, ThreadIntegrityError
from .conversations.render import render
from .conversations.sources import FORMATS, ImportOptions, ImportReport, SourceError, import_episodes
from .conversations.stats import EpisodeStats, episode_stats, table6
from .conversations.store import find_episode, read_episodes, write_episodes

err = Console(stderr=True)
# Tables are the product: when piped, do not squeeze them into 80 columns.
out = Console() if sys.stdout.isatty() else Console(width=160)

_BAD_INPUT = (SourceError, ThreadIntegrityError, FileNotFoundError, ValueError)


class _Group(click.Group):
    """Turns bad input into one line on stderr and exit code 2; ``--debug`` shows the traceback."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except _BAD_INPUT as exc:
            if ctx.obj and ctx.obj.get("debug"):
                traceback.print_exc()
            err.print(f"[bold red]error:[/] {exc}", highlight=False, soft_wrap=True)
            sys.exit(2)


@click.group(cls=_Group)
@click.option("--debug", is_flag=True, help="Show full tracebacks on errors.")
@click.pass_context
def main(ctx: click.Context, debug: bool) -> None:
    """socialbench: social intelligence benchmarks on real conversations."""
    ctx.obj = {"debug": debug}


@main.command("import")
@click.argument("fmt", metavar="FORMAT", type=click.Choice(sorted(FORMATS)))
@click.argument("paths", nargs=-1, required=True)
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False), help="Episodes JSONL to write.")
@click.option("--morechildren", multiple=True, help="reddit-json: /api/morechildren answers that fill gaps.")
@click.option("--subreddit", multiple=True, help="pushshift: keep only these subreddits.")
@click.option("--thread", "thread_ids", multiple=True, help="pushshift: keep only these thread ids.")
@click.option("--skip-bad", is_flag=True, help="pushshift: skip bad records (counted) instead of stopping.")
def import_cmd(
    fmt: str,
    paths: tuple[str, ...],
    output: str,
    morechildren: tuple[str, ...],
    subreddit: tuple[str, ...],
    thread_ids: tuple[str, ...],
    skip_bad: bool,
) -> None:
    """Import PATH... in FORMAT into a canonical episodes file."""
    report = ImportReport()
    # progress counts bytes read (decompressed for .zst), so a total is known only for plain files
    files = [Path(p) for p in paths]
    plain = all(f.is_file() and f.suffix != ".zst" for f in files)
    total = sum(f.stat().st_size for f in files) if plain else None
    with Progress(
        SpinnerColumn(),
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        DownloadColumn(),
        TransferSpeedColumn(),
        console=err,
        transient=True,
    ) as progress:
        task = progress.add_task(f"importing {fmt}", total=total)
        counted = {"episodes": 0}

        def on_bytes(n: int) -> None:
            progress.advance(task, n)

        options = ImportOptions(
            morechildren=morechildren,
            subreddits=subreddit,
            thread_ids=thread_ids,
            skip_bad=skip_bad,
            report=report,
            on_bytes=on_bytes if fmt == "pushshift" else None,
        )

        def episodes() -> Iterator[Episode]:
            for episode in import_episodes(fmt, paths, options):
                counted["episodes"] += 1
                progress.update(task, description=f"importing {fmt}: {counted['episodes']} episodes")
                yield episode

        written = write_episodes(output, episodes())
    err.print(f"wrote {written} episodes to {output}")
    if report.skipped:
        err.print(f"[yellow]skipped {report.skipped} bad records of {report.records}[/]; first: {report.errors[0]}")


def _stats_rows(path: str) -> list[EpisodeStats]:
    return [episode_stats(e) for e in read_episodes(path)]


def print_stats_table(rows: list[EpisodeStats], title: str) -> None:
    table = Table(title=title)
    for col in (
        "Source",
        "# eps",
        "Tokens med.",
        "Tokens max",
        "Tokens total",
        "Mean max-depth",
        "Mean nodes",
        "Mean root replies",
    ):
        table.add_column(col, justify="left" if col == "Source" else "right")
    for s in table6(rows):
        table.add_row(
            s.source,
            str(s.episodes),
            f"{s.tokens_median:,.0f}",
            f"{s.tokens_max:,}",
            f"{s.tokens_total:,}",
            f"{s.mean_max_depth:.1f}",
            f"{s.mean_nodes:.1f}",
            f"{s.mean_root_replies:.1f}",
        )
    out.print(table)


@main.command()
@click.argument("episodes", type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object with `sources` and `episodes`.")
def stats(episodes: str, as_json: bool) -> None:
    """Structure statistics of an episodes file (LongSocialBench Table 6 columns)."""
    rows = _stats_rows(episodes)
    if as_json:
        click.echo(
            json.dumps(
                {
                    "sources": [s.model_dump() for s in table6(rows)],
                    "episodes": [r.model_dump() for r in rows],
                },
                ensure_ascii=False,
            )
        )
        return
    print_stats_table(rows, f"Episodes in {episodes}")


@main.command()
@click.argument("episodes", type=click.Path(dir_okay=False))
@click.argument("episode_id")
@click.option("--order", type=click.Choice(["thread", "time"]), default="thread")
def show(episodes: str, episode_id: str, order: str) -> None:
    """Print one episode exactly as a model reads it."""
    episode = find_episode(episodes, episode_id)
    click.echo(render(episode, order), nl=False)  # type: ignore[arg-type]


DEFAULT_MODEL = "socialbench/gemma-3-270m"


def _arg_value(text: str) -> Any:
    """``-M`` values as JSON when they parse (``32768``, ``true``), else as plain strings (paths, names)."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


@main.command()
@click.option("--benchmark", type=click.Choice(["longsocial", "sibench"]), default="longsocial", show_default=True)
@click.option(
    "--model",
    default=DEFAULT_MODEL,
    show_default=True,
    help="Any inspect model: socialbench/gemma-3-270m, openai-api/vllm/NAME, openai/gpt-5, ...",
)
@click.option("--workflow", default="full", show_default=True, help="Evaluation setting (paper Table 12).")
@click.option("--items", type=click.Path(dir_okay=False), help="Items JSONL (default: the bundled sample pack).")
@click.option("--episodes", type=click.Path(dir_okay=False), help="Episodes JSONL (default: bundled episodes).")
@click.option(
    "--answer",
    "answer_mode",
    type=click.Choice(["auto", "generate", "logprobs"]),
    default="auto",
    show_default=True,
    help="auto = logprobs for the embedded base model, generate otherwise.",
)
@click.option("--limit", type=int, help="Evaluate at most this many items.")
@click.option("--log-dir", default="logs", show_default=True, help="Where inspect writes its .eval logs.")
@click.option("--max-connections", type=int, help="Concurrent model calls (API / vLLM providers).")
@click.option("--max-context", type=int, help="Context window for providers that do not report one.")
@click.option("--overlength", type=click.Choice(["skip", "truncate"]), default="skip", show_default=True)
@click.option("-M", "model_args", multiple=True, help="Model arg KEY=VALUE (e.g. -M n_ctx=32768).")
@click.option(
    "--mode",
    type=click.Choice(["cot", "direct", "pairwise"]),
    default="cot",
    show_default=True,
    help="sibench: CoT reply, direct reply, or blind CoT-vs-direct comparison.",
)
@click.option("--lang", type=click.Choice(["zh", "en"]), default="zh", show_default=True, help="sibench prompts.")
@click.option("--judge", help="sibench: grader model (default: the model under test, with a warning).")
@click.option("--ablate", help="sibench: CoT component(s) to remove, e.g. communicative_strategy.")
@click.option(
    "--subset",
    type=click.Choice(["balanced", "all"]),
    default="balanced",
    show_default=True,
    help="sibench: 312-dialogue situation-balanced set, or all 2,221.",
)
def run(
    benchmark: str,
    model: str,
    workflow: str,
    items: str | None,
    episodes: str | None,
    answer_mode: str,
    limit: int | None,
    log_dir: str,
    max_connections: int | None,
    max_context: int | None,
    overlength: str,
    model_args: tuple[str, ...],
    mode: str,
    lang: str,
    judge: str | None,
    ablate: str | None,
    subset: str,
) -> None:
    """The main job: run a benchmark on a model and print the paper-style table."""
    from inspect_ai import Task
    from inspect_ai import eval as inspect_eval

    from . import _registry  # noqa: F401  (registers the tasks, the embedded model and seeds tiktoken)
    from .benchmarks.longsocial.task import AnswerMode, Overlength, longsocial
    from .benchmarks.sibench.prompts import Lang
    from .benchmarks.sibench.task import Mode, sibench
    from .reporting import print_longsocial_report, print_sibench_report

    margs = {}
    for pair in model_args:
        key, sep, value = pair.partition("=")
        if not sep:
            raise click.BadParameter(f"expected KEY=VALUE, got {pair!r}", param_hint="-M")
        margs[key] = _arg_value(value)
    task: Task
    if benchmark == "sibench":
        task = sibench(
            mode=cast(Mode, mode), lang=cast(Lang, lang), ablate=ablate, subset=cast(Literal["balanced", "all"], subset)
        )
    else:
        if answer_mode == "auto":
            answer_mode = "logprobs" if model.startswith("socialbench/") else "generate"
        task = longsocial(
            items=items,
            episodes=episodes,
            workflow=workflow,
            answer_mode=cast(AnswerMode, answer_mode),
            overlength=cast(Overlength, overlength),
            max_context=max_context,
        )
    logs = inspect_eval(
        task,
        model=model,
        model_args=margs,
        model_roles={"grader": judge} if judge else None,
        limit=limit,
        log_dir=log_dir,
        max_connections=max_connections,
        display="rich" if err.is_terminal else "plain",
    )
    if benchmark == "sibench":
        print_sibench_report(logs[0], out)
    else:
        print_longsocial_report(logs[0], out)


@main.command()
@click.argument("benchmark", type=click.Choice(["sibench"]))
@click.argument("logs", nargs=-1, required=True, type=click.Path(exists=True))
@click.option("--json", "as_json", is_flag=True, help="Print the tables as one JSON object.")
@click.option(
    "--similarity/--no-similarity",
    default=True,
    show_default=True,
    help="Reply-to-CoT similarity with the offline sentence-transformers model (Figure 5).",
)
def report(benchmark: str, logs: tuple[str, ...], as_json: bool, similarity: bool) -> None:
    """Paper tables from inspect logs (several models, modes and ablations at once)."""
    from .analysis import sibench as analysis

    paths = [str(p) for arg in logs for p in (sorted(Path(arg).glob("*.eval")) if Path(arg).is_dir() else [Path(arg)])]
    rows = analysis.score_rows(paths)
    tables: dict[str, Any] = {
        "table1": analysis.table1(rows),
        "by_context_group": analysis.by_group(rows, "context_group"),
        "by_situation": analysis.by_group(rows, "situation"),
        "ablation_deltas": analysis.ablation_deltas(rows),
        "reply_style": analysis.reply_style(rows),
    }
    if similarity:
        from .analysis.similarity import reply_cot_similarity

        tables["reply_cot_similarity"] = reply_cot_similarity(paths)
    if as_json:
        click.echo(json.dumps(tables, ensure_ascii=False))
        return
    for name, data in tables.items():
        records = data if isinstance(data, list) else [{"group": g, **v} for g, v in data.items()]
        if not records:
            continue
        table = Table(title=name)
        for col in records[0]:
            table.add_column(
                col.replace("_", " "), justify="left" if col in ("model", "group", "mode", "removed") else "right"
            )
        for rec in records:
            table.add_row(*(f"{v:.2f}" if isinstance(v, float) else "-" if v is None else str(v) for v in rec.values()))
        out.print(table)


if __name__ == "__main__":  # pragma: no cover
    main()
