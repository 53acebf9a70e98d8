"""Rebuild the bundled sample episodes from the real threads in ../shared/data (run from the project root).

The package ships the result (src/socialbench/benchmarks/longsocial/sample_pack/episodes.jsonl) so users
never need ../shared at run time.
"""

from __future__ import annotations

import sys
from pathlib import Path

from socialbench.benchmarks.longsocial.pack import attribution_markdown
from socialbench.conversations.sources import read_algolia, read_cmv, read_stackexchange, read_thread_json
from socialbench.conversations.store import write_episodes

DATA = Path(sys.argv[1] if len(sys.argv) > 1 else "../shared/data")
OUT = Path("src/socialbench/benchmarks/longsocial/sample_pack/episodes.jsonl")

# CMV posts with both a persuasive (delta) and a non-persuasive exchange: the richest contrasts.
CMV_THREADS = 4
SE_THREADS = 3


def main() -> None:
    episodes = [
        next(read_algolia(DATA / "hackernews/algolia_item_18475438.json")),
        next(read_thread_json(DATA / "reddit/thread_1cebxh.json")),
    ]
    se = sorted(read_stackexchange(DATA / "stackexchange"), key=lambda t: (-len(t), t.id))
    episodes += se[:SE_THREADS]
    cmv = [t for t in read_cmv(DATA / "cmv") if {n.meta.get("delta") for n in t.nodes} >= {True, False}]
    cmv.sort(key=lambda t: (-len(t), t.id))
    episodes += cmv[:CMV_THREADS]
    n = write_episodes(OUT, episodes)
    print(f"wrote {n} episodes to {OUT}")
    credits = OUT.with_name("ATTRIBUTION.md")
    credits.write_text(attribution_markdown(episodes), encoding="utf-8")
    print(f"wrote {credits}")


if __name__ == "__main__":
    main()
