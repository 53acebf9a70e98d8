"""Reddit threads as the API returns them: the `/comments/<id>.json` answer plus any `/api/morechildren` and
"continue this thread" answers. The record readers here are shared with the dump importer (`pushshift`)."""

from __future__ import annotations

import html
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ...core.errors import InputError
from ..model import IntegrityPolicy, Node, Thread
from ._common import REPAIRS_KEY, load_json, record_repair, require, scalars
from .importer import Importer

_DELETED = {"[deleted]", "[removed]"}


def _strip_prefix(fullname: str) -> str:
    """``t1_abc`` / ``t3_abc`` -> ``abc``."""
    return fullname.split("_", 1)[1] if fullname[:1] == "t" and "_" in fullname else fullname


def _comment_node(data: dict[str, Any], path: Path, where: dict[str, Any]) -> Node:
    cid = require(data, "id", str, path, **where)
    parent = require(data, "parent_id", str, path, record=cid)
    body = data.get("body")
    if body is not None and not isinstance(body, str):
        raise InputError(path, f"field 'body' should be str, got {type(body).__name__}", record=cid)
    author = data.get("author")
    text = html.unescape(body or "")
    created = data.get("created_utc")
    if isinstance(created, str) and not created.strip().replace(".", "", 1).isdigit():
        raise InputError(path, f"field 'created_utc' is not a timestamp: {created!r}", record=cid)
    return Node(
        id=_strip_prefix(cid),  # a fullname (t1_abc) and a bare id (abc) are one comment
        parent_id=_strip_prefix(parent),
        author=None if author in _DELETED else author,
        created=created,
        text="" if text in _DELETED else text,
        score=data.get("score"),
        deleted=text == "[deleted]" or author == "[deleted]",
        removed=text == "[removed]",
        meta=scalars(data, ("subreddit", "distinguished", "edited"), skip=(None, False)),
    )


def post_title(data: dict[str, Any]) -> str | None:
    """The submission's title; the API and the dumps escape ``&``, ``<`` and ``>`` in titles as HTML entities."""
    title = data.get("title")
    return html.unescape(title) if isinstance(title, str) else None


def _post_node(data: dict[str, Any], path: Path, where: dict[str, Any]) -> Node:
    pid = require(data, "id", str, path, **where)
    title = post_title(data) or ""
    body = html.unescape(data.get("selftext") or "")
    author = data.get("author")
    return Node(
        id=_strip_prefix(pid),
        parent_id=None,
        author=None if author in _DELETED else author,
        created=data.get("created_utc"),
        text="\n\n".join(part for part in (title, "" if body in _DELETED else body) if part),
        score=data.get("score"),
        deleted=author == "[deleted]" or body == "[deleted]",
        removed=body == "[removed]",
        meta=scalars(data, ("subreddit", "url", "permalink", "num_comments")),
    )


def _gap(data: dict[str, Any], path: Path) -> dict[str, Any]:
    children = data.get("children", [])
    count = data.get("count", 0)
    if isinstance(count, bool) or not isinstance(count, int | str) or not str(count).strip().isdigit():
        raise InputError(path, f"a 'more' stub's count should be a whole number, got {count!r}", record=data.get("id"))
    return {
        "parent_id": _strip_prefix(str(data.get("parent_id", ""))),
        "count": int(count),
        "children": [_strip_prefix(c) if isinstance(c, str) else c for c in children]
        if isinstance(children, list)
        else [],
    }


def _add(node: Node, nodes: list[Node], known: dict[str, Node], path: Path, repairs: dict[str, int]) -> None:
    """Keep a comment the first time its id is met; a second copy that differs is said and counted."""
    kept = known.get(node.id)
    if kept is None:
        nodes.append(node)
        known[node.id] = node
    elif (kept.parent_id, kept.author, kept.text) != (node.parent_id, node.author, node.text):
        record_repair(
            repairs,
            "comments given twice with different content (the first kept)",
            f"{path}: comment {node.id} differs from the copy read first; the first kept",
        )


def _walk(
    listing: list[Any],
    path: Path,
    nodes: list[Node],
    gaps: list[dict[str, Any]],
    known: dict[str, Node],
    repairs: dict[str, int],
) -> None:
    """Add the comments of a (nested) comment listing; `more` stubs become gaps. Iterative: depth is unbounded."""
    stack: list[Any] = list(reversed(listing))
    while stack:
        thing = stack.pop()
        if not isinstance(thing, dict):
            raise InputError(path, f"a listing child should be an object, got {type(thing).__name__}")
        kind, data = thing.get("kind"), thing.get("data")
        if not isinstance(data, dict):
            raise InputError(path, f"a {kind!r} thing without a data object")
        if kind == "more":
            gaps.append(_gap(data, path))
            continue
        if kind != "t1":
            raise InputError(path, f"unexpected thing kind {kind!r}", record=str(data.get("id")))
        _add(_comment_node(data, path, {"record": str(data.get("id"))}), nodes, known, path, repairs)
        replies = data.get("replies")
        if isinstance(replies, dict):
            stack.extend(reversed(replies.get("data", {}).get("children", [])))


def _two_listings(doc: Any) -> bool:
    return isinstance(doc, list) and len(doc) == 2 and all(isinstance(x, dict) for x in doc)


def _listing_parts(doc: Any, path: Path) -> tuple[dict[str, Any], list[Any]]:
    try:
        post = doc[0]["data"]["children"][0]
        comments = doc[1]["data"]["children"]
    except (KeyError, IndexError, TypeError):
        raise InputError(path, "not a Reddit thread: missing data.children in the Listings") from None
    if not isinstance(post, dict) or post.get("kind") != "t3" or not isinstance(post.get("data"), dict):
        kind = post.get("kind") if isinstance(post, dict) else type(post).__name__
        raise InputError(path, f"first Listing should hold a t3 post, got {kind!r}")
    if not isinstance(comments, list):
        raise InputError(path, "the comment Listing's children should be a list")
    return post, comments


def _answer_files(paths: Iterable[str | Path]) -> list[Path]:
    files: list[Path] = []
    for p in map(Path, paths):
        files += sorted(p.glob("*.json")) if p.is_dir() else [p]
    return files


def read_thread_json(
    path: str | Path,
    morechildren: Iterable[str | Path] = (),
    *,
    policy: IntegrityPolicy = "repair",
    all_expanded: bool = False,
) -> Iterator[Thread]:
    """One thread from the Reddit API's answers: the `/comments/<id>` answer, plus any number of
    `/api/morechildren` answers and "continue this thread" answers (`/comments/<id>/_/<comment>`, a listing
    rooted at a deep comment), given as files or folders in any order (``path`` may be a folder of them all).

    `more` stubs are not dropped: each becomes a *gap* in ``thread.meta["gaps"]`` (parent id, count of hidden
    comments, their ids) and ``thread.meta["missing_comments"]`` totals them; comments supplied by the other
    answers fill the gaps. With ``all_expanded`` (the caller requested every `more` stub) a listed comment that
    no answer returned no longer exists: it is counted in ``unavailable_comments``, not left as a gap.
    """
    answers = [(f, load_json(f)) for f in _answer_files([path, *morechildren])]
    listings = [(f, doc) for f, doc in answers if _two_listings(doc)]
    if not listings:
        raise InputError(path, "expected a two-Listing array [post listing, comment listing] among the answers")
    parts = [(f, *_listing_parts(doc, f)) for f, doc in listings]
    # the thread's own answer: its top-level comments reply to the post (a continuation's reply to a comment)
    main = next(
        (x for x in parts if all(str(c.get("data", {}).get("parent_id", "")).startswith("t3_") for c in x[2])),
        parts[0],
    )
    main_path, post, comments = main
    root = _post_node(post["data"], main_path, {"record": "post"})
    nodes: list[Node] = [root]
    known = {root.id: root}
    gaps: list[dict[str, Any]] = []
    repairs: dict[str, int] = {}
    _walk(comments, main_path, nodes, gaps, known, repairs)
    from_main = len(nodes)
    for f, other_post, other_comments in parts:
        if f == main_path:
            continue
        if other_post["data"].get("id") != root.id:
            raise InputError(f, f"answer for thread {other_post['data'].get('id')!r}, not {root.id!r}")
        _walk(other_comments, f, nodes, gaps, known, repairs)
    for extra, answer in answers:
        if _two_listings(answer):
            continue
        try:
            things = answer["json"]["data"]["things"]
        except (KeyError, TypeError):
            raise InputError(extra, "not a morechildren answer: missing json.data.things") from None
        if not isinstance(things, list):
            raise InputError(extra, "json.data.things should be a list")
        for i, thing in enumerate(things):
            data = thing.get("data", {}) if isinstance(thing, dict) else None
            if not isinstance(data, dict):
                raise InputError(extra, "a thing without a data object", record=str(i))
            if thing.get("kind") == "more":
                gaps.append(_gap(data, extra))
                continue
            link = _strip_prefix(str(data.get("link_id", "")))
            if link != root.id:
                raise InputError(extra, f"comment belongs to thread {link!r}, not {root.id!r}", record=str(i))
            _add(_comment_node(data, extra, {"record": str(i)}), nodes, known, extra, repairs)
    # A gap is filled when the other answers supplied the comments it listed. The API leaves out listed comments
    # that no longer exist (deleted), so a gap some of whose comments arrived counts as expanded and its
    # never-returned ids as unavailable. "Continue this thread" stubs list and count none: they stay as gaps
    # until a continuation answer supplies replies under their parent.
    unavailable = 0
    gaps = list({(g["parent_id"], tuple(g["children"])): g for g in gaps}.values())  # a stub read twice is one gap
    continued = {n.parent_id for n in nodes[from_main:]}  # parents whose replies came from the other answers
    open_gaps = []
    for gap in gaps:
        listed = gap["children"]
        remaining = [c for c in listed if c not in known]
        if not listed:  # a "continue this thread" stub
            if gap["parent_id"] not in continued:
                open_gaps.append(gap)
        elif len(remaining) < len(listed) or all_expanded:
            # expanded (some of its comments arrived, or the caller requested every stub): what did not come
            # back no longer exists
            unavailable += len(remaining)
        else:
            open_gaps.append(gap)
    gaps = open_gaps

    missing = sum(g["count"] for g in gaps)
    yield Thread.build(
        nodes,
        id=f"reddit:{root.id}",
        platform="reddit",
        title=post_title(post["data"]),
        root_id=root.id,
        meta={
            "source": "reddit-json",
            "subreddit": post["data"].get("subreddit"),
            "gaps": gaps,
            "missing_comments": missing,
            "unavailable_comments": unavailable,
        }
        | ({REPAIRS_KEY: repairs} if repairs else {}),
        policy=policy,
    )


class RedditOptions(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    morechildren: tuple[str, ...] = Field((), description="/api/morechildren answers that fill gaps (files).")
    all_expanded: bool = Field(
        False,
        description="every `more` stub was requested, so listed comments that never came back no longer exist "
        "(counted as unavailable, not as gaps).",
    )


IMPORTER = Importer(
    "reddit-json",
    "One Reddit thread from the API's answers: /comments/<id>.json plus /api/morechildren and 'continue this "
    "thread' answers (files or a folder of them).",
    lambda paths, o, _c: read_thread_json(paths[0], [*paths[1:], *o.morechildren], all_expanded=o.all_expanded),
    options=RedditOptions,
    inputs=("morechildren",),
)
