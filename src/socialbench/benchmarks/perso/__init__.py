"""PerSo: social intelligence in real ChangeMyView persuasion (Zamani et al.): the behavioral task (which reply
won the delta), the cognitive task (forecast the OP's belief / emotion / intent), LLM-in-the-loop item generation,
non-LLM baselines and human agreement."""

from ...shared.benchmark import Benchmark, Lazy, LazyMapping
from ...shared.datasets import DataNote
from .data import construct, load_pairs, load_threads
from .task import perso, perso_generate

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
    data=[
        DataNote(
            "perso/data/threads.jsonl.gz",
            "609 ChangeMyView threads: the Winning Arguments heldout pairs (807 pairs over 542 posts) and 67 posts "
            "of r/ChangeMyView exchange files",
            "Tan, Niculae, Danescu-Niculescu-Mizil and Lee (WWW 2016), heldout_pair_data.jsonlist.bz2; CMV exchange "
            "XML files (100 delta, 101 non-delta)",
            "none stated beyond citation: still shipped (issue 64: to move out of the wheel, fetched as SI-Bench is)",
            "Tan et al., Winning Arguments: Interaction Dynamics and Persuasion Strategies in Good-faith Online "
            "Discussions, WWW 2016",
            "imported by `socialbench import cmv-pairs` / `cmv` (scripts/build_perso_data.py): one thread per post",
            True,
        ),
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
