"""Importers: each turns real files of one format into Threads or Dialogues.

`FORMATS` maps the CLI's format names (part of the interface) to a function ``(paths, options) -> iterator``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ...core.errors import InputError
from ..model import Episode, ThreadIntegrityError
from ._common import ImportReport
from .cmv import read_cmv
from .cmv_pairs import read_cmv_pairs
from .convokit import read_convokit
from .hackernews import read_algolia, read_firebase
from .pushshift import ENGINES, DumpSelection, dump_files, read_pushshift, selected
from .reddit import read_thread_json
from .sibench import read_sibench
from .stackexchange import read_stackexchange

__all__ = [
    "ENGINES",
    "FORMATS",
    "DumpSelection",
    "ImportOptions",
    "ImportReport",
    "InputError",
    "import_episodes",
    "import_partitioned",
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


@dataclass
class ImportOptions:
    morechildren: Sequence[str] = ()
    all_expanded: bool = False
    subreddits: Sequence[str] = ()
    thread_ids: Sequence[str] = ()
    skip_bad: bool = False
    report: ImportReport | None = None
    on_bytes: Callable[[int], None] | None = None
    selection: DumpSelection | None = None
    engine: str = "duckdb"
    spark_master: str | None = None


def _each(reader: Callable[[str], Iterator[Any]]) -> Callable[[Sequence[str], ImportOptions], Iterator[Any]]:
    def read(paths: Sequence[str], _: ImportOptions) -> Iterator[Any]:
        for p in paths:
            yield from reader(p)

    return read


FORMATS: dict[str, Callable[[Sequence[str], ImportOptions], Iterator[Episode]]] = {
    "hn-algolia": lambda paths, o: read_algolia(*paths),
    "hn-firebase": lambda paths, o: read_firebase(*paths),
    "reddit-json": lambda paths, o: read_thread_json(
        paths[0], [*paths[1:], *o.morechildren], all_expanded=o.all_expanded
    ),
    "pushshift": lambda paths, o: read_pushshift(
        *paths,
        subreddits=o.subreddits or None,
        thread_ids=o.thread_ids or None,
        selection=o.selection,
        engine=o.engine,  # type: ignore[arg-type]  # checked by read_pushshift
        skip_bad=o.skip_bad,
        report=o.report,
        on_bytes=o.on_bytes,
        spark_master=o.spark_master,
    ),
    "stackexchange": _each(read_stackexchange),
    "convokit": _each(read_convokit),
    "cmv": lambda paths, o: read_cmv(*paths),
    "cmv-pairs": lambda paths, o: read_cmv_pairs(*paths),
    "sibench": _each(read_sibench),
}


def import_episodes(fmt: str, paths: Sequence[str | Path], options: ImportOptions | None = None) -> Iterator[Episode]:
    """Read ``paths`` in format ``fmt`` (a key of `FORMATS`). Every failure is an `InputError` naming the input:
    the importers locate the problems they anticipate (file, line, record, field); anything else a malformed
    file can still provoke is caught here and named by file, never shown as a traceback."""
    if fmt not in FORMATS:
        raise InputError(", ".join(map(str, paths)), f"unknown format {fmt!r}; known: {', '.join(FORMATS)}")
    for p in map(Path, paths):
        if not p.exists():
            raise InputError(p, "no such file or folder")
    return _located(fmt, paths, FORMATS[fmt]([str(p) for p in paths], options or ImportOptions()))


def import_partitioned(
    paths: Sequence[str | Path],
    output: str | Path,
    partitions: int,
    options: ImportOptions,
    report: ImportReport,
    spark_master: str | None = None,
) -> tuple[int, int]:
    """Pushshift dumps imported by Spark's executors into ``output/part-*.jsonl``; (episodes, part files)."""
    from .pushshift_spark import write_partitioned

    files = dump_files(paths)
    selection = selected(options.selection, options.subreddits, options.thread_ids)
    return write_partitioned(files, Path(output), partitions, selection, options.skip_bad, report, master=spark_master)


_UNEXPECTED = (TypeError, AttributeError, KeyError, IndexError, OverflowError, RecursionError, OSError, ValueError)


def _located(fmt: str, paths: Sequence[str | Path], episodes: Iterator[Episode]) -> Iterator[Episode]:
    where = str(paths[0]) if len(paths) == 1 else ", ".join(map(str, paths))
    try:
        yield from episodes
    except InputError:
        raise
    except ValidationError as exc:
        raise InputError.from_validation(where, exc) from None
    except ThreadIntegrityError:
        raise
    except _UNEXPECTED as exc:
        kind = "nested too deeply" if isinstance(exc, RecursionError) else type(exc).__name__
        raise InputError(where, f"not a valid {fmt} input ({kind}: {str(exc)[:200]})") from None
