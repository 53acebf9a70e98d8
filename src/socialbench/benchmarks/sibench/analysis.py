"""SI-Bench analyses over inspect logs: Table 1 (process and reply scores, CoT win rate per model), scores per
situation and per context group (RQ2, Figure 6), ablation deltas (Table 2), and reply length / content richness.

Content richness of a reply, defined over characters because Chinese is written without spaces:
- vocabulary diversity = distinct characters / characters (a type-token ratio; 1.0 = no character repeats);
- information entropy = Shannon entropy in bits of the reply's character distribution (scipy.stats.entropy).
Whitespace is not counted. Unparsed replies and unjudged samples are left out of the means and counted apart.
"""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from inspect_ai.log import read_eval_log
from scipy.stats import entropy

from .prompts import COMPONENT_KEYS


def richness(text: str) -> dict[str, float]:
    chars = [c for c in text if not c.isspace()]
    if not chars:
        return {"length": 0.0, "diversity": 0.0, "entropy": 0.0}
    counts = Counter(chars)
    return {
        "length": float(len(chars)),
        "diversity": len(counts) / len(chars),
        "entropy": float(entropy(list(counts.values()), base=2)),
    }


def score_rows(logs: Iterable[str | Path]) -> list[dict[str, Any]]:
    """One row per scored sample of SI-Bench logs (cot / direct / human) and one per pairwise verdict."""
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
                    "mode": args.get("mode", "cot"),
                    "ablate": ablate,
                    "lang": args.get("lang", "zh"),
                    "dialogue": sample.id,
                    "situation": meta.get("situation"),
                    "context_group": meta.get("context_group"),
                    **value,
                }
                if name == "pairwise_judge":
                    row["mode"] = "pairwise"
                elif args.get("human_replies"):
                    row["mode"] = f"human-{row['mode']}"
                reply = meta.get("reply")
                if reply:
                    row |= {f"reply_{k}": v for k, v in richness(str(reply)).items()}
                rows.append(row)
    return rows


def _judged(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r for r in rows if not r.get("unparsed") and not r.get("unjudged") and "reply" in r]


def _mean(rows: list[dict[str, Any]], key: str) -> float | None:
    values = [float(r[key]) for r in rows if r.get(key) is not None]
    return statistics.fmean(values) if values else None


def table1(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per model: the five process scores and the reply score of full CoT runs, the direct reply score, and the
    CoT win rate from pairwise runs (paper Table 1 layout)."""
    out = []
    for model in sorted({r["model"] for r in rows}):
        mine = [r for r in rows if r["model"] == model]
        cot = _judged([r for r in mine if r["mode"] == "cot" and not r["ablate"]])
        direct = _judged([r for r in mine if r["mode"] == "direct"])
        pairs = [r for r in mine if r["mode"] == "pairwise" and r.get("judged")]
        out.append(
            {
                "model": model,
                **{k: _mean(cot, k) for k in COMPONENT_KEYS},
                "cot_reply": _mean(cot, "reply"),
                "direct_reply": _mean(direct, "reply"),
                "cot_win_rate": _mean(pairs, "cot_wins"),
                "n_cot": len(cot),
                "n_direct": len(direct),
                "n_pairs": len(pairs),
            }
        )
    return out


def by_group(rows: list[dict[str, Any]], key: str = "situation", mode: str = "cot") -> dict[str, dict[str, Any]]:
    """Mean reply (and process) scores per situation or per context group for one mode (RQ2)."""
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in _judged([r for r in rows if r["mode"] == mode and not r["ablate"]]):
        groups[str(r.get(key))].append(r)
    return {
        g: {"n": len(rs), "reply": _mean(rs, "reply"), **{k: _mean(rs, k) for k in COMPONENT_KEYS}}
        for g, rs in sorted(groups.items())
    }


def ablation_deltas(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per model and removed component: reply score without it minus the full CoT reply score (Table 2)."""
    out = []
    for model in sorted({r["model"] for r in rows}):
        mine = [r for r in rows if r["model"] == model and r["mode"] == "cot"]
        full = _mean(_judged([r for r in mine if not r["ablate"]]), "reply")
        for ablate in sorted({r["ablate"] for r in mine if r["ablate"]}):
            score = _mean(_judged([r for r in mine if r["ablate"] == ablate]), "reply")
            delta = None if full is None or score is None else score - full
            out.append({"model": model, "removed": ablate, "reply": score, "full_cot_reply": full, "delta": delta})
    return out


def reply_style(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Mean reply length, vocabulary diversity and entropy per model and mode."""
    out = []
    for model, mode in sorted({(r["model"], r["mode"]) for r in rows if "reply_length" in r}):
        rs = [r for r in rows if r["model"] == model and r["mode"] == mode and "reply_length" in r]
        out.append(
            {
                "model": model,
                "mode": mode,
                "n": len(rs),
                "length": _mean(rs, "reply_length"),
                "diversity": _mean(rs, "reply_diversity"),
                "entropy": _mean(rs, "reply_entropy"),
            }
        )
    return out
