"""SI-Bench (social intelligence in real Chinese dyadic chats): reply generation judged by rubric.

`load_dialogues()` returns all 2,221 released dialogues (fetched once: `socialbench fetch sibench`).
"""

from collections.abc import Mapping
from typing import Any

from ...models import EMBEDDED_INSTRUCT
from ...shared.benchmark import Benchmark, Embedded, Lazy, LazyMapping
from .dataset import SOURCE, load_dialogues
from .task import sibench


def embedded(task: str, args: Mapping[str, Any]) -> Embedded:
    """Without ``--model``: the instruct model writes the replies (JSON under a llama.cpp grammar) and judges them."""
    return Embedded(EMBEDDED_INSTRUCT, {"grader": EMBEDDED_INSTRUCT}, "writes replies; grader: rubric JSON")


BENCHMARK = Benchmark(
    name="sibench",
    title="SI-Bench",
    paper="SI-Bench: Benchmarking Social Intelligence of Large Language Models in Human-to-Human Conversations",
    tasks=[sibench],
    summarize=Lazy(f"{__name__}.report:summarize"),  # reports, studies and the plan imported when used
    document=Lazy(f"{__name__}.figures:document"),
    plan=Lazy(f"{__name__}.plan:plan"),
    studies=LazyMapping(f"{__name__}.studies:STUDIES"),
    embedded=embedded,
    remote=[SOURCE],
    data=[SOURCE.note("2,221 real Chinese dyadic chats, 12 situations (zh / en labels)")],
)

__all__ = ["BENCHMARK", "load_dialogues", "sibench"]
