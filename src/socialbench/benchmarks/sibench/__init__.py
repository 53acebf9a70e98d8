"""SI-Bench (social intelligence in real Chinese dyadic chats): reply generation judged by rubric.

`load_dialogues()` returns all 2,221 released dialogues (fetched once: `socialbench fetch sibench`).
"""

from ...shared.benchmark import Benchmark, Lazy, LazyMapping
from .dataset import SOURCE, load_dialogues
from .task import sibench

BENCHMARK = Benchmark(
    name="sibench",
    title="SI-Bench",
    paper="SI-Bench: Benchmarking Social Intelligence of Large Language Models in Human-to-Human Conversations",
    tasks=[sibench],
    summarize=Lazy(f"{__name__}.report:summarize"),  # reports, studies and the plan imported when used
    document=Lazy(f"{__name__}.figures:document"),
    plan=Lazy(f"{__name__}.plan:plan"),
    studies=LazyMapping(f"{__name__}.studies:STUDIES"),
    remote=[SOURCE],
    data=[SOURCE.note("2,221 real Chinese dyadic chats, 12 situations (zh / en labels)")],
)

__all__ = ["BENCHMARK", "load_dialogues", "sibench"]
