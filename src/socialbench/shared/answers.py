"""Reading a model's answer letter: from generated text, or from next-token log-probabilities."""

from __future__ import annotations

import math
import random
import re
from collections.abc import Sequence

from inspect_ai.model import Logprob, ModelOutput, TopLogprob

# Ordered from most to least explicit. Each pattern captures one letter A-D.
_PATTERNS = [
    re.compile(r"^[\s*_`(\[]*([A-D])[\s*_`)\].:]*$"),  # "B", "(B)", "**B**", "B."
    re.compile(r"(?i)\b(?:final\s+)?answer\s*(?:is|:|：)?\s*(?:option\s*)?[*_`(\[]*([A-D])\b(?![a-z])"),
    re.compile(r"(?i)\boption\s+\(?([A-D])\)?\s+is\s+(?:correct|right|best)"),
    re.compile(r"^[\s*_`(\[]*([A-D])[)\].:][\s\S]*"),  # "B) because ...", "(B) ..."
]


def shuffle_options(options: Sequence[str], gold: int, key: str, seed: int | None) -> tuple[list[str], int, list[int]]:
    """Options in a seeded order, stable per item ``key`` (``seed=None`` keeps the given order), the gold option's
    index in that order, and the permutation (``shown[i] = options[order[i]]``)."""
    order = list(range(len(options)))
    if seed is not None:
        random.Random(f"{seed}:{key}").shuffle(order)
    return [options[i] for i in order], order.index(gold), order


def extract_letter(text: str, letters: Sequence[str] = ("A", "B", "C", "D")) -> str | None:
    """The answer letter, or None when the text does not state one unambiguously."""
    stripped = text.strip()
    if not stripped:
        return None
    for i, pattern in enumerate(_PATTERNS):
        # for "answer is X" the last statement wins (models often restate after reasoning)
        matches = pattern.findall(stripped) if i == 1 else [m.group(1) for m in [pattern.match(stripped)] if m]
        found = [m.upper() for m in matches if m.upper() in letters]
        if found:
            return found[-1]
    return None


def letter_from_logprobs(output: ModelOutput, letters: Sequence[str] = ("A", "B", "C", "D")) -> str | None:
    """The letter with the highest next-token probability among the returned top log-probabilities
    (tokens " B", "B", "(B" count for B). None when no letter is among them."""
    choice = output.choices[0] if output.choices else None
    if choice is None or choice.logprobs is None or not choice.logprobs.content:
        return None
    first = choice.logprobs.content[0]
    candidates: list[TopLogprob | Logprob] = [*(first.top_logprobs or [])] or [first]
    best: dict[str, float] = {}
    for cand in candidates:
        token = cand.token.strip().lstrip("(*").upper()
        if token in letters:
            best[token] = max(best.get(token, -math.inf), cand.logprob)
    return max(best, key=lambda k: best[k]) if best else None
