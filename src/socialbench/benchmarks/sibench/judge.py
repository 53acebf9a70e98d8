"""Rubric judges for SI-Bench: process + reply scores (0/5/10) and blind pairwise preference.

The judge is inspect's ``grader`` model role (``--model-role grader=MODEL``); without one, the model under test
judges itself, as inspect does, with a warning. Judge output is JSON validated against the rubric; an invalid
answer is asked again (``retries`` times) before the sample is marked unjudged. The judge's rationale is kept
in the score metadata.
"""

from __future__ import annotations

from typing import Any

from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, mean, metric, scorer, stderr
from inspect_ai.solver import TaskState
from pydantic import BaseModel, field_validator

from ...shared.judging import Judge
from ...shared.statistics import bootstrap_ci
from .prompts import COMPONENT_KEYS
from .rubric import PROCESS_RUBRIC, REPLY_RUBRIC

VALID_SCORES = (0, 5, 10)
PROCESS_KEYS = COMPONENT_KEYS


class DimensionScore(BaseModel):
    score: int
    rationale: str = ""

    @field_validator("score")
    @classmethod
    def _level(cls, v: int) -> int:
        if v not in VALID_SCORES:
            raise ValueError(f"score must be one of {VALID_SCORES}, got {v}")
        return v


class PairVerdict(BaseModel):
    reply_1: DimensionScore
    reply_2: DimensionScore
    preferred: int
    rationale: str = ""

    @field_validator("preferred")
    @classmethod
    def _forced(cls, v: int) -> int:
        if v not in (1, 2):
            raise ValueError("preferred must be 1 or 2 (a forced choice, also when the scores tie)")
        return v


def _context(state: TaskState) -> str:
    return str(state.metadata["chat"])


def judge_prompt(chat: str, reply: str, analysis: dict[str, str] | None) -> str:
    keys = [k for k in PROCESS_KEYS if analysis and k in analysis]
    parts = [
        "Score the speaker 用户's analysis and final reply in this conversation with the rubric.",
        REPLY_RUBRIC.render(),
    ]
    if keys:
        parts.insert(1, PROCESS_RUBRIC.render())
    parts += [f"Conversation (用户 is the speaker, 对方 the other party):\n{chat}"]
    if keys and analysis:
        parts.append("The speaker's analysis:\n" + "\n".join(f"- {k}: {analysis[k]}" for k in keys))
    parts.append(f"The speaker's final reply: {reply}")
    fields = ", ".join(f'"{k}": {{"score": 0|5|10, "rationale": "..."}}' for k in [*keys, "reply"])
    parts.append(f"Answer with one JSON object: {{{fields}}}")
    return "\n\n".join(parts)


def _judged_value(state: TaskState, keys: list[str]) -> dict[str, float]:
    return dict.fromkeys([*keys, "reply"], 0.0) | {
        "unparsed": 0.0,
        "unjudged": 0.0,
        "length_violation": float(bool(state.metadata.get("length_violation"))),
    }


async def _judge(state: TaskState, keys: list[str], judge: Judge, penalize_length: bool) -> Score:
    value = _judged_value(state, keys)
    reply = state.metadata.get("reply")
    meta: dict[str, Any] = {k: state.metadata.get(k) for k in ("situation", "context_group", "mode", "ablate")}
    if not reply:
        value["unparsed"] = 1.0
        return Score(
            value=value,
            answer=None,
            explanation="no reply could be read from the model's answer",
            metadata={**meta, "parse_problems": state.metadata.get("parse_problems")},
        )
    analysis = state.metadata.get("analysis") or {}
    validate = _validator([k for k in keys if k in analysis] + ["reply"])
    verdict, problems = await judge.ask(judge_prompt(_context(state), reply, analysis), validate)
    if verdict is None:
        value["unjudged"] = 1.0
        return Score(
            value=value,
            answer=reply,
            explanation="judge gave no valid verdict",
            metadata={**meta, "judge_problems": problems},
        )
    for key, dim in verdict.items():
        value[key] = float(dim.score)
    if penalize_length and state.metadata.get("length_violation"):
        value["reply"] = 0.0
    return Score(
        value=value,
        answer=reply,
        explanation=verdict["reply"].rationale,
        metadata={**meta, "rationales": {k: d.rationale for k, d in verdict.items()}, "judge_problems": problems},
    )


def _validator(keys: list[str]) -> Any:
    def validate(obj: Any) -> dict[str, DimensionScore]:
        if not isinstance(obj, dict):
            raise ValueError("the verdict must be a JSON object")
        missing = [k for k in keys if k not in obj]
        if missing:
            raise ValueError(f"missing dimension(s): {', '.join(missing)}")
        return {k: DimensionScore.model_validate(obj[k]) for k in keys}

    return validate


_FLAGS = {"unparsed": [mean()], "unjudged": [mean()], "length_violation": [mean()]}


@scorer(metrics={**{k: [mean()] for k in PROCESS_KEYS}, "reply": [mean(), stderr()], **_FLAGS})
def cot_judge(retries: int = 2, penalize_length: bool = False) -> Scorer:
    """Process scores for the five CoT dimensions (Table 6) and the reply score (Table 5), 0/5/10 each."""

    judge = Judge(retries=retries)

    async def score(state: TaskState, target: Target) -> Score:
        return await _judge(state, list(PROCESS_KEYS), judge, penalize_length)

    return score


@scorer(metrics={"reply": [mean(), stderr()], **_FLAGS})
def reply_judge(retries: int = 2, penalize_length: bool = False) -> Scorer:
    """The reply score (Table 5) alone, for direct replies and human replies."""

    judge = Judge(retries=retries)

    async def score(state: TaskState, target: Target) -> Score:
        return await _judge(state, [], judge, penalize_length)

    return score


# ---- pairwise ------------------------------------------------------------------------------------------------
def pairwise_prompt(chat: str, first: str, second: str) -> str:
    return "\n\n".join(
        [
            "Two candidate replies for the speaker 用户 are shown in random order. Score each with the rubric, then "
            "say which reply is better. You must choose one, also when the scores are equal.",
            REPLY_RUBRIC.render(),
            f"Conversation (用户 is the speaker, 对方 the other party):\n{chat}",
            f"Reply 1: {first}",
            f"Reply 2: {second}",
            'Answer with one JSON object: {"reply_1": {"score": 0|5|10, "rationale": "..."}, '
            '"reply_2": {"score": 0|5|10, "rationale": "..."}, "preferred": 1|2, "rationale": "..."}',
        ]
    )


def _share(scores: list[SampleScore], key: str) -> float:
    values = _values(scores, key)
    return sum(values) / len(values) if values else float("nan")


def _win_ci(scores: list[SampleScore], bound: int) -> float:
    wins = _values(scores, "cot_wins")
    return bootstrap_ci(wins)[bound] if wins else float("nan")


# inspect reads the annotation of a metric's function to pass SampleScores: no lambdas here.
@metric
def cot_win_rate() -> Metric:
    """Share of judged pairs where the CoT reply is preferred (shown order)."""

    def compute(scores: list[SampleScore]) -> float:
        return _share(scores, "cot_wins")

    return compute


@metric
def cot_win_ci_low() -> Metric:
    def compute(scores: list[SampleScore]) -> float:
        return _win_ci(scores, 0)

    return compute


@metric
def cot_win_ci_high() -> Metric:
    def compute(scores: list[SampleScore]) -> float:
        return _win_ci(scores, 1)

    return compute


@metric
def position_consistency() -> Metric:
    """Share of pairs whose winner stays the same when the order is swapped (1.0 = no position bias)."""

    def compute(scores: list[SampleScore]) -> float:
        return _share(scores, "consistent")

    return compute


@metric
def first_position_rate() -> Metric:
    """Share of verdicts (both orders) preferring whatever was shown first (0.5 = no position bias)."""

    def compute(scores: list[SampleScore]) -> float:
        return _share(scores, "first_preferred")

    return compute


def _values(scores: list[SampleScore], key: str) -> list[float]:
    out = []
    for s in scores:
        value = s.score.value
        if isinstance(value, dict) and value.get("judged") and value.get(key) is not None:
            out.append(float(value[key]))
    return out


@scorer(metrics=[cot_win_rate(), cot_win_ci_low(), cot_win_ci_high(), position_consistency(), first_position_rate()])
def pairwise_judge(seed: int = 0, retries: int = 2, swap: bool = True) -> Scorer:
    """Blind pairwise comparison of the CoT and the direct reply to the same dialogue: random order (seeded per
    dialogue), forced preference; with ``swap`` the pair is judged again in the other order."""

    judge = Judge(retries=retries)

    async def score(state: TaskState, target: Target) -> Score:
        cot, direct = state.metadata.get("reply_cot"), state.metadata.get("reply_direct")
        unjudged = {"judged": 0, "cot_wins": None, "consistent": None, "first_preferred": None}
        if not cot or not direct:
            return Score(
                value=unjudged,
                explanation="a reply could not be read",
                metadata={"problems": state.metadata.get("parse_problems")},
            )
        outcome, problems = await judge.pairwise(
            lambda first, second: pairwise_prompt(_context(state), first, second),
            cot,
            direct,
            PairVerdict.model_validate,
            key=str(state.sample_id),
            seed=seed,
            swap=swap,
        )
        if outcome is None:
            return Score(
                value=unjudged, explanation="judge gave no valid verdict", metadata={"judge_problems": problems}
            )
        winners = ["cot" if w == "a" else "direct" for w in outcome.winners]
        consistent = outcome.consistent
        return Score(
            value={
                "judged": 1,
                "cot_wins": float(winners[0] == "cot"),
                "consistent": None if consistent is None else float(consistent),
                "first_preferred": outcome.first_preferred,
            },
            answer=winners[0],
            explanation=outcome.verdicts[0][1].rationale,
            metadata={
                "cot_first": outcome.a_first,
                "winners": winners,
                "scores": [
                    {"reply_1": v.reply_1.score, "reply_2": v.reply_2.score, "preferred": v.preferred}
                    for _, v in outcome.verdicts
                ],
                "situation": state.metadata.get("situation"),
            },
        )

    return score
