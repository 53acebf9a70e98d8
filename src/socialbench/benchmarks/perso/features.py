"""The 14 surface linguistic features of PerSo's non-LLM behavioral baseline (§A.7).

The paper names the count (14) and says length drives them; it does not list them. These follow the surface
features of Tan et al. (2016), the study the pair data comes from, all computed on the persuader's root reply
(what the model sees), the same unit on both sides of a pair. No feature may encode how the pairs were built: an
earlier 14th feature counted the persuader's comments in the branch, which the single-turn rule fixes at one for
every delta reply (so it read the label); it is replaced by the count of numbers, a form of evidence.
"""

from __future__ import annotations

import re
import statistics

from .data import Branch

FEATURES = (
    "words",
    "characters",
    "sentences",
    "paragraphs",
    "words_per_sentence",
    "characters_per_word",
    "type_token_ratio",
    "links",
    "quotations",
    "questions",
    "exclamations",
    "first_person_rate",
    "second_person_rate",
    "numbers",
)
_WORD = re.compile(r"[A-Za-z0-9']+")
_SENTENCE_END = re.compile(r"[.!?]+(?:\s|$)")
_NUMBER = re.compile(r"(?<![\w.])\d[\d,.]*%?")
_LINK = re.compile(r"https?://|\]\(")
_FIRST = {"i", "me", "my", "mine", "myself", "we", "us", "our", "ours"}
_SECOND = {"you", "your", "yours", "yourself", "yourselves"}


def surface_features(branch: Branch) -> list[float]:
    """The 14 features, in the order of `FEATURES`."""
    text = branch.reply.text
    tokens = [w.lower() for w in _WORD.findall(text)]
    n = len(tokens)
    sentences = max(1, len(_SENTENCE_END.findall(text)))
    return [
        float(n),
        float(len(text)),
        float(sentences),
        float(len([p for p in re.split(r"\n\s*\n", text) if p.strip()])),
        n / sentences,
        statistics.fmean(len(t) for t in tokens) if tokens else 0.0,
        len(set(tokens)) / n if n else 0.0,
        float(len(_LINK.findall(text))),
        float(sum(1 for line in text.splitlines() if line.lstrip().startswith(">"))),
        float(text.count("?")),
        float(text.count("!")),
        sum(t in _FIRST for t in tokens) / n if n else 0.0,
        sum(t in _SECOND for t in tokens) / n if n else 0.0,
        float(len(_NUMBER.findall(text))),
    ]
