"""SI-Bench analyses over inspect logs: Table 1 (process and reply scores, CoT win rate per model), scores per
situation and per context group (RQ2, §4.2), ablation deltas paired on dialogues (Table 2, §4.4), and the
length / content-richness measures of Fig. 4.

Fig. 4 measures the *process* text (the CoT analysis). Its words come from jieba for Chinese (text with CJK
characters) and from a letters-and-digits pattern otherwise; punctuation is not a word. Per text:
- words: the word count;
- vocabulary diversity: distinct words / words (type-token ratio);
- information entropy: Shannon entropy (bits) of the word distribution (scipy.stats.entropy), normalised by its
  maximum log2(words) so that it lies in [0, 1];
- content richness: 0.5 x diversity + 0.5 x normalised entropy. The paper calls richness "a weighted score of
  vocabulary diversity and information entropy" without the weights; equal weights on two [0, 1] measures is our
  choice (docs/sibench.md).
Replies get the same measures. Values not judged (NaN) and unparsed answers are left out of means and counted.
"""

from __future__ import annotations

import logging
import math
import re
import statistics
from collections import Counter, defaultdict
from collections.abc import Iterable
from functools import cache
from pathlib import Path
from typing import Any

from scipy.stats import entropy

from ...shared.benchmark import role_model
from ...shared.runs import RunInfo, extracted, run_set, whole
from ...shared.statistics import bootstrap_ci, ci_fields
from .prompts import COMPONENT_KEYS

RICHNESS_WEIGHT = 0.5
_CJK = re.compile(r"[\u3400-\u9fff]")
_WORD = re.compile(r"\w+", re.UNICODE)


@cache
def _jieba() -> Any:
    import jieba

    jieba.setLogLevel(logging.WARNING)
    return jieba


def words(text: str) -> list[str]:
    """Words of a text: jieba's segmentation for Chinese, ``\\w+`` runs otherwise; punctuation dropped."""
    if _CJK.search(text):
        return [w for w in _jieba().lcut(text) if _WORD.search(w)]
    return _WORD.findall(text.lower())


def richness(text: str) -> dict[str, float]:
    tokens = words(text)
    if not tokens:
        return {"words": 0.0, "diversity": 0.0, "entropy": 0.0, "richness": 0.0}
    counts = Counter(tokens)
    bits = float(entropy(list(counts.values()), base=2))
    normalised = bits / math.log2(len(tokens)) if len(tokens) > 1 else 0.0
    diversity = len(counts) / len(tokens)
    return {
        "words": float(len(tokens)),
        "diversity": diversity,
        "entropy": bits,
        "richness": RICHNESS_WEIGHT * diversity + (1 - RICHNESS_WEIGHT) * normalised,
    }


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not (isinstance(value, float) and math.isnan(value))


AXES = ("mode", "lang", "subset", "n", "ablate", "human_replies")
"""What SI-Bench's tables show in their own columns or blocks (the protocol, the language and subset block, the
ablated component, human replies): a row's model label is the run's label without them, so the CoT-vs-direct and
ablation comparisons pair runs that differ in nothing else (seed, grader, length penalty, ...)."""


def sibench_runs(logs: Iterable[str | Path]) -> list[RunInfo]:
    """The SI-Bench runs among the logs: one per run identity, labelled by what differs (`shared.runs`)."""
    return [info for info in run_set([str(p) for p in logs]).runs if info.task == "sibench"]


def score_rows(logs: Iterable[str | Path]) -> list[dict[str, Any]]:
    """One row per scored sample of SI-Bench logs (paper / cot / direct / human) and one per pairwise verdict.
    Paper-protocol rows carry ``cot_reply`` and ``direct_reply``; single-reply rows carry ``reply``."""
    rows: list[dict[str, Any]] = []
    for info in sibench_runs(logs):
        path = info.path
        log = extracted(path, whole)
        label = info.label_without(AXES)
        args = log.eval.task_args
        ablate = args.get("ablate") or ""
        human = args.get("human_replies")
        roles = log.eval.model_roles or {}
        grader = role_model(roles.get("grader")) or f"{log.eval.model} (the model under test)"
        run = {
            "run_model": label,
            "human": bool(human),
            "lang": args.get("lang", "zh"),
            "subset": args.get("subset", "balanced"),
            "n": args.get("n", 312),
            "seed": args.get("seed", 0),
            "grader": grader,
            "log": str(path),
            "created": log.eval.created,
        }
        for sample in log.samples or []:
            meta = sample.metadata or {}
            for name, score in (sample.scores or {}).items():
                value = score.value if isinstance(score.value, dict) else {}
                row = {
                    # human replies are their own row everywhere, never pooled with the --model of their run
                    "model": f"Human ({Path(str(human)).name})" if human else label,
                    "scorer": name,
                    "mode": args.get("mode", "paper"),
                    "ablate": ablate,
                    **run,
                    "dialogue": sample.id,
                    "situation": meta.get("situation"),
                    "context_group": meta.get("context_group"),
                    **value,
                }
                if name == "pairwise_judge":
                    row["mode"] = "pairwise"
                elif name == "paper_judge":
                    row["mode"] = "paper"
                    if isinstance(first := (score.metadata or {}).get("cot_first"), bool):
                        row["cot_first"] = float(first)  # the blind order the judge saw
                for key in ("reply", "reply_cot", "reply_direct"):
                    if meta.get(key):
                        row[f"{key}_text"] = str(meta[key])
                        row |= {f"{key}_{k}": v for k, v in richness(str(meta[key])).items()}
                analysis = meta.get("analysis") or {}
                if analysis:
                    process = "\n".join(str(analysis[k]) for k in COMPONENT_KEYS if analysis.get(k))
                    row["process_text"] = process
                    row |= {f"process_{k}": v for k, v in richness(process).items()}
                rows.append(row)
    return _blocks(rows)


def block_of(row: dict[str, Any]) -> str:
    """The block of Table 1 a row belongs to: its prompt language and dialogue subset (never pooled across)."""
    subset = row["subset"] if row["subset"] == "all" else f"{row['subset']} {row['n']}"
    return f"{row['lang']} · {subset}"


def _blocks(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each row's ``block``; when the logs span several blocks, every label names its block too (``model`` is the
    label the tables and figures group by), so runs of another language or subset are never pooled."""
    blocks = {block_of(r) for r in rows}
    for r in rows:
        r["block"] = block_of(r)
        if len(blocks) > 1:
            r["model"] = f"{r['model']} · {r['block']}"
    return rows


def _judged(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r for r in rows if not r.get("unparsed") and not r.get("unjudged") and "reply" in r]


def _mean(rows: list[dict[str, Any]], key: str) -> float | None:
    values = [float(r[key]) for r in rows if _is_number(r.get(key))]
    return statistics.fmean(values) if values else None


def cot_reply_score(row: dict[str, Any]) -> float | None:
    """The CoT reply's score of a row: ``cot_reply`` under the paper's protocol, ``reply`` in single-reply CoT."""
    if row["mode"] == "paper":
        return float(row["cot_reply"]) if _is_number(row.get("cot_reply")) else None
    if row["mode"] == "cot" and not row.get("unparsed") and not row.get("unjudged") and _is_number(row.get("reply")):
        return float(row["reply"])
    return None


PROTOCOLS = {
    "paper": "paper: process scored from the CoT analysis; the CoT and direct replies scored blind, side by side",
    "single-reply": "single-reply: each reply judged alone, the CoT reply together with its analysis",
    "human replies, single-reply": "human replies, single-reply: each judged alone (with its analysis when given), "
    "not side by side with a model's",
}
"""How a Table 1 row was judged, as the HTML and CSV say it (docs/sibench.md: which human comparisons of the paper
socialbench reproduces)."""


def table1(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per model: the five process scores, the CoT and direct reply scores and the CoT win rate (Table 1). From the
    paper's protocol when the model has such runs (``protocol`` = paper), else from single-reply runs."""
    out = []
    for block, model in sorted({(r["block"], r["model"]) for r in rows}):
        mine = [r for r in rows if r["model"] == model and r["block"] == block and not r["ablate"]]
        if not mine:
            continue
        paper = [r for r in mine if r["mode"] == "paper"]
        if paper:
            out.append(
                {
                    "block": block,
                    "model": model,
                    "protocol": "paper",
                    **{k: _mean(paper, k) for k in COMPONENT_KEYS},
                    "cot_reply": _mean(paper, "cot_reply"),
                    "direct_reply": _mean(paper, "direct_reply"),
                    "cot_win_rate": _mean(paper, "cot_wins"),
                    "ties": _mean(paper, "tie"),
                    "cot_shown_first": _mean(paper, "cot_first"),
                    "n_cot": sum(1 for r in paper if _is_number(r.get("cot_reply"))),
                    "n_direct": sum(1 for r in paper if _is_number(r.get("direct_reply"))),
                }
            )
            continue
        cot = _judged([r for r in mine if r["mode"] == "cot"])
        direct = _judged([r for r in mine if r["mode"] == "direct"])
        pairs = [r for r in mine if r["mode"] == "pairwise" and r.get("judged")]
        out.append(
            {
                "block": block,
                "model": model,
                "protocol": "human replies, single-reply" if mine[0]["human"] else "single-reply",
                **{k: _mean(cot, k) for k in COMPONENT_KEYS},
                "cot_reply": _mean(cot, "reply"),
                "direct_reply": _mean(direct, "reply"),
                "cot_win_rate": _mean(pairs, "cot_wins"),
                "ties": None,
                "cot_shown_first": None,
                "n_cot": len(cot),
                "n_direct": len(direct),
            }
        )
    return out


def by_group(rows: list[dict[str, Any]], key: str = "situation") -> list[dict[str, Any]]:
    """Per model (human replies their own row) and situation or context group (RQ2, §4.2): the mean CoT reply score
    and the mean process scores (the paper's Fig. 6 plots the process score per situation)."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        if not r["ablate"] and r["mode"] in ("paper", "cot"):
            groups[(r["model"], str(r.get(key)))].append({**r, "cot_reply_score": cot_reply_score(r)})
    out = []
    for (model, group), rs in sorted(groups.items()):
        process = [
            statistics.fmean(v) for r in rs if (v := [float(r[k]) for k in COMPONENT_KEYS if _is_number(r.get(k))])
        ]
        out.append(
            {
                "model": model,
                "group": group,
                "n": len(rs),
                "reply": _mean(rs, "cot_reply_score"),
                "process": statistics.fmean(process) if process else None,
                **{k: _mean(rs, k) for k in COMPONENT_KEYS},
            }
        )
    return out


RUN_KEY = ("run_model", "human", "lang", "mode", "subset", "n", "seed", "grader")
"""What an ablation and its full run must share: everything but the removed component."""


def _runs(rows: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    by_log: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        by_log[r["log"]].append(r)
    return by_log


def ablation_deltas(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Table 2, paired: each ablation run against the full run of the same model, language, mode, subset, seed and
    grader (`RUN_KEY`), on the dialogues scored in both: the ablated CoT reply score minus the full one, with a
    bootstrap 95% CI. When several full runs qualify the latest is used and named (``baseline``, ``candidates``);
    when none does, the row says so (``baseline`` None) and has no delta."""
    runs = _runs(rows)
    full_runs = [(log, rs) for log, rs in runs.items() if not rs[0]["ablate"]]
    out = []
    for log, ablated_rows in sorted(runs.items(), key=lambda kv: (kv[1][0]["model"], kv[1][0]["ablate"])):
        first = ablated_rows[0]
        if not first["ablate"]:
            continue
        key = tuple(first[k] for k in RUN_KEY)
        candidates = [(f, rs) for f, rs in full_runs if tuple(rs[0][k] for k in RUN_KEY) == key]
        candidates.sort(key=lambda c: str(c[1][0]["created"]))
        row: dict[str, Any] = {
            "model": first["model"],
            "removed": first["ablate"],
            "mode": first["mode"],
            "log": Path(log).name,
            "baseline": Path(candidates[-1][0]).name if candidates else None,
            "candidates": len(candidates),
            "logs": [str(log), *([str(candidates[-1][0])] if candidates else [])],
            "n": 0,
            "reply": None,
            "full_cot_reply": None,
            "delta": None,
            "ci95": None,
            "unpaired": None,
        }
        if candidates:
            full = {r["dialogue"]: cot_reply_score(r) for r in candidates[-1][1] if cot_reply_score(r) is not None}
            ablated = {r["dialogue"]: cot_reply_score(r) for r in ablated_rows if cot_reply_score(r) is not None}
            common = sorted(full.keys() & ablated.keys(), key=str)
            diffs = [float(ablated[d]) - float(full[d]) for d in common]  # type: ignore[arg-type]
            interval = ci_fields(bootstrap_ci(diffs)) if diffs else {"ci95": None, "ci_method": None}
            row |= {
                "n": len(common),
                "reply": statistics.fmean(float(ablated[d]) for d in common) if common else None,  # type: ignore[arg-type]
                "full_cot_reply": statistics.fmean(float(full[d]) for d in common) if common else None,  # type: ignore[arg-type]
                "delta": statistics.fmean(diffs) if diffs else None,
                **interval,  # every paired difference alike (a 0-10 score): no interval can be formed, n/a
                "unpaired": len(ablated.keys() ^ full.keys()),
            }
        out.append(row)
    return out


def ablation_notes(deltas: list[dict[str, Any]]) -> list[str]:
    """What the ablation table must say about its baselines: a missing full run, or the one chosen of several."""
    notes = []
    for d in deltas:
        if d["baseline"] is None:
            notes.append(
                f"{d['model']} without {d['removed']}: no full run of the same model, language, mode, subset, seed "
                "and grader among the logs, so no delta."
            )
        elif d["candidates"] > 1:
            notes.append(
                f"{d['model']} without {d['removed']}: {d['candidates']} full runs qualify; compared with the "
                f"latest, {d['baseline']}."
            )
    return notes


def _style(rows: list[dict[str, Any]], prefix: str) -> dict[str, Any]:
    return {
        "n": sum(1 for r in rows if f"{prefix}_words" in r),
        "words": _mean(rows, f"{prefix}_words"),
        "diversity": _mean(rows, f"{prefix}_diversity"),
        "entropy": _mean(rows, f"{prefix}_entropy"),
        "richness": _mean(rows, f"{prefix}_richness"),
    }


def process_style(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Fig. 4: word count, diversity, entropy and content richness of the CoT process text, per model (full CoT)."""
    out = []
    for model in sorted({r["model"] for r in rows if "process_words" in r}):
        mine = [r for r in rows if r["model"] == model and not r["ablate"] and "process_words" in r]
        out.append({"model": model, **_style(mine, "process"), "logs": sorted({str(r["log"]) for r in mine})})
    return out


def reply_style(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The same measures for the replies, per model and reply kind (CoT reply, direct reply, single-mode reply)."""
    out = []
    for model in sorted({r["model"] for r in rows}):
        mine = [r for r in rows if r["model"] == model and not r["ablate"]]
        for kind, prefix in (("CoT reply", "reply_cot"), ("direct reply", "reply_direct"), ("reply", "reply")):
            picked = [r for r in mine if f"{prefix}_words" in r]
            if picked:
                label = kind if prefix != "reply" else f"{picked[0]['mode']} reply"
                logs = sorted({str(r["log"]) for r in picked})
                out.append({"model": model, "kind": label, **_style(picked, prefix), "logs": logs})
    return out
