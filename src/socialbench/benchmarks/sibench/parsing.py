"""Reading the fields of a model's SI-Bench answer.

Models rarely emit the template's exact JSON: they use full-width quotes (“ ”), wrap it in code fences, drop
braces or commas (the template itself has no commas), add prose before or after, or use Chinese field names.
`parse_answer` recovers the fields it can, says what it could not, and never raises.
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

_QUOTES = str.maketrans({"“": '"', "”": '"', "＂": '"', "「": '"', "」": '"', "：": ":", "，": ","})
_FIELD = re.compile(
    r'"?(?P<name>' + "|".join(sorted(map(re.escape, FIELD_NAMES), key=len, reverse=True)) + r')"?\s*:\s*',
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
    value = raw.strip()
    if value.startswith('"') and (close := value.find('"', 1)) > 0:
        return value[1:close].strip()  # a quoted value ends at its closing quote, whatever prose follows
    value = value.rstrip(",").strip()
    if value.endswith("}"):
        value = value[:-1].rstrip().rstrip(",")
    if len(value) >= 2 and value[0] == value[-1] == '"':
        value = value[1:-1]
    elif value.startswith('"'):
        value = value[1:]
    return value.strip()


def parse_answer(text: str, expected: list[str] | None = None) -> ParsedAnswer:
    """Fields of an answer. ``expected`` lists the canonical keys the prompt asked for (missing ones are
    reported as problems). An answer is usable when it has a response."""
    result = ParsedAnswer()
    cleaned = re.sub(r"```(?:json)?", "", text or "").translate(_QUOTES).strip()
    # 1. strict JSON inside the text
    start, end = cleaned.find("{"), cleaned.rfind("}")
    if start != -1 and end > start:
        try:
            obj = json.loads(cleaned[start : end + 1])
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
            value = _strip_value(cleaned[m.end() : stop])
            if key and value and key not in result.fields:
                result.fields[key] = value
    if "response" not in result.fields:
        result.problems.append("no response field found")
    for key in expected or []:
        if key not in result.fields:
            result.problems.append(f"missing field {key}")
    return result


def reply_length(reply: str) -> int:
    """Characters of a reply, as the paper's 15-character limit counts them (whitespace excluded)."""
    return len("".join(reply.split()))
