"""What every importer shares: located errors, text decoding, JSON lines (plain, .zst, .bz2 or .gz), HTML to text, and
an on-disk spool that groups a stream of records by key without holding the stream in memory."""

from __future__ import annotations

import bz2
import gzip
import json
import sqlite3
import tempfile
import warnings
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import zstandard

from ...core.errors import InputError
from ...core.jsonl import decode, parse_json
from ..model import ThreadIntegrityWarning, encodable

# Pushshift / Arctic Shift dumps are compressed with a 2 GiB window; zstandard refuses them by default.
_ZSTD_MAX_WINDOW = 2**31


@dataclass
class ImportReport:
    """What a (possibly lenient) import skipped; filled in as the import streams."""

    records: int = 0
    skipped: int = 0
    errors: list[str] = field(default_factory=list)
    """The first skipped errors, for the user to look at (capped so a broken dump cannot exhaust memory)."""
    repairs: Counter[str] = field(default_factory=Counter)
    """What the import changed or left out, by kind (each also recorded in the episode's ``meta``)."""

    def repair(self, kind: str, n: int = 1) -> None:
        if n:
            self.repairs[kind] += n

    def skip(self, error: InputError) -> None:
        self.skip_message(str(error))

    def skip_message(self, message: str) -> None:
        self.skipped += 1
        if len(self.errors) < 20:
            self.errors.append(message)


def scalars(record: Any, keys: tuple[str, ...], skip: tuple[Any, ...] = (None,)) -> dict[str, Any]:
    """The source fields kept in a node's ``meta``: only plain values (text, numbers, booleans), so a malformed
    record cannot carry a nested structure (possibly thousands deep) into the episodes file."""
    if not isinstance(record, dict):
        return {}
    return {
        k: record[k]
        for k in keys
        if isinstance(record.get(k), str | int | float | bool) and record[k] not in skip and _plain(record[k])
    }


def _plain(value: Any) -> bool:
    if isinstance(value, str):
        encodable(value)  # raises on a lone surrogate: the importer's net names the file
    return True


def read_text(path: Path) -> str:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise InputError(path, "file not found") from None
    except IsADirectoryError:
        raise InputError(path, "is a folder, expected a file") from None
    except PermissionError:
        raise InputError(path, "permission denied") from None
    return decode(path, data)


def load_json(path: Path) -> Any:
    text = read_text(path)
    try:
        return parse_json(text)
    except json.JSONDecodeError as exc:
        raise InputError(path, json_problem(exc, text, "document"), line=exc.lineno) from None
    except ValueError as exc:  # nested beyond MAX_JSON_DEPTH
        raise InputError(path, str(exc)) from None


# One JSON line of an import may be at most this long. Reddit caps a comment at 10,000 characters and a post at
# 40,000, so real records are far below it; a file without newlines (a binary file, a decompression bomb of NUL
# bytes) stops here with a clear error instead of being gathered into memory whole.
MAX_LINE_BYTES = 16 * 2**20
# Compressed input is fed to the decoder this many bytes at a time: one zstd block expands at most ~32,000-fold,
# so no single decoder call can produce more than a few tens of MB, whatever the file holds.
_ZSTD_PIECE = 1024


def _zst_chunks(path: Path) -> Iterator[bytes]:
    """Decompressed chunks of a (possibly multi-frame) .zst file; a frame cut short raises InputError."""
    dctx = zstandard.ZstdDecompressor(max_window_size=_ZSTD_MAX_WINDOW)
    with path.open("rb") as raw:
        dobj, fed = dctx.decompressobj(), False
        while block := raw.read(1 << 20):
            for at in range(0, len(block), _ZSTD_PIECE):
                chunk = block[at : at + _ZSTD_PIECE]
                while chunk:
                    try:
                        out = dobj.decompress(chunk)
                    except zstandard.ZstdError as exc:
                        raise InputError(path, f"corrupt zstd stream: {exc}") from None
                    fed = True
                    if out:
                        yield out
                    if dobj.eof:  # frame finished; the rest of the chunk starts the next frame
                        chunk, dobj, fed = dobj.unused_data, dctx.decompressobj(), False
                    else:
                        chunk = b""
        if fed and not dobj.eof:
            raise InputError(path, "truncated zstd stream (the file ends inside a compressed frame)")


_STDLIB_COMPRESSED: dict[str, Callable[..., Any]] = {".bz2": bz2.open, ".gz": gzip.open}


def byte_chunks(path: Path) -> Iterator[bytes]:
    """The decompressed bytes of a plain, .zst, .bz2 or .gz file, in chunks of bounded size."""
    if path.suffix == ".zst":
        yield from _zst_chunks(path)
        return
    opener = _STDLIB_COMPRESSED.get(path.suffix, open)
    try:
        with opener(path, "rb") as handle:
            while chunk := handle.read(1 << 20):
                yield chunk
    except (OSError, EOFError) as exc:  # gzip/bz2: a corrupt or cut-off stream
        if isinstance(exc, FileNotFoundError | IsADirectoryError | PermissionError):
            raise
        raise InputError(path, f"corrupt {path.suffix} stream: {exc}") from None


def line_blocks(path: Path) -> Iterator[bytes]:
    """The decompressed file as blocks of whole lines (each block ends with a newline, except perhaps the last).

    Memory is bounded by `MAX_LINE_BYTES` plus one chunk: a longer line is an `InputError` naming its number."""
    parts: list[bytes] = []
    pending = 0  # bytes of the unfinished line gathered in parts
    lines = 0  # complete lines already given out
    for chunk in byte_chunks(path):
        cut = chunk.rfind(b"\n")
        if cut < 0:
            parts.append(chunk)
            pending += len(chunk)
            if pending > MAX_LINE_BYTES:
                raise InputError(
                    path,
                    f"line longer than {MAX_LINE_BYTES // 2**20} MiB without a newline: not a JSON-lines file?",
                    line=lines + 1,
                )
            continue
        block = b"".join([*parts, chunk[: cut + 1]]) if parts else chunk[: cut + 1]
        lines += block.count(b"\n")
        yield block
        parts = [chunk[cut + 1 :]] if cut + 1 < len(chunk) else []
        pending = len(chunk) - cut - 1
    if parts:
        yield b"".join(parts)


def numbered_lines(path: Path) -> Iterator[tuple[int, bytes]]:
    """``(line number, line)`` for every line, blank ones included, without its newline (lines end at ``\\n``
    only, as in JSON lines)."""
    lineno = 0
    for block in line_blocks(path):
        lines = block.split(b"\n")
        if lines[-1] == b"":  # the block ends with a newline
            lines.pop()
        for line in lines:
            lineno += 1
            yield lineno, line


def iter_json_lines(path: Path, on_bytes: Callable[[int], None] | None = None) -> Iterator[tuple[int, _LazyLine]]:
    """Yield ``(line_number, lazy line)`` for each non-blank line of a plain or .zst JSONL file.

    Lines are decoded by ``.load()``, so a consumer can catch a bad line's `InputError` and go on.
    """
    if not path.exists():
        raise InputError(path, "file not found")
    for lineno, raw in numbered_lines(path):
        if on_bytes is not None:
            on_bytes(len(raw) + 1)
        if raw.strip():
            yield lineno, _LazyLine(path, lineno, raw)


class _LazyLine:
    """A JSON line decoded on demand, so a bad line raises where the consumer can choose to skip it."""

    __slots__ = ("lineno", "path", "raw")

    def __init__(self, path: Path, lineno: int, raw: bytes):
        self.path, self.lineno, self.raw = path, lineno, raw

    def load(self) -> Any:
        text = decode(self.path, self.raw, line=self.lineno)
        try:
            return parse_json(text)
        except json.JSONDecodeError as exc:
            raise InputError(self.path, json_problem(exc, text, "line"), line=self.lineno) from None
        except ValueError as exc:  # nested beyond MAX_JSON_DEPTH
            raise InputError(self.path, str(exc), line=self.lineno) from None


def json_problem(exc: json.JSONDecodeError, text: str, unit: str) -> str:
    # The input ends inside a value (an unterminated string, or within a few characters of the error, e.g.
    # a literal cut to "nu"): a cut-off download or partial write, worth naming as such.
    if len(text.rstrip()) - exc.pos <= 8 or exc.msg.startswith("Unterminated string"):
        return f"truncated JSON {unit}"
    return f"invalid JSON: {exc.msg} (column {exc.colno})"


def require(obj: Any, key: str, kind: type | tuple[type, ...], path: Path, **where: Any) -> Any:
    """Return ``obj[key]`` checked against ``kind``; a missing field or a wrong type is an InputError."""
    if not isinstance(obj, dict):
        raise InputError(path, f"expected a JSON object, got {type(obj).__name__}", **where)
    if key not in obj:
        raise InputError(path, f"missing field {key!r}", **where)
    value = obj[key]
    if not isinstance(value, kind) or (isinstance(value, bool) and bool not in _as_tuple(kind)):
        expected = " or ".join(k.__name__ for k in _as_tuple(kind))
        raise InputError(path, f"field {key!r} should be {expected}, got {type(value).__name__}", **where)
    return value


def _as_tuple(kind: type | tuple[type, ...]) -> tuple[type, ...]:
    return kind if isinstance(kind, tuple) else (kind,)


def html_to_text(html: str | None) -> str:
    """Plain text of an HTML fragment (HN, Stack Exchange bodies), paragraphs kept as blank lines."""
    if not html:
        return ""
    from bs4 import BeautifulSoup  # imported on first use: commands that parse no HTML never load it

    soup = BeautifulSoup(html, "html.parser")
    for br in soup.find_all("br"):
        br.replace_with("\n")
    for block in soup.find_all(["p", "pre", "blockquote", "li", "h1", "h2", "h3", "h4", "h5", "h6"]):
        block.insert_before("\n\n")
        block.insert_after("\n\n")
    lines = [line.rstrip() for line in soup.get_text().splitlines()]
    # collapse runs of blank lines left by nested blocks
    out: list[str] = []
    for line in lines:
        if line or (out and out[-1]):
            out.append(line)
    return "\n".join(out).strip()


class GroupSpool:
    """Records grouped by key on disk (SQLite in a temporary file), so a dump of any size can be regrouped
    into threads with memory bounded by the largest single thread, not by the dump."""

    def __init__(self) -> None:
        self._dir = tempfile.TemporaryDirectory(prefix="socialbench-spool-")
        self._db = sqlite3.connect(Path(self._dir.name) / "spool.sqlite")
        self._db.execute("PRAGMA journal_mode=OFF")
        self._db.execute("PRAGMA synchronous=OFF")
        self._db.execute("PRAGMA cache_size=-16000")  # 16 MB page cache, whatever the dump size
        self._db.execute("CREATE TABLE rec (grp TEXT NOT NULL, seq INTEGER NOT NULL, payload BLOB NOT NULL)")
        self._pending: list[tuple[str, int, bytes]] = []
        self._seq = 0
        self._indexed = False

    def add(self, group: str, payload: bytes) -> None:
        self._seq += 1
        self._pending.append((group, self._seq, payload))
        if len(self._pending) >= 10_000:
            self._flush()

    def _flush(self) -> None:
        self._db.executemany("INSERT INTO rec VALUES (?, ?, ?)", self._pending)
        self._pending.clear()

    def _ready(self) -> None:
        self._flush()
        if not self._indexed:
            self._db.execute("CREATE INDEX rec_grp ON rec (grp, seq)")
            self._indexed = True

    def groups(self, prefix: str = "") -> Iterator[tuple[str, list[bytes]]]:
        """Each group whose key starts with ``prefix``, in key order, its records in insertion order."""
        self._ready()
        cursor = self._db.execute(
            "SELECT grp, payload FROM rec WHERE grp >= ? AND grp < ? ORDER BY grp, seq",
            (prefix, prefix + "\U0010ffff"),
        )
        current: str | None = None
        batch: list[bytes] = []
        for grp, payload in cursor:
            if grp != current:
                if current is not None:
                    yield current, batch
                current, batch = grp, []
            batch.append(payload)
        if current is not None:
            yield current, batch

    def get(self, group: str) -> list[bytes]:
        self._ready()
        return [row[0] for row in self._db.execute("SELECT payload FROM rec WHERE grp = ? ORDER BY seq", (group,))]

    def close(self) -> None:
        self._db.close()
        self._dir.cleanup()

    def __enter__(self) -> GroupSpool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


REPAIRS_KEY = "import_repairs"
"""The episode ``meta`` key where an importer counts what it changed or left out, by kind (``socialbench import``
sums them into its closing line; docs/import.md lists the kinds per format)."""


def record_repair(counts: dict[str, int], kind: str, message: str, n: int = 1) -> None:
    """Count one repair of ``kind`` in ``counts`` (an episode's ``meta[REPAIRS_KEY]``) and say it as a warning."""
    counts[kind] = counts.get(kind, 0) + n
    warnings.warn(message, ThreadIntegrityWarning, stacklevel=3)
