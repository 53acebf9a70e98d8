"""Reading the fields of a model's SI-Bench answer.

Models rarely emit the template's exact JSON: they use full-width quotes (“ ”), wrap it in code fences, drop
braces or commas (the template itself has no commas), add prose before or after, or use Chinese field names.
`parse_answer` recovers the fields it can, says what it could not, and never raises.

Replies are data: the parser finds the fields on a copy whose full-width punctuation is mapped to ASCII (a
one-to-one character mapping, so positions are unchanged) and takes every value from the original text at those
positions. A "，" or "“" inside a reply stays as written.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from .prompts import COMPONENTS, RESPONSE_FIELD

# every accepted spelling of each field -> canonical key
FIELD_NAMES: dict[str, str] = {"response": "response", "reply": "response", RESPONSE_FIELD["zh"]: "response"}
for _c in COMPONENTS:
    FIELD_NAMES[_c.field_en.lower()] = _c.key
    FIELD_NAMES[_c.field_zh] = _c.key
FIELD_NAMES |= {
    "social intent": "social_intention",
    "communication strategy": "communicative_strategy",
    "emotional attitude analysis": "emotional_attitude",
    "回应": "response",
}

# one character -> one character, so offsets in the mapped copy are offsets in the original
_QUOTES = str.maketrans({"“": '"', "”": '"', "＂": '"', "「": '"', "」": '"', "：": ":", "，": ","})
_OPEN, _CLOSE = '"“＂「', '"”＂」'
_FIELD = re.compile(
    r'[*"]*(?P<name>' + "|".join(sorted(map(re.escape, FIELD_NAMES), key=len, reverse=True)) + r')[*"]*\s*:[*\s]*',
    re.IGNORECASE,
)


@dataclass
class ParsedAnswer:
    fields: dict[str, str] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    @property
    def response(self) -> str | None:
        return self.fields.get("response")

    @property
    def ok(self) -> bool:
        return self.response is not None


def _strip_value(raw: str) -> str:
    """A value as written, without the quotes and separators around it (ASCII or full-width)."""
    value = raw.strip()
    if value[:1] and value[0] in _OPEN:
        close = next((i for i in range(1, len(value)) if value[i] in _CLOSE), -1)
        if close > 0:
            return value[1:close].strip()  # a quoted value ends at its closing quote, whatever prose follows
        return value[1:].rstrip(",，").strip()
    value = value.rstrip(",，").strip()
    if value.endswith("}"):
        value = value[:-1].rstrip().rstrip(",，")
    return value.strip()


def parse_answer(text: str, expected: list[str] | None = None) -> ParsedAnswer:
    """Fields of an answer. ``expected`` lists the canonical keys the prompt asked for (missing ones are
    reported as problems). An answer is usable when it has a response."""
    result = ParsedAnswer()
    original = re.sub(r"```(?:json)?", "", text or "").strip()
    cleaned = original.translate(_QUOTES)  # for finding fields only; values come from ``original``
    # 1. strict JSON inside the (original) text
    start, end = original.find("{"), original.rfind("}")
    if start != -1 and end > start:
        try:
            obj = json.loads(original[start : end + 1])
            if isinstance(obj, dict):
                for k, v in obj.items():
                    key = FIELD_NAMES.get(str(k).strip().lower(), FIELD_NAMES.get(str(k).strip()))
                    if key and isinstance(v, str | int | float):
                        result.fields[key] = str(v).strip()
        except json.JSONDecodeError:
            pass
    # 2. tolerant "name: value" scan (values run to the next field name)
    if not result.fields:
        matches = list(_FIELD.finditer(cleaned))
        for i, m in enumerate(matches):
            stop = matches[i + 1].start() if i + 1 < len(matches) else len(cleaned)
            key = FIELD_NAMES.get(m["name"].lower(), FIELD_NAMES.get(m["name"]))
            value = _strip_value(original[m.end() : stop])
            if key and value and key not in result.fields:
                result.fields[key] = value
    if "response" not in result.fields:
        result.problems.append("no response field found")
    for key in expected or []:
        if key not in result.fields:
            result.problems.append(f"missing field {key}")
    return result


PLACEHOLDERS = {"xxx", "...", "…", "……", "<reply>", "reply", "response", "回复", "回应"}
"""Values that only echo the answer template (Tables 7-8 write every field as “xxx”)."""
ELLIPSES = {"...", "…", "……"}
"""Template echoes in an analysis field, but real replies in a chat: SI-Bench's own dialogues send "……" and "…" as
messages (issue 35), so a reply that is only an ellipsis is judged like any short reply."""
_SPEAKER = re.compile(r"(?:^|\n)\s*(?:用户|对方|User|Other)\s*[:：]")


def _normal(text: str) -> str:
    return "".join(text.split()).strip("“”\"'「」").lower()


def placeholder(value: str) -> bool:
    """Does a field value only echo the template: ``xxx``, ``...``, or a field's name, bare or as the named
    placeholder structured output shows (``<your reply>``, ``<你的回复>``, ``沟通策略分析``), once or repeated (SmolLM2
    135M writes ``回复回复回复…``), closing punctuation aside?"""
    normal = _normal(value)
    if normal in PLACEHOLDERS or re.fullmatch(r"x{2,}", normal):
        return True
    text = " ".join(value.split()).strip("“”\"'「」<>!！.。?？ ").lower()
    core = re.sub(r"(analysis|分析)$", "", re.sub(r"^(your|你的)", "", text.replace(" ", "")))
    return bool(core) and bool(_FIELD_WORDS.fullmatch(core))


_FIELD_WORDS = re.compile(
    "(?:"
    + "|".join(
        re.escape(w.replace(" ", ""))
        for w in sorted({"reply", "response", "回复", "回应", *FIELD_NAMES}, key=len, reverse=True)
    )
    + ")+"
)
"""A field's name, written once or several times over (spaces removed)."""


def unreadable_reply(reply: str | None, chat: str) -> str | None:
    """Why a reply read from an answer is not a reply, or None: ``empty``, ``template`` (it echoes the template's
    placeholder, "xxx" or the field's name; an ellipsis alone is a real reply), ``copied_chat`` (it reproduces the
    transcript: speaker labels, or two or more of the chat's turns word for word). A reply that repeats one earlier
    turn (a laugh, a "好的") is a reply, and is judged. Replies that are not are counted by cause, never judged."""
    if reply is None or not reply.strip():
        return "empty"
    if placeholder(reply) and _normal(reply) not in ELLIPSES:
        return "template"
    if _SPEAKER.search(reply):
        return "copied_chat"
    turns = [_normal(line.split(":", 1)[-1].split("：", 1)[-1]) for line in chat.splitlines() if line.strip()]
    normal = _normal(reply)
    if sum(1 for t in set(turns) if len(t) >= 2 and t in normal) >= 2 and len(normal) >= 6:
        return "copied_chat"
    return None


def same_reply(first: str, second: str) -> bool:
    """Two replies that are the same text (whitespace and surrounding quotes aside)."""
    return _normal(first) == _normal(second)


def reply_length(reply: str) -> int:
    """Characters of a reply for the paper's "must not exceed 15 characters" (Table 7), which does not say what
    counts: we count every character except whitespace, punctuation included (a Chinese reader counts 字 and
    full-width punctuation alike; spaces are layout)."""
    return len("".join(reply.split()))
