"""The conversation model: reply trees (`Thread`) and ordered dyadic chats (`Dialogue`).

A `Thread` is immutable once built. `Thread.build` is the only way integrity problems get in or out: it
either repairs them and says so (``policy="repair"``, the default for importers of messy real dumps) or
refuses with a `ThreadIntegrityError` (``policy="strict"``). Every repair is recorded in
``thread.repairs`` and emitted as a `ThreadIntegrityWarning`, so nothing is changed silently.
"""

from __future__ import annotations

import json
import re
import warnings
from collections import Counter
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from functools import cached_property
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, field_validator

IntegrityPolicy = Literal["repair", "strict"]
Order = Literal["thread", "time"]

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


class ThreadIntegrityError(ValueError):
    """A thread's nodes do not form one rooted tree and the policy is ``strict``."""


class ThreadIntegrityWarning(UserWarning):
    """A thread was repaired while being built (see ``Thread.repairs``)."""


def utc(value: datetime | int | float | str | None) -> datetime | None:
    """Normalise an epoch number, ISO string or datetime to an aware UTC datetime."""
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise ValueError(f"expected a time (epoch seconds or ISO text), got {type(value).__name__}")
    if isinstance(value, int | float):
        return _from_epoch(float(value), value)
    text = value.strip()
    try:
        number = float(text)
    except ValueError:
        number = None
    if number is not None:
        return _from_epoch(number, value)
    parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return utc(parsed)


def _from_epoch(seconds: float, raw: object) -> datetime:
    try:
        return datetime.fromtimestamp(seconds, tz=UTC)
    except (OverflowError, OSError, ValueError):  # 1e20, inf, nan: not a time any thread was written at
        raise ValueError(f"timestamp {raw!r} is out of range") from None


# Epoch numbers, ISO strings and naive datetimes are all read as UTC.
UTCTime = Annotated[datetime | None, BeforeValidator(utc)]


class Node(BaseModel):
    """One post or comment of a reply tree."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    parent_id: str | None = None
    author: str | None = None
    created: UTCTime = None
    text: str = ""
    score: int | None = None
    deleted: bool = False
    """The author deleted it, or a moderator removed it; the node is kept so the tree stays whole."""
    removed: bool = False
    """Removed by a moderator or marked dead, as opposed to deleted by its author."""
    meta: dict[str, Any] = Field(default_factory=dict)
    """Source metadata (platform ids, title, url, post type, ...)."""

    @field_validator("id", "parent_id", "author", "text")
    @classmethod
    def _encodable(cls, value: str | None) -> str | None:
        return encodable(value)

    @classmethod
    def trusted(
        cls,
        *,
        id: str,
        parent_id: str | None,
        author: str | None,
        created: datetime | None,
        text: str,
        score: int | None,
        deleted: bool,
        removed: bool,
        meta: dict[str, Any],
    ) -> Node:
        """A node from values already checked against this model's types and rules (an aware UTC ``created``, text
        that is valid Unicode, a flat ``meta`` of plain values), without validating them again: a dump importer
        builds millions of nodes, and validation would cost more than everything else it does per comment.
        Pydantic's own `model_construct` does the same, three times slower. Only for importers whose tests compare
        the result with the validated node (`tests/test_dumps.py`)."""
        node = cls.__new__(cls)
        values: dict[str, Any] = {
            "id": id,
            "parent_id": parent_id,
            "author": author,
            "created": created,
            "text": text,
            "score": score,
            "deleted": deleted,
            "removed": removed,
            "meta": meta,
        }
        _set(node, "__dict__", values)
        _set(node, "__pydantic_fields_set__", set(_NODE_FIELDS))
        _set(node, "__pydantic_extra__", None)
        _set(node, "__pydantic_private__", None)
        return node

    @field_validator("meta")
    @classmethod
    def _meta_encodable(cls, value: dict[str, Any]) -> dict[str, Any]:
        return encodable_meta(value)


_NODE_FIELDS = tuple(Node.model_fields)
_set = object.__setattr__  # a frozen model's own __setattr__ refuses

_SURROGATE = re.compile("[\ud800-\udfff]")


def encodable(value: str | None) -> str | None:
    """A JSON escape such as ``\\udcff`` decodes to a lone surrogate, which no UTF-8 file can hold: refused here,
    where the importer can still say which record it came from, instead of failing when episodes are written."""
    if value is not None and _SURROGATE.search(value):
        raise ValueError("contains a lone surrogate (an invalid \\uXXXX escape): not valid Unicode text")
    return value


def encodable_meta(meta: dict[str, Any]) -> dict[str, Any]:
    try:
        encodable(json.dumps(meta, ensure_ascii=False, default=str))
    except (TypeError, ValueError, RecursionError) as exc:
        raise ValueError(f"metadata cannot be stored: {exc}") from None
    return meta


class Thread(BaseModel):
    """A reply tree: one root (the post) and comments that each reply to exactly one earlier node.

    Children are kept in time order (ties in source order), which defines *thread order*: a depth-first walk
    from the root. Queries are named after what a reader of a discussion asks for.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    platform: str
    """Source platform: ``hn``, ``reddit``, ``reddit_cmv``, ``stackexchange``, ``convokit``, ..."""
    title: str | None = None
    root_id: str
    nodes: tuple[Node, ...]
    meta: dict[str, Any] = Field(default_factory=dict)
    repairs: tuple[str, ...] = ()

    _encodable = field_validator("id", "title")(lambda cls, v: encodable(v))
    _meta_encodable = field_validator("meta")(lambda cls, v: encodable_meta(v))

    # ---- construction -------------------------------------------------------------------------------------
    @classmethod
    def build(
        cls,
        nodes: Iterable[Node],
        *,
        id: str,
        platform: str,
        title: str | None = None,
        root_id: str | None = None,
        meta: dict[str, Any] | None = None,
        policy: IntegrityPolicy = "repair",
    ) -> Thread:
        """Assemble and check a tree.

        Problems and the ``repair`` policy's answer to each:
        - duplicate id: the first occurrence is kept;
        - no root (no node without a parent, or ``root_id`` absent): a placeholder root is added
          (``deleted=True``, ``meta["placeholder"]=True``) and parentless nodes hang from it;
        - several parentless nodes: the extra ones are re-attached under the root;
        - orphan (parent id not in the thread): re-attached under the root, ``meta["orphan_of"]`` keeps
          the original parent id;
        - cycle: the cycle is cut by re-attaching its earliest node under the root.
        Under ``strict`` each of these raises `ThreadIntegrityError` naming the node.
        """
        repairs: list[str] = []

        def problem(message: str) -> None:
            if policy == "strict":
                raise ThreadIntegrityError(f"thread {id}: {message}")
            repairs.append(message)

        by_id: dict[str, Node] = {}
        for node in nodes:
            if node.id in by_id:
                problem(f"duplicate node id {node.id!r} (first occurrence kept)")
                continue
            by_id[node.id] = node

        parentless = [n for n in by_id.values() if n.parent_id is None]
        if root_id is None:
            root_id = parentless[0].id if parentless else f"{id}:root"
        if root_id not in by_id:
            problem(f"root {root_id!r} is missing (placeholder root added)")
            by_id = {root_id: Node(id=root_id, deleted=True, meta={"placeholder": True}), **by_id}
        elif by_id[root_id].parent_id is not None:
            problem(f"root {root_id!r} has parent {by_id[root_id].parent_id!r} (detached)")
            by_id[root_id] = by_id[root_id].model_copy(update={"parent_id": None})

        def reattach(node: Node, reason: str) -> None:
            meta = {**node.meta, "orphan_of": node.parent_id}
            by_id[node.id] = node.model_copy(update={"parent_id": root_id, "meta": meta})
            problem(f"node {node.id!r} {reason} (re-attached under the root)")

        for node in list(by_id.values()):
            if node.id == root_id:
                continue
            if node.parent_id is None:
                reattach(node, "has no parent but is not the root")
            elif node.parent_id not in by_id:
                reattach(node, f"replies to {node.parent_id!r}, which is not in the thread")
            elif node.parent_id == node.id:
                reattach(node, "replies to itself")

        # Cycles: every node must reach the root by following parents.
        reaches_root: set[str] = {root_id}
        for start in list(by_id):
            path: list[str] = []
            seen: set[str] = set()
            current: str | None = start
            while current is not None and current not in reaches_root and current not in seen:
                seen.add(current)
                path.append(current)
                current = by_id[current].parent_id
            if current is not None and current in seen:  # walked into a loop
                loop = path[path.index(current) :]
                earliest = min(loop, key=lambda nid: _sort_key(by_id[nid], 0))
                reattach(by_id[earliest], f"is part of a reply cycle {' -> '.join(loop)}")
            reaches_root.update(path)

        thread = cls(
            id=id,
            platform=platform,
            title=title,
            root_id=root_id,
            nodes=tuple(by_id.values()),
            meta=meta or {},
            repairs=tuple(repairs),
        )
        if repairs:
            warnings.warn(
                f"thread {id}: {len(repairs)} integrity repair(s); first: {repairs[0]}",
                ThreadIntegrityWarning,
                stacklevel=2,
            )
        return thread

    # ---- indexes ------------------------------------------------------------------------------------------
    @cached_property
    def _index(self) -> dict[str, Node]:
        return {n.id: n for n in self.nodes}

    @cached_property
    def _children(self) -> dict[str, list[Node]]:
        order = {n.id: i for i, n in enumerate(self.nodes)}
        kids: dict[str, list[Node]] = {n.id: [] for n in self.nodes}
        for n in self.nodes:
            if n.parent_id is not None:
                kids[n.parent_id].append(n)
        for siblings in kids.values():
            siblings.sort(key=lambda n: _sort_key(n, order[n.id]))
        return kids

    @cached_property
    def _depths(self) -> dict[str, int]:
        depths = {self.root_id: 0}
        for node in self._thread_order:
            if node.parent_id is not None:
                depths[node.id] = depths[node.parent_id] + 1
        return depths

    @cached_property
    def short_ids(self) -> dict[str, str]:
        """Node id -> short id ``c<position in thread order>``, as models see it (computed once; do not modify)."""
        return {node.id: f"c{i}" for i, node in enumerate(self._thread_order)}

    @cached_property
    def _thread_order(self) -> list[Node]:
        out: list[Node] = []
        stack = [self._index[self.root_id]]
        while stack:  # iterative: real threads are deeper than Python's recursion limit allows
            node = stack.pop()
            out.append(node)
            stack.extend(reversed(self._children[node.id]))
        return out

    # ---- queries ------------------------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.nodes)

    def __contains__(self, node_id: object) -> bool:
        return node_id in self._index

    @property
    def root(self) -> Node:
        return self._index[self.root_id]

    def node(self, node_id: str) -> Node:
        try:
            return self._index[node_id]
        except KeyError:
            raise KeyError(f"thread {self.id} has no node {node_id!r}") from None

    def parent(self, node_id: str) -> Node | None:
        pid = self.node(node_id).parent_id
        return None if pid is None else self._index[pid]

    def children(self, node_id: str) -> list[Node]:
        self.node(node_id)
        return list(self._children[node_id])

    def depth(self, node_id: str) -> int:
        """Distance from the root: the post is 0, its direct replies (root replies) are 1."""
        self.node(node_id)
        return self._depths[node_id]

    def path_to_root(self, node_id: str) -> list[Node]:
        """The node, its parent, ... up to and including the root."""
        path = [self.node(node_id)]
        while path[-1].parent_id is not None:
            path.append(self._index[path[-1].parent_id])
        return path

    def subtree(self, node_id: str) -> list[Node]:
        """The node and all its descendants, in thread order."""
        out: list[Node] = []
        stack = [self.node(node_id)]
        while stack:
            node = stack.pop()
            out.append(node)
            stack.extend(reversed(self._children[node.id]))
        return out

    def subthread(self, node_id: str) -> Thread:
        """The subtree as a Thread of its own, rooted at ``node_id``."""
        nodes = self.subtree(node_id)
        root = nodes[0].model_copy(update={"parent_id": None})
        return Thread(
            id=f"{self.id}/{node_id}",
            platform=self.platform,
            title=self.title,
            root_id=node_id,
            nodes=(root, *nodes[1:]),
            meta=self.meta,
        )

    def chain(self, start_id: str, end_id: str) -> list[Node]:
        """The reply chain from one node to another: up from ``start`` to their closest common ancestor,
        then down to ``end``. For an ancestor and its descendant this is the plain reply chain."""
        up = self.path_to_root(start_id)
        down = self.path_to_root(end_id)
        down_ids = {n.id for n in down}
        for i, node in enumerate(up):
            if node.id in down_ids:
                j = next(k for k, n in enumerate(down) if n.id == node.id)
                return up[: i + 1] + list(reversed(down[:j]))
        raise AssertionError("every node reaches the root")  # pragma: no cover - guaranteed by build()

    def is_ancestor(self, ancestor_id: str, node_id: str) -> bool:
        return any(n.id == ancestor_id for n in self.path_to_root(node_id)[1:])

    def by_author(self, author: str) -> list[Node]:
        """All comments by one author, in time order."""
        return [n for n in self.traverse("time") if n.author == author]

    def root_replies(self) -> list[Node]:
        return self.children(self.root_id)

    def branches(self) -> dict[str, list[Node]]:
        """Each root reply's subtree (a branch of the discussion), keyed by the root reply's id."""
        return {reply.id: self.subtree(reply.id) for reply in self.root_replies()}

    def branch_of(self, node_id: str) -> Node | None:
        """The root reply whose branch holds this node (None for the root)."""
        path = self.path_to_root(node_id)
        return path[-2] if len(path) >= 2 else None

    def traverse(self, order: Order = "thread") -> Iterator[Node]:
        """All nodes, root first: depth-first in thread order, or by creation time (ties in thread order)."""
        if order == "thread":
            yield from self._thread_order
        elif order == "time":
            ranked = list(enumerate(self._thread_order))
            ranked.sort(key=lambda pair: _sort_key(pair[1], pair[0]))
            yield from (n for _, n in ranked)
        else:
            raise ValueError(f"unknown order {order!r}; use 'thread' or 'time'")

    def participants(self) -> list[str]:
        """Distinct authors, in order of first appearance in time (deleted authors excluded)."""
        seen: dict[str, None] = {}
        for n in self.traverse("time"):
            if n.author:
                seen.setdefault(n.author, None)
        return list(seen)

    def max_depth(self) -> int:
        return max(self._depths.values())

    def depth_histogram(self) -> dict[int, int]:
        """Number of nodes at each depth (the root at depth 0 included)."""
        return dict(sorted(Counter(self._depths.values()).items()))


def _sort_key(node: Node, position: int) -> tuple[datetime, int]:
    return (node.created or _EPOCH, position)


class Turn(BaseModel):
    """One message of a dialogue."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    speaker: str
    """The speaker's label as written in the source (e.g. ``用户`` or ``对方``)."""
    role: str
    """Our side (``self``) or the other party (``other``); free-form for sources with more roles."""
    text: str
    created: UTCTime = None
    meta: dict[str, Any] = Field(default_factory=dict)

    _encodable = field_validator("speaker", "role", "text")(lambda cls, v: encodable(v))
    _meta_encodable = field_validator("meta")(lambda cls, v: encodable_meta(v))


class Dialogue(BaseModel):
    """An ordered chat between parties, e.g. an SI-Bench dyadic conversation."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    platform: str
    turns: tuple[Turn, ...]
    meta: dict[str, Any] = Field(default_factory=dict)

    _encodable = field_validator("id")(lambda cls, v: encodable(v))
    _meta_encodable = field_validator("meta")(lambda cls, v: encodable_meta(v))

    def __len__(self) -> int:
        return len(self.turns)

    def by_role(self, role: str) -> list[Turn]:
        return [t for t in self.turns if t.role == role]

    @property
    def last(self) -> Turn:
        return self.turns[-1]


Episode = Thread | Dialogue
