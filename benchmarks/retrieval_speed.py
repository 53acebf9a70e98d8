"""Retrieval speed and reuse: BM25 indexing and top-k over a ~119K-token episode, and dense embeddings computed
once per episode and reused across items and settings.

The big episode is real text with a synthetic shape: the posts of the bundled sample episodes (copied with new
ids as often as needed) hung under one root until the rendering reaches the paper's largest episode size
(~119K cl100k tokens). Prints times, and the cache hit ratio of dense retrieval over the sample pack's 36 items
asked in both dense settings (e5-k20, e5-k50).

    python benchmarks/retrieval_speed.py [--tokens 119000]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

from socialbench.benchmarks.longsocial.items import check_items, load_items
from socialbench.benchmarks.longsocial.task import load_episodes, sample_pack
from socialbench.conversations.model import Node, Thread
from socialbench.conversations.render import render_thread
from socialbench.conversations.tokens import count_tokens
from socialbench.shared import retrieval


def big_episode(threads: list[Thread], target_tokens: int) -> Thread:
    root = Node(id="big", text="A very long discussion made of many real ones.", author="bench")
    nodes = [root]
    copy = 0
    while True:
        for source in threads:  # one episode at a time, until the rendering reaches the target
            for n in source.traverse("thread"):
                parent = "big" if n.parent_id is None else f"{copy}:{n.parent_id}"
                nodes.append(n.model_copy(update={"id": f"{copy}:{n.id}", "parent_id": parent}))
            thread = Thread.build(id="bench:big", platform="reddit", title="Big", root_id="big", nodes=nodes)
            if count_tokens(render_thread(thread)) >= target_tokens:
                return thread
        copy += 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tokens", type=int, default=119_000)
    args = parser.parse_args()
    os.environ["SOCIALBENCH_CACHE"] = tempfile.mkdtemp(prefix="sb-cache-")  # start cold, leave the user's alone
    episodes = load_episodes(sample_pack() / "episodes.jsonl")
    thread = big_episode(list(episodes.values()), args.tokens)
    tokens = count_tokens(render_thread(thread))
    print(f"episode: {len(thread)} posts, {tokens:,} cl100k tokens")

    docs = retrieval.corpus(thread)
    start = time.perf_counter()
    retrieval.bm25_scores(docs, "who changed their mind after the long reply")
    first = time.perf_counter() - start
    start = time.perf_counter()
    for query in ("which reply was most hostile", "what did the original poster concede", "who answered first"):
        retrieval.top_k(thread, query, 50, "bm25")
    later = (time.perf_counter() - start) / 3
    print(f"BM25: index + first top-k {first:.3f} s; later top-k (index reused) {later:.3f} s each")

    start = time.perf_counter()
    retrieval.passage_embeddings(docs)
    embed = time.perf_counter() - start
    retrieval._DENSE.clear()
    start = time.perf_counter()
    retrieval.passage_embeddings(docs)
    disk = time.perf_counter() - start
    print(f"dense (all-MiniLM-L6-v2): embed all posts {embed:.1f} s; reload from the disk cache {disk:.3f} s")

    retrieval.CACHE_STATS.clear()
    items = check_items(load_items(sample_pack() / "items.jsonl"), episodes)
    for k in (20, 50):
        for item in items:
            retrieval.top_k(episodes[item.episode_id], item.stem, k, "dense")
    stats = retrieval.CACHE_STATS
    hits = stats["dense_memory_hit"] + stats["dense_disk_hit"]
    total = hits + stats["dense_miss"]
    print(
        f"dense retrieval over {len(items)} items x 2 settings: {stats['dense_miss']} episode embeddings computed, "
        f"{hits} reused (hit ratio {hits / total:.2f})"
    )


if __name__ == "__main__":
    main()
