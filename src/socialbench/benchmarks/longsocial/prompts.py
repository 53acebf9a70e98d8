"""Prompts of LongSocialBench workflows (paper Table 12). The episode comes first and the question last, so
items of one episode share the longest possible prompt prefix (KV-cache / prompt-cache reuse)."""

from __future__ import annotations

from collections.abc import Sequence

INTRO = (
    "You will read a complete online discussion, including its reply structure, and then answer one "
    "multiple-choice question about it."
)

FULL_INSTRUCTION = (
    "Locate the relevant evidence in the discussion, compare the four options, and answer with a single "
    "letter (A, B, C or D)."
)


def format_options(options: Sequence[str]) -> str:
    return "\n".join(f"{letter}. {text}" for letter, text in zip("ABCD", options, strict=True))


def full_prompt(discussion: str, stem: str, options: Sequence[str]) -> str:
    """Table 12, "Full": serialized discussion + reply structure + stem + four options, one-letter answer."""
    return f"{INTRO}\n\n{discussion}\nQuestion: {stem}\n{format_options(options)}\n\n{FULL_INSTRUCTION}\nAnswer:"
