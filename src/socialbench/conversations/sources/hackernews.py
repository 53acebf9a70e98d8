"""Hacker News threads: Algolia `items/<id>` answers (nested) and Firebase `item/<id>.json` items (flat)."""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from ...core.errors import InputError
from ..model import IntegrityPolicy, Node, Thread, ThreadIntegrityWarning
from ._common import REPAIRS_KEY, html_to_text, iter_json_lines, load_json, record_repair, require, scalars
from .importer import Importer

_ROOT_TYPES = {"story", "poll", "job"}


def _files(paths: Iterable[str | Path], pattern: str) -> Iterator[Path]:
    for p in map(Path, paths):
        if p.is_dir():
            yield from sorted(p.glob(pattern))
        else:
            yield p


def read_algolia(*paths: str | Path, policy: IntegrityPolicy = "repair") -> Iterator[Thread]:
    """One Thread per Algolia item file (or folder of them). Deleted comments stay as deleted nodes."""
    for path in _files(paths, "*.json"):
        item = load_json(path)
        require(item, "id", int, path)
        require(item, "children", list, path, record=str(item["id"]))
        nodes: list[Node] = []
        stack: list[tuple[dict[str, Any], str | None]] = [(item, None)]
        while stack:
            raw, parent = stack.pop()
            record = str(raw.get("id")) if isinstance(raw, dict) else None
            nid = require(raw, "id", int, path, record=record)
            kids = require(raw, "children", list, path, record=str(nid))
            text = html_to_text(raw.get("text"))
            if raw.get("type") in _ROOT_TYPES and raw.get("title"):
                text = (raw["title"] + ("\n\n" + text if text else "")).strip()
            deleted = raw.get("author") is None and raw.get("text") is None
            nodes.append(
                Node(
                    id=str(nid),
                    parent_id=parent,
                    author=raw.get("author"),
                    created=raw.get("created_at_i", raw.get("created_at")),
                    text=text,
                    score=raw.get("points"),
                    deleted=deleted,
                    meta=scalars(raw, ("type", "url")),
                )
            )
            stack.extend((child, str(nid)) for child in reversed(kids))
        yield Thread.build(
            nodes,
            id=f"hn:{item['id']}",
            platform="hn",
            title=item.get("title"),
            root_id=str(item["id"]),
            meta={"source": "hn-algolia", "file": path.name, "url": item.get("url")},
            policy=policy,
        )


def read_firebase(*paths: str | Path, policy: IntegrityPolicy = "repair") -> Iterator[Thread]:
    """Threads rebuilt from Firebase items: a folder of `<id>.json` files and/or JSONL files of items.

    Items are linked through ``parent``; a story's ``kids`` give the source order. Items whose ancestor
    chain leaves the given items form a thread under their topmost known item, with a repair note.
    """
    items: dict[int, dict[str, Any]] = {}
    again: dict[int, int] = {}  # item id -> copies that differed from the first
    for path in _files(paths, "*.json*"):
        if path.suffix in {".jsonl", ".zst"} or path.name.endswith(".jsonl.zst"):
            records: Iterable[tuple[Path, int | None, Any]] = (
                (path, n, line.load()) for n, line in iter_json_lines(path)
            )
        else:
            records = [(path, None, load_json(path))]
        for src, lineno, raw in records:
            if raw is None:  # the API answers `null` for ids that never existed
                continue
            iid = require(raw, "id", int, src, line=lineno)
            if "parent" in raw and not isinstance(raw["parent"], int):
                raise InputError(
                    src,
                    f"field 'parent' should be int, got {type(raw['parent']).__name__}",
                    line=lineno,
                    record=str(iid),
                )
            time = raw.get("time")
            if time is not None and (isinstance(time, bool) or not isinstance(time, int)):
                raise InputError(
                    src,
                    f"field 'time' should be int (epoch seconds), got {type(time).__name__}",
                    line=lineno,
                    record=str(iid),
                )
            if iid in items:  # an identical copy is the same item; a different one is said and counted
                if _content(raw) != _content(items[iid]):
                    where = f"{src}:{lineno}" if lineno else str(src)
                    warnings.warn(
                        f"{where}: item {iid} given again with other content; the first copy is kept",
                        ThreadIntegrityWarning,
                        stacklevel=2,
                    )
                    again[iid] = again.get(iid, 0) + 1
                continue
            items[iid] = raw

    # An item that is its own parent, or part of a parent cycle, would start a thread of its own: link it where
    # another item lists it among its `kids` (the site's own record of the tree), noting the repair.
    listed_by = {kid: it for it, raw in items.items() for kid in (raw.get("kids") or []) if isinstance(kid, int)}
    relinked: dict[int, str] = {}
    top_of: dict[int, int] = {}  # each item's topmost known ancestor; every chain is walked once (linear time)
    for start in items:
        while start not in top_of:
            chain: list[int] = []
            on_chain: dict[int, int] = {}
            current = start
            while current not in top_of and current not in on_chain:
                on_chain[current] = len(chain)
                chain.append(current)
                parent = items[current].get("parent")
                if parent not in items:
                    top_of.update(dict.fromkeys(chain, current))
                    break
                current = parent
            else:
                if current in top_of:  # joined a chain already walked
                    top_of.update(dict.fromkeys(chain, top_of[current]))
                else:  # walked into a parent cycle: repair it, then walk again
                    _repair_cycle(chain[on_chain[current] :], items, listed_by, relinked)

    threads: dict[int, list[int]] = {}
    for iid in items:
        threads.setdefault(top_of[iid], []).append(iid)
    for root, members in sorted(threads.items()):
        # `kids` order is the site's order; list members so each parent's kids come in that order.
        rank = {kid: i for it in members for i, kid in enumerate(items[it].get("kids") or [])}
        members.sort(key=lambda i: (items[i].get("time") or 0, rank.get(i, 0)))
        nodes = []
        for iid in members:
            raw = items[iid]
            text = html_to_text(raw.get("text"))
            if raw.get("title"):
                text = (raw["title"] + ("\n\n" + text if text else "")).strip()
            parent = raw.get("parent")
            nodes.append(
                Node(
                    id=str(iid),
                    parent_id=None if iid == root else str(parent),
                    author=raw.get("by"),
                    created=raw.get("time"),
                    text=text,
                    score=raw.get("score"),
                    deleted=bool(raw.get("deleted")),
                    removed=bool(raw.get("dead")),
                    meta=scalars(raw, ("type", "url", "descendants")),
                )
            )
        root_raw = items[root]
        meta: dict[str, Any] = {"source": "hn-firebase", "url": root_raw.get("url")}
        if root_raw.get("type") not in _ROOT_TYPES:
            parent = root_raw.get("parent")
            meta["partial"] = (
                f"topmost item {root} is a {root_raw.get('type')} whose parent {parent} is not among the items given"
                if parent is not None
                else f"topmost item {root} is a {root_raw.get('type')} without a parent"
            )
        repairs: dict[str, int] = {}
        differing = sum(again.get(i, 0) for i in members)
        if differing:
            repairs["items given twice with different content (the first kept)"] = differing
        absent = [k for it in members for k in (items[it].get("kids") or []) if k not in items]
        if absent:
            record_repair(
                repairs,
                "replies listed in kids but not given (not in the thread)",
                f"thread hn:{root}: {len(absent)} replies listed in kids are not among the items given, "
                f"e.g. {absent[0]}",
                len(absent),
            )
        if repairs:
            meta[REPAIRS_KEY] = repairs
        notes = [note for it, note in relinked.items() if it in members]
        if notes:
            meta["relinked"] = notes
            warnings.warn(f"thread hn:{root}: {notes[0]}", ThreadIntegrityWarning, stacklevel=2)
        yield Thread.build(
            nodes,
            id=f"hn:{root}",
            platform="hn",
            title=root_raw.get("title"),
            root_id=str(root),
            meta=meta,
            policy=policy,
        )


def _content(raw: dict[str, Any]) -> tuple[Any, ...]:
    """What a reader sees of an item (not its score, kids or descendants, which grow between fetches)."""
    return tuple(raw.get(k) for k in ("by", "time", "text", "title", "parent", "deleted", "dead", "type"))


def _repair_cycle(
    loop: list[int], items: dict[int, dict[str, Any]], listed_by: dict[int, int], relinked: dict[int, str]
) -> None:
    """Break a parent cycle: link its first member (in parent order from its lowest id) that an item outside the
    cycle lists among its `kids` under that item; when none is, cut the cycle at its lowest id."""
    low = loop.index(min(loop))
    cycle = loop[low:] + loop[:low]
    for member in cycle:
        if listed_by.get(member) is not None and listed_by[member] not in cycle:
            items[member] = {**items[member], "parent": listed_by[member]}
            relinked[member] = f"parent cycle {cycle}: linked under {listed_by[member]}, which lists it as a kid"
            return
    items[cycle[0]] = {k: v for k, v in items[cycle[0]].items() if k != "parent"}
    relinked[cycle[0]] = f"parent cycle {cycle}: cut at {cycle[0]}"


IMPORTERS = (
    Importer(
        "hn-algolia",
        "Hacker News threads as Algolia's items/<id> API returns them (files or folders of *.json).",
        lambda paths, _o, _c: read_algolia(*paths),
    ),
    Importer(
        "hn-firebase",
        "Hacker News items from the Firebase API (item/<id>.json files or JSON lines), one thread per story.",
        lambda paths, _o, _c: read_firebase(*paths),
    ),
)
