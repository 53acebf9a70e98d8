"""LongSocialBench: 4-option items over complete discussion threads (Liu et al., 2026)."""

from ...shared.benchmark import Benchmark
from ...shared.studies import Study
from .figures import document
from .lint import lint
from .plan import plan
from .recall import recall
from .release import authored, release, score_authoring
from .screen import screen
from .studies import adjudicate, author, readers, score, verify
from .summary import summarize
from .task import longsocial
from .workflows import WORKFLOWS


def catalogs() -> dict[str, list[tuple[str, str]]]:
    return {
        "workflows (-T workflow=NAME)": [
            (w.name, f"{w.title} ({w.reference}){'; needs ' + ', '.join(sorted(w.needs)) if w.needs else ''}")
            for w in WORKFLOWS.values()
        ]
    }


STUDIES = {
    "longsocial-author": Study(author, score_authoring, "authors write items over whole threads (Table 23)"),
    "longsocial-readers": Study(readers, score, "human readers answer items blind (Table 15)"),
    "longsocial-verify": Study(verify, score, "independent verification per release criterion (Table 23)"),
    "longsocial-adjudicate": Study(adjudicate, score, "adjudication of the items verification flagged"),
}
"""The human studies (`socialbench study create NAME`); here, not in studies.py, because authoring is scored by
release.py, which builds on studies.py."""


BENCHMARK = Benchmark(
    name="longsocial",
    title="LongSocialBench",
    paper="Liu et al. (2026), LongSocialBench: Do Long-Context LLMs Understand Online Discussion Threads?",
    tasks=[longsocial],
    summarize=summarize,
    document=document,
    studies=STUDIES,
    catalogs=catalogs,
    analyses={"recall": recall, "lint": lint, "screen": screen, "authored": authored, "release": release},
    plan=plan,
)

__all__ = ["BENCHMARK", "longsocial"]
