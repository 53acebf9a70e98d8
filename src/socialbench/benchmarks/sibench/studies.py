"""SI-Bench's human studies (§3.3): annotators score what the LLM judge scores, shown as the judge sees it, 0/5/10
from the same rubric schema the judge uses.

- ``sibench-process``: the conversation and the speaker's analysis (Table 6); only the dimensions the analysis has.
- ``sibench-replies``: the conversation and the CoT and direct replies, blind, side by side as Reply 1 / Reply 2 in a
  seeded order recorded in the key (Table 5); never the analysis, which would tell which reply followed it.

Built from paper-protocol logs (``--logs``). Which model wrote an item, its ablation and which reply is the CoT one
stay in the key. Items of one dialogue (across models and ablations) form a group that `studies.create` spreads over
annotators, so that an annotator sees each dialogue once where the roster allows. A preference question is on every
replies form (Potato cannot show a question only when two other answers tie); scoring uses it only when the two reply
scores tie, as the paper does.
"""

from __future__ import annotations

import hashlib
import random
import statistics
from collections import Counter, defaultdict
from collections.abc import Iterator
from typing import Any

from rich.console import Console

from ...core.jsonl import dump_json
from ...shared import studies
from ...shared.agreement import alpha_text, krippendorff_alpha
from ...shared.benchmark import log_paths, read_log
from ...shared.runs import run_set
from ...shared.statistics import proportion_ci
from ...shared.terminal import Table
from .analysis import AXES
from .paper import HUMAN_ALPHA
from .prompts import COMPONENT_KEYS, COMPONENTS
from .rubric import PROCESS_RUBRIC, REPLY_RUBRIC, Dimension

SCORES = ["0", "5", "10"]


def _rubric_text(dim: Dimension) -> str:
    levels = "; ".join(f"{lv.score}: {' '.join(lv.criteria)}" for lv in dim.levels)
    return f"{dim.name}: {dim.definition} ({levels})"


def _paper_samples(logs: str) -> Iterator[tuple[Any, Any, Any, dict[str, Any]]]:
    """(run, log, sample, metadata) of every paper-protocol sample; a rerun of a run counts once."""
    for info in run_set(log_paths([logs])).runs:
        log = read_log(info.path)
        for sample in log.samples or []:
            yield info, log, sample, sample.metadata or {}


def _key(info: Any, log: Any, sample: Any) -> dict[str, Any]:
    args = log.eval.task_args
    return {
        "model": info.label_without(AXES),  # the key names mode, language, subset and ablation itself
        "mode": args.get("mode", "paper"),
        "lang": args.get("lang", "zh"),
        "ablate": args.get("ablate") or "",
        "subset": f"{args.get('subset', 'balanced')} {args.get('n', 312)}",
        "dialogue": str(sample.id),
        "log": info.path,
    }


def _item(seed: int, log: Any, sample: Any, html: str, key: dict[str, Any]) -> studies.Item:
    # an id that carries no order: a hash of the run and the dialogue (numbered ids in log order would tell an
    # annotator which model's block an item is in); the dialogue is the group, so that an annotator sees each
    # dialogue once where the roster allows it (`studies.create`)
    digest = hashlib.sha256(f"{seed}:{key['log']}:{sample.id}".encode()).hexdigest()[:10]
    return studies.Item(f"s{digest}", html, key, group=str(sample.id))


def _conversation(meta: dict[str, Any]) -> str:
    """The dialogue the annotator reads, beside the panel that holds what is scored and the forms (in view)."""
    return (
        '<div class="sb-thread"><p><b>Conversation</b> (用户 is the speaker, 对方 the other party)</p>'
        f"<div>{studies.escape(str(meta.get('chat', '')))}</div></div>"
    )


def _finish(out: list[studies.Item], seed: int, logs: str, what: str) -> list[studies.Item]:
    if not out:
        raise ValueError(f"{logs}: no sample with {what} (run sibench in the paper mode)")
    random.Random(f"order:{seed}").shuffle(out)  # the runs' items interleaved, not in blocks
    return out


def process(logs: str, seed: int = 0, limit: int | None = None) -> studies.Design:
    """Score the speaker's analysis on the process dimensions (§3.3, Table 6), as the LLM judge does: the
    conversation and the analysis only, never a reply, and only the dimensions the analysis has.

    One study holds runs of one component set: Potato asks the same questions on every page, so an ablated run's
    items (no Cause) cannot share a study with full-CoT items without asking what they cannot answer. A sample whose
    analysis lacks a part its run asked for is left out and counted (the judge leaves that dimension unscored).

    Args:
        logs: inspect logs (files or a folder) of `socialbench run sibench` in the paper mode.
        seed: item-id and order seed.
        limit: use only the first N samples.
    """
    out: list[studies.Item] = []
    asked_by_run: dict[str, tuple[str, ...]] = {}
    incomplete = 0
    for info, log, sample, meta in _paper_samples(logs):
        if limit and len(out) >= limit:
            break
        analysis = meta.get("analysis") or {}
        if not analysis:
            continue
        asked = tuple(k for k in COMPONENT_KEYS if k not in (meta.get("ablate") or []))
        key = _key(info, log, sample)
        asked_by_run.setdefault(run_label(key), asked)
        if any(not analysis.get(k) for k in asked):
            incomplete += 1
            continue
        shown = [c for c in COMPONENTS if c.key in asked]
        steps = "".join(f"<li><b>{c.field_en}</b>: {studies.escape(str(analysis[c.key]))}</li>" for c in shown)
        html = studies.panel(f"<p><b>The speaker's analysis</b> (score each part)</p><ul>{steps}</ul>", long=True)
        html += _conversation(meta)
        out.append(_item(seed, log, sample, html, key | {"asked": list(asked)}))
    if len(set(asked_by_run.values())) > 1:
        runs = "; ".join(f"{run}: {', '.join(asked)}" for run, asked in asked_by_run.items())
        raise ValueError(
            f"{logs}: the runs' analyses have different parts ({runs}); create one sibench-process study per "
            "ablation (--logs of the runs that share one)"
        )
    (asked,) = set(asked_by_run.values()) or {COMPONENT_KEYS}
    dims = {d.key: d for d in PROCESS_RUBRIC.dimensions}
    notes = [f"{incomplete} sample(s) left out: the analysis lacks a part its run asked for"] if incomplete else []
    return studies.Design(
        kind="sibench-process",
        title="SI-Bench analysis scoring",
        instructions="Score the speaker's analysis of the conversation on each dimension with the rubric (0 / 5 / 10).",
        questions=[studies.Question(k, "radio", _rubric_text(dims[k]), SCORES) for k in asked],
        items=_finish(out, seed, logs, "an analysis"),
        notes=notes,
    )


def replies(logs: str, seed: int = 0, limit: int | None = None) -> studies.Design:
    """Score both final replies of paper-protocol runs blind, side by side (§3.3, Table 5), as the LLM judge does:
    the conversation and Reply 1 / Reply 2 (CoT and direct in a seeded order kept in the key), never the analysis.

    Args:
        logs: inspect logs (files or a folder) of `socialbench run sibench` in the paper mode.
        seed: reply-order seed.
        limit: use only the first N samples.
    """
    out: list[studies.Item] = []
    rubric = studies.escape(_rubric_text(REPLY_RUBRIC.dimensions[0]))
    for info, log, sample, meta in _paper_samples(logs):
        if limit and len(out) >= limit:
            break
        cot, direct = meta.get("reply_cot"), meta.get("reply_direct")
        if not (cot and direct):
            continue
        cot_first = random.Random(f"{seed}:{log.eval.model}:{sample.id}").random() < 0.5
        first, second = (cot, direct) if cot_first else (direct, cot)
        html = studies.panel(
            f"<p><b>Reply 1:</b> {studies.escape(str(first))}</p><p><b>Reply 2:</b> {studies.escape(str(second))}</p>"
            f"<p><b>Rubric</b> (both replies): {rubric}</p>",
            long=True,
        ) + _conversation(meta)
        out.append(_item(seed, log, sample, html, _key(info, log, sample) | {"cot_first": cot_first}))
    questions = [  # the rubric is on the page once, under the replies (it was in both questions: twice a page)
        studies.Question("reply_1", "radio", "Reply 1: its score by the rubric (0 / 5 / 10)", SCORES),
        studies.Question("reply_2", "radio", "Reply 2: its score by the rubric (0 / 5 / 10)", SCORES),
        studies.Question("preferred", "radio", "Which reply is better? (used only when your two scores are equal)",
                         ["Reply 1", "Reply 2"]),
    ]  # fmt: skip
    return studies.Design(
        kind="sibench-replies",
        title="SI-Bench reply scoring",
        instructions="Score each reply with the rubric (0 / 5 / 10); if your two scores are equal, the preference "
        "decides.",
        questions=questions,
        items=_finish(out, seed, logs, "both a CoT and a direct reply"),
    )


def run_label(key: dict[str, Any]) -> str:
    """The run an item came from: model, mode, language, subset and ablation (keys of studies built before these
    fields were recorded name the model alone)."""
    parts = [str(key["model"])] + [str(key[f]) for f in ("mode", "lang", "subset") if key.get(f)]
    if "ablate" in key:
        parts.append(f"without {key['ablate']}" if key["ablate"] else "full CoT")
    return " · ".join(parts)


def score(folder: str, console: Console, as_json: bool = False) -> None:
    record = studies.load(folder)
    keys = studies.key(folder)
    per_model: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    cells: dict[str, dict[tuple[str, str], float]] = defaultdict(dict)
    rows = studies.answers(folder)
    for a in rows:
        k = keys[a.item]
        run = run_label(k)
        values = {q: int(v) for q, v in a.values.items() if q in (*COMPONENT_KEYS, "reply_1", "reply_2")}
        if "reply_1" in values and "reply_2" in values:
            cot, direct = (
                (values["reply_1"], values["reply_2"]) if k["cot_first"] else (values["reply_2"], values["reply_1"])
            )
            values["cot_reply"], values["direct_reply"] = cot, direct
            if cot != direct:
                win = float(cot > direct)
            elif a.values.get("preferred"):
                win = float((a.values["preferred"] == "Reply 1") == k["cot_first"])
            else:
                win = float("nan")
            if win == win:
                per_model[run]["cot_wins"].append(win)
        for q, v in values.items():
            if q in ("reply_1", "reply_2"):
                continue
            per_model[run][q].append(float(v))
            cells[a.annotator][(a.item, q)] = float(v)
    summary = {m: {q: statistics.fmean(v) for q, v in qs.items()} for m, qs in per_model.items()}
    counts = {m: {q: len(v) for q, v in qs.items()} for m, qs in per_model.items()}
    shown: Counter[str] = Counter(run_label(k) for k in keys.values() if not k.get("attention"))
    answered: dict[str, set[str]] = defaultdict(set)
    for a in rows:
        if not keys[a.item].get("attention"):
            answered[run_label(keys[a.item])].add(a.item)
    coverage = {m: {"pages": shown[m], "answered": len(answered[m])} for m in shown}
    wins: dict[str, dict[str, Any]] = {}
    for m, qs in per_model.items():
        if qs.get("cot_wins"):
            low, high = proportion_ci(qs["cot_wins"])
            wins[m] = {"rate": statistics.fmean(qs["cot_wins"]), "n": len(qs["cot_wins"]), "ci95": [low, high]}
    alpha = krippendorff_alpha(cells, "interval")
    result = {
        "kind": record["kind"],
        "models": summary,
        "counts": counts,
        "coverage": coverage,
        "cot_wins": wins,
        "alpha": alpha,
        "alpha_text": alpha_text(alpha, cells),
        "paper_alpha": HUMAN_ALPHA,
        "no_answers": studies.unanswered(folder, rows),
    }
    if as_json:
        console.file.write(dump_json(result) + "\n")
        return
    asked = {q for qs in summary.values() for q in qs}
    columns = [c for c in (*COMPONENT_KEYS, "cot_reply", "direct_reply") if c in asked]
    table = Table(
        title=f"{record['title']}: mean human scores (0-10) per run (model · language · subset · ablation), with n "
        "ratings; pages answered of those shown" + ("; CoT win rate [95% CI] (n)" if wins else "")
    )
    for col in ("run", "pages answered", *columns, *(["cot wins"] if wins else [])):
        table.add_column(col.replace("_", " "))
    for model in sorted(shown.keys() | summary.keys()):
        means, n = summary.get(model, {}), counts.get(model, {})
        cover = coverage.get(model, {"pages": 0, "answered": 0})
        rate = wins.get(model)
        won = (
            "-" if not rate else f"{100 * rate['rate']:.1f}% [{100 * rate['ci95'][0]:.1f}, {100 * rate['ci95'][1]:.1f}]"
        )
        table.add_row(
            model,
            f"{cover['answered']} of {cover['pages']}",
            *("-" if c not in means else f"{means[c]:.2f} (n={n[c]})" for c in columns),
            *([won + (f" (n={rate['n']})" if rate else "")] if wins else []),
        )
    console.print(table)
    console.print(
        f"Krippendorff's α (interval) over annotators: {result['alpha_text']}; paper (three annotators): {HUMAN_ALPHA}."
    )
    if result["no_answers"]:
        console.print(f"Annotators without answers yet: {', '.join(result['no_answers'])}")


STUDIES: dict[str, Any] = {
    "sibench-process": studies.Study(process, score, "score the speaker's analysis, 0/5/10 per dimension (§3.3)"),
    "sibench-replies": studies.Study(replies, score, "score the CoT and the direct reply blind, 0/5/10 (§3.3)"),
}
