"""Canonical storage of episodes: schema-versioned JSONL, exact round trip, atomic writes."""

from __future__ import annotations

import json
import reprlib
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ..core.errors import InputError
from ..core.jsonl import atomic_writer, read_jsonl
from .model import Dialogue, Episode, Thread, ThreadIntegrityError

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
        raise InputError(path, f"invalid JSON: {exc.msg}", line=line) from None
    return episode_from_record(raw, path, line)


def episode_from_record(raw: Any, path: str | Path = "<string>", line: int | None = None) -> Episode:
    if not isinstance(raw, dict):
        raise InputError(path, "expected an episode object", line=line)
    version = raw.pop("schema_version", None)
    if version != SCHEMA_VERSION:
        shown = reprlib.repr(version)  # bounded: a value may be nested thousands deep
        raise InputError(path, f"schema_version {shown} is not supported (expected {SCHEMA_VERSION})", line=line)
    kind = raw.pop("kind", None)
    if not isinstance(kind, str) or kind not in _KINDS:
        raise InputError(path, f"unknown episode kind {reprlib.repr(kind)}", line=line)
    try:
        return _KINDS[kind].model_validate(raw)
    except ValidationError as exc:
        record = raw.get("id") if isinstance(raw.get("id"), str) else reprlib.repr(raw.get("id"))
        raise InputError.from_validation(path, exc, line=line, record=record) from None


def write_episodes(path: str | Path, episodes: Iterable[Episode]) -> int:
    count = 0
    with atomic_writer(path) as handle:
        for episode in episodes:
            handle.write(episode_to_json(episode))
            handle.write("\n")
            count += 1
    return count


def read_episodes(path: str | Path) -> Iterator[Episode]:
    """Episodes of a file, or of a folder of part files (``part-*.jsonl``, as `import pushshift --partitions`
    writes), each checked as a whole: a thread must be one rooted tree (a node whose parent is missing, or a
    reply cycle, is an error naming the node), and an episode id may appear once."""
    folder = Path(path)
    if folder.is_dir():
        parts = sorted(folder.glob("part-*.jsonl"))
        if not parts:
            raise InputError(folder, "a folder without episode part files (part-*.jsonl)")
        seen: dict[str, str] = {}
        for part in parts:
            yield from _read_episodes(part, seen)
    else:
        yield from _read_episodes(folder, {})


def _read_episodes(path: Path, seen: dict[str, str]) -> Iterator[Episode]:
    for lineno, raw in read_jsonl(path, "episodes file"):
        episode = episode_from_record(raw, path, lineno)
        if episode.id in seen:
            raise InputError(
                path, f"episode {episode.id} appears twice ({seen[episode.id]} and line {lineno})", line=lineno
            )
        seen[episode.id] = f"{path.name}:{lineno}" if path.name.startswith("part-") else f"line {lineno}"
        if isinstance(episode, Thread):
            try:
                Thread.build(
                    episode.nodes, id=episode.id, platform=episode.platform, root_id=episode.root_id, policy="strict"
                )
            except ThreadIntegrityError as exc:
                raise InputError(path, str(exc), line=lineno, record=episode.id) from None
        yield episode


def find_episode(path: str | Path, episode_id: str) -> Episode:
    for episode in read_episodes(path):
        if episode.id == episode_id:
            return episode
    raise InputError(path, f"no episode with id {episode_id!r}")
