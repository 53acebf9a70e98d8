"""``socialbench plan sibench``: what a run will cost before it runs (`shared.costplan`).

Per dialogue a run sends (`task.protocol`) its reply call(s), the CoT and / or the direct prompt with the dialogue,
sent with ``cache_prompt=False`` (nothing they share reaches the providers' 1,024-token minimum), then the judge's
calls, whose instructions and rubric (before `judge.CASE_START`) every case shares as a cached block. The judge's
prompts carry the analysis and the replies the model writes, so every mode is planned at two bounds (`BOUNDS`),
between which a run's bill lies. The judge is the model under test (a run without ``--model-role grader``): its calls
are in the model's row. Human replies (``-T human_replies``) are not planned.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from inspect_ai.model import ModelCost

from ...shared.benchmark import parse_arguments
from ...shared.budgets import call_budget, checked_budget
from ...shared.costplan import FILLER, Call, PlanRow, cache_kind, calls_tokens, judge_calls, priced_row, tokenizer_for
from ...shared.judging import JUDGE_TOKENS
from .dataset import load_dialogues
from .judge import CASE_START, blind_replies_prompt, judge_prompt, pairwise_prompt, process_prompt, tie_prompt
from .prompts import COMPONENT_KEYS, Lang, cot_prompt, dialogue_message, direct_prompt
from .task import REPLY_TOKENS, _ablation, asked_dialogues, record_to_sample, sibench

Bound = Literal["low", "high"]
BOUNDS: dict[str, str] = {
    "low": "the model writes nothing readable: no reply is judged (the reply calls alone)",
    "high": "each analysis field and each reply fills the reply call's own budget; the judge breaks the format at "
    "every attempt (re-asked twice), and in the paper's protocol the two replies tie, so the preference is asked too",
}
TAKEN = ("mode", "lang", "subset", "n", "seed", "ablate", "max_tokens", "reasoning", "dialogues")


def dialogue_calls(
    chat: str, message: str, mode: str, lang: Lang, removed: tuple[str, ...], reply: int, judge: int, bound: Bound,
    written: int,
) -> list[Call]:  # fmt: skip
    """The requests of one dialogue at the bound: the reply calls (system prompt and dialogue message, uncached) and,
    at the high bound, the judge's (its rubric a cached block; the pairwise diagnostic's prompts are not laid out)."""
    kinds = {"paper": ("cot", "direct"), "pairwise": ("cot", "direct"), "cot": ("cot",), "direct": ("direct",)}[mode]
    systems = {"cot": cot_prompt(lang, removed if mode != "pairwise" else ()), "direct": direct_prompt(lang)}
    calls = [Call(systems[kind] + message, reply, False) for kind in kinds]
    if bound == "low":
        return calls
    text = FILLER * written
    kept = [k for k in COMPONENT_KEYS if k not in removed] if mode != "pairwise" else list(COMPONENT_KEYS)
    analysis = {k: FILLER * (written // len(kept)) for k in kept}
    if mode == "paper":
        for prompt in (process_prompt(chat, analysis), blind_replies_prompt(chat, text, text)):
            calls += judge_calls(prompt, judge)
        calls += judge_calls(tie_prompt(chat, text, text, 5), judge)
    elif mode == "pairwise":
        calls += judge_calls(pairwise_prompt(chat, text, text), judge, cached=False) * 2  # both orders
    else:
        calls += judge_calls(judge_prompt(chat, text, analysis if mode == "cot" else None), judge)
    assert all(CASE_START in c.text for c in calls[len(kinds) :])  # the judge's prompts carry the cached block's end
    return calls


def plan(
    models: Sequence[str],
    task_args: Mapping[str, Any],
    prices: Mapping[str, ModelCost] | None = None,
    paper: bool = False,
    cache_ttl: str | None = None,
) -> tuple[str, list[PlanRow]]:
    """Plan rows per model at the two bounds, and the plan's title, for the dialogues a run with these task
    arguments asks (`task.asked_dialogues`)."""
    if unknown := sorted(set(task_args) - set(TAKEN)):
        raise ValueError(f"plan sibench takes -T {', '.join(TAKEN)}; not {', '.join(unknown)}")
    if paper:
        raise ValueError("--paper-grid plans LongSocialBench's grid; SI-Bench is planned over its dialogues")
    if not models:
        raise ValueError("--model: no model named (give one or more, comma-separated)")
    typed = parse_arguments(sibench, [f"{key}={value}" for key, value in task_args.items()])  # as `run` types them
    args = {name: p.default for name, p in inspect.signature(sibench).parameters.items()} | typed
    mode, lang, removed = args["mode"], args["lang"], _ablation(args["ablate"])
    if removed and mode not in ("paper", "cot"):
        raise ValueError("ablations apply to the CoT prompt: use mode=paper or mode=cot")
    subset, n, seed, declared = args["subset"], args["n"], args["seed"], bool(args["reasoning"])
    given = checked_budget(args["max_tokens"])
    chosen = asked_dialogues(load_dialogues(args["dialogues"]), subset, n, seed)
    cases = [(str((record_to_sample(d).metadata or {})["chat"]), dialogue_message(d, lang)) for d in chosen]
    rows = []
    for model in models:
        encoding, label = tokenizer_for(model)
        reply = call_budget(model, REPLY_TOKENS, given, declared).tokens
        judge = call_budget(model, JUDGE_TOKENS, declared=declared).tokens
        for bound in ("low", "high"):
            calls = [c for chat, message in cases for c in dialogue_calls(
                chat, message, mode, lang, removed, reply, judge, bound, given or REPLY_TOKENS
            )]  # fmt: skip
            tokens = calls_tokens([calls], cache_kind(model), len(chosen), encoding)
            setting = f"{mode} {lang}" + (f" -{','.join(removed)}" if removed else "")
            rows.append(priced_row(model, setting, label, cache_kind(model), tokens, prices, cache_ttl, bound))
    title = (
        f"Cost plan: {len(chosen)} dialogues ({subset}); the model under test judges (as without --model-role "
        "grader); planned at two bounds: " + "; ".join(f"({name}) {what}" for name, what in BOUNDS.items())
    )
    return title, rows
