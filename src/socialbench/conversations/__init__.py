"""Conversations: the reply-tree / dialogue model, importers, rendering, token counts and statistics."""

from .model import Dialogue, Episode, Node, Thread, ThreadIntegrityError, ThreadIntegrityWarning, Turn
from .render import render, render_dialogue, render_thread, short_ids
from .store import read_episodes, write_episodes

__all__ = [
    "Dialogue",
    "Episode",
    "Node",
    "Thread",
    "ThreadIntegrityError",
    "ThreadIntegrityWarning",
    "Turn",
    "read_episodes",
    "render",
    "render_dialogue",
    "render_thread",
    "short_ids",
    "write_episodes",
]
