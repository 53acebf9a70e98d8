"""PerSo cognitive task (§3.2.2): forecast the OP's belief, emotion or intent after one persuader's response.

The model sees the OP's post and the persuader's reply; the OP's answer, which holds the gold state, is withheld.
Four options in a seeded order (stable per item). The letter is read from the answer text, or, for the embedded
base model, from next-token log-probabilities.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from inspect_ai.dataset import Sample
from inspect_ai.model import get_model
from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, grouped, metric, scorer
from inspect_ai.solver import Generate, Solver, TaskState, solver

from ...conversations.model import Thread
from ...shared.answers import balanced_gold_positions, extract_letter, letter_from_logprobs, shuffle_options
from ...shared.budgets import call_budget, record_call
from ...shared.caching import PrefixGate, cache_key, layout, shared_part
from ...shared.metrics import accuracy, ci95_high, ci95_low, status
from ...shared.outputs import OUTPUT_METRICS, output_problem
from .data import post_record, shown_post
from .items import CognitiveItem
from .prompts import cognitive_prompt

LETTERS = ("A", "B", "C", "D")
ANSWERED, UNPARSED = "answered", "unparsed"


def gold_positions(items: Sequence[CognitiveItem], seed: int | None) -> dict[str, int]:
    """Where each item's gold is shown: balanced over A-D within each dimension of the file (seeded), so the
    constant-letter baseline is chance on every dimension (None: the authored order)."""
    if seed is None:
        return {}
    by_dimension: dict[str, list[str]] = {}
    for item in items:
        by_dimension.setdefault(item.dimension, []).append(item.id)
    return balanced_gold_positions(by_dimension, seed, len(LETTERS))


def shuffled(item: CognitiveItem, seed: int | None, gold_at: int | None = None) -> tuple[list[str], str, list[int]]:
    """Options in a seeded order (stable per item; the gold at ``gold_at`` when given), the gold letter, and the
    permutation (-1 keeps the order)."""
    options, gold, order = shuffle_options(item.options, item.gold, item.id, seed, gold_at)
    return options, LETTERS[gold], order


def record_to_sample(
    item: CognitiveItem, threads: Mapping[str, Thread], seed: int | None = 0, gold_at: int | None = None
) -> Sample:
    thread = threads[item.thread_id]
    options, gold, order = shuffled(item, seed, gold_at)
    return Sample(
        id=item.id,
        input=cognitive_prompt(shown_post(thread), thread.node(item.reply_id).text, item.question, options),
        target=gold,
        choices=options,
        metadata={
            "item_id": item.id,
            "thread_id": item.thread_id,
            "reply_id": item.reply_id,
            "dimension": item.dimension,
            "option_order": order,
            "item_author": item.provenance.author,
            "post_cleaning": post_record(thread),
            "lint": item.lint,
        },
    )


ITEM_START = "Question: "
"""Where an item's own text begins: the OP's post and the persuader's reply before it are shared by the items on
that reply (belief, emotion, intent), sent as a cached block (`shared.caching`)."""


CHOOSE_TOKENS = 32
"""The letter call's own budget."""


@solver
def choose_option(answer_mode: str = "auto", max_tokens: int | None = None, reasoning: bool = False) -> Solver:
    """Ask for the option letter: one token's log-probabilities (base models), or generation under the budget
    policy (`shared.budgets`: 32 tokens, or room for a reasoning model's reasoning), counted as a ``choose`` call."""
    gate = PrefixGate()

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        mode = answer_mode
        if mode == "auto":
            from ...models.llama_cpp import embedded_model

            mode = "logprobs" if embedded_model() else "generate"
        state.metadata["answer_mode"] = mode
        model = get_model()
        text = state.user_prompt.text
        state.user_prompt.content = layout(model, text, ITEM_START)
        keyed = cache_key(model, shared_part(text, ITEM_START) or text)  # the post and reply its items share
        async with gate.turn(model, text, ITEM_START) as turn:
            state.metadata["prefix_turn"] = turn
            if mode == "logprobs":
                return await generate(state, logprobs=True, top_logprobs=20, max_tokens=1, temperature=0.0, **keyed)
            budget = call_budget(model, CHOOSE_TOKENS, max_tokens, reasoning)
            state = await generate(state, max_tokens=budget.tokens, temperature=0.0, **keyed)
            record_call(state.metadata, "choose", budget, state.output)
            return state

    return solve


@metric
def unparsed() -> Metric:
    """Number of answers that named no option (scored wrong)."""

    def compute(scores: list[SampleScore]) -> int:
        return sum(1 for s in scores if status(s) == UNPARSED)

    return compute


@metric
def option_shares() -> Metric:
    """Share of answers choosing each letter (paper §A.5); NaN each when nothing was parsed."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        chosen = [s.score.answer for s in scores if status(s) == ANSWERED]
        return {x: (chosen.count(x) / len(chosen) if chosen else float("nan")) for x in LETTERS}

    return compute


@scorer(
    metrics=[
        accuracy(),
        ci95_low(),
        ci95_high(),
        grouped(accuracy(), "dimension", all=False),
        unparsed(),
        *OUTPUT_METRICS,
        option_shares(),
    ]
)
def option_choice() -> Scorer:
    """Correct when the chosen letter is the gold option's letter."""

    async def score(state: TaskState, target: Target) -> Score:
        if state.metadata.get("answer_mode") == "logprobs":
            letter = letter_from_logprobs(state.output, LETTERS)
        else:
            letter = extract_letter(state.output.completion, LETTERS)
        problem = {} if letter else {"output_problem": output_problem(state.output)}
        return Score(
            value=int(letter == target.text),
            answer=letter,
            explanation=state.output.completion[:500],
            metadata={"status": ANSWERED if letter else UNPARSED, "dimension": state.metadata["dimension"], **problem},
        )

    return score
