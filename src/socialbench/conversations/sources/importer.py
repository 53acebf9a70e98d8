"""The shape every importer has, as benchmarks have theirs: a name, a one-line summary, the options it takes
(a pydantic model: field name = CLI flag, description = help, type = validation) and a reader.

The CLI builds ``socialbench import FORMAT`` from this declaration alone (``socialbench import FORMAT --help``
lists that format's options), so adding a format never touches the CLI. Options whose values are files the
import reads are declared in ``inputs`` so the shared writer never writes over them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from ..model import Episode
from ._common import ImportReport


class NoOptions(BaseModel):
    """A format that takes no options beyond its paths."""

    model_config = ConfigDict(extra="forbid", frozen=True)


@dataclass
class ImportContext:
    """What the command lends an importer: the report it fills as it streams (records seen, records skipped,
    repairs) and a byte counter for progress."""

    report: ImportReport = field(default_factory=ImportReport)
    on_bytes: Callable[[int], None] | None = None


Reader = Callable[[Sequence[str], Any, ImportContext], Iterator[Episode]]


@dataclass(frozen=True)
class Importer:
    name: str
    """The CLI's format name (part of the interface)."""
    summary: str
    read: Reader
    """``(paths, options, context) -> episodes``; every failure an `InputError` naming the file."""
    options: type[BaseModel] = NoOptions
    inputs: tuple[str, ...] = ()
    """Option fields whose values are input files (never written over, counted as inputs)."""
    folder_output: Callable[[Any], bool] | None = None
    """For an importer that can write a folder of part files: whether these options ask for it."""
    partitioned: Callable[[Sequence[str], Path, Any, ImportReport], tuple[int, int]] | None = None
    """Writes the folder: ``(paths, folder, options, report) -> (episodes, part files)``."""
    counts_bytes: bool = False
    """Whether ``context.on_bytes`` is called (progress by bytes read)."""

    def input_paths(self, paths: Sequence[str], options: BaseModel) -> list[str]:
        extra: list[str] = []
        for name in self.inputs:
            value = getattr(options, name)
            extra += [value] if isinstance(value, str) else list(value or ())
        return [*paths, *extra]


def each(reader: Callable[[str], Iterator[Episode]]) -> Reader:
    """A reader of one path at a time, as a `Reader` of many."""

    def read(paths: Sequence[str], _options: Any, _context: ImportContext) -> Iterator[Episode]:
        for p in paths:
            yield from reader(p)

    return read
