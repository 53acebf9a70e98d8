"""The readers on text a real instruct model wrote (issue 65): SmolLM2 135M Instruct's raw outputs from the quick
paths (`scripts/record_embedded_outputs.py` over `socialbench run sibench -T lang=en --limit 4`, the Chinese default
`--limit 8`, `socialbench run perso --task perso_generate --limit 2` and `socialbench run longsocial -T
workflow=open-answer --limit 2`, all without --model), and what a bigger model writes around an answer (reasoning
first, markdown, a refusal). No scripted model wrote any of these."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from socialbench.benchmarks.longsocial.scorer import OpenVerdict
from socialbench.benchmarks.perso.generation import Distractors, GoldStates
from socialbench.benchmarks.sibench.judge import PROCESS_KEYS, BlindScores, TiePreference, _schema
from socialbench.benchmarks.sibench.parsing import parse_answer, placeholder, unreadable_reply
from socialbench.benchmarks.sibench.prompts import COMPONENT_KEYS
from socialbench.shared.judging import first_json_object

FIXTURE = Path(__file__).parent / "fixtures" / "smollm2_outputs.jsonl"
ROWS: list[dict[str, Any]] = [json.loads(line) for line in FIXTURE.read_text(encoding="utf-8").splitlines()]
VERDICTS = {"BlindScores": BlindScores, "TiePreference": TiePreference, "OpenVerdict": OpenVerdict}


def _rows(schema: str) -> list[dict[str, Any]]:
    return [r for r in ROWS if r["schema"] == schema]


def test_the_recordings_hold_every_kind_of_call_from_the_real_model() -> None:
    # SmolLM2 wrote every structured answer; Gemma (the open-answer setting's model under test) only free text
    assert {r["model"] for r in ROWS if r["schema"]} == {"socialbench/smollm2-135m-instruct"}
    kinds = ("answer", "RubricVerdict", "BlindScores", "GoldStates", "Distractors", "OpenVerdict")
    counts = {s: len(_rows(s)) for s in kinds}
    assert all(n >= 2 for n in counts.values()), counts
    assert {r["args"].get("lang") for r in _rows("answer")} == {"en", "zh"}


@pytest.mark.parametrize("row", _rows("answer"), ids=lambda r: f"{r['args'].get('lang')}-{r['sample']}")
def test_every_reply_answer_under_the_grammar_reads_with_all_its_fields(row: dict[str, Any]) -> None:
    """JSON under a grammar: the reader finds the reply and, for a CoT answer, every analysis field."""
    cot = len(json.loads(row["completion"])) > 1
    parsed = parse_answer(row["completion"], list(COMPONENT_KEYS) if cot else [])
    assert parsed.ok and parsed.problems == [], parsed


@pytest.mark.parametrize("schema", ["RubricVerdict", "BlindScores", "TiePreference", "OpenVerdict"])
def test_every_judge_verdict_the_grader_wrote_validates(schema: str) -> None:
    """The process verdict scores the analysis fields that were read (an echoed field is not asked)."""
    for row in _rows(schema):
        verdict = first_json_object(row["completion"])
        model = _schema(list(verdict)) if schema == "RubricVerdict" else VERDICTS[schema]
        assert schema != "RubricVerdict" or set(verdict) <= set(PROCESS_KEYS), verdict
        model.model_validate(verdict)


def test_generated_gold_states_and_distractors_parse_and_fail_only_the_projects_own_checks() -> None:
    """Every generator answer is JSON; what is refused is refused by an item check, named (never a parse error)."""
    causes: dict[str, int] = {}
    for schema, model in (("GoldStates", GoldStates), ("Distractors", Distractors)):
        for row in _rows(schema):
            obj = first_json_object(row["completion"])
            assert isinstance(obj, dict)
            try:
                model.model_validate(obj)
            except ValidationError as exc:
                cause = exc.errors()[0]["msg"]
                causes[cause] = causes.get(cause, 0) + 1
    assert set(causes) <= {"Value error, the three distractors must differ", "Value error, write a full short sentence"}


# Read by a person, not by the code under test: the reply each recorded answer holds, and what it is.
HAND_READ = [
    ("zh", "sibench:1535", "direct", "template"),  # {"回复": "你的回复！"}: the named placeholder, copied
    ("zh", "sibench:1979", "cot", "template"),  # "你的回复回复回复…": the placeholder, repeated
    ("zh", "sibench:1191", "cot", "template"),  # "回复回复回复…": the field's name, repeated
    ("zh", "sibench:747", "direct", None),  # "你可拉倒吧": a reply (a curt one)
    ("zh", "sibench:923", "direct", None),  # "你的下面是用户的下一条回复，说明你的宝贝太多了…": odd, but a reply
    ("en", "sibench:1535", "direct", None),  # "You're not ready to talk about your next question yet."
    ("en", "sibench:923", "direct", "copied_chat"),  # two turns of the chat joined: 用户's first line and 对方's
]


def _answer(lang: str, sample: str, call: str) -> dict[str, Any]:
    found = [r for r in _rows("answer") if r["args"].get("lang") == lang and r["sample"] == sample]
    cot = [r for r in found if len(json.loads(r["completion"])) > 1]
    direct = [r for r in found if len(json.loads(r["completion"])) == 1]
    (row,) = cot if call == "cot" else direct
    return row


@pytest.mark.parametrize(("lang", "sample", "call", "cause"), HAND_READ)
def test_a_reply_read_by_a_person_is_classified_the_same_way(lang: str, sample: str, call: str, cause: str) -> None:
    row = _answer(lang, sample, call)
    reply = parse_answer(row["completion"]).response
    assert unreadable_reply(reply, row["chat"]) == cause, reply


@pytest.mark.parametrize(
    ("text", "reply"),
    [
        ('<think>They tease; answer lightly.</think>{"Response": "哈哈你猜"}', "哈哈你猜"),
        ('Let me think about the tone first.\n\n```json\n{\n  "Response": "Friday works!"\n}\n```', "Friday works!"),
        ("**Response**: 好呀，周末见", "好呀，周末见"),
    ],
)  # fmt: skip
def test_what_a_bigger_model_writes_around_the_answer_is_read(text: str, reply: str) -> None:
    from socialbench.shared.answers import strip_thinking

    assert parse_answer(strip_thinking(text)).response == reply


def test_a_refusal_is_no_reply_and_a_word_that_merely_starts_like_a_field_is_a_reply() -> None:
    refused = parse_answer("I'm sorry, but I can't help with continuing this conversation.")
    assert not refused.ok and refused.problems == ["no response field found"]
    assert not placeholder("你的呢") and not placeholder("Your turn!") and placeholder("Your reply.")


def test_the_json_grammar_keeps_raw_control_characters_out_of_strings() -> None:
    """llama-cpp-python's converter lets a string hold a raw newline, which JSON forbids (SmolLM2 wrote one into 3
    of 18 distractor answers before this rule): ours excludes U+0000-U+001F and U+007F, as llama.cpp's own does."""
    import json as json_module

    from llama_cpp.llama_grammar import json_schema_to_gbnf

    from socialbench.models.llama_cpp import JSON_CHAR, _grammar

    schema = json_module.dumps({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]})
    assert JSON_CHAR in json_schema_to_gbnf(schema)  # the converter's rule, as we replace it
    rules = _grammar(schema)._grammar
    assert 'char ::= [^"\\\\\\x7F\\x00-\\x1F]' in rules and JSON_CHAR not in rules
