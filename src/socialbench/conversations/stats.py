"""Structure statistics of episodes and sources (LongSocialBench Table 6 and Figure 3).

Definitions (as in the paper): tokens are cl100k_base tokens of the complete rendered discussion; depth is
measured from the root (the post is depth 0); root replies are the nodes at depth 1. ``nodes`` counts every
node including the root post. Mean depth is over the non-root nodes.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable

from pydantic import BaseModel

from .model import Dialogue, Episode, Thread
from .render import render
from .tokens import count_tokens


class EpisodeStats(BaseModel):
    id: str
    platform: str
    tokens: int
    nodes: int
    max_depth: int
    mean_depth: float
    root_replies: int
    participants: int
    depth_histogram: dict[int, int]
    deleted: int


class SourceStats(BaseModel):
    source: str
    episodes: int
    tokens_median: float
    tokens_max: int
    tokens_total: int
    mean_max_depth: float
    mean_nodes: float
    mean_root_replies: float


def episode_stats(episode: Episode) -> EpisodeStats:
    tokens = count_tokens(render(episode))
    if isinstance(episode, Dialogue):
        n = len(episode.turns)
        return EpisodeStats(
            id=episode.id,
            platform=episode.platform,
            tokens=tokens,
            nodes=n,
            max_depth=0,
            mean_depth=0.0,
            root_replies=0,
            participants=len({t.speaker for t in episode.turns}),
            depth_histogram={},
            deleted=0,
        )
    thread: Thread = episode
    histogram = thread.depth_histogram()
    non_root = [d for d, count in histogram.items() for _ in range(count) if d > 0]
    return EpisodeStats(
        id=thread.id,
        platform=thread.platform,
        tokens=tokens,
        nodes=len(thread),
        max_depth=thread.max_depth(),
        mean_depth=statistics.fmean(non_root) if non_root else 0.0,
        root_replies=histogram.get(1, 0),
        participants=len(thread.participants()),
        depth_histogram=histogram,
        deleted=sum(1 for n in thread.nodes if n.deleted or n.removed),
    )


def source_stats(rows: Iterable[EpisodeStats], source: str) -> SourceStats:
    rows = list(rows)
    if not rows:
        raise ValueError(f"no episodes for source {source!r}")
    tokens = [r.tokens for r in rows]
    return SourceStats(
        source=source,
        episodes=len(rows),
        tokens_median=statistics.median(tokens),
        tokens_max=max(tokens),
        tokens_total=sum(tokens),
        mean_max_depth=statistics.fmean(r.max_depth for r in rows),
        mean_nodes=statistics.fmean(r.nodes for r in rows),
        mean_root_replies=statistics.fmean(r.root_replies for r in rows),
    )


def table6(rows: Iterable[EpisodeStats]) -> list[SourceStats]:
    """One row per platform plus an ``Overall`` row, like LongSocialBench Table 6."""
    rows = list(rows)
    platforms = sorted({r.platform for r in rows})
    out = [source_stats([r for r in rows if r.platform == p], p) for p in platforms]
    if len(platforms) > 1:
        out.append(source_stats(rows, "Overall"))
    return out
