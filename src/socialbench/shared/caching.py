"""Provider prompt caches (Anthropic's cache marks, OpenAI's and vLLM's prefix caches) pay off only when the part of
a prompt that items share is byte-identical and marked as such. `cached_prefix` splits a prompt into that shared
block, carrying inspect's explicit cache boundary (``ContentText(cache_breakpoint=True)``: on Anthropic it replaces
the automatic mark at the end of the prompt, which would write a cache entry per item and never read one), and the
item's own block after it.

The split never changes the text: the two blocks concatenated are the prompt. It is sent only to providers that
honour the mark (`honours_cache_marks`: Anthropic). Everywhere else the prompt stays one string: OpenAI's and
vLLM's prefix caches need no mark (the shared prefix is already byte-identical), and some OpenAI-compatible servers
(llama-cpp-python's) read only part of a prompt given as several text parts.

A cache is read only by a request that arrives after the request that wrote it has been answered. Under
concurrency inspect would send an episode's items together, so each would write its own entry. `PrefixGate` holds
back the other items of a prefix group until the first has been answered, while different groups run side by side,
and `first_of_each_group` orders a dataset so that the groups' first items start first (the held-back items then do
not fill the sample slots). With one connection (the embedded model) nothing is held back or reordered: items run
in episode order, which is what llama.cpp's own prefix cache needs.
"""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator, Callable, Hashable, Sequence
from contextlib import asynccontextmanager
from typing import Literal, TypeVar

import anyio
from inspect_ai.model import Content, ContentText, Model
from inspect_ai.model._generate_config import active_generate_config

T = TypeVar("T")
Turn = Literal["first", "after first", "alone"]

MARKING_PROVIDERS = frozenset({"anthropic"})
"""Providers whose prompt cache needs (and honours) an explicit mark on the shared block."""


def honours_cache_marks(model: Model) -> bool:
    return str(model).split("/", 1)[0] in MARKING_PROVIDERS


def cached_prefix(prompt: str, item_start: str) -> str | list[Content]:
    """``prompt`` as [shared prefix (cache boundary), item part], split where the item's own text ``item_start``
    last begins (after the shared part); the prompt unchanged when it is not found or either part would be empty."""
    at = prompt.rfind(item_start)
    if at <= 0:
        return prompt
    return [ContentText(text=prompt[:at], cache_breakpoint=True), ContentText(text=prompt[at:])]


def layout(model: Model, prompt: str, item_start: str) -> str | list[Content]:
    """The prompt as the model should receive it: two blocks with the cache mark where the provider honours it,
    else one string (the same text)."""
    return cached_prefix(prompt, item_start) if honours_cache_marks(model) else prompt


def shared_part(prompt: str, item_start: str) -> str | None:
    """The part of ``prompt`` before the item's own text (where ``item_start`` last begins), or None."""
    at = prompt.rfind(item_start)
    return prompt[:at] if at > 0 else None


def connections(model: Model) -> int:
    """How many requests inspect may have in flight to this model: ``--max-connections`` (the eval's or the
    model's) if given, else the provider's default (1 for the embedded model)."""
    config = model.config.merge(active_generate_config())  # composed as inspect does: the eval's config wins
    return config.max_connections or model.api.max_connections()


def active_connections() -> int:
    """Connections of the model a task is being created for (inspect makes it the active model before it calls the
    task function); 1 when there is none (a task built outside an eval)."""
    from inspect_ai.model import get_model

    try:
        return connections(get_model())
    except Exception:  # no active model and no default one: inspect raises its own error types here
        return 1


def first_of_each_group(items: Sequence[T], group: Callable[[T], Hashable], window: int) -> list[T]:
    """Items kept in their order within each group, with each group's first item moved ``window`` groups ahead of
    the group's other items: the first ``window`` groups' first items come first, then each group's other items
    followed by the first item of the group ``window`` places later. Under ``window`` connections the first
    items of the next groups are answered while the current group's other items run, and no group's other items
    wait long after its first (provider caches expire after minutes). ``window <= 1`` keeps the order."""
    if window <= 1:
        return list(items)
    groups: dict[Hashable, list[T]] = {}
    for item in items:
        groups.setdefault(group(item), []).append(item)
    runs = list(groups.values())
    ordered = [run[0] for run in runs[:window]]
    for n, run in enumerate(runs):
        ordered += run[1:]
        if n + window < len(runs):
            ordered.append(runs[n + window][0])
    return ordered


class PrefixGate:
    """Holds back the requests of a prefix group (prompts sharing the same text before the item's own part, for
    the same model) until the group's first request has been answered, so that they read the cache it wrote.
    Whichever item of a group arrives first goes first, so the gate holds under any concurrency, sample order
    and ``--resume`` (items already done in an earlier run are simply not among the arrivals). A first request
    that fails releases its group too. One gate per task: its groups live as long as the task."""

    def __init__(self) -> None:
        self._answered: dict[tuple[str, str], anyio.Event] = {}

    @asynccontextmanager
    async def turn(self, model: Model, prompt: str, item_start: str) -> AsyncIterator[Turn]:
        shared = shared_part(prompt, item_start)
        if shared is None or connections(model) <= 1:
            yield "alone"
            return
        key = (str(model), hashlib.sha256(shared.encode()).hexdigest())
        answered = self._answered.get(key)
        if answered is None:
            answered = self._answered[key] = anyio.Event()
            try:
                yield "first"
            finally:
                answered.set()
        else:
            await answered.wait()
            yield "after first"
