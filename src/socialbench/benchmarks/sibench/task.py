"""SI-Bench as inspect_ai tasks.

"SI-Bench: Benchmarking Social Intelligence of Large Language Models in Human-to-Human Conversations": the model
speaks for 用户 and writes the next reply, directly (Table 8) or after a five-part CoT (Table 7); reasoning and
replies are judged 0/5/10 by rubric (Tables 5-6, §3.2), both replies of a dialogue blind side by side with a
forced preference on ties (§3.3); CoT components are ablated (§4.4, Table 2).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessageSystem, ChatMessageUser, GenerateConfig, ResponseSchema, get_model
from inspect_ai.scorer import Scorer
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import JSONSchema

from ...conversations.model import Dialogue
from ...conversations.render import render_dialogue
from ...shared.answers import balanced_gold_positions, strip_thinking
from ...shared.budgets import call_budget, checked_budget, record_call
from ...shared.outputs import output_problem
from ...shared.runs import INPUTS, code_record, input_record
from .dataset import (
    balanced_sample,
    context_group,
    data_path,
    interleaved,
    load_dialogues,
    random_sample,
    shuffled,
    situation,
)
from .human import HumanReply, load_human_replies
from .judge import cot_judge, pairwise_judge, paper_judge, reply_judge
from .parsing import parse_answer, placeholder, reply_length, unreadable_reply
from .prompts import (
    CHAR_LIMIT,
    COMPONENT_KEYS,
    COMPONENTS,
    RESPONSE_FIELD,
    Lang,
    cot_prompt,
    dialogue_message,
    direct_prompt,
    named_fields,
)

Mode = Literal["paper", "cot", "direct", "pairwise"]

COMPARABILITY = 1
"""This task's comparability version (`shared.runs.full_task_version`): raise it with a change that makes its
scores incomparable with earlier logs (docs/architecture.md, "Run identity")."""


def record_to_sample(dialogue: Dialogue, cot_first: bool | None = None) -> Sample:
    """One dialogue as a Sample with the stable id ``sibench:<id>``; the model speaks next for 用户. ``cot_first``:
    the paper protocol's blind order of the two replies (`reply_orders`)."""
    return Sample(
        id=dialogue.id,
        input=render_dialogue(dialogue),
        metadata={
            "chat": render_dialogue(dialogue).rstrip("\n"),
            "situation": situation(dialogue),
            "situation_zh": dialogue.meta["scenario"],
            "first_level": dialogue.meta["first_level_scenario_en"],
            "context_group": context_group(dialogue),
            "dialogue": dialogue.model_dump(mode="json"),
            **({} if cot_first is None else {"cot_first": cot_first}),
        },
    )


def reply_orders(dialogues: Sequence[Dialogue], seed: int) -> dict[str, bool]:
    """Which dialogues show the CoT reply first to the judge (paper mode): half of each situation's dialogues each
    way (±1), which ones drawn from the seed, so position bias cancels within every situation and overall."""
    groups: dict[str, list[str]] = {}
    for d in dialogues:
        groups.setdefault(situation(d), []).append(d.id)
    return {key: position == 0 for key, position in balanced_gold_positions(groups, seed, 2).items()}


Structured = Literal["auto", "on", "off"]


def answer_schema(lang: Lang, expected: list[str]) -> ResponseSchema:
    """The answer template's fields (Table 7 / Table 8) as a JSON schema, for structured output: every field a
    string, the analysis fields bounded, the reply bounded near the 15-character rule."""
    names = {c.key: (c.field_en if lang == "en" else c.field_zh) for c in COMPONENTS}
    properties = {names[k]: JSONSchema(type="string", maxLength=300) for k in expected}
    properties[RESPONSE_FIELD[lang]] = JSONSchema(type="string", maxLength=60)
    schema = JSONSchema(type="object", properties=properties, required=list(properties), additionalProperties=False)
    return ResponseSchema(name="answer", json_schema=schema, strict=False)


def _structured(mode: Structured) -> bool:
    """``auto``: structured output for an embedded model only (a 135M-270M model does not keep the template unaided;
    API models answer as the paper's models did, from the prompt alone)."""
    if mode != "auto":
        return mode == "on"
    from ...models.llama_cpp import embedded_model

    return embedded_model()


REPLY_TOKENS = 1024
"""The reply call's own budget: the five-part analysis and the reply (a direct reply needs far less)."""


async def _reply(
    state: TaskState,
    generate: Generate,
    system: str,
    lang: Lang,
    expected: list[str],
    max_tokens: int | None,
    structured: Structured = "auto",
    reasoning: bool = False,
) -> tuple[dict[str, str], list[str], str]:
    dialogue = Dialogue.model_validate(state.metadata["dialogue"])
    schema = answer_schema(lang, expected) if _structured(structured) else None
    state.metadata["structured_output"] = schema is not None
    if schema is not None:  # the grammar holds the format; the template names what each field holds
        system = named_fields(system, lang)
    state.messages = [ChatMessageSystem(content=system), ChatMessageUser(content=dialogue_message(dialogue, lang))]
    budget = call_budget(get_model(), REPLY_TOKENS, max_tokens, reasoning)
    # nothing of this prompt can be read from a cache: the instructions every dialogue shares are under the 1,024
    # tokens OpenAI and Anthropic cache at least (CoT 940 in zh, 563 in en; direct ~120: cl100k) and the dialogue is
    # the sample's own, so the call writes no cache entry (Anthropic's automatic mark wrote one per request, 1.25x)
    state = await generate(state, max_tokens=budget.tokens, response_schema=schema, cache_prompt=False)
    record_call(state.metadata, "reply", budget, state.output)
    parsed = parse_answer(strip_thinking(state.output.completion), expected)
    fields = dict(parsed.fields)
    for key, value in parsed.fields.items():  # analysis fields that only echo the template are missing
        if key != "response" and placeholder(value):
            del fields[key]
            parsed.problems.append(f"field {key} echoes the template")
    return fields, parsed.problems, state.output.completion


def _record(state: TaskState, suffix: str, fields: dict[str, str], problems: list[str], output: bool = True) -> None:
    """The reply and what went wrong reading it; ``state.output`` is the answer it was read from (``output``
    False: the reply was not generated, e.g. a human's). A reply that is empty, echoes the template or copies the
    chat is no reply: recorded by cause (`parsing.unreadable_reply`), never judged."""
    reply = fields.get("response")
    state.metadata[f"parse_problems{suffix}"] = problems
    unreadable = unreadable_reply(reply, str(state.metadata.get("chat", ""))) if reply is not None else None
    if unreadable:
        problems.append(f"the reply is not a reply ({unreadable}): {reply!r}"[:200])
        state.metadata[f"echoed_reply{suffix}"] = reply
        reply = None
    state.metadata[f"reply{suffix}"] = reply
    if reply:
        state.metadata[f"output_problem{suffix}"] = None
    else:
        state.metadata[f"output_problem{suffix}"] = unreadable or (output_problem(state.output) if output else "empty")
    if reply is not None:
        length = reply_length(reply)
        state.metadata[f"reply_length{suffix}"] = length
        state.metadata[f"length_violation{suffix}"] = length > CHAR_LIMIT


@solver
def write_reply(
    mode: Literal["cot", "direct"] = "cot",
    lang: Lang = "zh",
    ablate: tuple[str, ...] = (),
    max_tokens: int | None = None,
    structured: Structured = "auto",
    reasoning: bool = False,
) -> Solver:
    """Generate 用户's next reply with the CoT or the direct prompt and read its fields."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        expected = [k for k in COMPONENT_KEYS if k not in ablate] if mode == "cot" else []
        system = cot_prompt(lang, ablate) if mode == "cot" else direct_prompt(lang)
        fields, problems, _ = await _reply(state, generate, system, lang, expected, max_tokens, structured, reasoning)
        _record(state, "", fields, problems)
        state.metadata["analysis"] = {k: v for k, v in fields.items() if k != "response"}
        state.metadata["mode"] = mode
        state.metadata["ablate"] = list(ablate)
        return state

    return solve


@solver
def write_both_replies(
    lang: Lang = "zh",
    max_tokens: int | None = None,
    ablate: tuple[str, ...] = (),
    structured: Structured = "auto",
    reasoning: bool = False,
) -> Solver:
    """The CoT answer (analysis + reply, Table 7, minus any ablated components) and the direct reply (Table 8) to
    the same dialogue, as the paper's protocol and the pairwise diagnostic need."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        expected_cot = [k for k in COMPONENT_KEYS if k not in ablate]
        for mode, system, expected in (
            ("cot", cot_prompt(lang, ablate), expected_cot),
            ("direct", direct_prompt(lang), []),
        ):
            fields, problems, text = await _reply(
                state, generate, system, lang, expected, max_tokens, structured, reasoning
            )
            _record(state, f"_{mode}", fields, problems)
            state.metadata[f"completion_{mode}"] = text
            if mode == "cot":
                state.metadata["analysis"] = {k: v for k, v in fields.items() if k != "response"}
        state.metadata["parse_problems"] = {m: state.metadata[f"parse_problems_{m}"] for m in ("cot", "direct")}
        state.metadata["ablate"] = list(ablate)
        return state

    return solve


@solver
def use_human_replies(replies: dict[str, HumanReply]) -> Solver:
    """Put a human-written reply (and its CoT fields, if given) where a model's would be, so the same judge
    scores it."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        human = replies[str(state.sample_id)]
        _record(state, "", {"response": human.reply, **human.analysis}, [], output=False)
        state.metadata["analysis"] = dict(human.analysis)
        state.metadata["mode"] = "human"
        state.metadata["author"] = human.author
        return state

    return solve


def _ablation(ablate: str | None) -> tuple[str, ...]:
    if not ablate:
        return ()
    parts = tuple(p.strip() for p in ablate.split(",") if p.strip())
    unknown = [p for p in parts if p not in COMPONENT_KEYS]
    if unknown:
        raise ValueError(f"unknown CoT component(s) {unknown}; choose from {', '.join(COMPONENT_KEYS)}")
    return parts


@task
def sibench(
    mode: Mode = "paper",
    lang: Lang = "zh",
    subset: Literal["balanced", "random", "all"] = "balanced",
    n: int = 312,
    seed: int = 0,
    ablate: str | None = None,
    penalize_length: bool = False,
    judge_retries: int = 2,
    max_tokens: int | None = None,
    human_replies: str | None = None,
    dialogues: str | None = None,
    structured: Structured = "auto",
    reasoning: bool = False,
    reasoning_roles: str | None = None,
) -> Task:
    """SI-Bench reply generation judged by rubric (paper §3.3, §4).

    Args:
        mode: ``paper`` (the paper's protocol: CoT and direct reply per dialogue; process scored from the analysis;
            both replies scored blind side by side in a seeded order; a forced preference only on ties; CoT win
            rate), ``cot`` / ``direct`` (single-reply scoring: one reply judged alone, the CoT judge also sees the
            analysis), or ``pairwise`` (diagnostic: a preference always asked, in both orders).
        lang: prompt language, ``zh`` (our translation) or ``en`` (as printed in the paper).
        subset: ``balanced`` (situation-balanced seeded sample of ``n`` dialogues; the paper's 312), ``random``
            (seeded uniform sample of ``n``; the paper's ablation draws 100 at random, §4.4) or ``all``.
        n: size of the balanced or random subset. Dialogues run in an order that makes any first N of them
            (``--limit N``) a situation-balanced sample (``random``: a uniform one).
        seed: sampling seed (and the pairwise order seed).
        ablate: comma-separated CoT components to remove (RQ4): motivation, cause, emotional_attitude,
            social_intention, communicative_strategy.
        penalize_length: score 0 for replies over the 15-character limit (violations are always recorded).
        judge_retries: extra attempts when the judge's JSON is invalid.
        max_tokens: output budget of the model's reply (default 1,024 tokens; a reasoning model gets room for
            its reasoning, docs/models.md).
        reasoning: declare the model a reasoning model when inspect's model data does not know it (Qwen3 or
            DeepSeek-R1 on vLLM): its replies, and the judge's calls when it judges itself, get room for reasoning.
        reasoning_roles: ``grader`` declares the grader role's own model a reasoning model inspect does not know:
            the judge's calls get room for reasoning (`socialbench run --reasoning-role grader`).
        structured: ask for the answer template as structured output (a JSON schema; a llama.cpp grammar on the
            embedded model): ``auto`` = only for an embedded model, ``on``, ``off``. Under structured output the
            template names each field's content (``<your reply>``) instead of the paper's ``xxx``, which a small
            model copies (the grammar already holds the format).
        human_replies: JSONL/CSV of human-written replies (``dialogue, reply[, analysis]``): these are judged
            instead of generating, over the dialogues they cover (with ``analysis``, use mode=cot).
        dialogues: a copy of the released SI-Bench.json to read (default: the one `socialbench fetch sibench` put
            into the cache; either way checked by content: runs on the same file are one run).
    """
    checked_budget(max_tokens)
    removed = _ablation(ablate)
    replies = {r.dialogue: r for r in load_human_replies(human_replies)} if human_replies else None
    solver, scorer = protocol(
        mode, lang, removed, replies, seed, judge_retries, penalize_length, max_tokens, structured, reasoning,
        reasoning_roles,
    )  # fmt: skip
    chosen = asked_dialogues(load_dialogues(dialogues), subset, n, seed, replies)
    orders = reply_orders(chosen, seed) if mode == "paper" and replies is None else {}
    inputs = {"dialogues": input_record(data_path(dialogues))}
    if human_replies:
        inputs["human_replies"] = input_record(human_replies)
    return Task(
        version=COMPARABILITY,
        dataset=MemoryDataset([record_to_sample(d, orders.get(d.id)) for d in chosen], name="sibench"),
        solver=solver,
        scorer=scorer,
        config=GenerateConfig(temperature=0.0),
        display_name=f"sibench/{mode} {lang}" + (f" -{','.join(removed)}" if removed else ""),  # inspect view
        tags=[f"mode={mode}", f"lang={lang}", f"seed={seed}", *(f"ablate={r}" for r in removed)],
        metadata={
            "benchmark": "sibench",
            INPUTS: inputs,
            **code_record(COMPARABILITY),
            "mode": mode,
            "lang": lang,
            "ablate": list(removed),
            "subset": subset,
            "order": "uniform random (seeded)" if subset == "random" else "situations interleaved (seeded)",
        },
    )


def asked_dialogues(
    dialogues: Sequence[Dialogue], subset: str, n: int, seed: int, replies: Mapping[str, HumanReply] | None = None
) -> list[Dialogue]:
    """The dialogues asked, in an order that makes any prefix (``--limit N``) a sample of the same kind:
    situation-balanced (`balanced_sample`, the paper's 312), uniform (`random_sample`, §4.4's 100) or all; with
    human replies, the dialogues they cover."""
    if replies is not None:
        return interleaved([d for d in dialogues if d.id in replies], seed)
    if subset == "balanced":
        return interleaved(balanced_sample(dialogues, n, seed), seed)
    if subset == "random":
        return shuffled(random_sample(dialogues, n, seed), seed)
    return interleaved(list(dialogues), seed)


def protocol(
    mode: Mode,
    lang: Lang,
    removed: tuple[str, ...],
    replies: Mapping[str, HumanReply] | None,
    seed: int,
    judge_retries: int,
    penalize_length: bool,
    max_tokens: int | None,
    structured: Structured,
    reasoning: bool,
    reasoning_roles: str | None,
) -> tuple[Solver, Scorer]:
    """A mode's solver and scorer (§3.3): ``paper`` writes both replies and judges them blind side by side,
    ``pairwise`` asks a preference in both orders, ``cot`` / ``direct`` judge one reply alone; human replies are
    judged alone (cot with their analysis, direct without)."""
    if removed and mode not in ("paper", "cot"):
        raise ValueError("ablations apply to the CoT prompt: use mode=paper or mode=cot")
    if replies is not None and mode in ("pairwise", "paper"):
        raise ValueError("human replies are judged with mode=cot or mode=direct (single-reply scoring)")
    judged = (judge_retries, penalize_length, reasoning, reasoning_roles)
    if mode == "paper":
        return write_both_replies(lang, max_tokens, removed, structured, reasoning), paper_judge(seed, *judged)
    if mode == "pairwise":
        solver = write_both_replies(lang, max_tokens, reasoning=reasoning)
        return solver, pairwise_judge(seed, judge_retries, reasoning=reasoning, reasoning_roles=reasoning_roles)
    if replies is not None:
        solver = use_human_replies(dict(replies))
    elif mode == "cot":
        solver = write_reply("cot", lang, removed, max_tokens, structured, reasoning)
    else:
        solver = write_reply("direct", lang, (), max_tokens, structured, reasoning)
    return solver, cot_judge(*judged) if mode == "cot" else reply_judge(*judged)
