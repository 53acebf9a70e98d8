"""Provider prompt caches (Anthropic's cache marks, OpenAI's and vLLM's prefix caches) pay off only when the part of
a prompt that items share is byte-identical and marked as such. `cached_prefix` splits a prompt into that shared
block, carrying inspect's explicit cache boundary (``ContentText(cache_breakpoint=True)``: on Anthropic it replaces
the automatic mark at the end of the prompt, which would write a cache entry per item and never read one), and the
item's own block after it.

The split never changes the text: the two blocks concatenated are the prompt. It is sent only to providers that
honour the mark (`honours_cache_marks`: Anthropic). Everywhere else the prompt stays one string: OpenAI's and
vLLM's prefix caches need no mark (the shared prefix is already byte-identical), and some OpenAI-compatible servers
(llama-cpp-python's) read only part of a prompt given as several text parts.
"""

from __future__ import annotations

from inspect_ai.model import Content, ContentText, Model

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
