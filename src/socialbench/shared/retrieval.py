"""Post-level retrieval over a discussion: BM25 (bm25s) and dense retrieval (sentence-transformers).

A post's retrieval text is its body (the root post's also carries the thread title). Indexes are built once per
episode and reused across items and settings: BM25 indexes in memory, dense embeddings in memory and on disk
(``$SOCIALBENCH_CACHE`` or ``~/.cache/socialbench``, keyed by embedder and the episode's content hash), so a
second run, a second setting or a second process pays nothing. `CACHE_STATS` counts hits and misses.
"""

from __future__ import annotations

import hashlib
import os
from collections import Counter
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, Literal

import numpy as np

from ..conversations.model import Thread
from ..core.jsonl import atomic_writer
from .embeddings import DEFAULT_EMBEDDER, load_embedder

Retriever = Literal["bm25", "dense"]
CACHE_STATS: Counter[str] = Counter()
_BM25: dict[str, Any] = {}
_DENSE: dict[tuple[str, str], np.ndarray] = {}


@dataclass(frozen=True)
class Corpus:
    """The posts of one episode as retrieval documents, in thread order."""

    ids: tuple[str, ...]
    texts: tuple[str, ...]

    @cached_property
    def key(self) -> str:
        digest = hashlib.sha256()
        for i, t in zip(self.ids, self.texts, strict=True):
            digest.update(f"{i}\x00{t}\x01".encode())
        return digest.hexdigest()[:32]


def corpus(thread: Thread) -> Corpus:
    ids, texts = [], []
    for node in thread.traverse("thread"):
        text = node.text
        if node.id == thread.root_id and thread.title:
            text = f"{thread.title}\n{text}"
        ids.append(node.id)
        texts.append(text)
    return Corpus(tuple(ids), tuple(texts))


def cache_dir() -> Path:
    return Path(os.environ.get("SOCIALBENCH_CACHE") or Path.home() / ".cache" / "socialbench")


def _bm25(docs: Corpus) -> Any:
    if docs.key in _BM25:
        CACHE_STATS["bm25_hit"] += 1
        return _BM25[docs.key]
    CACHE_STATS["bm25_miss"] += 1
    import bm25s

    index = bm25s.BM25()
    index.index(bm25s.tokenize(list(docs.texts), stopwords="en", show_progress=False), show_progress=False)
    _BM25[docs.key] = index
    return index


def bm25_scores(docs: Corpus, query: str) -> np.ndarray:
    """BM25 score of every post for ``query`` (zeros for a query with no indexed term)."""
    import bm25s

    index = _bm25(docs)
    tokens = bm25s.tokenize([query], stopwords="en", show_progress=False, allow_empty=True)
    results, scores = index.retrieve(tokens, k=len(docs.ids), show_progress=False, n_threads=1)
    out = np.zeros(len(docs.ids), dtype=float)
    out[np.asarray(results[0], dtype=int)] = np.asarray(scores[0], dtype=float)
    return out


def safe_name(name: str) -> str:
    """``name`` as one file-name component."""
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)


def passage_embeddings(docs: Corpus, embedder: str = DEFAULT_EMBEDDER) -> np.ndarray:
    """Unit-norm embeddings of every post; computed once per (embedder, episode) and cached on disk."""
    model = load_embedder(embedder)
    key = (model.name, docs.key)
    if key in _DENSE:
        CACHE_STATS["dense_memory_hit"] += 1
        return _DENSE[key]
    path = cache_dir() / "embeddings" / safe_name(model.name) / f"{docs.key}.npy"
    if path.exists():
        CACHE_STATS["dense_disk_hit"] += 1
        vectors = np.asarray(np.load(path), dtype=np.float32)
    else:
        CACHE_STATS["dense_miss"] += 1
        vectors = model.encode(list(docs.texts), kind="passage").cpu().numpy()
        with atomic_writer(path, binary=True) as handle:
            np.save(handle, vectors)
    _DENSE[key] = vectors
    return np.asarray(vectors)


def dense_scores(docs: Corpus, query: str, embedder: str = DEFAULT_EMBEDDER) -> np.ndarray:
    """Cosine similarity of every post with ``query``."""
    vectors = passage_embeddings(docs, embedder)
    q = load_embedder(embedder).encode([query], kind="query").cpu().numpy()[0]
    return np.asarray(vectors @ q, dtype=float)


def scores(docs: Corpus, query: str, retriever: Retriever, embedder: str = DEFAULT_EMBEDDER) -> np.ndarray:
    return bm25_scores(docs, query) if retriever == "bm25" else dense_scores(docs, query, embedder)


def ranking(docs: Corpus, query: str, retriever: Retriever, embedder: str = DEFAULT_EMBEDDER) -> list[str]:
    """All post ids, best first (ties keep thread order: a stable sort)."""
    values = scores(docs, query, retriever, embedder)
    order = np.argsort(-values, kind="stable")
    return [docs.ids[i] for i in order]


def top_k(thread: Thread, query: str, k: int, retriever: Retriever, embedder: str = DEFAULT_EMBEDDER) -> list[str]:
    """The ``k`` best post ids for ``query``, returned in original thread order (as the paper passes them)."""
    docs = corpus(thread)
    best = set(ranking(docs, query, retriever, embedder)[:k])
    return [i for i in docs.ids if i in best]
