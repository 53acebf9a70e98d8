"""JSON Lines, read and written one way for every file socialbench touches (episodes, items, annotations,
human replies): UTF-8 (a leading BOM is accepted), blank lines skipped, errors located by file and line, and
writes that are atomic (a temporary file beside the target, renamed into place only when complete)."""

from __future__ import annotations

import gzip
import io
import json
import math
import os
import reprlib
import sys
import tempfile
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import IO, Any, TypeVar, cast

from pydantic import BaseModel, ValidationError

from .errors import InputError

M = TypeVar("M", bound=BaseModel)


def decode(path: str | Path, data: bytes, line: int | None = None) -> str:
    """UTF-8 text (a leading BOM dropped); bad bytes are an `InputError` naming the file, line and offset."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(path, f"not UTF-8 text (bad byte at offset {exc.start})", line=line) from None


MAX_JSON_DEPTH = 100_000
"""Deepest JSON nesting read (real reply chains run thousands deep; Python's default limit stops at ~1,000)."""
_DEEP_STACK = 1 << 29  # 512 MiB of address space for the parsing thread; pages are committed only as used


def parse_json(text: str) -> Any:
    """`json.loads`, also for documents nested up to `MAX_JSON_DEPTH` levels: when the default recursion limit is
    hit, the text is parsed again in a thread with a large stack and a raised limit. Deeper documents raise
    ``ValueError`` naming the limit. (json's C parser recurses per level; there is no iterative mode to call.)"""
    try:
        return json.loads(text)
    except RecursionError:
        pass
    box: dict[str, Any] = {}

    def work() -> None:
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(limit, MAX_JSON_DEPTH + 50))  # the few frames below the parser
        try:
            box["value"] = json.loads(text)
        except RecursionError:
            box["error"] = ValueError(f"JSON nested more than {MAX_JSON_DEPTH:,} levels deep")
        except json.JSONDecodeError as exc:
            box["error"] = exc
        finally:
            sys.setrecursionlimit(limit)

    with _DEEP_LOCK:
        previous = threading.stack_size(_DEEP_STACK)
        try:
            worker = threading.Thread(target=work, name="socialbench-deep-json")
            worker.start()
        finally:
            threading.stack_size(previous)
        worker.join()
    if "error" in box:
        raise box["error"]
    return box["value"]


_DEEP_LOCK = threading.Lock()


def read_jsonl(path: str | Path, what: str = "file") -> Iterator[tuple[int, Any]]:
    """``(line_number, parsed JSON value)`` for each non-blank line (plain or ``.gz``); streamed, so files of
    any size work."""
    path = Path(path)
    if not path.exists():
        raise InputError(path, f"{what} not found")
    if path.is_dir():
        raise InputError(path, f"is a folder, expected a {what}")
    try:
        handle = cast(IO[bytes], gzip.open(path, "rb") if path.suffix == ".gz" else path.open("rb"))  # noqa: SIM115
    except PermissionError:
        raise InputError(path, "permission denied") from None
    with handle:
        lineno = 0
        try:
            for lineno, raw in enumerate(handle, 1):
                text = decode(path, raw, lineno)
                if not text.strip():
                    continue
                try:
                    value = parse_json(text)
                except json.JSONDecodeError as exc:
                    raise InputError(path, f"invalid JSON: {exc.msg} (column {exc.colno})", line=lineno) from None
                except ValueError as exc:  # nested beyond MAX_JSON_DEPTH
                    raise InputError(path, str(exc), line=lineno) from None
                yield lineno, value
        except (gzip.BadGzipFile, EOFError) as exc:  # a corrupt or truncated .gz file
            raise InputError(path, f"not a complete gzip file ({exc})", line=lineno + 1) from None


def read_models(path: str | Path, model: type[M], what: str = "file", id_field: str = "id") -> Iterator[tuple[int, M]]:
    """Each line validated as ``model``; a bad line is an `InputError` naming file, line, record id and field."""
    for lineno, raw in read_jsonl(path, what):
        ident = raw.get(id_field) if isinstance(raw, dict) else None
        # reprlib bounds the text of an id that is not a string (it may be nested thousands deep)
        record = None if ident is None else ident if isinstance(ident, str) else reprlib.repr(ident)
        try:
            yield lineno, model.model_validate(raw)
        except ValidationError as exc:
            raise InputError.from_validation(path, exc, line=lineno, record=record) from None


_INPUTS: ContextVar[tuple[frozenset[Path], frozenset[tuple[int, int]]]] = ContextVar(
    "socialbench_inputs", default=(frozenset(), frozenset())
)
"""The files the running command reads (resolved paths and (device, inode) pairs): never written over."""


def input_files(paths: Iterable[str | Path]) -> list[Path]:
    """The files a command reads: each path that is a file, and every file under each folder."""
    out: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            out += [f for f in p.rglob("*") if f.is_file()]
        elif p.exists():
            out.append(p)
    return out


def _identity(path: Path) -> tuple[Path, tuple[int, int] | None]:
    resolved = path.resolve()
    try:
        stat = path.stat()
    except OSError:
        return resolved, None
    return resolved, (stat.st_dev, stat.st_ino)


@contextmanager
def protecting(paths: Iterable[str | Path]) -> Iterator[None]:
    """While the block runs, no `atomic_writer` may write to one of these inputs (or any file under an input
    folder), whatever path reaches it (``dir/../x``, a link, a hard link): one check for every command."""
    files = input_files(paths)
    ids = [_identity(f) for f in files]
    token = _INPUTS.set(
        (frozenset(r for r, _ in ids), frozenset(i for _, i in ids if i is not None)),
    )
    try:
        yield
    finally:
        _INPUTS.reset(token)


def refuse_input(path: str | Path, inputs: Iterable[str | Path] | None = None) -> None:
    """An `InputError` when ``path`` is one of the inputs (``inputs``, or those of `protecting`): compared by
    resolved path and by inode, not by the string given."""
    if inputs is not None:
        ids = [_identity(f) for f in input_files(inputs)]
        resolved, inodes = frozenset(r for r, _ in ids), frozenset(i for _, i in ids if i is not None)
    else:
        resolved, inodes = _INPUTS.get()
    target, inode = _identity(Path(path))
    if target in resolved or (inode is not None and inode in inodes):
        raise InputError(path, "is one of this command's inputs: refusing to write over it (choose another output)")


def check_writable(path: str | Path) -> None:
    """An `InputError` now, before any input is read, when ``path`` could not be written: a part of its folder
    path is a file, or the nearest existing folder is not writable (as this user)."""
    path = Path(path)
    for ancestor in path.parents:
        if ancestor.exists():
            if not ancestor.is_dir():
                raise InputError(path, "cannot be written: a part of its folder path is a file, not a folder")
            if not os.access(ancestor, os.W_OK | os.X_OK):
                raise InputError(path, "cannot be written: no permission to write in its folder")
            return


@contextmanager
def atomic_writer(path: str | Path, binary: bool = False) -> Iterator[IO[Any]]:
    """Write to a temporary file beside ``path`` and rename it into place only when the block succeeds,
    so a crash or a bad record never leaves a half-written file or clobbers the previous one. UTF-8 text by
    default; ``binary=True`` gives a bytes handle; a ``.gz`` path is written gzip-compressed. A path that is one
    of the running command's inputs (`protecting`) is refused before anything is written."""
    path = Path(path)
    refuse_input(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except (FileExistsError, NotADirectoryError):
        raise InputError(path, "cannot be written: a part of its folder path is a file, not a folder") from None
    except PermissionError:
        raise InputError(path, "cannot be written: no permission to write in its folder") from None
    except OSError as exc:  # a read-only file system, a full disk, a folder that cannot hold files
        raise InputError(path, f"cannot be written: {exc.strerror or type(exc).__name__}") from None
    try:
        with os.fdopen(fd, "wb") as raw:
            # mtime=0: the same content always gives the same compressed bytes
            packed = gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) if path.suffix == ".gz" else None
            out = cast(IO[bytes], packed or raw)
            handle: IO[Any] = out if binary else io.TextIOWrapper(out, encoding="utf-8")
            yield handle
            handle.flush()
            if packed is not None:
                packed.close()  # writes the gzip trailer; ``raw`` stays open
            raw.flush()
            os.fsync(raw.fileno())
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp creates 0600; give the file the usual permissions
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current


def write_jsonl(path: str | Path, records: Iterable[Any]) -> int:
    """Write records (pydantic models or JSON values) one per line, atomically; returns the count."""
    count = 0
    with atomic_writer(path) as handle:
        for record in records:
            line = record.model_dump_json() if isinstance(record, BaseModel) else json.dumps(record, ensure_ascii=False)
            handle.write(line)
            handle.write("\n")
            count += 1
    return count


def strict(value: Any) -> Any:
    """``value`` as strict JSON values: NaN and infinities (a number that was not measured) become null, numpy
    scalars and arrays plain numbers and lists, tuples and sets lists, pydantic models their JSON dump."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {str(k): strict(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [strict(v) for v in value]
    if isinstance(value, BaseModel):
        return strict(value.model_dump(mode="json"))
    if hasattr(value, "tolist") and callable(value.tolist):  # numpy scalars and arrays, without importing numpy
        return strict(value.tolist())
    return value


def dump_json(value: Any) -> str:
    """The one way a ``--json`` answer is printed: one line of strict JSON (no ``NaN``: null), UTF-8 text kept;
    anything else JSON cannot hold (a date, a path) as its text."""
    return json.dumps(strict(value), ensure_ascii=False, allow_nan=False, default=str)
