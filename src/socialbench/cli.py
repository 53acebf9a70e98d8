"""The `socialbench` command."""

from __future__ import annotations

import inspect
import itertools
import json
import re
import signal
import sys
import traceback
import warnings
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, get_args, get_origin

import click
from rich.console import Console
from rich.markup import escape
from rich.text import Text

from .core.errors import InputError, did_you_mean
from .core.jsonl import dump_json, protecting
from .shared.terminal import Table

if TYPE_CHECKING:
    from pydantic import BaseModel
    from pydantic.fields import FieldInfo

    from .conversations.model import Episode
    from .conversations.sources import Importer, ImportReport
    from .conversations.stats import EpisodeStats
    from .shared.benchmark import Benchmark, Parameter

err = Console(stderr=True)
# Tables are the product: when piped, do not squeeze them into 80 columns.
out = Console() if sys.stdout.isatty() else Console(width=160)


def _bad_input() -> tuple[type[Exception], ...]:
    """The errors that are the user's input, said in one line (the conversations layer's integrity error is
    imported only when an error is being handled: `--help` loads no pydantic model)."""
    from .conversations.model import ThreadIntegrityError

    return (InputError, ThreadIntegrityError, FileNotFoundError, ValueError)


class _Group(click.Group):
    """Turns bad input into one line on stderr and exit code 2; ``--debug`` shows the traceback."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except _bad_input() as exc:  # evaluated only when an error is raised
            if ctx.obj and ctx.obj.get("debug"):
                traceback.print_exc()
            err.print(f"[bold red]error:[/] {exc}", highlight=False, soft_wrap=True)
            sys.exit(2)
        except OSError as exc:  # a file that is a folder, unreadable, or on a full disk: the file, in words
            if not exc.filename:
                raise
            if ctx.obj and ctx.obj.get("debug"):
                traceback.print_exc()
            err.print(f"[bold red]error:[/] {exc.filename}: {_os_problem(exc)}", highlight=False, soft_wrap=True)
            sys.exit(2)
        except Exception as exc:  # inspect's own refusal before a run (no API key for a provider, ...): one line
            if type(exc).__name__ != "PrerequisiteError":  # matched by name: importing inspect here slows every command
                raise
            if ctx.obj and ctx.obj.get("debug"):
                traceback.print_exc()
            text = re.sub(r"^ERROR:\s*", "", " ".join(Text.from_markup(str(exc)).plain.split()))
            err.print(f"[bold red]error:[/] {escape(text)}", highlight=False, soft_wrap=True)
            sys.exit(2)


def _os_problem(exc: OSError) -> str:
    """What is wrong with a file the operating system refused, in words (never the exception's class)."""
    if isinstance(exc, IsADirectoryError):
        return "is a folder, expected a file"
    if isinstance(exc, NotADirectoryError):
        return "a part of its path is a file, not a folder"
    if isinstance(exc, PermissionError):
        return "no permission to read or write it"
    return f"cannot be read or written: {exc.strerror or 'the operating system refused'}"


@click.group(cls=_Group)
@click.option("--debug", is_flag=True, help="Show full tracebacks on errors.")
@click.pass_context
def main(ctx: click.Context, debug: bool) -> None:
    """socialbench: social intelligence benchmarks on real conversations."""
    ctx.obj = {"debug": debug}
    # SIGTERM (a scheduler, `kill`) unwinds like Ctrl-C, so a half-written output's temporary file is removed
    signal.signal(signal.SIGTERM, _terminated)


def _terminated(signum: int, frame: Any) -> None:
    raise SystemExit(128 + signum)


class _ImportGroup(click.Group):
    """``socialbench import FORMAT PATH... -o OUT``: one command per importer, built from its declaration (its
    summary is the help, its options model the flags), so the CLI names no format."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        from .conversations.sources import importers

        return list(importers())

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        from .conversations.sources import importers

        importer = importers().get(name)
        return None if importer is None else _import_command(importer)

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        name = click.utils.make_str(args[0])
        if self.get_command(ctx, name) is None and not name.startswith("-"):  # a format that is not: the closest
            known = self.list_commands(ctx)
            raise click.UsageError(f"unknown format {name!r}; {did_you_mean(name, known)}formats: {', '.join(known)}")
        return super().resolve_command(ctx, args)


class _FormatCommand(click.Command):
    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        try:
            return super().parse_args(ctx, args)
        except click.NoSuchOption as exc:  # a flag of another format: say whose it is
            from .conversations.sources import importers

            owners = [i.name for i in importers().values() if exc.option_name in _option_flags(i.options)]
            if owners:
                raise click.UsageError(f"{exc.option_name} applies to the {', '.join(owners)} format only") from None
            raise


def _option_flags(model: type[BaseModel]) -> list[str]:
    return ["--" + name.replace("_", "-") for name in model.model_fields]


if TYPE_CHECKING:  # click's ParamType is generic only in recent releases: subscripted for the type checker alone
    _IntParam = click.ParamType[int]
else:
    _IntParam = click.ParamType


class AtLeast(_IntParam):
    """A count-like option: an integer of at least ``minimum`` (a zero or negative concurrency hangs or means
    something else in inspect); the message names the option and its minimum."""

    name = "integer"

    def __init__(self, minimum: int, maximum: int | None = None) -> None:
        self.minimum, self.maximum = minimum, maximum

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        try:
            number = int(value)
        except (TypeError, ValueError):
            self.fail(f"expected a whole number, got {value!r}", param, ctx)
        if number < self.minimum:
            self.fail(f"must be at least {self.minimum}, got {number}", param, ctx)
        if self.maximum is not None and number > self.maximum:
            self.fail(f"must be at most {self.maximum}, got {number}", param, ctx)
        return number


def _click_option(name: str, field: FieldInfo) -> click.Option:
    """A pydantic field as a click option: bool -> flag, tuple -> repeated, Literal -> choice; pydantic validates."""
    flag = "--" + name.replace("_", "-")
    extra = field.json_schema_extra if isinstance(field.json_schema_extra, dict) else {}
    metavar = extra.get("metavar")
    kind = field.annotation
    args = [a for a in get_args(kind) if a is not type(None)]
    if kind is bool:
        return click.Option([flag], is_flag=True, help=field.description)
    if get_origin(kind) in (tuple, list):
        return click.Option([flag, name], multiple=True, help=field.description, metavar=metavar)
    if get_origin(kind) is Literal:
        choice = click.Choice(list(get_args(kind)))
        return click.Option([flag, name], type=choice, default=field.default, show_default=True, help=field.description)
    number = int in args or kind is int
    return click.Option([flag, name], type=int if number else str, help=field.description, metavar=metavar)


def _import_command(importer: Importer) -> click.Command:
    folder_note = " (a folder of part files with some options)" if importer.partitioned else ""
    params: list[click.Parameter] = [
        click.Argument(["paths"], nargs=-1, required=True),
        click.Option(
            ["-o", "--output"],
            required=True,
            type=click.Path(),
            help=f"Episodes JSONL to write{folder_note}.",
        ),
        *(_click_option(name, field) for name, field in importer.options.model_fields.items()),
    ]

    def callback(paths: tuple[str, ...], output: str, **values: Any) -> None:
        _import(importer, paths, output, {k: v for k, v in values.items() if v is not None})

    return _FormatCommand(importer.name, params=params, callback=callback, help=importer.summary)


@main.group("import", cls=_ImportGroup)
def import_cmd() -> None:
    """Import real conversations in FORMAT into a canonical episodes file: socialbench import FORMAT PATH... -o
    OUT (socialbench import FORMAT --help lists that format's options)."""


_WARNINGS_SHOWN = 10


def _import(importer: Importer, paths: tuple[str, ...], output: str, values: dict[str, Any]) -> None:
    from .conversations.sources import ImportReport, options_for

    options = options_for(importer, values)
    inputs = importer.input_paths(list(paths), options)
    folder = bool(importer.folder_output and importer.folder_output(options))
    _refuse_writing_over(output, inputs, folder=folder)  # before anything is read
    report = ImportReport()
    with protecting(inputs), _warning_lines() as warned:
        if folder:
            assert importer.partitioned is not None
            written, parts = importer.partitioned(list(paths), Path(output), options, report)
            err.print(f"wrote {written} episodes in {parts} part files to {output}/")
        else:
            if Path(output).is_dir():
                raise click.UsageError(f"{output} is a folder; the episodes file is written with -o FILE")
            try:
                written = _import_file(importer, paths, output, options, report)
            except InputError as exc:
                raise _with_format_hint(exc, importer.name, paths) from None
            err.print(f"wrote {written} episodes to {output}")
    if warned["hidden"]:
        err.print(f"[yellow]warning:[/] {warned['hidden']} more warnings not shown", highlight=False)
    if report.skipped:
        err.print(f"[yellow]skipped {report.skipped} bad records of {report.records}[/]; first: {report.errors[0]}")
    if report.repairs:
        counts = "; ".join(f"{kind}: {n}" for kind, n in sorted(report.repairs.items()))
        err.print(f"[yellow]repaired (recorded in each episode's meta / repairs):[/] {counts}", highlight=False)


def _with_format_hint(exc: InputError, refused: str, paths: tuple[str, ...]) -> InputError:
    """The importer's error, plus the formats that do read the input, when another one does."""
    from .conversations.sources import reading_formats

    others = reading_formats(paths, refused)
    if not others:
        return exc
    hint = " or ".join(f"`socialbench import {name} ...`" for name in others)
    return InputError(exc.path, f"{exc.message} (not {refused}: it reads as {hint})", line=exc.line, record=exc.record)


def _import_file(
    importer: Importer,
    paths: tuple[str, ...],
    output: str,
    options: BaseModel,
    report: ImportReport,
) -> int:
    from rich.progress import BarColumn, DownloadColumn, Progress, SpinnerColumn, TextColumn, TransferSpeedColumn

    from .conversations.sources import REPAIRS_KEY, ImportContext, import_episodes
    from .conversations.store import write_episodes

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
        disable=not err.is_terminal,  # a log file gets the closing lines only
    ) as progress:
        task = progress.add_task(f"importing {importer.name}", total=total)
        counted = {"episodes": 0}

        def on_bytes(n: int) -> None:
            progress.advance(task, n)

        context = ImportContext(report=report, on_bytes=on_bytes if importer.counts_bytes else None)

        def episodes() -> Iterator[Episode]:
            for episode in stream:
                counted["episodes"] += 1
                report.repair("integrity repairs by Thread.build", len(getattr(episode, "repairs", ())))
                for kind, n in episode.meta.get(REPAIRS_KEY, {}).items():
                    report.repair(kind, n)
                progress.update(task, description=f"importing {importer.name}: {counted['episodes']} episodes")
                yield episode

        stream = import_episodes(importer.name, paths, options, context)
        first = next(stream, None)
        if first is None:  # an empty file, [] or a folder without inputs: an error, and the output is left alone
            what = "records matching the filters" if getattr(options, "filtered", False) else "records"
            raise InputError(", ".join(paths), f"no episodes found ({importer.name}: no {what})")
        stream = itertools.chain([first], stream)
        return write_episodes(output, episodes())


@contextmanager
def _warning_lines() -> Iterator[dict[str, int]]:
    """The importers' warnings (repairs, recovered files) as one line each on stderr, the first ten of them."""
    shown = {"shown": 0, "hidden": 0}

    def show(message: Warning | str, *_: Any, **__: Any) -> None:
        if shown["shown"] < _WARNINGS_SHOWN:
            shown["shown"] += 1
            err.print(f"[yellow]warning:[/] {message}", highlight=False, soft_wrap=True)
        else:
            shown["hidden"] += 1

    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.showwarning = show
        yield shown


def _refuse_writing_over(output: str, inputs: Iterable[str], folder: bool = False) -> None:
    """One line, exit 2, when the output is one of the inputs (by resolved path or inode), or, for an output
    folder the command writes into, when it holds an input."""
    from .core.jsonl import check_writable, input_files, refuse_input

    refuse_input(output, inputs)
    check_writable(output)
    if folder:
        target = Path(output).resolve()
        for f in input_files(inputs):
            if target in f.resolve().parents:
                raise InputError(output, f"holds the input {f}: this command writes into the folder, refusing")


def _stats_rows(path: str) -> list[EpisodeStats]:
    from .conversations.stats import episode_stats
    from .conversations.store import read_episodes

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
    from .conversations.stats import table6

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
@click.argument("episodes", type=click.Path())
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object with `sources` and `episodes`.")
def stats(episodes: str, as_json: bool) -> None:
    """Structure statistics of an episodes file (LongSocialBench Table 6 columns)."""
    from .conversations.stats import table6

    rows = _stats_rows(episodes)
    if as_json:
        click.echo(dump_json({"sources": table6(rows), "episodes": rows}))
        return
    print_stats_table(rows, f"Episodes in {episodes}")


@main.command()
@click.argument("episodes", type=click.Path())
@click.argument("episode_id")
@click.option("--order", type=click.Choice(["thread", "time"]), default="thread")
def show(episodes: str, episode_id: str, order: str) -> None:
    """Print one episode exactly as a model reads it."""
    from .conversations.render import render
    from .conversations.store import find_episode

    episode = find_episode(episodes, episode_id)
    click.echo(render(episode, order), nl=False)  # type: ignore[arg-type]


@main.command()
@click.argument("log", type=click.Path())
@click.argument("sample_id")
@click.option("--epoch", type=AtLeast(1), default=1, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Every model call's messages as one JSON list.")
def prompt(log: str, sample_id: str, epoch: int, as_json: bool) -> None:
    """Print the exact prompt a sample of LOG was sent: socialbench logs store each discussion once (the other
    samples hold a note in its place, as `inspect view` shows); this puts it back, checked against its digest.
    Without --json: the text of the sample's last model call as the model received it (the answer's, or in a
    graded setting the grader's); --json lists every call."""
    from .shared.logstore import sample_prompts

    if not Path(log).is_file():
        raise InputError(log, "no such log file")
    calls = sample_prompts(log, sample_id, epoch)
    if as_json:
        click.echo(dump_json(calls))
        return
    if not calls:
        raise InputError(log, f"sample {sample_id} (epoch {epoch}) made no model call")
    messages = calls[-1]
    for message in messages:
        content = message["content"]
        text = content if isinstance(content, str) else "".join(p for p in content if isinstance(p, str))
        if len(messages) > 1:  # a conversation (a second turn): each message under its role
            click.echo(f"=== {message['role']} ===")
        click.echo(text, nl=len(messages) > 1)


def _model_args(pairs: tuple[str, ...]) -> dict[str, Any]:
    """``-M KEY=VALUE``: values as JSON when they parse (``32768``, ``true``), else as plain strings (paths)."""
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise click.BadParameter(f"expected KEY=VALUE, got {pair!r}", param_hint="-M")
        if key in ("base_url", "model_base_url"):  # inspect takes it apart from the model's own arguments
            raise click.BadParameter(
                "give the endpoint with --model-base-url URL (or PROVIDER_BASE_URL)", param_hint="-M"
            )
        try:
            out[key] = json.loads(value)
        except json.JSONDecodeError:
            out[key] = value
    return out


def _roles(pairs: tuple[str, ...]) -> dict[str, str] | None:
    roles = {}
    for pair in pairs:
        role, sep, model = pair.partition("=")
        if not sep or not role or not model:
            raise click.BadParameter(f"expected ROLE=MODEL, got {pair!r}", param_hint="--model-role")
        provider = model.split("/", 1)[0]
        known = _providers()
        if known and provider not in known:
            raise click.BadParameter(
                f"role {role!r}: no model provider {provider!r} (in {model!r}); providers: {', '.join(known)}",
                param_hint="--model-role",
            )
        roles[role] = model
    return roles or None


def _providers() -> list[str]:
    """inspect's model providers (and ours), to name them when a model role names none of them. inspect has no
    public listing; if its registry moves, the check is skipped and inspect's own error stands."""
    from . import _registry  # noqa: F401  (registers the embedded provider)
    from .shared.inspect_private import provider_names

    return provider_names()


_REPORT_FIXED = ("logs", "console", "as_json")


def _parameter_table(title: str, flag: str, params: Iterable[Parameter]) -> Table:
    table = Table(title=title, title_justify="left")
    for col in (f"{flag} parameter", "type", "default", "meaning"):
        table.add_column(col)
    for p in params:
        table.add_row(p.name, p.type_text, repr(p.default), p.doc)
    return table


def _print_data(benches: Iterable[Any]) -> None:
    """Every data file the benchmarks ship or read, and what socialbench reads from other packages (docs/data.md)."""
    from .shared.datasets import PACKAGED

    table = Table(title="Data: every file socialbench ships or reads (docs/data.md)", title_justify="left")
    for column in ("benchmark", "file", "what", "source", "licence", "cite", "changed", "in the wheel"):
        table.add_column(column, overflow="fold")
    notes = [(b.name, n) for b in benches for n in b.data] + [("(models)", n) for n in PACKAGED]
    for bench, n in notes:
        table.add_row(bench, n.file, n.what, n.source, n.licence, n.citation, n.changes, "yes" if n.shipped else "no")
    out.print(table)


@main.command("list")
@click.option("--data", "data_only", is_flag=True, help="Only the data files: source, licence, citation, changes.")
def list_cmd(data_only: bool) -> None:
    """The benchmarks, their tasks and every task parameter (-T KEY=VALUE) with its default; --data: the data."""
    from .benchmarks import registered
    from .shared.benchmark import REPORT_FIXED, parameters, summary_line, task_name

    if data_only:
        _print_data(registered().values())
        return

    for bench in registered().values():
        out.print(f"[bold]{bench.name}[/]  {bench.title} — {bench.paper}", highlight=False)
        for n, fn in enumerate(bench.tasks):
            default = " (default task)" if n == 0 and len(bench.tasks) > 1 else ""
            out.print(_parameter_table(f"task {task_name(fn)}{default}: {summary_line(fn)}", "-T", parameters(fn)))
            out.print(f"  without --model: {_embedded_text(bench, fn)}", highlight=False, soft_wrap=True)
        options = [p for p in parameters(bench.document) if p.name not in REPORT_FIXED]
        if options:
            out.print(_parameter_table(f"socialbench report {bench.name} -R KEY=VALUE", "-R", options))
        for name, analysis in bench.analyses.items():
            title = f"socialbench analyze {bench.name} {name} -A KEY=VALUE: {summary_line(analysis)}"
            params = [p for p in parameters(analysis) if p.name not in _REPORT_FIXED]
            out.print(_parameter_table(title, "-A", params))
        for name, spec in bench.studies.items():
            title = f"socialbench study create {name} -o DIR --annotators a,b -S KEY=VALUE: {spec.summary}"
            out.print(_parameter_table(title, "-S", parameters(spec.build)))
        for title, entries in (bench.catalogs() if bench.catalogs else {}).items():
            table = Table(title=title, title_justify="left")
            table.add_column("name")
            table.add_column("what it is")
            for entry, text in entries:
                table.add_row(entry, text)
            out.print(table)
        out.print()


@main.command(context_settings={"show_default": True})
@click.argument("benchmark", metavar="BENCH")
@click.option("--task", "task_name", help="Task of the benchmark (default: its first; see `socialbench list`).")
@click.option("-T", "task_args", multiple=True, metavar="KEY=VALUE", help="Task argument (see `socialbench list`).")
@click.option(
    "--model",
    help="Any inspect model: openai-api/vllm/NAME, openai/gpt-5, socialbench/gemma-3-270m, ... (default: the embedded "
    "model the task's work needs, offline; `socialbench list` names it).",
)
@click.option("--model-role", "model_roles", multiple=True, metavar="ROLE=MODEL", help="e.g. grader=openai/gpt-5.")
@click.option("-M", "model_args", multiple=True, metavar="KEY=VALUE", help="Model argument, e.g. -M n_ctx=32768.")
@click.option(
    "--limit",
    type=AtLeast(1),
    help="Evaluate the first N samples in the dataset's order (inspect's --limit: the same N at any concurrency).",
)
@click.option("--log-dir", default="logs", help="Where inspect writes its .eval logs.")
@click.option(
    "--resume",
    is_flag=True,
    help="Run as an inspect eval set in --log-dir: an interrupted run or grid continues where it stopped.",
)
@click.option("--model-base-url", help="Endpoint of the model's provider (e.g. a vLLM server's /v1 URL).")
@click.option("--max-connections", type=AtLeast(1), help="Concurrent model calls (API / vLLM providers).")
@click.option(
    "--max-retries",
    type=AtLeast(0),
    default=5,
    show_default=True,
    help="Retries of a failed model call (refused connection, rate limit, server error) before the run stops.",
)
@click.option(
    "--timeout",
    type=AtLeast(1),
    default=300,
    show_default=True,
    help="Seconds one model call may take, retries included, before the run stops with the error.",
)
@click.option(
    "--display",
    type=click.Choice(["auto", "rich", "plain", "none"]),
    default="auto",
    help="inspect's progress display (auto: rich on a terminal, plain otherwise).",
)
@click.option(
    "--reasoning-effort",
    type=click.Choice(["none", "minimal", "low", "medium", "high", "xhigh"]),
    help="inspect's reasoning_effort for reasoning models (recorded in the log's generate config).",
)
@click.option(
    "--reasoning-summary",
    type=click.Choice(["none", "concise", "detailed", "auto"]),
    help="inspect's reasoning_summary (OpenAI reasoning models): given, inspect sends no unlogged probe request "
    "to learn whether the account may have summaries.",
)
@click.option(
    "--reasoning",
    is_flag=True,
    help="Declare the model a reasoning model when inspect's model data does not know it (Qwen3, DeepSeek-R1 on "
    "vLLM): every model call gets room for its reasoning (-T reasoning=true; docs/models.md).",
)
@click.option(
    "--reasoning-role",
    "reasoning_roles",
    multiple=True,
    metavar="ROLE",
    help="Declare a model role's own model (--model-role ROLE=MODEL) a reasoning model inspect does not know: its "
    "calls get room for their reasoning (-T reasoning_roles=ROLE; recorded in the log).",
)
@click.option(
    "--batch",
    is_flag=False,
    flag_value="on",
    metavar="[SIZE]",
    help="Send requests through the provider's batch API (OpenAI, Anthropic: half the price, results within hours); "
    "SIZE = requests per batch (inspect's default 100).",
)
@click.option(
    "--max-samples",
    type=AtLeast(1),
    help="Samples in flight per task (default: 32 per connection, so the scheduler's held items never idle a "
    "connection; inspect's own default is --max-connections).",
)
@click.option(
    "--model-cost-config",
    type=click.Path(exists=True, dir_okay=False),
    help="YAML / JSON prices per model (inspect's ModelCost: $ per million input, output, cache write, cache read "
    "tokens); the ledger after the run shows the cost.",
)
@click.option(
    "--cache-ttl",
    type=click.Choice(["5m", "1h", "auto"]),
    help="Anthropic models: how long the cached discussion lives (1h writes cost 2x input instead of 1.25x).",
)
def run(
    benchmark: str,
    task_name: str | None,
    task_args: tuple[str, ...],
    model: str | None,
    model_roles: tuple[str, ...],
    model_args: tuple[str, ...],
    limit: int | None,
    log_dir: str,
    model_base_url: str | None,
    max_connections: int | None,
    max_retries: int,
    timeout: int,
    display: str,
    resume: bool,
    reasoning_effort: str | None,
    reasoning_summary: str | None,
    reasoning: bool,
    reasoning_roles: tuple[str, ...],
    batch: str | None,
    max_samples: int | None,
    model_cost_config: str | None,
    cache_ttl: str | None,
) -> None:
    """Run benchmark BENCH on a model and print its summary (like `inspect eval`, with -T task arguments).

    A -T key given several times, or several comma-separated --model values, make a grid: every combination
    runs (one log each) and the benchmark's report compares them."""
    from .benchmarks import get_benchmark
    from .shared.benchmark import LIMIT, grid_arguments

    if Path(log_dir).exists() and not Path(log_dir).is_dir():
        raise click.BadParameter(f"{log_dir} is a file: give a folder for the logs", param_hint="--log-dir")
    bench = get_benchmark(benchmark)
    fn = bench.task(task_name)
    roles = _roles(model_roles)
    task_args = _declared_reasoning(fn, task_args, reasoning, reasoning_roles, roles)
    if limit is not None and _given(task_args, LIMIT):
        raise click.BadParameter("given twice: --limit and -T limit", param_hint="--limit")
    grid = grid_arguments(fn, task_args)  # a bad -T key stops here, before inspect's eval machinery is imported
    from inspect_ai import eval as inspect_eval
    from inspect_ai import eval_set

    from . import _registry  # noqa: F401  (registers the tasks, the embedded model and seeds tiktoken)

    embedded = _embedded(bench, fn, grid, roles) if model is None else None
    models = sorted({e.model for e in embedded}) if embedded else [m.strip() for m in (model or "").split(",")]
    models = [m for m in models if m]
    if not models:  # no task would be built, and inspect would look for tasks in the current folder
        raise click.BadParameter(f"no model named in {model!r}", param_hint="--model")
    options: dict[str, Any] = {
        "model_roles": roles,
        "limit": limit,
        "log_dir": log_dir,
        "max_connections": max_connections,
        # inspect's own default retries a refused connection for up to 30 minutes; a dead endpoint should stop
        # the run with its error in minutes (or seconds, with --max-retries 0 --timeout 10)
        "max_retries": max_retries,
        "timeout": timeout,
        "display": ("rich" if err.is_terminal else "plain") if display == "auto" else display,
    }
    if reasoning_effort:
        options["reasoning_effort"] = reasoning_effort
    if reasoning_summary:
        options["reasoning_summary"] = reasoning_summary
    options |= _batch_options(batch, max_connections)
    used = [*models, *(roles or {}).values(), *(m for e in embedded or () for m in e.roles.values())]
    priced = _run_prices(model_cost_config, used)
    if priced:
        options["model_cost_config"] = model_cost_config
    _note_unknown_models(used, priced)
    arguments = _model_args(model_args) | _cache_ttl_argument(cache_ttl, models)
    if embedded:  # each task on its own embedded models
        plan = [(args, e.model, dict(e.roles)) for args, e in zip(grid, embedded, strict=True)]
    else:  # each task of the grid once per model
        plan = [(args, name, {}) for name in models for args in grid]
    tasks = _build_tasks(fn, plan, model_base_url, arguments, options)
    from .shared.caching import sample_slots

    options["max_samples"] = max_samples or sample_slots([task.model for task in tasks], _eval_config(options))
    # logs come back without their samples: a grid's finished logs are not all held in memory (the summary of a
    # single run and the report of a grid read what they need from the files)
    if resume:
        # the folder may hold other runs (the default logs/): inspect resumes the logs of these tasks (the same task,
        # arguments and model) and leaves every other log alone
        _, logs = eval_set(tasks, log_dir_allow_dirty=True, **options)  # eval_set returns headers only
    else:
        logs = inspect_eval(tasks, log_header_only=True, **options)
    from .shared.ledger import print_usage

    if len(logs) == 1:
        from .shared.runs import light_log

        print_usage(out, [logs[0].location])
        bench.summarize(light_log(logs[0].location), out)  # the answer last; the prompts stay on disk
        _print_failed_calls(out, [logs[0].location])
    else:
        from .shared.reporting import print_headline, print_tables
        from .shared.runs import run_set

        locations = [log.location for log in logs]
        doc = bench.document(locations)  # the report over the grid, as `socialbench report` prints it
        print_tables(doc, out)
        for note in run_set(locations).notes():  # a run of the grid that failed is named, never silently missing
            out.print(note)
        print_usage(out, locations)
        print_headline(doc, out)  # the answer last: the headline of the grid, then where its logs are
        out.print(f"{len(logs)} logs in {log_dir} (open with `inspect view --log-dir {log_dir}`)")
    if any(log.status != "success" for log in logs):
        sys.exit(1)


@main.command()
@click.argument("benchmark", metavar="BENCH")
@click.option(
    "--from",
    "source",
    metavar="URL|PATH",
    help="Another URL, a local copy, an archive holding it, or a folder holding copies (each file is looked for by "
    "name in it); checked against the same sha256.",
)
def fetch(benchmark: str, source: str | None) -> None:
    """Get the data BENCH reads but socialbench may not ship, once, into the cache (pinned, checked by sha256)."""
    from .benchmarks import get_benchmark
    from .shared.datasets import fetch as fetch_file

    bench = get_benchmark(benchmark)
    if not bench.remote:
        click.echo(f"{benchmark}: nothing to fetch (every file it reads ships with socialbench or is yours)")
        return
    for remote in bench.remote:
        path, had = fetch_file(remote, source)
        click.echo(f"{remote.name}: {'already in' if had else 'fetched into'} {path} (sha256 {remote.sha256[:12]}...; "
                   f"{remote.licence}; cite: {remote.citation})")  # fmt: skip


@main.command()
@click.argument("benchmark", metavar="BENCH")
@click.option(
    "-T",
    "task_args",
    multiple=True,
    metavar="KEY=VALUE",
    help="items, episodes, workflow=a,b, max_tokens, reasoning, embedder, capabilities, missing_oracle",
)
@click.option("--model", "models", required=True, help="Model(s) to plan for, comma-separated.")
@click.option("--model-cost-config", type=click.Path(dir_okay=False), help="Prices (inspect's ModelCost YAML / JSON).")
@click.option("--paper-grid", is_flag=True, help="Plan a paper-sized grid (synthetic counts from Table 6).")
@click.option(
    "--cache-ttl",
    type=click.Choice(["5m", "1h"]),
    help="Plan `run --cache-ttl`: Anthropic's one-hour cache writes cost 2x input (five minutes: 1.25x).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the plan as one JSON object.")
def plan(
    benchmark: str,
    task_args: tuple[str, ...],
    models: str,
    model_cost_config: str | None,
    paper_grid: bool,
    cache_ttl: str | None,
    as_json: bool,
) -> None:
    """What a run will cost before it runs: items, prompt tokens per setting (counted offline), the cache writes and
    reads of socialbench's schedule, the output budget, and with prices dollars with and without caching and batch
    mode (docs/models.md)."""
    from .benchmarks import get_benchmark, registered
    from .shared.costplan import print_plan, read_prices

    bench = get_benchmark(benchmark)
    if bench.plan is None:
        planned = ", ".join(name for name, b in registered().items() if b.plan is not None)
        raise ValueError(f"benchmark {benchmark!r} has no cost plan yet (planned: {planned})")
    arguments = {}
    for pair in task_args:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise click.BadParameter(f"expected KEY=VALUE, got {pair!r}", param_hint="-T")
        arguments[key] = value
    prices = read_prices(model_cost_config) if model_cost_config else None
    names = [m.strip() for m in models.split(",") if m.strip()]
    if not names:
        raise click.BadParameter(f"no model named in {models!r}", param_hint="--model")
    known = _providers()
    for name in names:  # a typo in the provider would be planned as some other tokenizer, without a word
        provider = name.split("/", 1)[0]
        if "/" not in name or (known and provider not in known):
            raise click.BadParameter(
                f"{name!r}: not PROVIDER/MODEL with a known provider; providers: {', '.join(known)}",
                param_hint="--model",
            )
    ttl = _cache_ttl_argument(cache_ttl, names)  # refused for other providers, as `run --cache-ttl` is
    title, rows = bench.plan(names, arguments, prices, paper_grid, **ttl)
    if as_json:
        click.echo(dump_json({"title": title, "plan": [r.as_dict() for r in rows]}))
    else:
        print_plan(out, rows, title)


@main.command()
@click.argument("benchmark", metavar="[BENCH]")
@click.argument("logs", nargs=-1)
@click.option("--json", "as_json", is_flag=True, help="Print the numbers as one JSON object.")
@click.option("-R", "report_args", multiple=True, metavar="KEY=VALUE", help="Report option (see `socialbench list`).")
@click.option("--html", "html_path", type=click.Path(dir_okay=False), help="Write one self-contained HTML report.")
@click.option("--figures", "figures_dir", type=click.Path(file_okay=False), help="Write each figure as SVG and PDF.")
@click.option("--tables", "tables_dir", type=click.Path(file_okay=False), help="Write each table as CSV and LaTeX.")
@click.option("--compare-paper", is_flag=True, help="Show the paper's published numbers next to yours, labelled.")
def report(
    benchmark: str,
    logs: tuple[str, ...],
    as_json: bool,
    report_args: tuple[str, ...],
    html_path: str | None,
    figures_dir: str | None,
    tables_dir: str | None,
    compare_paper: bool,
) -> None:
    """The benchmark's tables from inspect logs (files or folders; several models and settings at once). Logs of
    the same identity (task, model and roles with their settings, resolved arguments, input files' contents, samples;
    docs/architecture.md) count once, the latest complete one; runs that differ are labelled by what differs, and
    every log left out (a rerun, an incomplete run, another benchmark's log in a folder) is named with the reason.
    Without BENCH, each benchmark the logs hold is reported in turn. --html / --figures / --tables write the report
    with the papers' figures for publication."""
    from .benchmarks import get_benchmark, registered
    from .shared.benchmark import log_owners, log_paths

    benches = registered()
    if benchmark not in benches and Path(benchmark).exists():  # `socialbench report FOLDER`: every benchmark in it
        logs = (benchmark, *logs)
        owners = log_owners(log_paths(logs), list(benches.values()))
        present = sorted({o for o in owners.values() if o})
        if not present:
            raise InputError(" ".join(logs), "no log of a socialbench benchmark here")
        written = [f for f, on in (("--json", as_json), ("--html", html_path), ("--figures", figures_dir),
                                   ("--tables", tables_dir), ("-R", report_args)) if on]  # fmt: skip
        if len(present) > 1 and written:
            raise ValueError(
                f"these logs hold {', '.join(present)}: {written[0]} is one benchmark's report; name it "
                f"(socialbench report {present[0]} {' '.join(logs)} {written[0]} ...)"
            )
        for name in present:
            if len(present) > 1:
                out.rule(f"socialbench report {name}")
            _report(
                benches[name], logs, as_json, report_args, html_path, figures_dir, tables_dir, compare_paper, present
            )
        return
    bench = get_benchmark(benchmark)  # an unknown name (not a path either) is named, with the closest benchmark
    if not logs:
        raise click.UsageError("Missing argument 'LOGS...': the log files or folders to report")
    _report(bench, logs, as_json, report_args, html_path, figures_dir, tables_dir, compare_paper)


def _report(
    bench: Benchmark,
    logs: tuple[str, ...],
    as_json: bool,
    report_args: tuple[str, ...],
    html_path: str | None,
    figures_dir: str | None,
    tables_dir: str | None,
    compare_paper: bool,
    reported: Sequence[str] = (),
) -> None:
    """One benchmark's report over the logs of it among ``logs`` (`report`); ``reported``: the benchmarks this
    command reports (their logs are not "left out")."""
    from .benchmarks import registered
    from .shared import reporting
    from .shared.benchmark import REPORT_FIXED, log_paths, own_logs, parse_arguments
    from .shared.ledger import print_usage
    from .shared.runs import run_info, run_set

    options = parse_arguments(bench.document, report_args, flag="-R", fixed=REPORT_FIXED, name="report")
    every_log = log_paths(logs)
    inputs = [*every_log, *_paths_among(options.values())]
    for written in (html_path, figures_dir, tables_dir):  # before any log is read
        if written:
            _refuse_writing_over(written, inputs)
    every_log, foreign = own_logs(bench, every_log, logs, list(registered().values()), reported)
    for note in foreign:
        err.print(f"note: {note}", highlight=False, soft_wrap=True)
    runs = run_set(every_log)  # the benchmark's report reads the same set: one run per identity, labelled
    inputs += [path for log in every_log for path in run_info(log).inputs]  # files a log names are inputs too
    for written in (html_path, figures_dir, tables_dir):
        if written:
            _refuse_writing_over(written, inputs)
    with protecting(inputs):
        # one document per command: the terminal, --json and every file written render the same computation
        doc = bench.document(every_log, compare_paper, **options)
        doc.provenance.setdefault("left_out", []).extend({"log": " ".join(logs), "reason": n} for n in foreign)
        if as_json:  # --json has the same rows under "usage" and "left_out"
            out.file.write(dump_json(doc.data) + "\n")
        else:
            reporting.print_tables(doc, out)
            print_usage(out, [r.path for r in runs.runs])
            _print_failed_calls(
                out, [r.path for r in runs.runs], {r.path: f"{Path(r.path).name} ({r.label})" for r in runs.runs}
            )
            for note in runs.notes():
                out.print(note)
            reporting.print_headline(doc, out)  # the answer last
        for note in doc.left_out:
            err.print(f"note: {note}", highlight=False, soft_wrap=True)
        if html_path:
            err.print(f"wrote {reporting.write_html(doc, html_path)}")
        if figures_dir:
            err.print(f"wrote {len(reporting.write_figures(doc, figures_dir))} figure files to {figures_dir}")
        if tables_dir:
            err.print(f"wrote {len(reporting.write_tables(doc, tables_dir))} table files to {tables_dir}")
            for warning in reporting.latex_warnings(doc):  # a LaTeX table a two-column page cannot hold legibly
                err.print(f"warning: {warning}", highlight=False, soft_wrap=True)


@main.command()
@click.argument("benchmark", metavar="BENCH")
@click.argument("analysis")
@click.option("--json", "as_json", is_flag=True, help="Print the numbers as one JSON object.")
@click.option(
    "-A", "analysis_args", multiple=True, metavar="KEY=VALUE", help="Analysis option (see `socialbench list`)."
)
def analyze(benchmark: str, analysis: str, as_json: bool, analysis_args: tuple[str, ...]) -> None:
    """An analysis of BENCH that needs no model or logs (e.g. `socialbench analyze longsocial recall`)."""
    from .benchmarks import get_benchmark
    from .shared.benchmark import parse_arguments

    bench = get_benchmark(benchmark)
    if analysis not in bench.analyses:
        known = ", ".join(bench.analyses) or "(none)"
        hint = did_you_mean(analysis, bench.analyses)
        raise ValueError(f"benchmark {bench.name!r} has no analysis {analysis!r}; {hint}analyses: {known}")
    fn = bench.analyses[analysis]
    options = parse_arguments(fn, analysis_args, flag="-A")
    for fixed in _REPORT_FIXED:
        if fixed in options:
            raise ValueError(f"-A {fixed}: set by the command itself")
    written = options.get("out")
    inputs = _paths_among(v for k, v in options.items() if k != "out")
    if written:
        _refuse_writing_over(str(written), inputs)  # before anything is read
    with protecting(inputs):
        fn(out, as_json=as_json, **options)


def _print_failed_calls(console: Any, paths: list[str], labels: dict[str, str] | None = None) -> None:
    """Per run, the kinds of model calls that came back cut off or empty, with their budgets (docs/models.md)."""
    from .shared.budgets import describe_calls, logged_calls

    for path in paths:
        for line in describe_calls(logged_calls(path)):
            who = f"{labels[path]}: " if labels and path in labels else ""
            console.print(f"[yellow]Model calls:[/] {who}{line}")


def _paths_among(values: Iterable[Any]) -> list[str]:
    """The option values that name an existing file or folder: a command's inputs."""
    return [str(v) for v in values if isinstance(v, str | Path) and str(v) and Path(v).exists()]


@main.group()
def study() -> None:
    """Human studies on Potato: create a study from a benchmark's items or a run's outputs, serve it to
    annotators, score their answers into the papers' human tables (docs/studies.md)."""


def _find_study(name: str) -> tuple[str, Any]:
    from .benchmarks import registered

    for bench in registered().values():
        if name in bench.studies:
            return bench.name, bench.studies[name]
    kinds = sorted(n for b in registered().values() for n in b.studies)
    raise ValueError(f"unknown study {name!r}; {did_you_mean(name, kinds)}studies: {', '.join(kinds)}")


class _StudyKinds(click.Command):
    """``study create --help`` lists every study kind with what it asks (read from the benchmarks when help is
    shown, so the CLI names none)."""

    def format_epilog(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        from .benchmarks import registered

        kinds = [(name, spec.summary or "") for b in registered().values() for name, spec in b.studies.items()]
        with formatter.section("Study kinds"):
            formatter.write_dl(kinds)
        super().format_epilog(ctx, formatter)


@study.command("create", cls=_StudyKinds)
@click.argument("kind")
@click.option("-o", "--out", "folder", required=True, type=click.Path(file_okay=False), help="The study folder.")
@click.option("--annotators", required=True, help="Comma-separated annotator names (their logins are generated).")
@click.option("--overlap", type=AtLeast(1), help="Annotators per item (default: all of them).")
@click.option("--seed", type=int, default=0, show_default=True, help="Assignment and per-annotator order seed.")
@click.option("--items", help="Items file (studies that take one).")
@click.option("--logs", help="Logs of a run (studies built from model outputs).")
@click.option("-S", "study_args", multiple=True, metavar="KEY=VALUE", help="Study option (see the study's docs).")
def study_create(
    kind: str,
    folder: str,
    annotators: str,
    overlap: int | None,
    seed: int,
    items: str | None,
    logs: str | None,
    study_args: tuple[str, ...],
) -> None:
    """Create a study folder for KIND (the kinds are listed below; `socialbench list` shows their -S options)."""
    from .shared import studies
    from .shared.benchmark import parameters, parse_arguments

    bench_name, spec = _find_study(kind)
    args = parse_arguments(spec.build, study_args, flag="-S")
    accepted = {p.name for p in parameters(spec.build)}
    for name, value in (("items", items), ("logs", logs)):
        if value is not None:
            if name not in accepted:
                raise ValueError(f"study {kind} takes no --{name}")
            args[name] = value
    if "seed" in accepted:
        args.setdefault("seed", seed)
    inputs = _paths_among(args.values())
    _refuse_writing_over(folder, inputs, folder=True)  # before anything is read
    with protecting(inputs):
        design = spec.build(**args)
        record = studies.create(design, folder, annotators.split(","), overlap, seed, benchmark=bench_name)
    _print_logins(record, folder)


def _note_unknown_models(models: list[str], priced: Mapping[str, Any]) -> None:
    """A hosted model the price list does not know (nor ``priced``, the run's price file) is named before the run:
    most often a misspelt name (which the provider refuses only at its first call), else a model newer than the
    list, whose cost prints as "-"."""
    from .shared.ledger import PROVIDERS, list_label, listed_prices

    for name in dict.fromkeys(models):
        if name.partition("/")[0] in PROVIDERS and name not in priced and listed_prices(name) is None:
            err.print(
                f"note: {name} is not in the price list ({list_label()}): check its name (a misspelt model is "
                "refused by the provider only at its first call); if it is newer than the list, its cost prints as "
                '"-" unless --model-cost-config prices it.',
                highlight=False,
                soft_wrap=True,
            )


def _given(task_args: Sequence[str], key: str) -> bool:
    return any(pair.partition("=")[0].strip() == key for pair in task_args)


def _declared_reasoning(
    fn: Any,
    task_args: tuple[str, ...],
    reasoning: bool,
    reasoning_roles: Sequence[str],
    roles: Mapping[str, str] | None,
) -> tuple[str, ...]:
    """``--reasoning`` and ``--reasoning-role ROLE`` as the task arguments they stand for (``-T reasoning=true``,
    ``-T reasoning_roles=ROLE,...``): refused when given twice, for a role no ``--model-role`` binds, or for a task
    without model roles."""
    if reasoning:
        if _given(task_args, "reasoning"):
            raise click.BadParameter("given twice: --reasoning and -T reasoning", param_hint="--reasoning")
        task_args = (*task_args, "reasoning=true")
    if reasoning_roles:
        if unknown := sorted(set(reasoning_roles) - set(roles or {})):
            raise click.BadParameter(
                f"no --model-role given for {', '.join(unknown)} (the model under test plays an unbound role: "
                "declare it with --reasoning)",
                param_hint="--reasoning-role",
            )
        if "reasoning_roles" not in inspect.signature(fn).parameters:
            raise click.BadParameter(
                f"the task {fn.__name__} has no model role to declare", param_hint="--reasoning-role"
            )
        task_args = (*task_args, "reasoning_roles=" + ",".join(sorted(set(reasoning_roles))))
    return task_args


def _batch_options(batch: str | None, max_connections: int | None) -> dict[str, Any]:
    """``--batch [SIZE]`` as inspect's ``batch`` option. A batch run is not bounded by ``--max-connections``:
    inspect would hold at most that many requests in flight, so each batch would carry that many and the next wait
    for its answers (hours on a real batch API); the scheduler needs no bound there (an episode's first items go in
    one batch and the rest in the next: `shared.caching`), so the option is dropped, and the user told."""
    if batch is None:
        return {}
    if batch != "on" and not (batch.isdigit() and int(batch) >= 1):
        raise click.BadParameter(
            f"expected a number of requests per batch (at least 1), got {batch!r}", param_hint="--batch"
        )
    options: dict[str, Any] = {"batch": True if batch == "on" else int(batch)}
    if max_connections is not None:
        options["max_connections"] = None
        err.print(
            f"note: --max-connections {max_connections} does not bound a batch run: every request ready goes "
            "into the provider's batch (--batch SIZE sets its size), so an episode's first items go in one batch "
            "and the rest in the next.",
            highlight=False,
            soft_wrap=True,
        )
    return options


def _run_prices(path: str | None, used: Sequence[str]) -> dict[str, Any]:
    """``--model-cost-config FILE`` read before any call (a bad file stops the run with the file and key), refused
    when it prices none of the models this run calls (a typo, a missing provider prefix)."""
    if not path:
        return {}
    from .shared.costplan import read_prices

    priced = read_prices(path)
    if not set(used) & set(priced):
        raise click.BadParameter(
            f"{path} prices none of this run's models ({', '.join(used)}); it prices {', '.join(sorted(priced))}",
            param_hint="--model-cost-config",
        )
    return priced


def _cache_ttl_argument(cache_ttl: str | None, models: Sequence[str]) -> dict[str, Any]:
    """``--cache-ttl 1h`` as the model argument inspect's Anthropic provider takes (``-M cache_ttl=1h``); refused
    for any other provider, which has no such option."""
    if not cache_ttl:
        return {}
    if others := [m for m in models if not m.startswith("anthropic/")]:
        raise click.BadParameter(
            f"applies to anthropic/ models only, not {', '.join(others)}", param_hint="--cache-ttl"
        )
    return {"cache_ttl": cache_ttl}


def _eval_config(options: dict[str, Any]) -> Any:
    """The generate config among the options `inspect_eval` is given (the fields of inspect's GenerateConfig)."""
    from inspect_ai.model import GenerateConfig

    fields = set(GenerateConfig.model_fields)
    return GenerateConfig(**{k: v for k, v in options.items() if k in fields and v is not None})


def _embedded(bench: Benchmark, fn: Any, grid: list[dict[str, Any]], roles: dict[str, str] | None) -> list[Any]:
    """A run without ``--model``: each task of the grid on the embedded models its work needs (the benchmark's
    `Embedded`; a role given with --model-role is the user's), said in one line before the run."""
    from .models import EMBEDDED_BASE
    from .shared.benchmark import Embedded, task_name

    chosen = []
    for args in grid:
        found = bench.embedded(task_name(fn), args) if bench.embedded else Embedded(EMBEDDED_BASE)
        own = {r: m for r, m in found.roles.items() if r not in (roles or {})}
        chosen.append(Embedded(found.model, own, found.why))
    for text in dict.fromkeys(e.describe() for e in chosen):
        err.print(f"no --model: the embedded {text}; offline, a pipeline check rather than a measurement",
                  highlight=False, soft_wrap=True)  # fmt: skip
    return chosen


def _embedded_text(bench: Benchmark, fn: Any) -> str:
    """`socialbench list`: the embedded models a task runs on without --model, at its default arguments."""
    from .models import EMBEDDED_BASE
    from .shared.benchmark import Embedded, task_name

    found: Embedded = bench.embedded(task_name(fn), {}) if bench.embedded else Embedded(EMBEDDED_BASE)
    return found.describe()


def _build_tasks(
    fn: Any,
    plan: list[tuple[dict[str, Any], str, dict[str, str]]],
    base_url: str | None,
    model_args: dict[str, Any],
    options: dict[str, Any],
) -> list[Any]:
    """One task per ``(task arguments, model, {role: model})`` of the plan; each task carries its model (inspect then
    runs it on that model only) and its roles. One model object per name: a role played by a model under test shares
    its instance. ``-M`` arguments are the models' under test; a role's own model loads with its defaults (``-M
    n_ctx=32768`` for Gemma would not fit SmolLM2's 8K window). A task reads nothing of its model when it is built:
    which items it asks never depends on the transport (`shared.caching`)."""
    from inspect_ai.model import get_model

    config = _eval_config(options)
    under_test = {name for _, name, _ in plan}
    loaded: dict[str, Any] = {}

    def model(name: str) -> Any:
        if name not in loaded:
            own = model_args if name in under_test else {}
            loaded[name] = get_model(name, base_url=base_url, config=config, **own)
        return loaded[name]

    tasks = []
    for args, name, roles in plan:
        task = fn(**args)
        task.model = model(name)
        if roles:
            task.model_roles = {**(task.model_roles or {}), **{r: model(m) for r, m in roles.items()}}
        tasks.append(task)
    return tasks


def _print_logins(record: dict[str, Any], folder: str) -> None:
    table = Table(title=f"{record['title']}: {record['items']} items (+{record['attention_items']} attention checks)")
    table.add_column("annotator")
    table.add_column("password")
    for name, password in record["annotators"].items():
        table.add_row(name, password)
    out.print(table)
    for note in record.get("notes", []):
        out.print(f"note: {note}", markup=False)
    out.print(f"created {folder}; serve it with: socialbench study serve {folder}")


@study.command("serve")
@click.argument("folder", type=click.Path(file_okay=False))
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8765, show_default=True, type=AtLeast(1, 65535))
def study_serve(folder: str, host: str, port: int) -> None:
    """Serve a study with Potato until interrupted; answers are saved as annotators make them."""
    from .shared import studies

    record = studies.load(folder)
    # Our own handlers for every stopping signal, whatever this process inherited: a shell starts a background job
    # with SIGINT ignored (and Python then installs no KeyboardInterrupt handler), so Ctrl-C / `kill -INT` would
    # leave the server running. Each signal unwinds through the `finally` below, which stops Potato and its
    # process group, and exits 128 + the signal's number (a stopped server is not a finished one).
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, _terminated)
    try:
        process = studies.start(folder, host, port)
    except RuntimeError as exc:  # Potato missing, the port taken, or it did not come up: one line, exit 1
        raise click.ClickException(str(exc)) from None
    try:
        out.print(f"serving {record['title']} at http://{host}:{port}/ (Ctrl-C to stop)")
        for name, password in record["annotators"].items():
            out.print(f"  login: {name}  password: {password}")
        code = process.wait()
    finally:
        studies.stop(process)
    raise click.ClickException(
        f"Potato stopped on its own with code {code} (log: {Path(folder) / 'server' / 'potato.out'})"
    )


@study.command("score")
@click.argument("folder", type=click.Path(file_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print the numbers as one JSON object.")
def study_score(folder: str, as_json: bool) -> None:
    """The study's human tables: accuracy per annotator, agreement, attention checks, the paper's reference."""
    from .shared import studies

    record = studies.load(folder)
    _, spec = _find_study(record["kind"])
    spec.score(folder, out, as_json)


if __name__ == "__main__":  # pragma: no cover
    main()
