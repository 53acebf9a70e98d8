"""ConvoKit on-disk corpora (`utterances.jsonl`, `conversations.json`, ...): one Thread per conversation."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ...core.errors import InputError
from ..model import IntegrityPolicy, Node, Thread
from ._common import iter_json_lines, load_json, require, scalars
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
    for lineno, line in iter_json_lines(utterances):
        raw = line.load()
        where: dict[str, Any] = {"line": lineno}
        uid = require(raw, "id", str, utterances, **where)
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
            Node(
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
            },
            policy=policy,
        )


IMPORTER = Importer(
    "convokit",
    "ConvoKit corpus folders (utterances.jsonl, conversations.json, ...): one thread per conversation.",
    each(read_convokit),
)
