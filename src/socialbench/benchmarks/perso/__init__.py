"""PerSo: social intelligence in real ChangeMyView persuasion (Zamani et al.): the behavioral task (which reply
won the delta), the cognitive task (forecast the OP's belief / emotion / intent), LLM-in-the-loop item generation,
non-LLM baselines and human agreement."""

from collections.abc import Mapping
from typing import Any

from ...models import EMBEDDED_INSTRUCT
from ...shared.benchmark import Benchmark, Embedded, Lazy, LazyMapping
from ...shared.datasets import DataNote
from .data import EXCHANGES, PAIRS, construct, load_pairs, load_threads
from .task import perso, perso_generate


def embedded(task: str, args: Mapping[str, Any]) -> Embedded:
    """Without ``--model``: the instruct model answers (letters and ratings from its log-probabilities) and, for
    item generation, writes the items in the generator role (JSON under a llama.cpp grammar)."""
    if task == "perso_generate":
        return Embedded(EMBEDDED_INSTRUCT, {"generator": EMBEDDED_INSTRUCT}, "generator: item JSON")
    return Embedded(EMBEDDED_INSTRUCT, {}, "choices and ratings from log-probabilities")


BENCHMARK = Benchmark(
    name="perso",
    title="PerSo",
    paper="Zamani et al., PerSo: Investigating Facets of LLMs' Social Intelligence in Real-World Persuasion Scenarios",
    tasks=[perso, perso_generate],
    summarize=Lazy(f"{__name__}.figures:summarize"),  # reports, analyses, studies and the plan imported when used
    document=Lazy(f"{__name__}.figures:document"),
    studies=LazyMapping(f"{__name__}.studies:STUDIES"),
    plan=Lazy(f"{__name__}.plan:plan"),
    analyses={
        "construction": Lazy(f"{__name__}.data:construction_report"),
        "baselines": Lazy(f"{__name__}.baselines:baselines"),
        "agreement": Lazy(f"{__name__}.human:human_agreement"),
        "export-items": Lazy(f"{__name__}.generation:export_items"),
        "lint": Lazy(f"{__name__}.lint:lint"),
    },
    embedded=embedded,
    remote=[PAIRS, EXCHANGES],
    data=[
        PAIRS.note("the Winning Arguments heldout pairs: 807 pairs over 542 posts (behavioral task)"),
        EXCHANGES.note("201 r/ChangeMyView exchange files over 67 posts, with the OP's replies (both tasks)"),
        DataNote(
            "perso/data/cognitive_items.jsonl",
            "24 cognitive items (belief / emotion / intent)",
            "hand-written for socialbench over the threads above",
            "MIT, as socialbench (the quoted thread text: as the threads)",
            "socialbench",
            "-",
            True,
        ),
    ],
)

__all__ = ["BENCHMARK", "construct", "load_pairs", "load_threads", "perso", "perso_generate"]
