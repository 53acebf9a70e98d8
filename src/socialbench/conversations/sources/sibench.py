"""SI-Bench dialogues: `用户` is our side (the model will speak for it), `对方` the other party."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ...core.errors import InputError
from ..model import Dialogue, Turn
from ._common import load_json, require
from .importer import Importer, each

SPEAKER_ROLES = {"用户": "self", "对方": "other"}
# A speaker label at the start of a line; one released chat has a stray character before it ("f用户: ...").
_SPEAKER_LINE = re.compile(r"^(?P<stray>.{0,2}?)(?P<speaker>用户|对方)[:：]\s?")
LABEL_FIELDS = (
    "scenario",
    "first_level_scenario",
    "second_level_scenario",
    "scenario_en",
    "first_level_scenario_en",
    "second_level_scenario_en",
)


def parse_chat(text: str, path: Path, record: str) -> list[Turn]:
    """Lines ``用户: ...`` / ``对方: ...`` (ASCII or full-width colon); a line without a speaker prefix
    continues the previous message; blank lines before the first message are dropped. Emoji codes such
    as ``[/微笑]`` are kept verbatim. A stray character before a label is kept in the turn's meta."""
    turns: list[Turn] = []
    for line in text.split("\n"):
        match = _SPEAKER_LINE.match(line)
        if match is not None:
            speaker = match["speaker"]
            meta = {"stray_prefix": match["stray"]} if match["stray"] else {}
            turns.append(
                Turn(speaker=speaker, role=SPEAKER_ROLES[speaker], text=line[match.end() :].strip(), meta=meta)
            )
        elif turns:
            last = turns[-1]
            turns[-1] = last.model_copy(update={"text": f"{last.text}\n{line}".rstrip("\n")})
        elif line.strip():
            raise InputError(path, f"chat starts without a speaker prefix: {line[:30]!r}", record=record)
    if not turns:
        raise InputError(path, "empty chat_messages", record=record)
    return turns


def read_sibench(path: str | Path) -> Iterator[Dialogue]:
    """All dialogues of an SI-Bench JSON file, with the situation labels (zh and en) in ``meta``."""
    path = Path(path)
    data = load_json(path)
    if not isinstance(data, list):
        raise InputError(path, f"expected a JSON list of dialogues, got {type(data).__name__}")
    seen: dict[str, int] = {}
    for index, raw in enumerate(data):
        record = f"#{index}"
        if isinstance(raw, dict) and isinstance(raw.get("id"), int | str):
            record = f"#{index} id={raw['id']}"
        did = require(raw, "id", (int, str), path, record=record)
        if str(did) in seen:
            raise InputError(
                path, f"dialogue id {did} appears twice (records #{seen[str(did)]} and #{index})", record=record
            )
        seen[str(did)] = index
        chat = require(raw, "chat_messages", str, path, record=record)
        meta: dict[str, Any] = {}
        for key in LABEL_FIELDS:
            meta[key] = require(raw, key, str, path, record=record).strip()
        yield Dialogue(id=f"sibench:{did}", platform="sibench", turns=tuple(parse_chat(chat, path, record)), meta=meta)


IMPORTER = Importer(
    "sibench",
    "SI-Bench dialogues (the released SI-Bench.json): one dialogue per chat.",
    each(read_sibench),
)
