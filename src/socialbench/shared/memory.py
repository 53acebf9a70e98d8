"""Memory that does not grow with the number of samples.

A finished sample leaves its prompt (a whole discussion: ~400K characters at the paper's lengths) in reference
cycles (task state, transcript events, model output), which only CPython's cyclic collector frees. Its thresholds
count container objects, not bytes, so the full collection that would free them runs rarely, and a run's peak
memory grew with its items (LongSocialBench Full on mockllm, in-process `eval`, ``ru_maxrss``: 650 MB at 50
items, 860 MB at 200; with this collector 651 and 737 MB). `Collector.maybe_collect` runs a full collection between
samples, at most as often as keeps its cost under ``share`` of the elapsed time (it measures each collection).
Before the first one it assumes a cost of ``first_cost`` seconds, so a run shorter than ``first_cost / share`` (1 s)
pays for none: a full collection in a large process (a test session, a notebook) costs ~0.3 s, more than such a run
takes, and a run that short holds too few samples to grow."""

from __future__ import annotations

import gc
import time


class Collector:
    def __init__(self, share: float = 0.1, first_cost: float = 0.1) -> None:
        self.share = share
        self._last = time.monotonic()
        self._cost = first_cost

    def maybe_collect(self) -> bool:
        """A full collection if the time since the last one is at least its cost / ``share``; True if it ran."""
        now = time.monotonic()
        if now - self._last < self._cost / self.share:
            return False
        gc.collect()
        done = time.monotonic()
        self._cost, self._last = done - now, done
        return True
