"""PerSo's LLM-in-the-loop item generation (§3.1, §A.9) as an inspect task, and the export of its items.

One sample per persuader branch of the constructed pairs whose OP answered (two per thread: one per persuader).
The ``generator`` model role (default: the model under test) first writes the gold belief, emotion and intent from
the full dialogue, then three distractors per dimension. Every call, prompt and output is in the inspect log;
answers are validated against a schema and asked again with the problem named when malformed; the lint flags of
each item are recorded. `export_items` turns a generation log into a versioned items JSONL.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from inspect_ai.dataset import Sample
from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, metric, scorer
from inspect_ai.solver import Generate, Solver, TaskState, solver
from pydantic import BaseModel, Field, field_validator, model_validator
from pydantic.config import JsonDict
from rich.console import Console

from ...conversations.model import Thread
from ...core.errors import InputError
from ...core.jsonl import dump_json
from ...shared.answers import shuffle_options
from ...shared.benchmark import read_log
from ...shared.judging import Judge
from .data import DIMENSIONS, Branch, Pair, shown_post
from .items import CognitiveItem, Provenance, _norm, lint, write_items
from .prompts import GENERATION_VERSION, QUESTIONS, distractor_prompt, gold_prompt

ITEMS_KEY = "perso:items"
WRITER = "You write evaluation items from real conversations. Answer with JSON only."


_SENTENCE: JsonDict = {"minLength": 12, "maxLength": 200}
"""In the schema only: bounds a grammar-constrained model, not an API model's answer. The floor keeps a small model
from copying the prompt's ``"..."`` (SmolLM2 135M wrote ``["...", "...", "..."]`` for 18 of 18 distractor sets); the
ceiling is a long sentence (without one, SmolLM2 repeated one sentence until the token budget)."""


class GoldStates(BaseModel):
    belief: str = Field(json_schema_extra=_SENTENCE)
    emotion: str = Field(json_schema_extra=_SENTENCE)
    intent: str = Field(json_schema_extra=_SENTENCE)

    @field_validator("belief", "emotion", "intent")
    @classmethod
    def _filled(cls, value: str) -> str:
        if len(value.split()) < 3:
            raise ValueError("write a full short sentence")
        return value.strip()


class Distractors(BaseModel):
    """Three distractors as three fields, not a list: inspect's JSON schema has no ``minItems`` / ``maxItems``, so a
    grammar-constrained model given a list kept adding items until its token budget (SmolLM2 135M: 12+ items, cut
    off). An answer as ``{"distractors": [a, b, c]}`` (prompts before perso-generation-v2) is read too."""

    distractor_1: str = Field(json_schema_extra=_SENTENCE)
    distractor_2: str = Field(json_schema_extra=_SENTENCE)
    distractor_3: str = Field(json_schema_extra=_SENTENCE)

    @model_validator(mode="before")
    @classmethod
    def _from_list(cls, data: Any) -> Any:
        if isinstance(data, dict) and "distractors" in data and "distractor_1" not in data:
            given = data["distractors"]
            if not isinstance(given, list) or len(given) != 3:
                raise ValueError("give exactly three distractors")
            return {f"distractor_{n}": value for n, value in enumerate(given, 1)}
        return data

    @model_validator(mode="after")
    def _three_distinct(self) -> Distractors:
        cleaned = [v.strip() for v in self.distractors]
        if not all(cleaned):
            raise ValueError("give exactly three non-empty distractors")
        if len({_norm(v) for v in cleaned}) < 3:
            raise ValueError("the three distractors must differ")
        self.distractor_1, self.distractor_2, self.distractor_3 = cleaned
        return self

    @property
    def distractors(self) -> list[str]:
        return [self.distractor_1, self.distractor_2, self.distractor_3]


def branch_samples(pairs: list[Pair]) -> list[Sample]:
    """One sample per persuader (delta branch first) whose OP reply exists; id ``thread:reply``."""
    out = []
    for pair in pairs:
        for branch in (pair.winner, pair.loser):
            if branch.op_reply is not None:
                out.append(record_to_sample(pair.thread, branch))
    return out


def record_to_sample(thread: Thread, branch: Branch) -> Sample:
    assert branch.op_reply is not None
    return Sample(
        id=f"{thread.id}:{branch.id}",
        input=gold_prompt(shown_post(thread), branch.reply.text, branch.op_reply.text),
        metadata={
            "thread_id": thread.id,
            "reply_id": branch.id,
            "op_reply_id": branch.op_reply.id,
            "delta": branch.delta,
            "post": shown_post(thread),
            "reply": branch.reply.text,
            "op_reply": branch.op_reply.text,
        },
    )


@solver
def write_items_solver(
    retries: int = 2, seed: int = 0, reasoning: bool = False, reasoning_roles: str | None = None
) -> Solver:
    """Gold states, then distractors per dimension; the finished items (options in a seeded order) go to the
    store, the problems of every malformed answer to the metadata."""
    writer = Judge(
        role="generator",
        retries=retries,
        system=WRITER,
        kind="write_items",
        reasoning=reasoning,
        reasoning_roles=reasoning_roles,
    )

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        meta = state.metadata
        problems: dict[str, list[str]] = {}
        items: list[dict[str, Any]] = []
        gold, problems["gold"] = await writer.ask(state.input_text, GoldStates.model_validate, GoldStates, calls=meta)
        model_name = str(writer.model())
        if gold is not None:
            for dimension in DIMENSIONS:
                answer = getattr(gold, dimension)
                prompt = distractor_prompt(meta["post"], meta["reply"], meta["op_reply"], dimension, answer)
                made, problems[dimension] = await writer.ask(
                    prompt, Distractors.model_validate, Distractors, calls=meta
                )
                if made is None:
                    continue
                if _norm(answer) in {_norm(d) for d in made.distractors}:
                    problems[dimension].append("a distractor repeats the gold answer")
                    continue
                item_id = f"{state.sample_id}:{dimension}"
                shown, gold_index, _ = shuffle_options([answer, *made.distractors], 0, item_id, seed)
                item = CognitiveItem(
                    id=item_id,
                    thread_id=meta["thread_id"],
                    reply_id=meta["reply_id"],
                    op_reply_id=meta["op_reply_id"],
                    dimension=dimension,
                    question=QUESTIONS[dimension],
                    options=shown,
                    gold=gold_index,
                    provenance=Provenance(
                        author=model_name,
                        method="generated",
                        prompt_version=GENERATION_VERSION,
                        generator_model=model_name,
                        seed=seed,
                        created=datetime.now(UTC).date().isoformat(),
                    ),
                    lint=lint(shown, gold_index, meta["op_reply"]),
                )
                items.append(item.model_dump(mode="json"))
        state.store.set(ITEMS_KEY, items)
        meta["generation_problems"] = {k: v for k, v in problems.items() if v}
        return state

    return solve


@metric
def items_written() -> Metric:
    """Items produced (three per branch when every call succeeded)."""

    def compute(scores: list[SampleScore]) -> int:
        return sum(len((s.score.metadata or {}).get("items", [])) for s in scores)

    return compute


@metric
def items_flagged() -> Metric:
    """Items with at least one lint flag."""

    def compute(scores: list[SampleScore]) -> int:
        return sum(1 for s in scores for item in (s.score.metadata or {}).get("items", []) if item["lint"])

    return compute


@metric
def malformed_answers() -> Metric:
    """Generator answers rejected by the schema (each was asked again, up to the retry limit)."""

    def compute(scores: list[SampleScore]) -> int:
        return sum(len(v) for s in scores for v in (s.score.metadata or {}).get("problems", {}).values())

    return compute


@scorer(metrics=[items_written(), items_flagged(), malformed_answers()])
def generation_check() -> Scorer:
    """Share of the three dimensions for which a valid item was written; the items ride in the score metadata."""

    async def score(state: TaskState, target: Target) -> Score:
        items = state.store.get(ITEMS_KEY) or []
        problems = state.metadata.get("generation_problems", {})
        return Score(
            value=len(items) / len(DIMENSIONS),
            answer=f"{len(items)} items",
            explanation="; ".join(f"{k}: {v[-1]}" for k, v in problems.items())[:500] or None,
            metadata={"items": items, "problems": problems},
        )

    return score


def export_items(console: Console, as_json: bool = False, log: str = "", out: str = "") -> None:
    """Write the items of a generation log as a versioned items JSONL, each with its provenance and lint flags
    (written atomically).

    Args:
        log: the inspect log of a ``perso_generate`` run.
        out: the items JSONL to write.
    """

    if not log or not out:
        raise ValueError("export-items needs -A log=GENERATION_LOG and -A out=ITEMS.jsonl")
    if not Path(log).exists():
        raise InputError(log, "no such log file")
    run = read_log(log)
    if (run.eval.metadata or {}).get("task") != "generate":
        raise InputError(log, f"not a PerSo generation log (task {run.eval.task})")
    items = []
    for sample in run.samples or []:
        for score in (sample.scores or {}).values():
            for raw in (score.metadata or {}).get("items", []):
                item = CognitiveItem.model_validate(raw)
                items.append(item.model_copy(update={"provenance": item.provenance.model_copy(update={"log": log})}))
    count = write_items(out, items)
    flagged = sum(1 for i in items if i.lint)
    if as_json:
        console.file.write(dump_json({"items": count, "flagged": flagged, "out": out}) + "\n")
    else:
        console.print(f"wrote {count} items to {out} ({flagged} with lint flags)")
