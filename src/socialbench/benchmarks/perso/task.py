"""PerSo as inspect tasks.

Zamani et al., "PerSo: Investigating Facets of LLMs' Social Intelligence in Real-World Persuasion Scenarios":
data (§3.1), the behavioral task (§3.2.1), the cognitive task (§3.2.2), the generation pipeline (§3.1, §A.9).
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset
from inspect_ai.model import GenerateConfig

from ...shared.benchmark import checked_limit
from ...shared.budgets import checked_budget
from ...shared.caching import in_windows
from ...shared.runs import INPUTS, code_record, input_record
from .behavioral import ITEM_START as PAIR_START
from .behavioral import AnswerMode, Orders, orders_of, persuasion_choice, rate_pair
from .behavioral import record_to_sample as pair_sample
from .cognitive import ITEM_START, choose_option, gold_positions, option_choice
from .cognitive import record_to_sample as item_sample
from .data import Unchecked, default_threads, load_pairs, load_threads, post_cleaning
from .generation import branch_samples, generation_check, write_items_solver
from .items import check_items, default_items, load_items
from .prompts import BEHAVIORAL_VERSION, COGNITIVE_VERSION, GENERATION_VERSION

COMPARABILITY = 1
"""This task's comparability version (`shared.runs.full_task_version`): raise it with a change that makes its
scores incomparable with earlier logs (docs/architecture.md, "Run identity")."""


TaskKind = Literal["behavioral", "cognitive"]
Dimension = Literal["belief", "emotion", "intent"]


@task
def perso(
    task: TaskKind = "behavioral",
    dimension: Dimension | None = None,
    threads: str | None = None,
    items: str | None = None,
    subset: str = "200",
    orders: Orders = "both",
    seed: int = 0,
    answer_mode: AnswerMode = "auto",
    retries: int = 2,
    unchecked: Unchecked = "admit",
    max_tokens: int | None = None,
    reasoning: bool = False,
    limit: int | None = None,
) -> Task:
    """PerSo behavioral (§3.2.1: rate two replies 1-4, pick the persuasive one) or cognitive (§3.2.2: forecast
    the OP's belief / emotion / intent, 4 options) task on real ChangeMyView threads.

    Args:
        task: ``behavioral`` or ``cognitive``.
        dimension: cognitive only: ``belief``, ``emotion`` or ``intent`` (default: all three).
        threads: PerSo threads as an episodes JSONL (default: the shipped Winning Arguments pairs and CMV exchanges).
        items: cognitive items JSONL (default: the shipped sample items, hand-written for socialbench).
        subset: behavioral threads: a number drawn at random (seeded; the paper samples 200) or ``all``.
        orders: behavioral: ``both`` presentation orders per pair, or one ``seeded`` order.
        seed: sampling, pair choice and option-order seed.
        answer_mode: ``generate`` (parse the text), ``logprobs`` (next-token probabilities; base models) or
            ``auto`` (logprobs for an embedded model, base or instruct).
        retries: behavioral: re-asks when the ratings break the rules before the answer counts as invalid.
        unchecked: behavioral: ``admit`` threads on which a construction rule could not be checked (the
            default: the shipped threads cannot show every rule), recording the unchecked rules per pair in the log
            and the report, never as passed; or ``exclude`` them (strict: a rule that cannot be checked fails).
        max_tokens: output budget of every answer call (default: 64 for the ratings, 32 for a letter; a reasoning
            model gets room for its reasoning, docs/models.md).
        reasoning: declare the model a reasoning model when inspect's model data does not know it (Qwen3 or
            DeepSeek-R1 on vLLM).
        limit: ask only the first N samples in dataset order (pairs in the drawn order, a pair's two orders one
            after the other; items in the file's order): the same N as inspect's ``--limit N`` (the dataset's order
            never depends on the connections; the send order is the scheduler's). Kept so that commands and logs
            that name it keep working.
    """
    checked_budget(max_tokens)
    checked_limit(limit)
    if task == "behavioral":
        if dimension is not None:
            raise ValueError("dimension applies to task=cognitive only")
        return behavioral(threads, subset, orders, seed, answer_mode, retries, unchecked, max_tokens, reasoning, limit)
    return cognitive(threads, items, dimension, seed, answer_mode, max_tokens, reasoning, limit)


def behavioral(
    threads: str | None,
    subset: str,
    orders: Orders,
    seed: int,
    answer_mode: AnswerMode,
    retries: int,
    unchecked: Unchecked,
    max_tokens: int | None,
    reasoning: bool,
    limit: int | None,
) -> Task:
    """§3.2.1: each drawn pair in its presentation orders, a pair's two orders one after the other; the two replies
    rated 1-4 and the persuasive one chosen (`rate_pair`), scored against the delta-winning reply."""
    threads_path = Path(threads) if threads else default_threads()
    built, pairs = load_pairs(threads, subset, seed, unchecked)
    shown = [(p, first) for p in pairs for first in orders_of(p, orders, seed)]
    return Task(
        version=COMPARABILITY,
        dataset=MemoryDataset(
            [pair_sample(p, first, built.unchecked.get(p.id, [])) for p, first in shown][:limit],
            name="perso-behavioral",
            location=str(threads_path),
        ),
        solver=in_windows(rate_pair(answer_mode, retries, max_tokens, reasoning), item_start=PAIR_START),
        scorer=persuasion_choice(),
        config=GenerateConfig(temperature=0.0),
        display_name="perso/behavioral",  # inspect view tells the tasks apart
        tags=["task=behavioral", f"seed={seed}", f"subset={subset}"],
        metadata={
            "benchmark": "perso",
            "task": "behavioral",
            INPUTS: {"threads": input_record(threads_path)},
            **code_record(COMPARABILITY),
            "prompt_version": BEHAVIORAL_VERSION,
            "threads": str(threads_path),
            "subset": subset,
            "pairs": len(pairs),
            "construction": [vars(c) for c in built.counts],
            "unchecked": unchecked,
            "pairs_with_unchecked_rules": sum(1 for p in pairs if p.id in built.unchecked),
            "post_cleaning": vars(post_cleaning(p.thread for p in pairs)),
            "orders": orders,
            "seed": seed,
        },
    )


def cognitive(
    threads: str | None,
    items: str | None,
    dimension: Dimension | None,
    seed: int,
    answer_mode: AnswerMode,
    max_tokens: int | None,
    reasoning: bool,
    limit: int | None,
) -> Task:
    """§3.2.2: each item in the file's order, its options shuffled with the gold balanced over A-D per dimension
    (a negative seed keeps the authored order), one letter chosen (`choose_option`)."""
    threads_path = Path(threads) if threads else default_threads()
    items_path = Path(items) if items else default_items()
    by_id = {t.id: t for t in load_threads(threads)}
    loaded = load_items(items_path, dimension)
    check_items(loaded, by_id, items_path)
    shuffle_seed = None if seed < 0 else seed
    positions = gold_positions(loaded, shuffle_seed)
    return Task(
        version=COMPARABILITY,
        dataset=MemoryDataset(
            [item_sample(i, by_id, shuffle_seed, positions.get(i.id)) for i in loaded][:limit],
            name="perso-cognitive",
            location=str(items_path),
        ),
        solver=in_windows(choose_option(answer_mode, max_tokens, reasoning), item_start=ITEM_START),
        scorer=option_choice(),
        config=GenerateConfig(temperature=0.0),
        display_name="perso/cognitive" + (f" {dimension}" if dimension else ""),
        tags=["task=cognitive", f"seed={seed}"],
        metadata={
            "benchmark": "perso",
            "task": "cognitive",
            INPUTS: {"threads": input_record(threads_path), "items": input_record(items_path)},
            **code_record(COMPARABILITY),
            "dimension": dimension,
            "prompt_version": COGNITIVE_VERSION,
            "threads": str(threads_path),
            "items": str(items_path),
            "item_authors": sorted({i.provenance.author for i in loaded}),
            "post_cleaning": vars(post_cleaning(by_id[t] for t in dict.fromkeys(i.thread_id for i in loaded))),
            "seed": seed,
        },
    )


@task
def perso_generate(
    threads: str | None = None,
    subset: str = "all",
    seed: int = 0,
    retries: int = 2,
    unchecked: Unchecked = "admit",
    reasoning: bool = False,
    reasoning_roles: str | None = None,
) -> Task:
    """PerSo's LLM-in-the-loop generation of cognitive items (§3.1, §A.9): gold belief / emotion / intent from the
    full dialogue, then three matched distractors each, by the ``generator`` model role (default: the model under
    test). Export the items with ``socialbench analyze perso export-items -A log=LOG -A out=FILE``.

    Args:
        threads: PerSo threads (default: the shipped ones; only branches whose OP answered are used).
        subset: constructed threads to use: a number (seeded) or ``all``.
        seed: sampling and option-order seed.
        retries: re-asks of a malformed generator answer.
        unchecked: ``admit`` threads on which a construction rule could not be checked, recorded per pair
            (default), or ``exclude`` them (strict).
        reasoning: declare the model under test a reasoning model (when it plays the generator role).
        reasoning_roles: ``generator`` declares the generator role's own model a reasoning model inspect does not
            know (`socialbench run --reasoning-role generator`).
    """
    threads_path = Path(threads) if threads else default_threads()
    built, pairs = load_pairs(threads, subset, seed, unchecked)
    samples = branch_samples(pairs)
    return Task(
        version=COMPARABILITY,
        dataset=MemoryDataset(samples, name="perso-generate", location=str(threads_path)),
        solver=write_items_solver(retries, seed, reasoning, reasoning_roles),
        scorer=generation_check(),
        config=GenerateConfig(temperature=0.0),
        display_name="perso/generate",
        metadata={
            "benchmark": "perso",
            "task": "generate",
            INPUTS: {"threads": input_record(threads_path)},
            **code_record(COMPARABILITY),
            "prompt_version": GENERATION_VERSION,
            "threads": str(threads_path),
            "unchecked": unchecked,
            "pairs_with_unchecked_rules": sum(1 for p in pairs if p.id in built.unchecked),
            "post_cleaning": vars(post_cleaning(p.thread for p in pairs)),
            "seed": seed,
        },
    )
