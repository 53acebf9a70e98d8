"""The `socialbench` command."""

from __future__ import annotations

import json
import sys
import traceback
from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from typing import Any

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
@click.option(
    "-o", "--output", required=True, type=click.Path(dir_okay=False), help="Episodes JSONL to write."
)
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
    total = sum(Path(p).stat().st_size for p in paths if Path(p).is_file()) or None
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
        err.print(
            f"[yellow]skipped {report.skipped} bad records of {report.records}[/]; first: {report.errors[0]}"
        )


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


def bundled_episodes() -> Path:
    ref = resources.files("socialbench") / "benchmarks" / "longsocial" / "sample_pack" / "episodes.jsonl"
    return Path(str(ref))


@main.command()
def run() -> None:
    """The main job: statistics of the bundled real episodes."""
    path = bundled_episodes()
    print_stats_table(_stats_rows(str(path)), "Bundled sample episodes (real threads)")
    out.print(f"episodes file: {path}")


if __name__ == "__main__":  # pragma: no cover
    main()
