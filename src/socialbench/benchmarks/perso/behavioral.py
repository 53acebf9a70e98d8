"""PerSo behavioral task (§3.2.1): which of two replies changed the OP's view?

The model rates each reply 1-4; the ratings must differ and the higher one is its choice; the gold is the reply
that won the delta. Each pair is shown in both orders (or one seeded order), recorded per sample, so position bias
(paper Fig. 2) is measured. A rating that breaks the rules is asked again a bounded number of times, then counted
by cause (scored wrong), never guessed: ``tie`` when the two ratings were still equal (the model gave no choice),
``invalid`` otherwise. The 95% CI resamples pairs, so a pair's two presentation orders move together.
"""

from __future__ import annotations

import random
import re
from typing import Literal

from inspect_ai.dataset import Sample
from inspect_ai.model import ChatMessageUser, GenerateConfig, ModelOutput, get_model
from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, metric, scorer
from inspect_ai.solver import Generate, Solver, TaskState, solver

from ...shared.answers import letter_from_logprobs, strip_thinking
from ...shared.budgets import call_budget, record_call
from ...shared.caching import PrefixGate, cache_key, layout, shared_part
from ...shared.metrics import accuracy, ci95_high, ci95_low, status
from ...shared.outputs import OUTPUT_METRICS, output_problem
from .data import Pair, post_record, words
from .features import surface_features
from .prompts import behavioral_prompt

Orders = Literal["both", "seeded"]
AnswerMode = Literal["auto", "generate", "logprobs"]
RATINGS = ("1", "2", "3", "4")
VALID, INVALID, TIE = "valid", "invalid", "tie"
RATINGS_KEY = "perso:ratings"
# A rating is read from a labelled rating only: "Response 1: 4", "**Response 1:** 4", "Response 1 (more
# persuasive): 4", "Response 1 rating = 4/4", "Rating for Response 1: 4" -- "Response N", then only markup, one
# parenthetical, the words rating / score / rated / gets / receives / is, and a separator before the number. A digit
# in an explanation ("Response 2 makes 2 concrete points") is not a rating, nor is a number that counts something
# ("Response 1 is 4 times longer", "Response 2 is rated 2 points higher"): a rating ends its clause (end of line,
# "/4", "out of 4", punctuation, a parenthesis, a dash, or a connective such as "because"). The last rating of each
# response counts (a model may restate its answer). A hand-written reader: the shapes are ours, no library parses
# them.
_ENDS = r"(?=\s*(?:$|/|out\b|of\b|[.,;:!?()\[\]*_`\-\u2013\u2014]|(?:because|since|as|for|but|while|whereas|and)\b))"
_RATING = {
    n: re.compile(
        rf"(?im)response\s*{n}(?!\d)[*_`\s]*(?:\([^)\n]{{0,40}}\)[*_`\s]*)?"
        r"(?:(?:rating|score|rated|gets|receives|is)[*_`\s]*)*[:=\-\u2013\u2014]?[*_`\s]*(\d+)(?![\d.,]\d)" + _ENDS
    )
    for n in (1, 2)
}
TIE_PROBLEM = "the two ratings must differ"


def orders_of(pair: Pair, orders: Orders, seed: int) -> list[bool]:
    """Presentation orders (True = the delta reply first): both, or one drawn per pair from the seed."""
    if orders == "both":
        return [True, False]
    return [random.Random(f"{seed}:{pair.id}").random() < 0.5]


def record_to_sample(pair: Pair, winner_first: bool, unchecked_rules: list[str] | None = None) -> Sample:
    """One presentation of a pair; id ``thread:winner-loser:winner-first|loser-first``. ``unchecked_rules``: the
    construction rules that could not be checked on this pair (admitted with ``unchecked=admit``)."""
    first, second = (pair.winner, pair.loser) if winner_first else (pair.loser, pair.winner)
    order = "winner-first" if winner_first else "loser-first"
    return Sample(
        id=f"{pair.id}:{order}",
        input=behavioral_prompt(pair.post, first.reply.text, second.reply.text),
        target="1" if winner_first else "2",
        metadata={
            "pair_id": pair.id,
            "thread_id": pair.thread.id,
            "source": pair.winner.source,
            "winner_id": pair.winner.id,
            "loser_id": pair.loser.id,
            "order": order,
            "unchecked_rules": list(unchecked_rules or []),
            "post_cleaning": post_record(pair.thread),
            "winner_words": words(pair.winner.reply.text),
            "loser_words": words(pair.loser.reply.text),
            "winner_path_words": sum(words(n.text) for n in pair.winner.path),
            "loser_path_words": sum(words(n.text) for n in pair.loser.path),
            "length_ratio": pair.length_ratio(),
            "winner_features": surface_features(pair.winner),
            "loser_features": surface_features(pair.loser),
        },
    )


def parse_ratings(text: str) -> tuple[tuple[int, int] | None, str | None]:
    """``((r1, r2), None)`` or ``(None, problem)``: both ratings present, each 1-4, and different."""
    found = []
    text = strip_thinking(text)
    for n in (1, 2):
        matches = _RATING[n].findall(text)
        if not matches:
            return None, f"no rating for Response {n}"
        found.append(int(matches[-1]))
    r1, r2 = found
    if not all(1 <= r <= 4 for r in found):
        return None, f"ratings must be 1-4, got {r1} and {r2}"
    if r1 == r2:
        return None, f"{TIE_PROBLEM}, both are {r1}"
    return (r1, r2), None


async def _rate_by_logprobs(prompt: str) -> tuple[tuple[int, int] | None, str | None, ModelOutput]:
    """For base models: the most probable rating token after "Response 1: ", then after "Response 2: " the most
    probable rating among the other three (the rule that they differ is enforced, not guessed at)."""
    model = get_model()
    config = GenerateConfig(max_tokens=1, logprobs=True, top_logprobs=20, temperature=0.0)
    # The trailing space matters: Gemma's tokenizer writes " 4" as " " + "4", so after "Response 1:" the most
    # probable tokens are spaces and words; after "Response 1: " they are the digits (measured on the embedded model).
    text = f"{prompt}\n\nResponse 1: "
    output = await model.generate(text, config=config)
    first = letter_from_logprobs(output, RATINGS)
    if first is None:
        return None, "no rating among the top next tokens after 'Response 1: '", output
    output = await model.generate(f"{text}{first}\nResponse 2: ", config=config)
    second = letter_from_logprobs(output, [r for r in RATINGS if r != first])
    if second is None:
        return None, "no different rating among the top next tokens after 'Response 2: '", output
    return (int(first), int(second)), None, output


ITEM_START = "Response 1:\n"
"""Where a pair's own text begins: the instructions and the OP's post before it are shared by that post's pairs."""


RATE_TOKENS = 64
"""The rating call's own budget: two lines."""
RE_RATE = (
    "Your answer was invalid ({problem}). Answer again with exactly two lines:\nResponse 1: <rating 1-4>\n"
    "Response 2: <rating 1-4>"
)
"""The re-ask after ratings that break the rules."""


@solver
def rate_pair(
    answer_mode: AnswerMode = "auto", retries: int = 2, max_tokens: int | None = None, reasoning: bool = False
) -> Solver:
    """Ask for the two ratings; re-ask up to ``retries`` times naming what was wrong; record every attempt. Each
    call's budget follows `shared.budgets` (64 tokens, or room for a reasoning model's reasoning) and is counted as
    a ``rate`` call."""
    gate = PrefixGate()

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        mode = answer_mode
        if mode == "auto":
            from ...models.llama_cpp import embedded_model

            mode = "logprobs" if embedded_model() else "generate"
        state.metadata["answer_mode"] = mode
        problems: list[str] = []
        ratings = None
        if mode == "logprobs":
            ratings, problem, state.output = await _rate_by_logprobs(state.input_text)
            problems += [problem] if problem else []
        else:
            model = get_model()
            budget = call_budget(model, RATE_TOKENS, max_tokens, reasoning)
            text = state.user_prompt.text
            state.user_prompt.content = layout(model, text, ITEM_START)
            keyed = cache_key(model, shared_part(text, ITEM_START) or text)  # the OP's post its pairs share
            # the pairs on one OP post share it: their first request goes alone, the rest read its cache
            async with gate.turn(model, text, ITEM_START) as turn:
                state.metadata["prefix_turn"] = turn
                state = await generate(state, max_tokens=budget.tokens, temperature=0.0, **keyed)
                record_call(state.metadata, "rate", budget, state.output)
            for _attempt in range(retries + 1):
                if _attempt:
                    state = await generate(state, max_tokens=budget.tokens, temperature=0.0, **keyed)
                    record_call(state.metadata, "rate", budget, state.output)
                ratings, problem = parse_ratings(state.output.completion)
                if ratings is not None:
                    break
                problems.append(str(problem))
                state.messages.append(ChatMessageUser(content=RE_RATE.format(problem=problem)))
        state.store.set(RATINGS_KEY, list(ratings) if ratings else None)
        state.metadata["rating_problems"] = problems
        state.metadata["tie"] = ratings is None and bool(problems) and problems[-1].startswith(TIE_PROBLEM)
        return state

    return solve


@metric
def invalid() -> Metric:
    """Number of samples whose ratings broke the rules after every re-ask (scored wrong)."""

    def compute(scores: list[SampleScore]) -> int:
        return sum(1 for s in scores if status(s) == INVALID)

    return compute


@metric
def ties() -> Metric:
    """Number of samples whose two ratings were still equal after every re-ask (no choice; scored wrong)."""

    def compute(scores: list[SampleScore]) -> int:
        return sum(1 for s in scores if status(s) == TIE)

    return compute


@metric
def first_choice_rate() -> Metric:
    """Share of valid answers that chose the reply shown first (paper Fig. 2); NaN when none was valid."""

    def compute(scores: list[SampleScore]) -> float:
        chosen = [s.score.answer for s in scores if status(s) == VALID]
        return sum(c == "1" for c in chosen) / len(chosen) if chosen else float("nan")

    return compute


@scorer(
    metrics=[
        accuracy(),
        ci95_low(cluster="pair_id"),
        ci95_high(cluster="pair_id"),
        first_choice_rate(),
        invalid(),
        ties(),
        *OUTPUT_METRICS,
    ]
)
def persuasion_choice() -> Scorer:
    """Correct when the higher-rated reply is the one that won the delta."""

    async def score(state: TaskState, target: Target) -> Score:
        ratings = state.store.get(RATINGS_KEY)
        meta = {k: state.metadata[k] for k in ("pair_id", "order", "source")}
        if not ratings:
            problems = state.metadata.get("rating_problems") or []
            tied = bool(state.metadata.get("tie"))
            return Score(
                value=0,
                answer=None,
                explanation=f"{'tie' if tied else 'invalid ratings'}: {'; '.join(problems)}"[:500],
                metadata={
                    **meta,
                    "status": TIE if tied else INVALID,
                    "ratings": None,
                    **({} if tied else {"output_problem": output_problem(state.output)}),
                },
            )
        choice = "1" if ratings[0] > ratings[1] else "2"
        return Score(
            value=int(choice == target.text),
            answer=choice,
            explanation=state.output.completion[:500],
            metadata={**meta, "status": VALID, "ratings": ratings},
        )

    return score
