"""Rubric judges for SI-Bench: process + reply scores (0/5/10) and blind pairwise preference.

The judge is inspect's ``grader`` model role (``--model-role grader=MODEL``); without one, the model under test
judges itself, as inspect does, with a warning. Judge output is JSON validated against the rubric; an invalid
answer is asked again (``retries`` times) before the sample is marked unjudged. The judge's rationale is kept
in the score metadata.
"""

from __future__ import annotations

import random
from typing import Any

from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, mean, metric, scorer, stderr
from inspect_ai.solver import TaskState
from pydantic import BaseModel, Field, create_model, field_validator

from ...shared.judging import Judge
from ...shared.statistics import bootstrap_ci
from .parsing import same_reply
from .prompts import COMPONENT_KEYS
from .rubric import PROCESS_RUBRIC, REPLY_RUBRIC

VALID_SCORES = (0, 5, 10)
PROCESS_KEYS = COMPONENT_KEYS


class DimensionScore(BaseModel):
    # The schema (sent as structured output) allows only 0/5/10 and a bounded rationale, so a grammar-constrained
    # model cannot ramble; validation accepts longer rationales from API judges.
    score: int = Field(json_schema_extra={"enum": list(VALID_SCORES)})
    rationale: str = Field("", json_schema_extra={"maxLength": 400})

    @field_validator("score")
    @classmethod
    def _level(cls, v: int) -> int:
        if v not in VALID_SCORES:
            raise ValueError(f"score must be one of {VALID_SCORES}, got {v}")
        return v


def _forced_choice(v: int) -> int:
    if v not in (1, 2):
        raise ValueError("preferred must be 1 or 2 (a forced choice, also when the scores tie)")
    return v


class PairVerdict(BaseModel):
    reply_1: DimensionScore
    reply_2: DimensionScore
    preferred: int = Field(json_schema_extra={"enum": [1, 2]})
    rationale: str = Field("", json_schema_extra={"maxLength": 400})

    @field_validator("preferred")
    @classmethod
    def _forced(cls, v: int) -> int:
        return _forced_choice(v)


def _context(state: TaskState) -> str:
    return str(state.metadata["chat"])


CASE_START = "Conversation ("
"""Where a case's own text begins in the judge prompt: the instructions and rubric before it are the same for
every case, sent as one cached block (`shared.caching`)."""


def judge_prompt(chat: str, reply: str, analysis: dict[str, str] | None) -> str:
    keys = [k for k in PROCESS_KEYS if analysis and k in analysis]
    parts = [
        "Score the speaker 用户's analysis and final reply in this conversation with the rubric.",
        REPLY_RUBRIC.render(),
    ]
    if keys:
        parts.insert(1, PROCESS_RUBRIC.render())
    parts += [f"{CASE_START}用户 is the speaker, 对方 the other party):\n{chat}"]
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
    if not analysis:  # no process to judge (e.g. human replies without one): its scores are missing, not 0
        value |= dict.fromkeys([k for k in keys if k != "reply"], NAN)
    validate = _validator([k for k in keys if k in analysis] + ["reply"])
    keys_asked = [k for k in keys if k in analysis] + ["reply"]
    verdict, problems = await judge.ask(
        judge_prompt(_context(state), reply, analysis),
        validate,
        _schema(keys_asked),
        item_start=CASE_START,
        calls=state.metadata,
    )
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


def _schema(keys: list[str]) -> type[BaseModel]:
    """The verdict's JSON schema for these dimensions (each a `DimensionScore`), for structured output."""
    fields: dict[str, Any] = {k: (DimensionScore, ...) for k in keys}
    return create_model("RubricVerdict", **fields)


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
def cot_judge(
    retries: int = 2, penalize_length: bool = False, reasoning: bool = False, reasoning_roles: str | None = None
) -> Scorer:
    """Process scores for the five CoT dimensions (Table 6) and the reply score (Table 5), 0/5/10 each."""

    judge = Judge(retries=retries, reasoning=reasoning, reasoning_roles=reasoning_roles)

    async def score(state: TaskState, target: Target) -> Score:
        return await _judge(state, list(PROCESS_KEYS), judge, penalize_length)

    return score


@scorer(metrics={"reply": [mean(), stderr()], **_FLAGS})
def reply_judge(
    retries: int = 2, penalize_length: bool = False, reasoning: bool = False, reasoning_roles: str | None = None
) -> Scorer:
    """The reply score (Table 5) alone, for direct replies and human replies."""

    judge = Judge(retries=retries, reasoning=reasoning, reasoning_roles=reasoning_roles)

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
    return bootstrap_ci(wins, outcomes="binary")[bound] if wins else float("nan")


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


@metric
def preference_contradicts_scores() -> Metric:
    """Diagnostic: among verdicts whose two reply scores differ, the share whose always-asked preference picks the
    lower-scored reply (the paper asks a preference only on ties, so this never happens under its protocol)."""

    def compute(scores: list[SampleScore]) -> float:
        return _share(scores, "contradicts")

    return compute


@scorer(
    metrics=[
        cot_win_rate(),
        cot_win_ci_low(),
        cot_win_ci_high(),
        position_consistency(),
        first_position_rate(),
        preference_contradicts_scores(),
    ]
)
def pairwise_judge(
    seed: int = 0, retries: int = 2, swap: bool = True, reasoning: bool = False, reasoning_roles: str | None = None
) -> Scorer:
    """Diagnostic, not the paper's protocol (that is `paper_judge`): the CoT and the direct reply compared blind
    with a preference always asked, in a seeded order, and with ``swap`` again in the other order; measures position
    bias and how often the preference contradicts the judge's own scores."""

    judge = Judge(retries=retries, reasoning=reasoning, reasoning_roles=reasoning_roles)

    async def score(state: TaskState, target: Target) -> Score:
        cot, direct = state.metadata.get("reply_cot"), state.metadata.get("reply_direct")
        unjudged = {"judged": 0, "cot_wins": None, "consistent": None, "first_preferred": None, "contradicts": None}
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
            schema=PairVerdict,
            calls=state.metadata,
        )
        if outcome is None:
            return Score(
                value=unjudged, explanation="judge gave no valid verdict", metadata={"judge_problems": problems}
            )
        winners = ["cot" if w == "a" else "direct" for w in outcome.winners]
        consistent = outcome.consistent
        differing = [v for _, v in outcome.verdicts if v.reply_1.score != v.reply_2.score]
        contradicting = [v for v in differing if (v.reply_1.score > v.reply_2.score) != (v.preferred == 1)]
        return Score(
            value={
                "judged": 1,
                "cot_wins": float(winners[0] == "cot"),
                "consistent": None if consistent is None else float(consistent),
                "first_preferred": outcome.first_preferred,
                "contradicts": len(contradicting) / len(differing) if differing else None,
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


# ---- the paper's protocol (§3.3): process from the analysis, both replies blind side by side, preference on ties ---
class BlindScores(BaseModel):
    reply_1: DimensionScore
    reply_2: DimensionScore


class TiePreference(BaseModel):
    preferred: int = Field(json_schema_extra={"enum": [1, 2]})
    rationale: str = Field("", json_schema_extra={"maxLength": 400})

    @field_validator("preferred")
    @classmethod
    def _forced(cls, v: int) -> int:
        return _forced_choice(v)


def process_prompt(chat: str, analysis: dict[str, str]) -> str:
    """The five process dimensions (Table 6), judged from the analysis alone (the reply is scored blind apart)."""
    keys = [k for k in PROCESS_KEYS if k in analysis]
    fields = ", ".join(f'"{k}": {{"score": 0|5|10, "rationale": "..."}}' for k in keys)
    return "\n\n".join(
        [
            "Score the speaker 用户's analysis of this conversation with the rubric.",
            PROCESS_RUBRIC.render(),
            f"Conversation (用户 is the speaker, 对方 the other party):\n{chat}",
            "The speaker's analysis:\n" + "\n".join(f"- {k}: {analysis[k]}" for k in keys),
            f"Answer with one JSON object: {{{fields}}}",
        ]
    )


def blind_replies_prompt(chat: str, first: str, second: str) -> str:
    """Both final replies of a dialogue, anonymized as Reply 1 and Reply 2 in a random order (§3.3)."""
    return "\n\n".join(
        [
            "Two anonymized candidate replies for the speaker 用户 are shown in random order as Reply 1 and Reply 2. "
            "Score each reply with the rubric.",
            REPLY_RUBRIC.render(),
            f"Conversation (用户 is the speaker, 对方 the other party):\n{chat}",
            f"Reply 1: {first}",
            f"Reply 2: {second}",
            'Answer with one JSON object: {"reply_1": {"score": 0|5|10, "rationale": "..."}, '
            '"reply_2": {"score": 0|5|10, "rationale": "..."}}',
        ]
    )


def tie_prompt(chat: str, first: str, second: str, score: int) -> str:
    """The forced preference, asked only when both replies got the same score (§3.3)."""
    return "\n\n".join(
        [
            f"Both candidate replies for the speaker 用户 received the same score ({score}) under the rubric. Choose "
            "the better one: you must pick one.",
            REPLY_RUBRIC.render(),
            f"Conversation (用户 is the speaker, 对方 the other party):\n{chat}",
            f"Reply 1: {first}",
            f"Reply 2: {second}",
            'Answer with one JSON object: {"preferred": 1|2, "rationale": "..."}',
        ]
    )


NAN = float("nan")


def _finite(scores: list[SampleScore]) -> list[float]:
    values = [float(s.score.as_float()) for s in scores]
    return [v for v in values if v == v]


@metric
def judged_mean() -> Metric:
    """Mean over the samples where the value was judged (NaN marks not judged); NaN when none was."""

    def compute(scores: list[SampleScore]) -> float:
        values = _finite(scores)
        return sum(values) / len(values) if values else NAN

    return compute


@metric
def judged_ci_low() -> Metric:
    """Lower bound of the bootstrap 95% CI of `judged_mean`."""

    def compute(scores: list[SampleScore]) -> float:
        values = _finite(scores)
        return bootstrap_ci(values)[0] if values else NAN

    return compute


@metric
def judged_ci_high() -> Metric:
    """Upper bound of the bootstrap 95% CI of `judged_mean`."""

    def compute(scores: list[SampleScore]) -> float:
        values = _finite(scores)
        return bootstrap_ci(values)[1] if values else NAN

    return compute


_WITH_CI = [judged_mean(), judged_ci_low(), judged_ci_high()]
PAPER_FLAGS = ("unparsed_cot", "unparsed_direct", "unjudged_process", "unjudged_replies", "length_violation_cot",
               "length_violation_direct", "identical_replies")  # fmt: skip


@scorer(
    metrics={
        **{k: [judged_mean()] for k in PROCESS_KEYS},
        "cot_reply": _WITH_CI,
        "direct_reply": _WITH_CI,
        "cot_wins": _WITH_CI,
        "tie": [judged_mean()],
        **{k: [mean()] for k in PAPER_FLAGS},
    }
)
def paper_judge(
    seed: int = 0,
    retries: int = 2,
    penalize_length: bool = False,
    reasoning: bool = False,
    reasoning_roles: str | None = None,
) -> Scorer:
    """SI-Bench's protocol (§3.3): the five process dimensions scored from the CoT analysis; the CoT reply and
    the direct reply of the same dialogue scored blind, side by side, as Reply 1 / Reply 2 in a seeded random order
    (recorded); a forced preference asked only when the two scores tie. The CoT wins when its score is higher, or
    on a tie when it is preferred. Values not judged are NaN and left out of the means; flags count why."""
    judge = Judge(retries=retries, reasoning=reasoning, reasoning_roles=reasoning_roles)

    async def score(state: TaskState, target: Target) -> Score:
        meta = state.metadata
        chat = _context(state)
        value: dict[str, float] = dict.fromkeys([*PROCESS_KEYS, "cot_reply", "direct_reply", "cot_wins", "tie"], NAN)
        value |= dict.fromkeys(PAPER_FLAGS, 0.0)
        details: dict[str, Any] = {k: meta.get(k) for k in ("situation", "context_group", "ablate")}
        analysis = {k: v for k, v in (meta.get("analysis") or {}).items() if k in PROCESS_KEYS}
        if analysis:
            verdict, problems = await judge.ask(
                process_prompt(chat, analysis),
                _validator(list(analysis)),
                _schema(list(analysis)),
                item_start=CASE_START,
                calls=meta,
            )
            details["process_problems"] = problems
            if verdict is None:
                value["unjudged_process"] = 1.0
            else:
                value |= {k: float(d.score) for k, d in verdict.items()}
                details["process_rationales"] = {k: d.rationale for k, d in verdict.items()}
        cot, direct = meta.get("reply_cot"), meta.get("reply_direct")
        value["unparsed_cot"], value["unparsed_direct"] = float(not cot), float(not direct)
        value["length_violation_cot"] = float(bool(meta.get("length_violation_cot")))
        value["length_violation_direct"] = float(bool(meta.get("length_violation_direct")))
        if cot and direct:
            cot_first = meta.get("cot_first")  # balanced per situation by the task (`task.reply_orders`)
            if cot_first is None:  # a sample built without it: a seeded coin per dialogue
                cot_first = random.Random(f"{seed}:{state.sample_id}").random() < 0.5
            first, second = (cot, direct) if cot_first else (direct, cot)
            details["cot_first"] = cot_first
            scores, problems = await judge.ask(
                blind_replies_prompt(chat, first, second),
                BlindScores.model_validate,
                BlindScores,
                item_start=CASE_START,
                calls=meta,
            )
            details["reply_problems"] = problems
            if scores is None:
                value["unjudged_replies"] = 1.0
            else:
                a, b = scores.reply_1.score, scores.reply_2.score
                cot_score, direct_score = (a, b) if cot_first else (b, a)
                if penalize_length:
                    cot_score = 0 if meta.get("length_violation_cot") else cot_score
                    direct_score = 0 if meta.get("length_violation_direct") else direct_score
                value["cot_reply"], value["direct_reply"] = float(cot_score), float(direct_score)
                details["reply_rationales"] = {"reply_1": scores.reply_1.rationale, "reply_2": scores.reply_2.rationale}
                if same_reply(cot, direct):
                    # the same text twice: a tie by definition; a preference between identical texts (or a score
                    # gap between them) would measure position only, so both get the mean score and the win counts half
                    both = (cot_score + direct_score) / 2
                    value["cot_reply"], value["direct_reply"] = float(both), float(both)
                    value["tie"], value["cot_wins"], value["identical_replies"] = 1.0, 0.5, 1.0
                elif cot_score != direct_score:
                    value["tie"], value["cot_wins"] = 0.0, float(cot_score > direct_score)
                else:
                    value["tie"] = 1.0
                    pick, tie_problems = await judge.ask(
                        tie_prompt(chat, first, second, cot_score),
                        TiePreference.model_validate,
                        TiePreference,
                        item_start=CASE_START,
                        calls=meta,
                    )
                    details["tie_problems"] = tie_problems
                    if pick is not None:
                        value["cot_wins"] = float((pick.preferred == 1) == cot_first)
                        details["tie_preferred"] = pick.preferred
        return Score(
            value=value,
            answer=cot if cot else None,
            explanation=f"CoT {value['cot_reply']} vs direct {value['direct_reply']}",
            metadata=details,
        )

    return score
