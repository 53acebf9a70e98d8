"""The plug-in shape every benchmark has, and the generic handling of task arguments.

A benchmark is one package under ``socialbench/benchmarks/`` that exposes ``BENCHMARK = Benchmark(...)``: its
inspect ``@task`` functions (whose parameters ARE the command line: ``socialbench run NAME -T key=value``), the
summary printed after a run, and its report over logs. The CLI knows nothing else about it.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import os
import types
import typing
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import docstring_parser
from inspect_ai import Task
from inspect_ai.log import EvalLog
from pydantic import TypeAdapter, ValidationError
from rich.console import Console

from ..core.errors import InputError, did_you_mean

TaskFunction = Callable[..., Task]
Summary = Callable[[EvalLog, Console], None]
REPORT_FIXED = ("logs", "compare_paper")
"""A document's parameters the report command sets itself; the others are its ``-R`` options."""


class Lazy:
    """A function named by ``"package.module:name"`` and imported when it is first used: called, or looked into
    (its signature and docstring, through ``__wrapped__``, as `inspect.unwrap` does). A benchmark names its reports,
    analyses, studies and plan this way, so registering it (which inspect does for every command that touches a
    task) imports no plotting, statistics or study library: a bad ``-T`` key costs no more than inspect itself."""

    def __init__(self, target: str) -> None:
        self.target = target

    @functools.cached_property
    def __wrapped__(self) -> Any:
        module, _, name = self.target.partition(":")
        return getattr(importlib.import_module(module), name)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.__wrapped__(*args, **kwargs)

    def __repr__(self) -> str:
        return f"Lazy({self.target!r})"


class LazyMapping(Mapping[str, Any]):
    """A mapping named by ``"package.module:name"`` and imported when it is first read (a benchmark's studies)."""

    def __init__(self, target: str) -> None:
        self.target = target

    @functools.cached_property
    def _mapping(self) -> Mapping[str, Any]:
        loaded: Mapping[str, Any] = Lazy(self.target).__wrapped__
        return loaded

    def __getitem__(self, key: str) -> Any:
        return self._mapping[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._mapping)

    def __len__(self) -> int:
        return len(self._mapping)


@dataclass(frozen=True)
class Embedded:
    """The embedded models a run without ``--model`` uses for one task: the model under test and the model of each
    role the task calls with these arguments (a role it does not call stays unbound: a bound role is part of the
    run's identity), each with why it was chosen (`socialbench list`, the run's first line)."""

    model: str
    roles: Mapping[str, str] = field(default_factory=dict)
    why: str = ""

    def describe(self) -> str:
        """``MODEL, ROLE=MODEL ... (why)``: the line a run and `socialbench list` print."""
        roles = "".join(f", {r}={m}" for r, m in self.roles.items())
        return f"{self.model}{roles} ({self.why})" if self.why else f"{self.model}{roles}"


@dataclass(frozen=True)
class Benchmark:
    name: str
    title: str
    paper: str
    tasks: Sequence[TaskFunction]
    """inspect @task functions; the first one is the default of ``socialbench run NAME``."""
    summarize: Summary
    document: Callable[..., Any]
    """``document(logs, compare_paper=False, **options)`` -> a `socialbench.shared.reporting.Document`: the report
    over logs, computed once per command and rendered to the terminal, ``--json`` (its ``data``), HTML, LaTeX, CSV
    and figures; ``options`` are its own keywords (``socialbench report -R KEY=VALUE``)."""
    catalogs: Callable[[], Mapping[str, Sequence[tuple[str, str]]]] | None = None
    """Named lists a user picks from by name (e.g. LongSocialBench's workflows), shown by `socialbench list`."""
    analyses: Mapping[str, Callable[..., None]] = field(default_factory=dict)
    """Analyses without a run of their own (``socialbench analyze NAME ANALYSIS``): ``fn(console, as_json=False,
    **options)``; e.g. evidence recall, item lint, the shortcut screen over probe logs."""
    studies: Mapping[str, Any] = field(default_factory=dict)
    """Human studies it offers (``socialbench study create NAME``): name -> `socialbench.shared.studies.Study`."""
    plan: Callable[..., tuple[str, list[Any]]] | None = None
    """``plan(models, task_args, prices, paper, cache_ttl=None)`` -> (title, `socialbench.shared.costplan.PlanRow`
    list): what a run will cost, before it runs (``socialbench plan``; ``cache_ttl="1h"``: ``--cache-ttl 1h``)."""
    remote: Sequence[Any] = ()
    """Data it reads but may not ship (`socialbench.shared.datasets.RemoteFile`): `socialbench fetch NAME` gets
    them."""
    data: Sequence[Any] = ()
    """Every data file it ships or reads (`socialbench.shared.datasets.DataNote`): source, licence, citation, what
    we changed (`socialbench list --data`, docs/data.md)."""
    embedded: Callable[[str, Mapping[str, Any]], Embedded] | None = None
    """Which embedded models run a task when ``socialbench run`` is given no ``--model``: ``embedded(task name,
    task arguments)``; None: the embedded base model, no roles bound."""

    def task(self, name: str | None = None) -> TaskFunction:
        if name is None:
            return self.tasks[0]
        for fn in self.tasks:
            if task_name(fn) == name:
                return fn
        known = ", ".join(task_name(fn) for fn in self.tasks)
        hint = did_you_mean(name, [task_name(fn) for fn in self.tasks])
        raise ValueError(f"benchmark {self.name!r} has no task {name!r}; {hint}tasks: {known}")


@dataclass(frozen=True)
class Parameter:
    name: str
    annotation: Any
    default: Any
    doc: str

    @property
    def type_text(self) -> str:
        return _type_text(self.annotation)


def task_name(fn: Callable[..., Any]) -> str:
    return str(inspect.unwrap(fn).__name__)


def _type_text(annotation: Any) -> str:
    if typing.get_origin(annotation) is typing.Literal:
        return "|".join(str(a) for a in typing.get_args(annotation))
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        return " | ".join(_type_text(a) for a in typing.get_args(annotation))
    text = getattr(annotation, "__name__", None) or str(annotation)
    return text.replace("typing.", "").replace("NoneType", "None")


def parameters(fn: Callable[..., Any]) -> list[Parameter]:
    """A function's keyword parameters with their types, defaults and the ``Args:`` text of its docstring."""
    target = inspect.unwrap(fn)
    hints = typing.get_type_hints(target)
    docs = {
        p.arg_name: " ".join((p.description or "").split()) for p in docstring_parser.parse(target.__doc__ or "").params
    }
    out = []
    for name, param in inspect.signature(target).parameters.items():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        default = None if param.default is inspect.Parameter.empty else param.default
        out.append(Parameter(name, hints.get(name, Any), default, docs.get(name, "")))
    return out


def summary_line(fn: Callable[..., Any]) -> str:
    doc = docstring_parser.parse(inspect.unwrap(fn).__doc__ or "")
    return doc.short_description or ""


_NONE_WORDS = {"none", "null", "~"}


def _coerce(param: Parameter, text: str, where: str) -> Any:
    adapter: TypeAdapter[Any] = TypeAdapter(param.annotation)
    allows_none = type(None) in typing.get_args(param.annotation) or param.annotation is type(None)
    if allows_none and text.strip().lower() in _NONE_WORDS:
        return None
    try:
        return adapter.validate_python(text)  # lax mode: "8192" -> 8192, "true" -> True, Literal strings as is
    except ValidationError as exc:
        problem = exc.errors()[0]["msg"]
        raise ValueError(f"{where} {param.name}={text!r}: {problem}") from None


def parse_arguments(
    fn: Callable[..., Any],
    pairs: Sequence[str],
    flag: str = "-T",
    fixed: Sequence[str] = (),
    name: str | None = None,
) -> dict[str, Any]:
    """``KEY=VALUE`` strings -> keyword arguments of ``fn``, converted to the annotated types. An unknown key or
    a value of the wrong type is an error that names the valid keys or the expected values. ``fixed``: parameters
    the command sets itself (refused, and not offered as valid); ``name``: what the error calls ``fn``."""
    params = {p.name: p for p in parameters(fn) if p.name not in fixed}
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        key = key.strip().replace("-", "_")
        if not sep or not key:
            raise ValueError(f"{flag} expects KEY=VALUE, got {pair!r}")
        if key in fixed:
            raise ValueError(f"{flag} {key}: set by the command itself")
        if key not in params:
            valid = ", ".join(params) or "(none)"
            hint = did_you_mean(key, params)
            raise ValueError(f"{flag} {key}: unknown argument of {name or task_name(fn)}; {hint}valid: {valid}")
        out[key] = _coerce(params[key], value, flag)
    return out


def checked_limit(limit: int | None) -> None:
    """A task's ``limit`` (items asked) is a positive count."""
    if limit is not None and limit < 1:
        raise ValueError(f"limit must be at least 1 (the number of items to ask), got {limit}")


LIMIT = "limit"
"""The task parameter that chooses the first N samples (LongSocialBench, PerSo): LongSocialBench's before a retrieval
setting's trie order, so that a grid asks the same items in every setting; `socialbench run --limit N` is inspect's
own ``--limit`` (the same items at any concurrency: the dataset's order never depends on it) and refuses both."""


def grid_arguments(fn: Callable[..., Any], pairs: Sequence[str], flag: str = "-T") -> list[dict[str, Any]]:
    """Like `parse_arguments`, but a key given several times makes a grid: one argument set per combination
    (in the order given, the first key varying slowest)."""
    values: dict[str, list[str]] = {}
    for pair in pairs:
        values.setdefault(pair.partition("=")[0].strip().replace("-", "_"), []).append(pair)
    combos: list[list[str]] = [[]]
    for key_pairs in values.values():
        combos = [[*combo, pair] for combo in combos for pair in key_pairs]
    return [parse_arguments(fn, combo, flag) for combo in combos]


def role_model(config: Any) -> str | None:
    """The model name of a logged model role (inspect records a `ModelConfig`, or a list of them)."""
    if config is None:
        return None
    configs = config if isinstance(config, list) else [config]
    return ", ".join(str(c.model) for c in configs)


_LOG_ERRORS: tuple[type[BaseException], ...] = (ValueError, OSError, KeyError, EOFError, UnicodeDecodeError)


def log_errors() -> tuple[type[BaseException], ...]:
    """What inspect's log readers raise on a corrupt, truncated or foreign file (zip, zstd and the streaming JSON
    parser's errors included)."""
    import zipfile

    errors: list[type[BaseException]] = [*_LOG_ERRORS, zipfile.BadZipFile]
    try:
        import zstandard

        errors.append(zstandard.ZstdError)
    except ImportError:  # pragma: no cover - zstandard is a dependency of the importers
        pass
    try:
        import ijson

        errors.append(ijson.JSONError)
    except ImportError:  # pragma: no cover - ijson comes with inspect
        pass
    return tuple(errors)


def _what_is_wrong(exc: BaseException) -> str:
    """What is wrong with a log file, in words (never the exception's class): the user's line says what to do."""
    import zipfile

    text = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else ""
    kind = type(exc).__name__
    if isinstance(exc, zipfile.BadZipFile) or "EOCD" in text or "End-of-central-directory" in text:
        return "its zip archive ends before its directory (cut off while written, or copied in part)"
    if isinstance(exc, KeyError):
        return f"its archive lacks the member {text.strip(chr(39))} that inspect writes (not a whole .eval log)"
    if "Zstd" in kind or (kind == "error" and "zlib" in type(exc).__module__):
        return "a compressed member of its archive is damaged"
    if isinstance(exc, UnicodeDecodeError):
        return "a member is not UTF-8 text"
    if "JSON" in kind or "json" in type(exc).__module__ or kind == "ValidationError":
        return "a member is not the JSON inspect writes (damaged, or written by another program)"
    if isinstance(exc, NotImplementedError) or "compression" in text:
        return "its archive uses a compression inspect does not write"
    return f"it cannot be read: {text or 'no reason given'}"


def unreadable_log(path: str | Path, exc: BaseException) -> InputError:
    """The one-line error for a log that cannot be read: what is wrong with the file, in words."""
    return InputError(path, f"not a readable inspect log: {_what_is_wrong(exc)}")


LOG_READS: dict[str, Counter[str]] = {"header": Counter(), "samples": Counter()}
"""Per log path, how often this process read its header and its samples from the file (`read_log`,
`runs.light_log`): a report reads each once (tests/test_data_layer.py counts them)."""
_HEADER_CACHE: dict[tuple[str, int, int], Any] = {}


def read_log(path: str | Path, header_only: bool = False) -> Any:
    """An inspect log (`inspect_ai.log.read_eval_log`), or an `InputError` naming the file and the problem: a
    corrupt, truncated or foreign file is one line, never a traceback from the zip or zstd reader. A header is read
    from the file once per process and file version (path, size, modification time): every part of a command that
    needs it (run identity, provenance, the tables' own fields) shares that read; treat it as read-only."""
    from inspect_ai.log import read_eval_log

    key = None
    if header_only:
        try:
            stat = os.stat(str(path).removeprefix("file://"))
            key = (str(path), stat.st_size, stat.st_mtime_ns)
        except OSError:  # not a local file (or gone): inspect's reader names the problem
            key = None
        if key is not None and key in _HEADER_CACHE:
            return _HEADER_CACHE[key]
    LOG_READS["header" if header_only else "samples"][str(path).removeprefix("file://")] += 1
    try:
        log = read_eval_log(str(path), header_only=header_only)
    except log_errors() as exc:
        raise unreadable_log(path, exc) from None
    if key is not None:
        _HEADER_CACHE[key] = log
    return log


def log_task(header: Any) -> str:
    """The task a log ran, without its package prefix (``socialbench/longsocial`` -> ``longsocial``)."""
    return str(header.eval.task_registry_name or header.eval.task).split("/")[-1]


def log_owners(paths: Sequence[str], benches: Sequence[Benchmark]) -> dict[str, str | None]:
    """The benchmark each log is a run of (by its task), None for a log of no socialbench task."""
    tasks = {task_name(fn): b.name for b in benches for fn in b.tasks}
    return {path: tasks.get(log_task(read_log(path, header_only=True))) for path in paths}


def own_logs(
    bench: Benchmark,
    paths: Sequence[str],
    named: Sequence[str],
    benches: Sequence[Benchmark],
    reported: Sequence[str] = (),
) -> tuple[list[str], list[str]]:
    """The logs of ``bench`` among ``paths``, and a note for each other benchmark's logs found in a folder (a
    researcher's ``logs/`` holds all three: they are left out and named, with the command that reports them). A log
    of another benchmark named as a file (``named``) is an `InputError`, as is a set with no log of ``bench``: a
    report over another benchmark's logs would print empty tables and exit 0. ``reported``: benchmarks the same
    command reports too (`socialbench report FOLDER`), whose logs need no note."""
    owners = log_owners(paths, benches)
    named_files = {str(Path(n)) for n in named if not Path(n).is_dir()}
    for path, owner in owners.items():
        if owner != bench.name and str(Path(path)) in named_files:
            task = log_task(read_log(path, header_only=True))
            whose = f"benchmark {owner}" if owner else "no socialbench benchmark"
            raise InputError(
                path,
                f"a log of task {task!r} ({whose}), not of {bench.name}"
                + (f": use socialbench report {owner}" if owner else ""),
            )
    own = [p for p, o in owners.items() if o == bench.name]
    others: dict[str | None, int] = {}
    for owner in owners.values():
        if owner != bench.name and owner not in reported:
            others[owner] = others.get(owner, 0) + 1
    where = " ".join(named)
    found = [
        f"{n} log{'s' * (n != 1)} of {o} (socialbench report {o} {where})"
        if o
        else f"{n} log{'s' * (n != 1)} of no socialbench benchmark"
        for o, n in sorted(others.items(), key=lambda x: str(x[0]))
    ]
    if not own:
        raise InputError(where, f"no log of {bench.name} here; found {', '.join(found) or 'none'}")
    notes = [f"left out {', '.join(found)}: not runs of {bench.name}"] if found else []
    return own, notes


def log_paths(args: Sequence[str | Path]) -> list[str]:
    """inspect log files named directly or found in folders (``*.eval``, ``*.json``)."""
    from inspect_ai.log import list_eval_logs

    paths: list[str] = []
    for arg in map(Path, args):
        if arg.is_dir():  # inspect's own listing: skips eval-set.json, logs.json and other non-log files
            found = list_eval_logs(str(arg), recursive=False)
            paths += sorted(str(Path(info.name.removeprefix("file://"))) for info in found)
        elif arg.exists():
            paths.append(str(arg))
        else:
            raise InputError(arg, "no such log file or folder")
    if not paths:
        raise InputError(", ".join(map(str, args)), "no inspect logs (*.eval, *.json) found")
    return paths
