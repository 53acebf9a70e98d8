"""SI-Bench's human study (§3.3): annotators score the CoT process (Table 6) and both final replies blind (Table 5),
0/5/10, from the same rubric schema the judge uses, with the replies in a seeded random order recorded in the key.

Built from paper-protocol logs (``-S logs=FOLDER``): each sample's dialogue, analysis and two replies. Which model
wrote them and which reply is the CoT one stay in the key. A preference question is on every form (Potato cannot show
a question only when two other answers tie); scoring uses it only when the two reply scores tie, as the paper does.
"""

from __future__ import annotations

import hashlib
import random
import statistics
from collections import defaultdict
from typing import Any

from rich.console import Console

from ...core.jsonl import dump_json
from ...shared import studies
from ...shared.agreement import krippendorff_alpha
from ...shared.benchmark import log_paths, read_log
from ...shared.runs import run_set
from ...shared.terminal import Table
from .analysis import AXES
from .paper import HUMAN_ALPHA
from .prompts import COMPONENT_KEYS, COMPONENTS
from .rubric import PROCESS_RUBRIC, REPLY_RUBRIC, Dimension

SCORES = ["0", "5", "10"]


def _rubric_text(dim: Dimension) -> str:
    levels = "; ".join(f"{lv.score}: {' '.join(lv.criteria)}" for lv in dim.levels)
    return f"{dim.name}: {dim.definition} ({levels})"


def replies(logs: str, seed: int = 0, limit: int | None = None) -> studies.Design:
    """Score the analysis and both replies of paper-protocol runs blind (§3.3).

    Args:
        logs: inspect logs (files or a folder) of `socialbench run sibench` in the paper mode.
        seed: reply-order seed.
        limit: use only the first N samples.
    """

    out: list[studies.Item] = []
    for info in run_set(log_paths([logs])).runs:  # a rerun of a run counts once: its dialogues are shown once
        path = info.path
        log = read_log(path)
        for sample in log.samples or []:
            meta = sample.metadata or {}
            cot, direct, analysis = meta.get("reply_cot"), meta.get("reply_direct"), meta.get("analysis") or {}
            if not (cot and direct):
                continue
            cot_first = random.Random(f"{seed}:{log.eval.model}:{sample.id}").random() < 0.5
            first, second = (cot, direct) if cot_first else (direct, cot)
            steps = "".join(
                f"<li><b>{c.field_en}</b>: {studies.escape(str(analysis[c.key]))}</li>"
                for c in COMPONENTS
                if analysis.get(c.key)
            )
            html = (
                f"<p><b>Conversation</b> (用户 is the speaker, 对方 the other party)</p>"
                f"<div>{studies.escape(str(meta.get('chat', '')))}</div><hr>"
                f"<p><b>The speaker's analysis</b></p><ul>{steps}</ul><hr>"
                f"<p><b>Reply 1:</b> {studies.escape(str(first))}</p>"
                f"<p><b>Reply 2:</b> {studies.escape(str(second))}</p>"
            )
            args = log.eval.task_args
            key = {
                "model": info.label_without(AXES),  # the key names mode, language, subset and ablation itself
                "mode": args.get("mode", "paper"),
                "lang": args.get("lang", "zh"),
                "ablate": args.get("ablate") or "",
                "subset": f"{args.get('subset', 'balanced')} {args.get('n', 312)}",
                "dialogue": str(sample.id),
                "cot_first": cot_first,
                "log": path,
            }
            # an id that carries no order: a hash of the run and the dialogue (numbered ids in log order would tell
            # an annotator which model's block an item is in)
            digest = hashlib.sha256(f"{seed}:{path}:{sample.id}".encode()).hexdigest()[:10]
            out.append(studies.Item(f"s{digest}", html, key))
            if limit and len(out) >= limit:
                break
        if limit and len(out) >= limit:
            break
    random.Random(f"order:{seed}").shuffle(out)  # the runs' items interleaved, not in blocks
    if not out:
        raise ValueError(f"{logs}: no sample with both a CoT and a direct reply (run sibench in the paper mode)")
    reply_dim = REPLY_RUBRIC.dimensions[0]
    questions = [
        studies.Question(d.key, "radio", _rubric_text(d), SCORES) for d in PROCESS_RUBRIC.dimensions
    ] + [
        studies.Question("reply_1", "radio", "Reply 1 — " + _rubric_text(reply_dim), SCORES),
        studies.Question("reply_2", "radio", "Reply 2 — " + _rubric_text(reply_dim), SCORES),
        studies.Question("preferred", "radio", "Which reply is better? (used only when your two scores are equal)",
                         ["Reply 1", "Reply 2"]),
    ]  # fmt: skip
    return studies.Design(
        kind="sibench-replies",
        title="SI-Bench process and reply scoring",
        instructions="Score the analysis on each dimension and each reply with the rubric (0 / 5 / 10).",
        questions=questions,
        items=out,
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
    alpha = krippendorff_alpha(cells, "interval")
    result = {
        "kind": record["kind"],
        "models": summary,
        "alpha": alpha,
        "paper_alpha": HUMAN_ALPHA,
        "no_answers": studies.unanswered(folder, rows),
    }
    if as_json:
        console.file.write(dump_json(result) + "\n")
        return
    columns = [*COMPONENT_KEYS, "cot_reply", "direct_reply", "cot_wins"]
    table = Table(
        title=f"{record['title']}: mean human scores (0-10) per run (model · language · subset · ablation); "
        "CoT win rate"
    )
    for col in ("run", *columns):
        table.add_column(col.replace("_", " "))
    for model, means in summary.items():
        table.add_row(model, *("-" if c not in means else f"{means[c]:.2f}" for c in columns))
    console.print(table)
    console.print(f"Krippendorff's α (interval) over annotators: {alpha:.3f}; paper (three annotators): {HUMAN_ALPHA}.")
    if result["no_answers"]:
        console.print(f"Annotators without answers yet: {', '.join(result['no_answers'])}")


STUDIES: dict[str, Any] = {
    "sibench-replies": studies.Study(replies, score, "score the process and both replies blind, 0/5/10 (§3.3)"),
}
