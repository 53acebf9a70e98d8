"""The "Winning Arguments" ChangeMyView pair file (Tan, Niculae, Danescu-Niculescu-Mizil and Lee, WWW 2016):
JSON lines (plain, .bz2, .gz) of ``op_author, op_name, op_title, op_text, positive{comments}, negative{comments}``.

Each original post becomes one Thread (all its pairs merged): the OP's post is the root and every reply path is a
branch. A path holds only the challenger's comments; the OP's replies between them are not in the file (their ids
appear only as ``parent_id``). Each such reply becomes a placeholder node (``meta["unavailable"]``, empty text,
the OP as author) so the tree stays true to the source: the challenger's second comment replies to an OP comment
we do not have. The first comment of each path records the label (``meta["delta"]``: True for the path that won
a delta), the path (``meta["path"]``: the challenger's comment ids) and, for a winning path, which comment won
(``meta["delta_comment"]``: the last one). The file's matched pairs are kept in ``thread.meta["pairs"]`` as
``[winning root reply id, other root reply id]``.
"""

from __future__ import annotations

import html
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ...core.errors import InputError
from ..model import IntegrityPolicy, Node, Thread
from ._common import REPAIRS_KEY, iter_json_lines, record_repair, require
from .importer import Importer
from .reddit import _comment_node, _strip_prefix

_SIDES = {"positive": True, "negative": False}
OP_REPLY_UNAVAILABLE = "the OP's reply is not in the pair file"


def _path_nodes(
    comments: list[Any], op_id: str, op_author: str | None, path: Path, where: dict[str, Any]
) -> list[Node]:
    """The challenger's comments of one path, linked through placeholder OP replies where the file skips them."""
    nodes: list[Node] = []
    previous: str | None = None
    for position, raw in enumerate(comments):
        if not isinstance(raw, dict):
            raise InputError(path, f"comment {position} is not an object", **where)
        node = _comment_node(raw, path, {**where, "record": f"{where['record']} comment {position}"})
        parent = node.parent_id
        if position == 0 and parent != op_id:
            raise InputError(path, f"the first comment {node.id} does not reply to the post {op_id}", **where)
        if position > 0 and parent != previous:
            nodes.append(
                Node(
                    id=str(parent),
                    parent_id=previous,
                    author=op_author,
                    meta={"unavailable": OP_REPLY_UNAVAILABLE, "role": "op"},
                )
            )
        nodes.append(node)
        previous = node.id
    return nodes


def read_cmv_pairs(*paths: str | Path, policy: IntegrityPolicy = "repair") -> Iterator[Thread]:
    """One Thread per original post, in order of first appearance, with all its pairs' paths as branches."""
    posts: dict[str, dict[str, Any]] = {}
    for p in map(Path, paths):
        for lineno, line in iter_json_lines(p):
            record = line.load()
            where: dict[str, Any] = {"line": lineno}
            if not isinstance(record, dict):
                raise InputError(p, "expected a pair object", **where)
            name = require(record, "op_name", str, p, **where)
            where["record"] = name
            op_id = _strip_prefix(name)
            post = posts.setdefault(
                op_id,
                {
                    "title": require(record, "op_title", str, p, **where),
                    "text": require(record, "op_text", str, p, **where),
                    "author": record.get("op_author"),
                    "nodes": {},
                    "pairs": [],
                    "file": str(p),
                    "repairs": {},
                },
            )
            roots: dict[bool, str] = {}
            for side, won in _SIDES.items():
                body = require(record, side, dict, p, **where)
                comments = require(body, "comments", list, p, **where)
                if not comments:
                    raise InputError(p, f"the {side} path has no comments", **where)
                nodes = _path_nodes(comments, op_id, post["author"], p, {**where, "record": f"{name} {side}"})
                first = nodes[0]
                path_ids = [n.id for n in nodes if "unavailable" not in n.meta]
                label: dict[str, Any] = {"delta": won, "path": path_ids, "pair_side": side}
                if won:
                    label["delta_comment"] = path_ids[-1]
                known = posts[op_id]["nodes"]
                if first.id in known and known[first.id].meta.get("delta") not in (None, won):
                    raise InputError(p, f"comment {first.id} is labelled both delta and no delta", **where)
                _keep(known, first.model_copy(update={"meta": {**first.meta, **label}}), post["repairs"], p, lineno)
                for node in nodes[1:]:
                    _keep(known, node, post["repairs"], p, lineno)
                roots[won] = first.id
            # kept as the file lists them: the released file lists 5 pairs twice, and the published statistics over
            # its 807 pairs count them so (the pair ids are the same, so a reader can tell)
            post["pairs"].append([roots[True], roots[False]])
    for op_id, post in posts.items():
        root = Node(
            id=op_id,
            author=post["author"],
            text=f"{post['title']}\n\n{html.unescape(post['text'])}".strip(),
            meta={"role": "op"},
        )
        yield Thread.build(
            [root, *post["nodes"].values()],
            id=f"cmv:{op_id}",
            platform="reddit_cmv",
            title=post["title"],
            root_id=op_id,
            meta={
                "source": "cmv-pairs",
                "url": f"https://www.reddit.com/r/changemyview/comments/{op_id}/",
                "pairs": post["pairs"],
                "file": post["file"],
            }
            | ({REPAIRS_KEY: post["repairs"]} if post["repairs"] else {}),
            policy=policy,
        )


def _keep(known: dict[str, Node], node: Node, repairs: dict[str, int], path: Path, lineno: int) -> None:
    """The first copy of a comment is kept; a later copy with another author or text is said and counted."""
    kept = known.setdefault(node.id, node)
    if (
        kept is not node
        and (kept.author, kept.text) != (node.author, node.text)
        and not ({"unavailable"} & (node.meta.keys() | kept.meta.keys()))
    ):
        record_repair(
            repairs,
            "comments given twice with different content (the first kept)",
            f"{path}:{lineno}: comment {node.id} differs from its first copy; the first kept",
        )


IMPORTER = Importer(
    "cmv-pairs",
    "The Winning Arguments pair file (*.jsonlist[.bz2]): one thread per post, its matched pairs in meta.",
    lambda paths, _o, _c: read_cmv_pairs(*paths),
)
