"""The SI-Bench dialogues, their situation taxonomy (paper Table 3) and seeded samplers.

The released file is not shipped: its repository states no licence, so socialbench may not redistribute it.
`socialbench fetch sibench` puts it into the user's cache from the upstream repository at a pinned commit, checked
by sha256 (`SOURCE`); `load_dialogues()` reads it from there, or from a copy named with ``-T dialogues=FILE``.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path

from ...conversations.model import Dialogue
from ...conversations.sources.sibench import read_sibench
from ...shared.datasets import RemoteFile, locate

SOURCE = RemoteFile(
    name="SI-Bench dialogues",
    filename="SI-Bench.json",
    url="https://raw.githubusercontent.com/SI-Bench/SI-Bench/9184ca1b28118cbeb8ddc972eec080cf63dcf050/SI-Bench.json",
    sha256="73596062cc416f843854502bdbd4d0e5642d55dab27e558d29ba987dcc2e09ae",
    licence="its repository, github.com/SI-Bench/SI-Bench, states no licence",
    citation="Huang et al., SI-Bench: Benchmarking Social Intelligence of Large Language Models in Human-to-Human "
    "Conversations (2025)",
    option="-T dialogues=PATH/SI-Bench.json",
    benchmark="sibench",
)
"""The released file (2,221 dialogues, 2,381,427 bytes) at the upstream repository's commit of 2025-10-28."""

# first-level situation (en, as released) -> high- or low-context group (paper §4.2, RQ2)
CONTEXT_GROUPS = {
    "Implied Meaning": "high",
    "Equivocation": "high",
    "Relational Distance": "low",
    "Relational Test": "low",
}

SITUATIONS_ZH_EN = {
    "言外之意": "Implied Meaning",
    "模糊含蓄": "Equivocation",
    "拒绝疏远": "Relational Distance",
    "测试挑战": "Relational Test",
}


def data_path(path: str | Path | None = None) -> Path:
    """``path`` when given, else the fetched copy; an error saying how to get the file when there is neither."""
    return locate(SOURCE, path)


@cache
def _load(path: str) -> tuple[Dialogue, ...]:
    return tuple(read_sibench(path))


def load_dialogues(path: str | Path | None = None) -> list[Dialogue]:
    """All dialogues (2,221 for the released file), each with its situation labels in ``meta``."""
    return list(_load(str(data_path(path))))


def situation(d: Dialogue) -> str:
    """Second-level situation in English, e.g. ``Implied meaning - Humor`` (the released ``scenario_en``)."""
    return str(d.meta["scenario_en"])


def context_group(d: Dialogue) -> str:
    return CONTEXT_GROUPS[str(d.meta["first_level_scenario_en"])]


def balanced_sample(
    dialogues: Sequence[Dialogue], n: int = 312, seed: int = 0, key: Callable[[Dialogue], str] = situation
) -> list[Dialogue]:
    """A situation-balanced subset (the paper's experimental set has 312 dialogues over 12 situations): an
    equal share per situation; a situation with fewer dialogues than its share gives all it has and the rest
    is spread over the others. Deterministic for a seed; returned in the source order."""
    groups: dict[str, list[Dialogue]] = defaultdict(list)
    for d in dialogues:
        groups[key(d)].append(d)
    rng = random.Random(seed)
    for members in groups.values():
        rng.shuffle(members)
    quota = dict.fromkeys(groups, 0)
    remaining = min(n, len(dialogues))
    open_groups = sorted(groups)
    while remaining and open_groups:
        share, extra = divmod(remaining, len(open_groups))
        for i, g in enumerate(open_groups):
            take = min(share + (1 if i < extra else 0), len(groups[g]) - quota[g])
            quota[g] += take
            remaining -= take
        open_groups = [g for g in open_groups if quota[g] < len(groups[g])]
    chosen = {id(d) for g, members in groups.items() for d in members[: quota[g]]}
    return [d for d in dialogues if id(d) in chosen]


def stratified_sample(
    dialogues: Sequence[Dialogue], n: int, seed: int = 0, key: Callable[[Dialogue], str] = situation
) -> list[Dialogue]:
    """A sample whose strata keep their proportions in the whole set (largest-remainder rounding)."""
    groups: dict[str, list[Dialogue]] = defaultdict(list)
    for d in dialogues:
        groups[key(d)].append(d)
    n = min(n, len(dialogues))
    exact = {g: n * len(m) / len(dialogues) for g, m in groups.items()}
    quota = {g: int(v) for g, v in exact.items()}
    for g in sorted(exact, key=lambda g: (exact[g] - quota[g], g), reverse=True)[: n - sum(quota.values())]:
        quota[g] += 1
    rng = random.Random(seed)
    chosen: set[int] = set()
    for g in sorted(groups):
        members = list(groups[g])
        rng.shuffle(members)
        chosen.update(id(d) for d in members[: quota[g]])
    return [d for d in dialogues if id(d) in chosen]


def random_sample(dialogues: Sequence[Dialogue], n: int = 100, seed: int = 0) -> list[Dialogue]:
    """A uniform seeded sample of ``n`` dialogues (the paper's ablation: "randomly sample 100 dialogue examples",
    §4.4), in source order. Run the full CoT and every ablation with the same ``n`` and ``seed``: the report pairs
    them on dialogue ids."""
    keep = set(random.Random(seed).sample(range(len(dialogues)), min(n, len(dialogues))))
    return [d for i, d in enumerate(dialogues) if i in keep]


def interleaved(
    dialogues: Sequence[Dialogue], seed: int = 0, key: Callable[[Dialogue], str] = situation
) -> list[Dialogue]:
    """The same dialogues in a round-robin over situations (situations in a seeded order, each situation's
    dialogues in a seeded random order), so that the first N of them -- what ``--limit N`` runs -- are as
    situation-balanced as N allows and a random draw within each situation (not its first dialogues in the
    source's order, which would make every seed run the same ones)."""
    groups: dict[str, list[Dialogue]] = defaultdict(list)
    for d in dialogues:
        groups[key(d)].append(d)
    for name, members in groups.items():
        random.Random(f"interleave:{seed}:{name}").shuffle(members)
    order = sorted(groups)
    random.Random(f"interleave:{seed}").shuffle(order)
    out: list[Dialogue] = []
    for i in range(max((len(m) for m in groups.values()), default=0)):
        out += [groups[g][i] for g in order if i < len(groups[g])]
    return out


def shuffled(dialogues: Sequence[Dialogue], seed: int = 0) -> list[Dialogue]:
    """The same dialogues in a seeded order, so that the first N -- what ``--limit N`` runs -- are a uniform
    random sample of them."""
    out = list(dialogues)
    random.Random(f"order:{seed}").shuffle(out)
    return out
