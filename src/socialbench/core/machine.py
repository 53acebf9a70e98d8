"""Facts about the machine a run is on that more than one layer needs."""

from __future__ import annotations

import os


def usable_cpus() -> int:
    """The CPUs this process may run on: its affinity mask (a container's or ``taskset``'s limit), not the count
    of the whole machine that ``os.cpu_count()`` gives (busy-waiting llama.cpp threads beyond it crawl)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not Linux
        return os.cpu_count() or 1
