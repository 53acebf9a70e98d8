"""The one model-facing serialization of an episode.

A thread is rendered as a header and one block per post. Every block names the post by a short id
(``c0`` is the root; the others are numbered in thread order, so the ids do not depend on the rendering
order), the id of the post it replies to, its depth, author and UTC time; then the text. Items refer to
posts by these short ids. See docs/rendering.md for an example.
"""

from __future__ import annotations

from typing import Literal

from .model import Dialogue, Episode, Node, Order, Thread

PLATFORM_NAMES = {
    "hn": "Hacker News",
    "reddit": "Reddit",
    "reddit_cmv": "Reddit r/ChangeMyView",
    "stackexchange": "Stack Exchange",
    "convokit": "ConvoKit corpus",
    "sibench": "SI-Bench chat",
}

Authors = Literal["show", "hide"]


def short_ids(thread: Thread) -> dict[str, str]:
    """Original node id -> short id (``c<position in thread order>``); the thread's own cached mapping (read it,
    never modify it)."""
    return thread.short_ids


def _stamp(node: Node) -> str:
    return node.created.strftime("%Y-%m-%d %H:%M UTC") if node.created else "time unknown"


def render_node(thread: Thread, node: Node, ids: dict[str, str], authors: Authors = "show") -> str:
    if node.parent_id is None:
        head = f"[{ids[node.id]}] root post"
    else:
        head = f"[{ids[node.id]}] reply to {ids[node.parent_id]} | depth {thread.depth(node.id)}"
    if authors == "show":
        head += f" | {node.author or '[deleted]'}"
    head += f" | {_stamp(node)}"
    if node.removed:
        body = "[removed]"
    elif node.deleted and not node.text:
        body = "[deleted]"
    else:
        body = node.text
    return f"{head}\n{body}"


def render_thread(
    thread: Thread,
    order: Order = "thread",
    *,
    nodes: list[Node] | None = None,
    authors: Authors = "show",
) -> str:
    """The whole thread (or the given subset of its nodes, kept in ``order``) as the model reads it."""
    ids = short_ids(thread)
    chosen = list(thread.traverse(order))
    if nodes is not None:
        keep = {n.id for n in nodes}
        chosen = [n for n in chosen if n.id in keep]
    platform = PLATFORM_NAMES.get(thread.platform, thread.platform)
    ordering = (
        "thread order (each reply follows the post it replies to; sibling replies in time order)"
        if order == "thread"
        else "time order (oldest first)"
    )
    header = [
        f"DISCUSSION {thread.id} ({platform})",
        f"Title: {thread.title}" if thread.title else None,
        f"{len(chosen)} posts shown of {len(thread)}, in {ordering}.",
        "Each post starts with [its id], the id of the post it replies to, its depth below the root post,"
        + (" its author," if authors == "show" else "")
        + " and its time.",
    ]
    blocks = [render_node(thread, n, ids, authors) for n in chosen]
    return "\n".join(h for h in header if h) + "\n\n" + "\n\n".join(blocks) + "\n"


def render_dialogue(dialogue: Dialogue, *, upto: int | None = None) -> str:
    """One line per message as ``speaker: text`` (continuation lines of a message follow it unchanged)."""
    turns = dialogue.turns[:upto] if upto is not None else dialogue.turns
    return "\n".join(f"{t.speaker}: {t.text}" for t in turns) + "\n"


def render(episode: Episode, order: Order = "thread") -> str:
    if isinstance(episode, Thread):
        return render_thread(episode, order)
    return render_dialogue(episode)
