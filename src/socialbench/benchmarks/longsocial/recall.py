"""Evidence recall of the retrieval settings (paper Table 18), computed without any model.

For every item with evidence posts and every retrieval setting (BM25 / dense at k = 20 and 50, and the
structure-aware expansions): the share of the item's evidence posts among the posts the setting shows. Reported
per setting: mean recall, share of items with at least 75% recall, share with full coverage, mean posts shown.
"""

from __future__ import annotations

import hashlib
import json
import statistics
from typing import Any

from rich.console import Console

from ...conversations.render import short_ids
from ...core.jsonl import atomic_writer, dump_json
from ...shared import retrieval
from ...shared.embeddings import embedder_name
from ...shared.terminal import Table
from .pack import load_pack
from .workflows import WORKFLOWS, Retrieval, StructureAware

RETRIEVAL_SETTINGS = tuple(
    w.name for w in WORKFLOWS.values() if isinstance(w, Retrieval | StructureAware) and not w.name.startswith("rag-")
)
"""The settings Table 18 measures (RAG shows the posts of its retriever)."""


def evidence_recall(
    items: str | None = None,
    episodes: str | None = None,
    embedder: str = "minilm",
    only: set[str] | None = None,
    settings: set[str] | None = None,
) -> list[dict[str, Any]]:
    """Per retrieval setting, the evidence recall of every item with evidence (``recalls``, in item order) and its
    summaries. ``only``: sample ids (``EPISODE:ITEM``) to keep, e.g. the items of some logs; ``settings``: the
    retrieval settings to measure (default: every one).

    Each item's retrieved posts are cached on disk (``retrieval.cache_dir()/recall``), keyed by the episode's
    content, the stem, the setting and the embedder, so a report over the same items pays nothing a second time."""
    _, _, threads, checked = load_pack(items, episodes)
    loaded = [i for i in checked if i.evidence and (only is None or f"{i.episode_id}:{i.id}" in only)]
    retrievers = [w for w in WORKFLOWS.values() if isinstance(w, Retrieval | StructureAware)]
    retrievers = [w for w in retrievers if not w.name.startswith("rag-")]  # RAG shows the same posts as its retriever
    retrievers = [w for w in retrievers if settings is None or w.name in settings]
    cache = _RecallCache(embedder)
    out = []
    for setting in retrievers:
        dense = "embedder" in setting.needs
        recalls, shown = [], []
        for item in loaded:
            thread = threads[item.episode_id]
            by_short = {s: n for n, s in short_ids(thread).items()}
            evidence = {by_short[e] for e in item.evidence}
            ids = cache.retrieved(setting, thread, item.stem, dense)
            recalls.append(len(evidence & ids) / len(evidence))
            shown.append(len(ids))
        out.append(
            {
                "setting": setting.name,
                "embedder": cache.embedder_name() if dense else None,
                "items": len(recalls),
                "mean_recall": statistics.fmean(recalls) if recalls else None,
                "share_ge_75": sum(r >= 0.75 for r in recalls) / len(recalls) if recalls else None,
                "full_coverage": sum(r == 1.0 for r in recalls) / len(recalls) if recalls else None,
                "mean_posts_shown": statistics.fmean(shown) if shown else None,
                "recalls": recalls,
            }
        )
    cache.save()
    return out


class _RecallCache:
    """The posts each retrieval setting shows for an item, on disk: retrieval does not depend on any model or
    log, and the dense settings' query embeddings are most of a report's time otherwise."""

    VERSION = 1

    def __init__(self, embedder: str) -> None:
        self.embedder = embedder
        self.path = retrieval.cache_dir() / "recall" / f"v{self.VERSION}-{retrieval.safe_name(embedder)}.json"
        try:
            self.entries: dict[str, list[str]] = json.loads(self.path.read_text())
        except (OSError, ValueError):
            self.entries = {}
        self.dirty = False

    def embedder_name(self) -> str:
        return embedder_name(self.embedder)  # without loading it: a warm cache needs no model

    def retrieved(self, setting: Any, thread: Any, stem: str, dense: bool) -> set[str]:
        key = hashlib.sha256(
            f"{setting.name}\x00{retrieval.corpus(thread).key}\x00{stem}\x00{self.embedder if dense else ''}".encode()
        ).hexdigest()
        if key not in self.entries:
            self.entries[key] = sorted(setting.retrieved(thread, stem, self.embedder))
            self.dirty = True
        return set(self.entries[key])

    def save(self) -> None:
        if self.dirty:
            with atomic_writer(self.path) as handle:
                handle.write(json.dumps(self.entries))


def recall_summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Table 18's item-level summaries: the share of items with at least 75% recall in the best of the retrievers
    (BM25 and dense, k = 20 and 50: each item's best), and the share fully covered at the largest budget (k = 50,
    either retriever). Items are those of the rows, all of one pack (item i of each row is the same item); None
    without retrieval rows."""
    retrievers = [r for r in rows if r["setting"] in ("bm25-k20", "bm25-k50", "e5-k20", "e5-k50")]
    largest = [r for r in retrievers if r["setting"].endswith("-k50")]
    if not retrievers or not retrievers[0]["recalls"]:
        return {"items": 0, "best_ge_75": None, "full_at_largest": None, "embedders": []}
    n = len(retrievers[0]["recalls"])
    if any(len(r["recalls"]) != n for r in retrievers):  # rows of several packs: their items cannot be paired
        raise ValueError("recall_summary pairs the items of one pack: these rows hold different item counts")
    best = [max(r["recalls"][i] for r in retrievers) for i in range(n)]
    full = [max(r["recalls"][i] for r in largest) == 1.0 for i in range(n)] if largest else []
    return {
        "items": n,
        "best_ge_75": sum(b >= 0.75 for b in best) / n,
        "full_at_largest": sum(full) / n if full else None,
        "embedders": sorted({str(r["embedder"]) for r in retrievers if r["embedder"]}),
    }


def recall(
    console: Console,
    as_json: bool = False,
    items: str | None = None,
    episodes: str | None = None,
    embedder: str = "minilm",
) -> None:
    """Evidence recall of every retrieval setting (Table 18), without any model.

    Args:
        items: items JSONL (default: the bundled sample pack's items).
        episodes: episodes JSONL (default: the bundled sample episodes).
        embedder: sentence-transformers model of the dense settings (``minilm`` = bundled all-MiniLM-L6-v2).
    """
    rows = evidence_recall(items, episodes, embedder)
    if as_json:
        stats = dict(retrieval.CACHE_STATS)
        console.file.write(dump_json({"recall": rows, "cache": stats}) + "\n")
        return
    table = Table(title="Evidence recall of the retrieval settings (Table 18 analogue)")
    for col in ("Setting", "Items", "Mean recall %", "Items >= 75% %", "Full coverage %", "Posts shown"):
        table.add_column(col, justify="left" if col == "Setting" else "right")
    for r in rows:
        name = r["setting"] + (f" ({r['embedder']})" if r["embedder"] else "")
        table.add_row(
            name,
            str(r["items"]),
            *(
                f"{100 * r[k]:.1f}" if r[k] is not None else "-"
                for k in ("mean_recall", "share_ge_75", "full_coverage")
            ),
            f"{r['mean_posts_shown']:.1f}" if r["mean_posts_shown"] is not None else "-",
        )
    console.print(table)
    summary = recall_summary(rows)
    if summary["items"]:
        dense = ", ".join(summary["embedders"]) or "none"
        console.print(
            f"Over {summary['items']} items: {100 * summary['best_ge_75']:.1f}% reach >= 75% recall in the best of the "
            f"retrievers, {100 * (summary['full_at_largest'] or 0):.1f}% are fully covered at k = 50 (dense embedder: "
            f"{dense}; the paper, with E5: 8.8% and 3.5%, Table 18)."
        )
