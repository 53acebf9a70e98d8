"""LongSocialBench: 4-option items over complete discussion threads (Liu et al., 2026)."""

from collections.abc import Mapping
from typing import Any

from ...models import EMBEDDED_BASE, EMBEDDED_INSTRUCT
from ...shared.benchmark import Benchmark, Embedded, Lazy
from ...shared.datasets import DataNote
from ...shared.studies import Study
from .task import longsocial
from .workflows import WORKFLOWS, get_workflow

# reports, analyses, studies and the plan are imported when used (`shared.benchmark.Lazy`)
score = Lazy(f"{__name__}.studies:score")


def catalogs() -> dict[str, list[tuple[str, str]]]:
    return {
        "workflows (-T workflow=NAME)": [
            (w.name, f"{w.title} ({w.reference}){'; needs ' + ', '.join(sorted(w.needs)) if w.needs else ''}")
            for w in WORKFLOWS.values()
        ]
    }


def embedded(task: str, args: Mapping[str, Any]) -> Embedded:
    """Without ``--model``: the base model answers the multiple choice from its log-probabilities (its 32K window
    holds every sample episode); a setting that calls a grader (open-answer) gets the instruct model in that role."""
    grader = "grader" in get_workflow(str(args.get("workflow", "full"))).needs
    roles = {"grader": EMBEDDED_INSTRUCT} if grader else {}
    why = (
        "the base model writes the open answer (its 32K window holds every sample episode); grader: that answer "
        "against the gold option"
        if grader
        else f"multiple choice from log-probabilities; a setting with a grader: {EMBEDDED_INSTRUCT}"
    )
    return Embedded(EMBEDDED_BASE, roles, why)


STUDIES = {
    "longsocial-author": Study(
        Lazy(f"{__name__}.studies:author"),
        Lazy(f"{__name__}.release:score_authoring"),
        "authors write items over whole threads (Table 23)",
    ),
    "longsocial-readers": Study(
        Lazy(f"{__name__}.studies:readers"), score, "human readers answer items blind (Table 15)"
    ),
    "longsocial-verify": Study(
        Lazy(f"{__name__}.studies:verify"), score, "independent verification per release criterion (Table 23)"
    ),
    "longsocial-adjudicate": Study(
        Lazy(f"{__name__}.studies:adjudicate"), score, "adjudication of the items verification flagged"
    ),
}
"""The human studies (`socialbench study create NAME`); here, not in studies.py, because authoring is scored by
release.py, which builds on studies.py."""


BENCHMARK = Benchmark(
    name="longsocial",
    title="LongSocialBench",
    paper="Liu et al. (2026), LongSocialBench: Do Long-Context LLMs Understand Online Discussion Threads?",
    tasks=[longsocial],
    summarize=Lazy(f"{__name__}.summary:summarize"),
    document=Lazy(f"{__name__}.figures:document"),
    studies=STUDIES,
    catalogs=catalogs,
    analyses={
        "recall": Lazy(f"{__name__}.recall:recall"),
        "lint": Lazy(f"{__name__}.lint:lint"),
        "screen": Lazy(f"{__name__}.screen:screen"),
        "authored": Lazy(f"{__name__}.release:authored"),
        "release": Lazy(f"{__name__}.release:release"),
    },
    plan=Lazy(f"{__name__}.plan:plan"),
    embedded=embedded,
    data=[
        DataNote(
            "longsocial/sample_pack/episodes.jsonl",
            "9 real discussion threads (1 Hacker News, 1 Reddit, 3 History Meta Stack Exchange, 4 r/ChangeMyView)",
            "each episode's URL in sample_pack/ATTRIBUTION.md (`socialbench import` of the public pages / dumps)",
            "per episode: CC BY-SA 3.0 / 4.0 (Stack Exchange: every author named in ATTRIBUTION.md); Hacker News "
            "and Reddit state no licence beyond their terms of use",
            "the platforms; the Stack Exchange posts' authors (ATTRIBUTION.md)",
            "imported: HTML to text, reply structure repaired and counted in each episode's `repairs`",
            True,
        ),
        DataNote(
            "longsocial/sample_pack/items.jsonl",
            "36 four-option items over those threads",
            "written for socialbench (not the paper's items)",
            "MIT, as socialbench",
            "socialbench",
            "-",
            True,
        ),
    ],
)

__all__ = ["BENCHMARK", "longsocial"]
