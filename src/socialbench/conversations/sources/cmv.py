"""r/ChangeMyView exchanges (the delta-labelled XML files): an original post and one challenger's exchange.

Files that share a thread ID are grouped into one Thread: the OP is the root and each exchange is a branch
(a linear reply chain in time order, since the files carry no parent ids). The first reply of each branch
records the label: ``meta["delta"]`` from the folder (``positive`` / ``negative``) and
``meta["op_delta_in_text"]`` from the OP's own ``∆`` / ``Δ`` / ``!delta`` in the exchange.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from ...core.errors import InputError
from ..model import IntegrityPolicy, Node, Thread
from ._common import REPAIRS_KEY, record_repair
from .importer import Importer

# every tag but the file's structure (argument-mining markup such as <claim>, <premise>), removed when the file
# is not well-formed; the text is read with inline markup removed anyway
_INLINE_TAG = re.compile(rb"</?(?!(?:thread|title|source|OP|reply)[\s/>])[A-Za-z][^<>]*>")

DELTA_MARKS = ("∆", "Δ", "!delta", "&#8710;")
_LABELS = {"positive": True, "negative": False}


def has_delta(text: str) -> bool:
    lowered = text.lower()
    return any(mark.lower() in lowered for mark in DELTA_MARKS)


def _files(paths: Iterable[str | Path]) -> Iterator[Path]:
    for p in map(Path, paths):
        if p.is_dir():
            subdirs = [p / name for name in _LABELS if (p / name).is_dir()]
            for folder in subdirs or [p]:
                yield from sorted(folder.glob("*.xml"), key=lambda f: (len(f.stem), f.stem))
        elif p.exists():
            yield p
        else:
            raise InputError(p, "file not found")


def parse_exchange(path: Path) -> dict[str, Any]:
    """One exchange file as a plain record: thread id, title, url, OP, replies, label.

    Some released files carry argument-mining markup inside the text (``<claim>``, ``<premise>``, ...),
    not always well nested. Text is taken with all inline markup removed, and a file that is not
    well-formed is read with lxml's recovering parser, with a warning and ``recovered`` in the record.
    """
    from lxml import etree  # on first use: commands that read no XML never load it

    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(path, f"cannot read: {exc.strerror}") from None
    if b"<!ENTITY" in data:  # no released file declares entities; expanding them is how XML bombs work
        raise InputError(
            path, "declares XML entities (<!ENTITY>): refused", line=data[: data.index(b"<!ENTITY")].count(b"\n") + 1
        )
    recovered = None
    try:
        root = etree.fromstring(data)
    except etree.XMLSyntaxError as exc:
        if data.strip() and not data.rstrip().endswith(b"</thread>"):  # every released file ends with it
            raise InputError(
                path, f"truncated file: it ends before </thread> ({exc.msg})", line=data.count(b"\n") + 1
            ) from None
        recovered = f"line {exc.lineno}: {exc.msg}"
        try:  # mis-nested inline markup is the usual cause: without it the structure is intact
            root = etree.fromstring(_INLINE_TAG.sub(b"", data))
        except etree.XMLSyntaxError:
            try:
                root = etree.fromstring(data, parser=etree.XMLParser(recover=True, resolve_entities=False))
            except etree.XMLSyntaxError:  # nothing to recover (an empty or all-zero file)
                root = None
            if root is None:
                raise InputError(path, f"malformed XML: {exc.msg}", line=exc.lineno) from None
        found, written = len(root.findall("reply")), len(re.findall(rb"<reply[\s>]", data))
        if found != written:
            raise InputError(
                path,
                f"malformed XML ({recovered}); recovering it would lose {written - found} of {written} replies",
                line=exc.lineno,
            ) from None
        warnings.warn(f"{path}: malformed XML recovered ({recovered})", stacklevel=2)
    if root.tag != "thread" or not root.get("ID"):
        raise InputError(path, "expected a <thread ID=...> element")
    op = root.find("OP")
    if op is None:
        raise InputError(path, "missing <OP> element", record=root.get("ID"))
    replies = []
    for i, reply in enumerate(root.findall("reply")):
        if not reply.get("id"):
            raise InputError(path, "a <reply> without an id attribute", record=f"reply {i}")
        replies.append({"id": reply.get("id"), "author": reply.get("author"), "text": _text(reply)})
    label = _LABELS.get(path.parent.name)
    return {
        "thread_id": root.get("ID"),
        "title": (root.findtext("title") or "").strip(),
        "url": (root.findtext("source") or "").strip(),
        "op_author": op.get("author"),
        "op_text": _text(op),
        "replies": replies,
        "delta": label,
        "file": f"{path.parent.name}/{path.name}",
        "recovered": recovered,
    }


def _recovered(exchanges: list[dict[str, Any]]) -> dict[str, str]:
    """Files of the thread read by the recovering parser, with the problem found in each."""
    return {e["file"]: e["recovered"] for e in exchanges if e["recovered"]}


def _text(element: Any) -> str:
    return "".join(element.itertext()).strip()


def read_cmv(*paths: str | Path, policy: IntegrityPolicy = "repair") -> Iterator[Thread]:
    """Threads grouped by thread ID from files or folders (a folder with ``positive/`` and ``negative/``
    subfolders, either subfolder, or single files; the label comes from the parent folder's name)."""
    grouped: dict[str, list[dict[str, Any]]] = {}
    for path in _files(paths):
        record = parse_exchange(path)
        grouped.setdefault(record["thread_id"], []).append(record)
    for thread_id, exchanges in grouped.items():
        first = exchanges[0]
        op_id = f"op-{thread_id}"
        nodes = [
            Node(
                id=op_id,
                author=first["op_author"],
                text=f"{first['title']}\n\n{first['op_text']}".strip(),
                meta={"role": "op"},
            )
        ]
        repairs: dict[str, int] = {}
        seen: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {}  # reply id -> (reply, its exchange)
        for exchange in exchanges:
            if exchange["title"] != first["title"]:
                record_repair(
                    repairs,
                    "exchanges with another title (the first file's kept)",
                    f"{exchange['file']}: thread {thread_id} has another title than in {first['file']}; the first kept",
                )
            if not exchange["replies"]:  # a label with no reply to carry it: said, counted, not kept
                record_repair(
                    repairs,
                    "exchanges without replies (label dropped)",
                    f"{exchange['file']}: exchange without any reply; its label cannot be kept",
                )
            parent = op_id
            op_replies = [r["text"] for r in exchange["replies"] if r["author"] == exchange["op_author"]]
            for position, reply in enumerate(exchange["replies"]):
                if reply["id"] in seen:
                    _check_again(reply, position, exchange, *seen[reply["id"]], repairs)
                else:
                    meta: dict[str, Any] = {"file": exchange["file"]}
                    if exchange["recovered"]:
                        meta["recovered_xml"] = exchange["recovered"]
                    if position == 0:
                        meta |= {
                            "delta": exchange["delta"],
                            "op_delta_in_text": any(map(has_delta, op_replies)),
                        }
                    nodes.append(
                        Node(
                            id=reply["id"],
                            parent_id=parent,
                            author=reply["author"],
                            text=reply["text"],
                            meta=meta,
                        )
                    )
                    seen[reply["id"]] = (reply | {"position": position}, exchange)
                parent = reply["id"]
        yield Thread.build(
            nodes,
            id=f"cmv:{thread_id}",
            platform="reddit_cmv",
            title=first["title"],
            root_id=op_id,
            meta={
                "source": "cmv",
                "url": first["url"],
                "exchanges": len(exchanges),
                "files": [e["file"] for e in exchanges],
            }
            | ({"recovered_xml": recovered} if (recovered := _recovered(exchanges)) else {})
            | ({REPAIRS_KEY: repairs} if repairs else {}),
            policy=policy,
        )


def _check_again(
    reply: dict[str, Any],
    position: int,
    exchange: dict[str, Any],
    kept: dict[str, Any],
    kept_in: dict[str, Any],
    repairs: dict[str, int],
) -> None:
    """A reply id met again in another exchange file: the same reply (files of one thread overlap), a label
    that contradicts the first one (refused, as ``cmv-pairs`` refuses its own), or another reply under the same
    id (the first kept, said and counted)."""
    if position == 0 and kept["position"] == 0 and exchange["delta"] != kept_in["delta"]:
        labels = {True: "delta (positive/)", False: "no delta (negative/)"}
        raise InputError(
            exchange["file"],
            f"reply {reply['id']} opens an exchange labelled {labels[exchange['delta']]} here and "
            f"{labels[kept_in['delta']]} in {kept_in['file']}: conflicting labels, refusing",
        )
    if (reply["author"], _letters(reply["text"])) != (kept["author"], _letters(kept["text"])):
        record_repair(
            repairs,
            "replies sharing an id with another reply (the first kept)",
            f"{exchange['file']}: reply {reply['id']} differs from the reply with that id in {kept_in['file']}; "
            "the first kept",
        )


def _letters(text: str) -> str:
    """Text without whitespace: copies of one reply differ in spacing where inline markup was removed."""
    return re.sub(r"\s+", "", text)


IMPORTER = Importer(
    "cmv",
    "ChangeMyView delta-labelled exchanges (XML files; folders positive/ and negative/ give the label).",
    lambda paths, _o, _c: read_cmv(*paths),
)
