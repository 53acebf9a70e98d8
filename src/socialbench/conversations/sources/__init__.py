"""Importers: each turns real files of one format into Threads or Dialogues.

Every format is an `Importer` (name, summary, declared options, reader): the modules here declare
``IMPORTER`` (or ``IMPORTERS``), and other distributions add theirs under the ``socialbench.importers``
entry-point group. `importers()` finds them all; the CLI builds ``socialbench import FORMAT`` from them.
"""

from __future__ import annotations

import importlib
import pkgutil
import warnings
from collections.abc import Iterator, Mapping, Sequence
from functools import cache
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from ...core.errors import InputError
from ..model import Episode, ThreadIntegrityError
from ._common import REPAIRS_KEY, ImportReport
from .cmv import read_cmv
from .cmv_pairs import read_cmv_pairs
from .convokit import read_convokit
from .hackernews import read_algolia, read_firebase
from .importer import ImportContext, Importer, NoOptions
from .pushshift import ENGINES, PushshiftOptions, read_pushshift
from .pushshift_rows import DumpSelection
from .reddit import read_thread_json
from .sibench import read_sibench
from .stackexchange import read_stackexchange

__all__ = [
    "ENGINES",
    "REPAIRS_KEY",
    "DumpSelection",
    "ImportContext",
    "ImportReport",
    "Importer",
    "InputError",
    "NoOptions",
    "PushshiftOptions",
    "get_importer",
    "import_episodes",
    "import_partitioned",
    "importers",
    "read_algolia",
    "read_cmv",
    "read_cmv_pairs",
    "read_convokit",
    "read_firebase",
    "read_pushshift",
    "read_sibench",
    "read_stackexchange",
    "read_thread_json",
]


@cache
def importers() -> dict[str, Importer]:
    """Every format by its CLI name: the modules of this package, then the ``socialbench.importers`` entry points
    (a module declaring ``IMPORTER`` or ``IMPORTERS``, or an `Importer` itself)."""
    modules: list[Any] = [
        importlib.import_module(f"{__name__}.{m.name}") for m in pkgutil.iter_modules(__path__) if not m.ispkg
    ]
    modules += [ep.load() for ep in entry_points(group="socialbench.importers")]
    found: dict[str, Importer] = {}
    for module in modules:
        declared: list[Any] = [module, getattr(module, "IMPORTER", None), *getattr(module, "IMPORTERS", ())]
        for importer in declared:
            if isinstance(importer, Importer):
                if importer.name in found and found[importer.name] is not importer:
                    raise ValueError(f"two importers are named {importer.name!r}")
                found[importer.name] = importer
    return dict(sorted(found.items()))


def get_importer(fmt: str) -> Importer:
    known = importers()
    if fmt not in known:
        raise ValueError(f"unknown format {fmt!r}; known: {', '.join(known)}")
    return known[fmt]


def options_for(importer: Importer, options: BaseModel | Mapping[str, Any] | None) -> BaseModel:
    """The importer's options model from a model, a mapping of field values, or nothing (the defaults)."""
    if isinstance(options, importer.options):
        return options
    try:
        return importer.options.model_validate(dict(options or {}))
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(map(str, first["loc"]))
        message = first["msg"].removeprefix("Value error, ")
        raise ValueError(f"{importer.name}: {where + ': ' if where else ''}{message}") from None


def distinct_paths(paths: Sequence[str | Path], report: ImportReport | None = None) -> list[str]:
    """``paths`` with any path given twice (by resolved path or inode: ``a``, ``./a``, a link to it) kept once,
    with a warning and a count in ``report.repairs``, so one input never becomes two episodes with one id."""
    seen: dict[tuple[int, int] | str, str] = {}
    kept: list[str] = []
    for p in map(str, paths):
        path = Path(p)
        key: tuple[int, int] | str
        try:
            st = path.stat()
            key = (st.st_dev, st.st_ino)
        except OSError:
            key = str(path.resolve())
        if key in seen:
            warnings.warn(f"{p}: the same input as {seen[key]}; read once", stacklevel=2)
            if report is not None:
                report.repair("duplicate input paths read once")
            continue
        seen[key] = p
        kept.append(p)
    return kept


def import_episodes(
    fmt: str,
    paths: Sequence[str | Path],
    options: BaseModel | Mapping[str, Any] | None = None,
    context: ImportContext | None = None,
) -> Iterator[Episode]:
    """Read ``paths`` in format ``fmt`` (a name of `importers()`) with its ``options``. Every failure is an
    `InputError` naming the input: the importers locate the problems they anticipate (file, line, record, field);
    anything else a malformed file can still provoke is caught here and named by file, never shown as a
    traceback."""
    if fmt not in importers():
        raise InputError(", ".join(map(str, paths)), f"unknown format {fmt!r}; known: {', '.join(importers())}")
    importer = importers()[fmt]
    chosen = options_for(importer, options)
    context = context or ImportContext()
    for p in map(Path, importer.input_paths([str(p) for p in paths], chosen)):
        if not p.exists():
            raise InputError(p, "no such file or folder")
    kept = distinct_paths(paths, context.report)
    return _located(fmt, kept, importer.read(kept, chosen, context))


def import_partitioned(
    paths: Sequence[str | Path],
    output: str | Path,
    options: PushshiftOptions,
    report: ImportReport,
) -> tuple[int, int]:
    """Pushshift dumps imported by Spark's executors into ``output/part-*.jsonl``; (episodes, part files)."""
    importer = importers()["pushshift"]
    assert importer.partitioned is not None
    return importer.partitioned(distinct_paths(paths, report), Path(output), options, report)


_UNEXPECTED = (TypeError, AttributeError, KeyError, IndexError, OverflowError, RecursionError, OSError, ValueError)


def _located(fmt: str, paths: Sequence[str | Path], episodes: Iterator[Episode]) -> Iterator[Episode]:
    where = str(paths[0]) if len(paths) == 1 else ", ".join(map(str, paths))
    seen: set[str] = set()
    try:
        for episode in episodes:
            if episode.id in seen:  # e.g. a copy of one input given beside it: never two episodes with one id
                raise InputError(
                    where,
                    f"episode {episode.id} is built twice: the same data given twice (a copy of an input?); "
                    "give each source once",
                )
            seen.add(episode.id)
            yield episode
    except InputError:
        raise
    except ValidationError as exc:
        raise InputError.from_validation(where, exc) from None
    except ThreadIntegrityError:
        raise
    except _UNEXPECTED as exc:
        kind = "nested too deeply" if isinstance(exc, RecursionError) else type(exc).__name__
        raise InputError(where, f"not a valid {fmt} input ({kind}: {str(exc)[:200]})") from None


SNIFF_BYTES = 20_000_000
"""Inputs up to this size are tried with the other formats when their own refuses them (`reading_formats`)."""


def reading_formats(paths: Sequence[str | Path], refused: str) -> list[str]:
    """The other formats whose importer reads ``paths`` (its first episode, default options), for an error that
    names the one to use: tried only on inputs up to `SNIFF_BYTES` (a dump is not read five times over), never the
    formats that write part folders (dumps)."""
    import warnings

    files = [Path(p) for p in paths]
    if not all(f.exists() for f in files):
        return []
    size = sum(f.stat().st_size if f.is_file() else sum(x.stat().st_size for x in f.rglob("*") if x.is_file())
               for f in files)  # fmt: skip
    if size > SNIFF_BYTES:
        return []
    found = []
    for name, importer in importers().items():
        if name == refused or importer.partitioned is not None:
            continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                if next(import_episodes(name, paths, None, ImportContext(report=ImportReport())), None) is not None:
                    found.append(name)
        except Exception:  # any failure means "not this format": the sniff never replaces the real error
            continue
    return found
