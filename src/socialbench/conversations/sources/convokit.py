"""ConvoKit on-disk corpora (`utterances.jsonl`, `conversations.json`, ...): one Thread per conversation."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ...core.errors import InputError
from ..model import IntegrityPolicy, Node, Thread
from ._common import REPAIRS_KEY, iter_json_lines, load_json, require, scalars
from .importer import Importer, each


def read_convokit(folder: str | Path, *, policy: IntegrityPolicy = "repair") -> Iterator[Thread]:
    """Threads of a corpus folder. Accepts both ``reply-to`` (current) and ``reply_to`` (older corpora),
    and ``speaker`` or the older ``user``. Conversation metadata (e.g. ``title``) goes to ``thread.meta``."""
    folder = Path(folder)
    utterances = folder / "utterances.jsonl"
    if not utterances.exists():
        raise InputError(folder, "not a ConvoKit corpus folder: utterances.jsonl is missing")
    conv_meta: dict[str, Any] = {}
    if (folder / "conversations.json").exists():
        conv_meta = load_json(folder / "conversations.json")
        if not isinstance(conv_meta, dict):
            raise InputError(folder / "conversations.json", "expected a JSON object keyed by conversation id")
    corpus_meta = load_json(folder / "corpus.json") if (folder / "corpus.json").exists() else {}

    # ConvoKit itself holds a corpus in memory; conversations are grouped here the same way.
    grouped: dict[str, list[Node]] = {}
    first_seen: dict[str, tuple[int, Any]] = {}  # utterance id -> (line, record): ids are the corpus's keys
    repeated: dict[str, int] = {}  # conversation -> identical utterance lines read once
    for lineno, line in iter_json_lines(utterances):
        raw = line.load()
        where: dict[str, Any] = {"line": lineno}
        uid = require(raw, "id", str, utterances, **where)
        if uid in first_seen:
            first_line, first_raw = first_seen[uid]
            if raw != first_raw:
                raise InputError(
                    utterances,
                    f"utterance id used again for another utterance (first at line {first_line})",
                    line=lineno,
                    record=uid,
                )
            conv_of = first_raw.get("conversation_id")
            repeated[conv_of] = repeated.get(conv_of, 0) + 1
            continue
        first_seen[uid] = (lineno, raw)
        conv = require(raw, "conversation_id", str, utterances, line=lineno, record=uid)
        reply_to = raw.get("reply-to", raw.get("reply_to"))
        if reply_to is not None and not isinstance(reply_to, str):
            raise InputError(
                utterances,
                f"field 'reply-to' should be str or null, got {type(reply_to).__name__}",
                line=lineno,
                record=uid,
            )
        speaker = raw.get("speaker", raw.get("user"))
        if isinstance(speaker, dict):
            speaker = speaker.get("id") or speaker.get("name")
        if speaker is not None and not isinstance(speaker, str | int):
            problem = f"field 'speaker' should be a name, got {type(speaker).__name__}"
            raise InputError(utterances, problem, line=lineno, record=uid)
        text = raw.get("text", "")
        if not isinstance(text, str):
            raise InputError(
                utterances, f"field 'text' should be str, got {type(text).__name__}", line=lineno, record=uid
            )
        meta = raw.get("meta") or {}
        grouped.setdefault(conv, []).append(
            _node(
                utterances,
                lineno,
                id=uid,
                parent_id=reply_to,
                author=None if speaker in (None, "[deleted]") else str(speaker),
                created=raw.get("timestamp"),
                text=text,
                score=meta.get("score") if isinstance(meta.get("score"), int) else None,
                deleted=text in ("[deleted]", "[removed]") or speaker == "[deleted]",
                removed=text == "[removed]",
                meta=scalars(meta, ("permalink", "stickied", "gilded")),
            )
        )
    for conv, nodes in grouped.items():
        cmeta = (conv_meta.get(conv) or {}).get("meta", {})
        yield Thread.build(
            nodes,
            id=f"convokit:{conv}",
            platform=str((cmeta.get("subreddit") and "reddit") or "convokit"),
            title=cmeta.get("title"),
            root_id=conv if any(n.id == conv for n in nodes) else None,
            meta={
                "source": "convokit",
                "corpus": corpus_meta.get("name") or folder.name,
                **{k: v for k, v in cmeta.items() if k in ("title", "subreddit", "domain", "num_comments")},
            }
            | ({REPAIRS_KEY: {"utterance lines given twice (read once)": repeated[conv]}} if conv in repeated else {}),
            policy=policy,
        )


def _node(path: Path, lineno: int, **fields: Any) -> Node:
    """A node whose bad field (a timestamp that is not one) is named with its file, line and utterance id."""
    try:
        return Node(**fields)
    except ValidationError as exc:
        raise InputError.from_validation(path, exc, line=lineno, record=fields.get("id")) from None


IMPORTER = Importer(
    "convokit",
    "ConvoKit corpus folders (utterances.jsonl, conversations.json, ...): one thread per conversation.",
    each(read_convokit),
)
