"""LongSocialBench as an inspect_ai task.

Liu et al. (2026), "LongSocialBench: Do Long-Context LLMs Understand Online Discussion Threads?" — items
(§3.1, Tables 7-9), the evaluation settings (Table 12; see `workflows`), per-capability / per-platform accuracy
and C-mac (Tables 3, 13), bootstrap CIs (Tables 14, 16).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessageUser, GenerateConfig, Model, get_model
from inspect_ai.solver import Generate, Solver, TaskState, chain, solver

from ...conversations.model import Node, Thread
from ...core.errors import InputError
from ...shared.answers import shuffle_options
from ...shared.benchmark import checked_limit
from ...shared.budgets import call_budget, checked_budget, known_context, reasons, record_call
from ...shared.caching import PrefixGate, cache_key, in_windows
from ...shared.embeddings import load_embedder
from ...shared.memory import Collector
from ...shared.metrics import OVERLENGTH
from ...shared.runs import INPUTS, code_record, input_record
from .items import CAPABILITIES, LETTERS, Item
from .layouts import CACHE_CUTS, CACHE_MARKS, item_start
from .pack import EpisodePack as EpisodePack  # the inputs' names, re-exported: `task` keeps its public names
from .pack import episode_pack as episode_pack
from .pack import episode_stats as episode_stats
from .pack import load_episodes as load_episodes
from .pack import load_pack as load_pack
from .pack import sample_pack as sample_pack
from .scorer import ANSWER_MODE, CONTEXT, choice_letter, open_answer_judge
from .workflows import Env, Question, ScopeError, Workflow, get_workflow, gold_scope_posts

AnswerMode = Literal["auto", "generate", "logprobs"]
Overlength = Literal["skip", "truncate"]
SELECTED = "longsocial:selected"
"""Store key: ids of the posts the workflow selected (None = the complete discussion)."""

COMPARABILITY = 1
"""This task's comparability version (`shared.runs.full_task_version`): raise it with a change that makes its
scores incomparable with earlier logs (docs/architecture.md, "Run identity")."""


def shuffled(item: Item, seed: int | None) -> tuple[list[str], str, list[int]]:
    """Options in a seeded order (stable per item), the gold letter in that order, and the permutation."""
    options, gold, order = shuffle_options(item.options, LETTERS.index(item.gold), item.id, seed)
    return options, LETTERS[gold], order


def record_to_sample(item: Item, seed: int | None = 0, layout: Mapping[str, Any] | None = None) -> Sample:
    """One item as an inspect Sample with the stable id ``episode:item``. The prompt is built at solve time by
    the workflow (from the episode and this metadata), as inspect's own ``multiple_choice`` does; ``layout`` is what
    the setting's layout planned for the item (a retrieval setting's cache marks and cuts)."""
    options, gold, order = shuffled(item, seed)
    return Sample(
        id=f"{item.episode_id}:{item.id}",
        input=item.stem,
        target=gold,
        choices=options,
        metadata={
            "item_id": item.id,
            "episode_id": item.episode_id,
            "capability": item.capability,
            "platform": item.platform,
            "form": item.form,
            "option_order": order,
            "stem": item.stem,
            "options": options,
            "scope": item.scope.model_dump() if item.scope else None,
            "evidence": item.evidence,
            "labels": item.labels,
            **(layout or {}),
        },
    )


def question_of(state: TaskState) -> Question:
    return Question(stem=state.metadata["stem"], options=state.metadata["options"], metadata=state.metadata)


def context_limit(model: Model, max_context: int | None) -> int | None:
    """The model's window: the provider's own (embedded), the task's ``max_context``, or inspect's model data for
    a known model (so ``-T max_context`` is needed only for unknown servers)."""
    return getattr(model.api, "context_length", None) or max_context or known_context(model)


def _item_start(question: Question) -> str:
    return item_start(question.stem)


def _shown(thread: Thread, state: TaskState) -> list[Node]:
    ids = state.store.get(SELECTED)
    return list(thread.traverse("thread")) if ids is None else [thread.node(i) for i in ids]


@solver
def prepare(
    workflow: Workflow,
    episodes: Mapping[str, Thread],
    max_context: int | None = None,
    embedder: str = "minilm",
    reasoning: bool = False,
    max_tokens: int | None = None,
) -> Solver:
    """Build the prompt at solve time: the workflow selects the posts to show (possibly retrieving or asking the
    model), may add model-written context, and renders the question. What it chose is recorded."""

    collector = Collector()  # the finished samples' prompts freed between samples (`shared.memory`)
    gate = PrefixGate()  # intermediate calls over an episode's shared prefix (LLM-as-retriever): one per task

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        collector.maybe_collect()
        thread = episodes[state.metadata["episode_id"]]
        question = question_of(state)
        model = get_model()
        env = Env(
            model=model,
            context_limit=context_limit(model, max_context),
            embedder=embedder,
            calls=state.metadata,
            declared_reasoning=reasoning,
            max_tokens=max_tokens,
            gate=gate,
            marks=state.metadata.get(CACHE_MARKS) or [],  # a Planned layout's, for an earlier call (RAG's notes)
            cuts=state.metadata.get(CACHE_CUTS) or [],
            keyed=cache_key(model, state.metadata["episode_id"]),
        )
        selection = await workflow.select(thread, question, env)
        context = await workflow.annotate(thread, selection.nodes, question, env)
        complete = len(selection.nodes) == len(thread.nodes)
        state.store.set(SELECTED, None if complete else [n.id for n in selection.nodes])
        state.metadata["workflow"] = workflow.name
        state.metadata["shown_posts"] = len(selection.nodes)
        state.metadata["selection"] = selection.info
        state.metadata[CONTEXT] = context
        text = workflow.prompt(thread, selection.nodes, question, context)
        content = workflow.layout.content(model, text, _item_start(question), state.metadata)
        state.messages = [ChatMessageUser(content=content)]
        return state

    return solve


@solver
def fit_context(
    workflow: Workflow,
    episodes: Mapping[str, Thread],
    overlength: Overlength = "skip",
    max_context: int | None = None,
    reserve: int = 16,
    reasoning: bool = False,
    max_tokens: int | None = None,
) -> Solver:
    """Before calling the model, compare the prompt with the model's context window (the provider's
    ``context_length`` if it has one, else ``max_context``) and the answer budget. Over-length items are skipped
    and marked (default), or, when asked, truncated by keeping the longest thread-order prefix of the selected
    posts that fits (the root and earliest discussion first); kept/total post counts go into the sample metadata.
    Works for every workflow: the prompt is re-rendered by the workflow from fewer posts."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        model = get_model()
        limit = context_limit(model, max_context)
        if not limit:
            return state
        thinking = workflow.reasoning or reasons(model, reasoning)
        room = reserve + (call_budget(model, workflow.max_tokens, max_tokens, reasoning).tokens if thinking else 0)
        prompt_tokens = await model.api.count_text_tokens(state.user_prompt.text)
        state.metadata["prompt_tokens"] = prompt_tokens
        if prompt_tokens + room <= limit:
            return state
        if overlength == "skip":
            state.metadata[OVERLENGTH] = True
            state.completed = True
            return state
        thread = episodes[state.metadata["episode_id"]]
        question = question_of(state)
        context = state.metadata.get(CONTEXT) or {}
        nodes = _shown(thread, state)
        lo, hi = 1, len(nodes)  # binary search on the number of posts kept
        best = None
        while lo <= hi:
            mid = (lo + hi) // 2
            text = workflow.prompt(thread, nodes[:mid], question, context)
            if await model.api.count_text_tokens(text) + room <= limit:
                best, lo = (mid, text), mid + 1
            else:
                hi = mid - 1
        if best is None:
            state.metadata[OVERLENGTH] = True
            state.completed = True
            return state
        state.metadata[CACHE_MARKS] = state.metadata[CACHE_CUTS] = []  # fewer posts: the planned marks no longer fit
        state.user_prompt.content = workflow.layout.content(model, best[1], _item_start(question), {})
        state.metadata["truncated"] = {
            "strategy": "thread-order prefix",
            "kept_posts": best[0],
            "total_posts": len(nodes),
        }
        return state

    return solve


def resolve_answer_mode(mode: AnswerMode, workflow: Workflow) -> Literal["generate", "logprobs"]:
    """``auto``: log-probabilities for an embedded model (so its letter always parses), generation otherwise
    and for every workflow that reasons before answering."""
    if mode != "auto":
        return mode
    if workflow.reasoning:
        return "generate"
    from ...models.llama_cpp import embedded_model

    return "logprobs" if embedded_model() else "generate"


@solver
def answer(
    workflow: Workflow, mode: AnswerMode = "auto", max_tokens: int | None = None, reasoning: bool = False
) -> Solver:
    """Ask for the answer: the workflow's answer call(s) with free generation (letter extracted by the scorer),
    or one token with the top next-token log-probabilities (for base models such as the embedded default)."""

    gate = PrefixGate()

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        resolved = resolve_answer_mode(mode, workflow)
        state.metadata[ANSWER_MODE] = resolved
        model = get_model()
        # the layout says whom the answer waits for, so that it reads a cache entry another item wrote (an
        # episode's first item, or the earlier item writing the longest start it reads; `layouts`)
        content, start = state.user_prompt.content, _item_start(question_of(state))
        async with workflow.layout.turn(gate, model, content, start, state.metadata) as turn:
            state.metadata["prefix_turn"] = turn
            keyed = cache_key(model, state.metadata["episode_id"])
            if resolved == "logprobs":
                return await generate(state, logprobs=True, top_logprobs=20, max_tokens=1, temperature=0.0, **keyed)
            budget = call_budget(model, workflow.max_tokens, max_tokens, reasoning)
            state.metadata["answer_budget"] = budget.as_dict()
            no_cache = workflow.layout.answer_config(state.metadata)  # an answer that shares nothing writes nothing

            async def ask(state: TaskState) -> TaskState:
                state = await generate(state, max_tokens=budget.tokens, **no_cache, **keyed)
                record_call(state.metadata, "answer", budget, state.output)
                return state

            return await workflow.respond(state, ask)

    return solve


def asked_items(
    flow: Workflow,
    threads: Mapping[str, Thread],
    loaded: list[Item],
    items_path: Path,
    capabilities: str | None,
    missing_oracle: Literal["error", "skip"],
    limit: int | None,
) -> tuple[list[Item], list[str]]:
    """The items a run asks, in the dataset's natural order (episodes as the episodes file lists them, items by id
    within an episode; the send order under concurrency is the scheduler's, never the dataset's), and the ids of
    the items an oracle setting left out: ``capabilities`` keeps those capabilities; an item without what an
    oracle setting needs (a scope that can be built, gold per-post labels) is an error or, with
    ``missing_oracle="skip"``, left out and named; ``limit`` keeps the first N."""
    if capabilities:
        wanted = {c.strip().upper() for c in capabilities.split(",") if c.strip()}
        if unknown := sorted(wanted - set(CAPABILITIES)):
            raise ValueError(f"unknown capabilities {', '.join(unknown)}; choose from {', '.join(CAPABILITIES)}")
        loaded = [i for i in loaded if i.capability in wanted]
    asked: list[Item] = []
    without_oracle: list[str] = []
    for item in loaded:
        problem = None
        if "gold-scope" in flow.needs:
            try:
                scope = item.scope.model_dump() if item.scope else None
                gold_scope_posts(threads[item.episode_id], item.stem, scope, item.evidence)
            except ScopeError as exc:
                problem = str(exc)
        if "gold-labels" in flow.needs and not item.labels:
            problem = "the item has no gold per-post labels (`labels`) for the component oracle"
        if problem is None:
            asked.append(item)
        elif missing_oracle == "skip":
            without_oracle.append(item.id)
        else:
            hint = f"(setting {flow.name}; -T missing_oracle=skip skips such items)"
            raise InputError(items_path, f"{problem} {hint}", record=item.id)
    episode_rank = {eid: n for n, eid in enumerate(threads)}
    asked.sort(key=lambda i: (episode_rank[i.episode_id], i.id))
    return asked[:limit] if limit is not None else asked, without_oracle


@task
def longsocial(
    items: str | None = None,
    episodes: str | None = None,
    workflow: str = "full",
    answer_mode: AnswerMode = "auto",
    seed: int = 0,
    capabilities: str | None = None,
    overlength: Overlength = "skip",
    max_context: int | None = None,
    max_tokens: int | None = None,
    embedder: str = "minilm",
    missing_oracle: Literal["error", "skip"] = "error",
    reasoning: bool = False,
    limit: int | None = None,
    reasoning_roles: str | None = None,
) -> Task:
    """LongSocialBench multiple choice over complete discussion threads (paper §3; settings of Table 12).

    Args:
        items: items JSONL (default: the bundled sample pack's items).
        episodes: episodes JSONL the items refer to (default: the bundled sample episodes).
        workflow: evaluation setting (`socialbench list` shows the registered ones); ``full`` = the complete
            serialized discussion in the prompt.
        answer_mode: ``generate`` (read the letter from the answer text), ``logprobs`` (highest next-token
            probability among A-D; for base models) or ``auto`` (logprobs for an embedded model).
        seed: option-shuffling seed (per item, stable); -1 keeps the authored order.
        capabilities: comma-separated subset, e.g. ``C1,C4``.
        overlength: ``skip`` (default) or ``truncate`` items whose prompt exceeds the model's context.
        max_context: context window in tokens for providers that do not report one (e.g. ``8192``).
        max_tokens: output budget of every model call in ``generate`` mode: the answer and the intermediate calls
            (retrieval, notes, labels). Default: each call's own (32 for a letter, 1024 for reasoning settings,
            160 for retrieval ...); for a reasoning model room for its reasoning (16,000 tokens; docs/models.md).
        reasoning: declare the model a reasoning model when inspect's model data does not know it (Qwen3 or
            DeepSeek-R1 on vLLM): every call gets room for its reasoning.
        reasoning_roles: model roles whose own model is a reasoning model inspect does not know (``grader``, for
            the open-answer setting's judge): their calls get room for reasoning (`socialbench run --reasoning-role`).
        embedder: sentence-transformers model of the dense (E5) settings: ``minilm`` (bundled all-MiniLM-L6-v2,
            offline) or a local path / cached id such as ``intfloat/e5-base-v2``. It is named in the log.
        missing_oracle: oracle settings: an item without what the setting needs (a scope that can be built; gold
            per-post labels for the component oracle) is an ``error`` (default), or ``skip`` it (listed in the
            log); it is never shown the full discussion instead.
        limit: ask only the first N items in the dataset's natural order (episodes in the episodes file's order,
            items by id within an episode), chosen before a retrieval setting orders an episode's items by their
            prompts' trie (`layouts.Planned`), so a grid asks the same N items in every setting. inspect's ``--limit N``
            (`socialbench run --limit N`) cuts the dataset's own order: the same N at any ``--max-connections``,
            with ``--batch`` and on any provider, and the same as this one except within a retrieval setting's
            last episode.
    """
    checked_budget(max_tokens)
    checked_limit(limit)
    flow = get_workflow(workflow)
    if answer_mode == "logprobs" and flow.reasoning:
        raise ValueError(f"workflow {workflow!r} reasons before answering: use answer_mode=generate or auto")
    embedder_name = load_embedder(embedder).name if "embedder" in flow.needs else None
    items_path, episodes_path, threads, loaded = load_pack(items, episodes)
    asked, without_oracle = asked_items(flow, threads, loaded, items_path, capabilities, missing_oracle, limit)
    asked, carried = flow.layout.plan(flow, threads, asked, embedder)  # a retrieval setting: its trie order
    samples = [record_to_sample(i, None if seed < 0 else seed, carried.get(i.id)) for i in asked]
    return Task(
        version=COMPARABILITY,
        dataset=MemoryDataset(samples, name="longsocial", location=str(items_path)),
        display_name=f"longsocial/{workflow}",  # inspect view tells the settings apart
        tags=[f"workflow={workflow}", f"seed={seed}"],
        solver=in_windows(
            chain(
                prepare(flow, threads, max_context, embedder, reasoning, max_tokens),
                fit_context(flow, threads, overlength, max_context, reasoning=reasoning, max_tokens=max_tokens),
                answer(flow, answer_mode, max_tokens, reasoning),
            ),
            group_key="episode_id",
        ),
        scorer=open_answer_judge(reasoning=reasoning, reasoning_roles=reasoning_roles)
        if "grader" in flow.needs
        else choice_letter(),
        # settings whose items share no discussion do not pay for cache writes (Anthropic bills them at 1.25x)
        config=GenerateConfig(temperature=0.0, cache_prompt=None if flow.layout.writes_cache else False),
        metadata={
            "benchmark": "longsocial",
            "workflow": workflow,
            "workflow_title": flow.title + (f" [embedder: {embedder_name}]" if embedder_name else ""),
            "workflow_family": flow.family,
            "workflow_params": flow.params,
            "workflow_needs": sorted(flow.needs),
            "prompt_cache": flow.layout.name,
            "diagnostic": flow.diagnostic,
            "embedder": embedder_name,
            "skipped_without_oracle": without_oracle,
            "answer_mode": answer_mode,
            "seed": seed,
            "items": str(items_path.resolve()),
            "episodes": str(episodes_path.resolve()),
            INPUTS: {
                "items": input_record(items_path),
                "episodes": {"path": str(threads.path), "sha256": threads.digest},
            },
            "episode_stats": episode_stats(threads, (i.episode_id for i in asked)),
            **code_record(COMPARABILITY),
        },
    )
