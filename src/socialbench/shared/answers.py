"""Reading a model's answer letter: from generated text, or from next-token log-probabilities."""

from __future__ import annotations

import math
import random
import re
from collections.abc import Mapping, Sequence

from inspect_ai.model import Logprob, ModelOutput, TopLogprob

# Where a letter is an answer, from most to least explicit. A letter is read only where it is an answer, never an
# English word: "The answer is a bit unclear" has no answer, "A and B are both plausible" neither. Why not a library:
# inspect's `answer()` scorer reads one fixed template ("ANSWER: X"); real outputs come in the shapes below.
_LONE = re.compile(r"^[\s*_`(\[]*([A-Da-d])[\s*_`)\].:]*$")  # the whole answer: "B", "(b)", "**B**", "B."
_STATED = re.compile(
    r"(?i)\b(?:final\s+answer|correct\s+(?:answer|option|choice)|answer|my\s+(?:choice|guess|pick|best\s+guess)"
    r"|i(?:\s+would|\s+will|'d|'ll)?\s+(?:choose|pick|select|go\s+with|guess|say))"
    r"[*_`]*\s*(?:is|would\s+be)?\s*[:：=\-]?[*_`]*\s*(?:option\s*|choice\s*|letter\s*)?[*_`(\[]*"
    r"(?P<letter>[A-Da-d])(?![A-Za-z0-9'])(?P<close>[*_`)\]]*)(?P<rest>[^\n]*)"
)
_OPTION_IS = re.compile(r"\boption\s+\(?([A-D])\)?\s+is\s+(?:the\s+)?(?:correct|right|best)", re.I)
_LINE = re.compile(r"(?m)^[ \t*_`(\[]*([A-D])[ \t*_`)\].:]*$")  # a line that is only a capital letter
_PAREN = re.compile(r"\(([A-D])\)")
_LEADING = re.compile(r"^[\s*_`(\[]*([A-D])[)\].:](?:\s|$)")  # "B) because ...", "(B) ...", "C. The ..."
_TAGGED = re.compile(r"\\boxed\{\s*(?:\\text\{)?\s*([A-Da-d])\s*\}|<answer>\s*\(?([A-Da-d])\)?\s*</answer>")
"""``\\boxed{C}`` (maths-trained models) and ``<answer>C</answer>`` (tagged answers): explicit wherever they stand."""
_THINKING = re.compile(r"(?is)<think>.*?(?:</think>|$)|^.*?</think>")
"""A reasoning block some servers return inline (Qwen3 / DeepSeek-R1 style on vLLM): letters in it are not answers.
An unclosed block (cut off while thinking) runs to the end; a closing tag alone (the template opened the block in
the prompt, as DeepSeek-R1's does) ends one that started with the output."""
_SECOND = re.compile(r"^\s*(?:or|and|/|,|&)\s*(?:option\s*)?[*_`(\[]*[A-Da-d](?![A-Za-z0-9])", re.I)


def strip_thinking(text: str) -> str:
    """``text`` without inline reasoning blocks (`_THINKING`): what every reader of answers, ratings, replies and
    verdicts reads."""
    return _THINKING.sub("", text).strip()


def _stated(text: str, letters: Sequence[str]) -> list[str]:
    """Letters named by answer statements ("Answer: C", "the final answer is **D**"), in order. A lower-case
    letter counts only when nothing but punctuation follows it ("answer: c", not "answer is a bit"); a statement
    naming two letters ("Answer: A or B") names none."""
    found = []
    for m in _STATED.finditer(text):
        letter, rest = m["letter"], m["rest"]
        if _SECOND.match(rest):
            continue
        if letter.islower() and not re.match(r"^\s*(?:[.,;:!?]\s*)?$|^[.,;:!?]\s", rest):
            continue
        if letter.upper() in letters:
            found.append(letter.upper())
    return found


def extract_letter(text: str, letters: Sequence[str] = ("A", "B", "C", "D")) -> str | None:
    """The answer letter, or None when the text does not state one unambiguously: a whole answer that is one
    letter, answer statements (the last one wins: models restate after reasoning), "option X is correct", a line
    that is only a capital letter (the last one), one parenthesised capital "(X)", or a capital "X." / "X)" that
    opens the answer; before all of these, ``\\boxed{X}`` and ``<answer>X</answer>`` (the last one). A ``<think>``
    block is removed first. Shared by every benchmark that reads letters."""
    stripped = strip_thinking(text)
    if not stripped:
        return None
    tagged = [str(a or b).upper() for a, b in _TAGGED.findall(stripped) if str(a or b).upper() in letters]
    if tagged:
        return tagged[-1]
    if (lone := _LONE.match(stripped)) and lone.group(1).upper() in letters:
        return lone.group(1).upper()
    if stated := _stated(stripped, letters):
        return stated[-1]
    if option := [str(m).upper() for m in _OPTION_IS.findall(stripped) if str(m).upper() in letters]:
        return option[-1]
    if line := [str(m) for m in _LINE.findall(stripped) if m in letters]:
        return line[-1]
    parens = {str(m) for m in _PAREN.findall(stripped) if m in letters}
    if len(parens) == 1:
        return parens.pop()
    if len(parens) > 1:  # "(A) and (B) both fit"
        return None
    if (leading := _LEADING.match(stripped)) and leading.group(1) in letters:
        return leading.group(1)
    return None


def shuffle_options(
    options: Sequence[str], gold: int, key: str, seed: int | None, gold_at: int | None = None
) -> tuple[list[str], int, list[int]]:
    """Options in a seeded order, stable per item ``key`` (``seed=None`` keeps the given order), the gold option's
    index in that order, and the permutation (``shown[i] = options[order[i]]``). ``gold_at``: the gold goes to
    that position and the other options around it in the seeded order (`balanced_gold_positions`)."""
    order = list(range(len(options)))
    if seed is not None:
        random.Random(f"{seed}:{key}").shuffle(order)
        if gold_at is not None:
            order.remove(gold)
            order.insert(gold_at, gold)
    return [options[i] for i in order], order.index(gold), order


def balanced_gold_positions(groups: Mapping[str, Sequence[str]], seed: int, n_options: int = 4) -> dict[str, int]:
    """Per group (e.g. a PerSo dimension), a gold position for each item key such that every position holds the
    gold equally often (counts differ by at most one), drawn in a seeded order: a model that always answers "A"
    scores chance on every group, not the share of gold A an unbalanced shuffle happened to give; over all groups
    the counts differ by at most one as well."""
    out: dict[str, int] = {}
    offset = 0  # a group's leftover positions continue where the last group's ended: balanced overall too
    for group in sorted(groups):
        ordered = sorted(groups[group])
        positions = [(offset + i) % n_options for i in range(len(ordered))]
        offset += len(ordered)
        random.Random(f"{seed}:positions:{group}").shuffle(positions)
        out.update(zip(ordered, positions, strict=True))
    return out


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
