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

from inspect_ai.log import read_eval_log
from scipy.stats import entropy

from ...shared.statistics import bootstrap_ci
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


def score_rows(logs: Iterable[str | Path]) -> list[dict[str, Any]]:
    """One row per scored sample of SI-Bench logs (paper / cot / direct / human) and one per pairwise verdict.
    Paper-protocol rows carry ``cot_reply`` and ``direct_reply``; single-reply rows carry ``reply``."""
    rows: list[dict[str, Any]] = []
    for path in logs:
        log = read_eval_log(str(path))
        args = log.eval.task_args
        ablate = args.get("ablate") or ""
        for sample in log.samples or []:
            meta = sample.metadata or {}
            for name, score in (sample.scores or {}).items():
                value = score.value if isinstance(score.value, dict) else {}
                row = {
                    "model": log.eval.model,
                    "scorer": name,
                    "mode": args.get("mode", "paper"),
                    "ablate": ablate,
                    "lang": args.get("lang", "zh"),
                    "dialogue": sample.id,
                    "situation": meta.get("situation"),
                    "context_group": meta.get("context_group"),
                    **value,
                }
                if name == "pairwise_judge":
                    row["mode"] = "pairwise"
                elif name == "paper_judge":
                    row["mode"] = "paper"
                elif args.get("human_replies"):
                    row["mode"] = f"human-{row['mode']}"
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


def table1(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per model: the five process scores, the CoT and direct reply scores and the CoT win rate (Table 1). From the
    paper's protocol when the model has such runs (``protocol`` = paper), else from single-reply runs."""
    out = []
    for model in sorted({r["model"] for r in rows}):
        mine = [r for r in rows if r["model"] == model and not r["ablate"]]
        paper = [r for r in mine if r["mode"] == "paper"]
        if paper:
            out.append(
                {
                    "model": model,
                    "protocol": "paper",
                    **{k: _mean(paper, k) for k in COMPONENT_KEYS},
                    "cot_reply": _mean(paper, "cot_reply"),
                    "direct_reply": _mean(paper, "direct_reply"),
                    "cot_win_rate": _mean(paper, "cot_wins"),
                    "ties": _mean(paper, "tie"),
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
                "model": model,
                "protocol": "single-reply",
                **{k: _mean(cot, k) for k in COMPONENT_KEYS},
                "cot_reply": _mean(cot, "reply"),
                "direct_reply": _mean(direct, "reply"),
                "cot_win_rate": _mean(pairs, "cot_wins"),
                "ties": None,
                "n_cot": len(cot),
                "n_direct": len(direct),
            }
        )
    return out


def by_group(rows: list[dict[str, Any]], key: str = "situation") -> dict[str, dict[str, Any]]:
    """Mean CoT reply and process scores per situation or per context group (RQ2, §4.2)."""
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        if not r["ablate"] and cot_reply_score(r) is not None:
            groups[str(r.get(key))].append({**r, "cot_reply_score": cot_reply_score(r)})
    return {
        g: {"n": len(rs), "reply": _mean(rs, "cot_reply_score"), **{k: _mean(rs, k) for k in COMPONENT_KEYS}}
        for g, rs in sorted(groups.items())
    }


def ablation_deltas(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Table 2, paired: per model and removed component, the ablated CoT reply score minus the full CoT reply score
    on the same dialogues, with a bootstrap 95% CI; ``n`` dialogues scored in both."""
    out = []
    for model in sorted({r["model"] for r in rows}):
        mine = [r for r in rows if r["model"] == model]
        full = {r["dialogue"]: cot_reply_score(r) for r in mine if not r["ablate"] and cot_reply_score(r) is not None}
        for ablate in sorted({r["ablate"] for r in mine if r["ablate"]}):
            ablated = {
                r["dialogue"]: cot_reply_score(r)
                for r in mine
                if r["ablate"] == ablate and cot_reply_score(r) is not None
            }
            common = sorted(full.keys() & ablated.keys(), key=str)
            diffs = [float(ablated[d]) - float(full[d]) for d in common]  # type: ignore[arg-type]
            low, high = bootstrap_ci(diffs) if diffs else (None, None)
            out.append(
                {
                    "model": model,
                    "removed": ablate,
                    "n": len(common),
                    "reply": statistics.fmean(float(ablated[d]) for d in common) if common else None,  # type: ignore[arg-type]
                    "full_cot_reply": statistics.fmean(float(full[d]) for d in common) if common else None,  # type: ignore[arg-type]
                    "delta": statistics.fmean(diffs) if diffs else None,
                    "ci95": None if low is None else [low, high],
                    "unpaired": len(ablated.keys() ^ full.keys()),
                }
            )
    return out


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
        out.append({"model": model, **_style(mine, "process")})
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
                out.append({"model": model, "kind": label, **_style(picked, prefix)})
    return out
