"""Canonical storage of episodes: schema-versioned JSONL, exact round trip, atomic writes."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from pydantic import ValidationError

from .model import Dialogue, Episode, Thread
from .sources._common import SourceError, decode

SCHEMA_VERSION = 1
_KINDS: dict[str, type[Thread] | type[Dialogue]] = {"thread": Thread, "dialogue": Dialogue}


def episode_to_json(episode: Episode) -> str:
    kind = "thread" if isinstance(episode, Thread) else "dialogue"
    body = episode.model_dump(mode="json")
    return json.dumps({"schema_version": SCHEMA_VERSION, "kind": kind, **body}, ensure_ascii=False)


def episode_from_json(text: str, path: str | Path = "<string>", line: int | None = None) -> Episode:
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SourceError(path, f"invalid JSON: {exc.msg}", line=line) from None
    if not isinstance(raw, dict):
        raise SourceError(path, "expected an episode object", line=line)
    version = raw.pop("schema_version", None)
    if version != SCHEMA_VERSION:
        raise SourceError(path, f"schema_version {version!r} is not supported (expected {SCHEMA_VERSION})", line=line)
    kind = raw.pop("kind", None)
    if kind not in _KINDS:
        raise SourceError(path, f"unknown episode kind {kind!r}", line=line)
    try:
        return _KINDS[kind].model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = ".".join(str(p) for p in first["loc"])
        raise SourceError(path, f"field {loc}: {first['msg']}", line=line, record=str(raw.get("id"))) from None


@contextmanager
def atomic_writer(path: str | Path) -> Iterator[IO[str]]:
    """Write to a temporary file beside ``path`` and rename it into place only when the block succeeds,
    so a crash or a bad record never leaves a half-written file or clobbers the previous one."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp creates 0600; give the file the usual permissions
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current


def write_episodes(path: str | Path, episodes: Iterable[Episode]) -> int:
    count = 0
    with atomic_writer(path) as handle:
        for episode in episodes:
            handle.write(episode_to_json(episode))
            handle.write("\n")
            count += 1
    return count


def read_episodes(path: str | Path) -> Iterator[Episode]:
    path = Path(path)
    if not path.exists():
        raise SourceError(path, "file not found")
    with path.open("rb") as handle:
        for lineno, raw in enumerate(handle, 1):
            if raw.strip():
                yield episode_from_json(decode(path, raw, line=lineno), path, lineno)


def find_episode(path: str | Path, episode_id: str) -> Episode:
    for episode in read_episodes(path):
        if episode.id == episode_id:
            return episode
    raise SourceError(path, f"no episode with id {episode_id!r}")
