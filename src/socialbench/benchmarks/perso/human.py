"""PerSo's human studies (§3.3, §4.1.2, §A.2; Tables 4, 6, 7): annotator files in, accuracy and agreement out.

An annotations file is JSON lines, one answer per line (the format the annotation app exports)::

    {"annotator": "A", "study": "behavioral", "instance": "<pair id>", "answer": "<id of the reply chosen>"}
    {"annotator": "A", "study": "cognitive", "instance": "<item id>", "answer": 2}
    {"annotator": "A", "study": "verification", "instance": "<item id>", "answer": 2,
     "ratings": {"gold": 5, "distractors": 4}}

``answer`` of a cognitive or verification line is the index (0-3) or letter (A-D) of the option in the items
file's order; verification annotators see the OP's reply (they answer with the gold state visible, as in the
paper). Agreement is pairwise Cohen's kappa, Fleiss' kappa and Krippendorff's alpha (`socialbench.shared.agreement`);
Likert quality ratings are summarised as mean +- SD (the paper reports no agreement on them: ceiling effect).
"""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator
from rich.console import Console

from ...core.errors import InputError
from ...core.jsonl import dump_json, read_models
from ...shared.agreement import agreement
from ...shared.statistics import percent
from ...shared.terminal import Table
from .data import DIMENSIONS
from .items import CognitiveItem, load_items
from .paper import AGREEMENT_KAPPA

Study = Literal["behavioral", "cognitive", "verification"]
PAPER_KAPPA = AGREEMENT_KAPPA


class Annotation(BaseModel):
    model_config = ConfigDict(extra="forbid")

    annotator: str = Field(min_length=1)
    study: Study
    instance: str = Field(min_length=1)
    answer: str | int | None = None
    ratings: dict[str, int] = Field(default_factory=dict)
    seconds: float | None = None

    @field_validator("ratings")
    @classmethod
    def _likert(cls, ratings: dict[str, int]) -> dict[str, int]:
        for key, value in ratings.items():
            if not 1 <= value <= 5:
                raise ValueError(f"rating {key!r} must be 1-5, got {value}")
        return ratings


def _option(answer: str | int | None, where: str) -> int:
    if isinstance(answer, int) and 0 <= answer <= 3:
        return answer
    if isinstance(answer, str) and answer.strip().upper() in ("A", "B", "C", "D"):
        return "ABCD".index(answer.strip().upper())
    raise ValueError(f"{where}: answer must be an option index 0-3 or letter A-D, got {answer!r}")


def load_annotations(path: str | Path) -> list[Annotation]:
    rows = [a for _, a in read_models(path, Annotation, "annotations file", id_field="instance")]
    seen: set[tuple[str, str, str]] = set()
    for row in rows:
        key = (row.annotator, row.study, row.instance)
        if key in seen:
            raise InputError(
                path, f"annotator {row.annotator} answered {row.study} {row.instance} twice", record=row.instance
            )
        seen.add(key)
    return rows


DELTA, NO_DELTA = "delta", "no delta"


def _replies_of(pair_id: str) -> tuple[str, str]:
    """Pair ids are ``thread:winner-loser``: (the delta reply's id, the other's)."""
    winner, _, loser = pair_id.rsplit(":", 1)[-1].partition("-")
    return winner, loser


TIE = "tie"
"""A behavioral answer with equal ratings: no choice. Counted wrong in accuracy, as a model's tie is (the paper's
model-vs-best-human comparison needs one denominator), and left out of agreement (it is neither label)."""


def behavioral_label(pair_id: str, answer: str) -> str | None:
    """What a behavioral answer (the id of the chosen reply) says: ``delta`` or ``no delta``; None when the id is
    neither reply of the pair. Agreement is computed over these two labels, the categories annotators choose
    between: reply ids as categories would make chance agreement near zero and kappa close to raw agreement."""
    winner, loser = _replies_of(pair_id)
    return DELTA if answer == winner else NO_DELTA if answer == loser else None


@dataclass(frozen=True)
class Shown:
    """What scoring needs of a cognitive item as it was shown: its dimension and the gold option's index."""

    dimension: str
    gold: int


def analyse(
    rows: list[Annotation],
    items: Mapping[str, CognitiveItem | Shown],
    path: str | Path = "annotations",
    pairs: Collection[str] | None = None,
) -> dict[str, Any]:
    """Per study (and per dimension): each annotator's accuracy and n, agreement; verification Likert mean +- SD.
    ``pairs``: the behavioral pair ids that exist (a pair id names its winner, so an id made up or from another
    file would score whatever it names as right)."""
    groups: dict[str, dict[str, dict[str, Any]]] = defaultdict(lambda: defaultdict(dict))
    correct: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
    likert: dict[str, list[int]] = defaultdict(list)
    ties: Counter[str] = Counter()
    for row in rows:
        if row.study == "behavioral":
            if pairs is not None and row.instance not in pairs:
                raise InputError(
                    path,
                    f"behavioral pair {row.instance!r} is not a pair of the threads file (ids are thread:winner-loser "
                    "as the study or run showed them)",
                    record=row.instance,
                )
            if not isinstance(row.answer, str):
                raise InputError(path, "behavioral answer must be the id of the chosen reply", record=row.instance)
            label = TIE if row.answer == TIE else behavioral_label(row.instance, row.answer)
            if label is None:
                raise InputError(
                    path,
                    f"behavioral answer {row.answer!r} is neither reply of pair {row.instance}",
                    record=row.instance,
                )
            group, answer, gold = "behavioral", label, DELTA
        else:
            item = items.get(row.instance)
            if item is None:
                raise InputError(
                    path, f"{row.study} item {row.instance!r} is not in the items file", record=row.instance
                )
            for key, value in row.ratings.items():
                likert[key].append(value)
            if row.answer is None and row.study == "verification":
                continue  # a quality rating without an answer selection
            try:
                answer_index = _option(row.answer, row.instance)
            except ValueError as exc:
                raise InputError(path, str(exc), record=row.instance) from None
            group, answer, gold = f"{row.study}:{item.dimension}", str(answer_index), str(item.gold)
        if answer == TIE:
            ties[row.annotator] += 1
        else:
            groups[group][row.annotator][row.instance] = answer
        correct[group][row.annotator].append(int(answer == gold))
    out: dict[str, Any] = {"groups": {}, "likert": {}}
    for group in sorted(correct):
        stats = agreement(groups[group])
        out["groups"][group] = {
            "accuracy": {a: statistics.fmean(v) for a, v in sorted(correct[group].items())},
            "n": {a: len(v) for a, v in sorted(correct[group].items())},
            "annotators": stats.annotators,
            "units": stats.units,
            "pairwise_cohen": stats.pairwise_cohen,
            "mean_cohen": stats.mean_cohen,
            "fleiss": stats.fleiss,
            "alpha": stats.alpha,
        }
        if group == "behavioral":  # equal ratings: in n and counted wrong, as a model's ties
            out["groups"][group]["ties"] = {a: ties[a] for a in sorted(correct[group])}
    for key, values in sorted(likert.items()):
        out["likert"][key] = {
            "n": len(values),
            "mean": statistics.fmean(values),
            "sd": statistics.stdev(values) if len(values) > 1 else float("nan"),
        }
    return out


def human_agreement(
    console: Console, as_json: bool = False, annotations: str = "", items: str | None = None, threads: str | None = None
) -> None:
    """Human accuracy per annotator and agreement (pairwise Cohen's kappa, Fleiss' kappa, Krippendorff's alpha).

    Args:
        annotations: annotations JSONL (format in docs/perso.md).
        items: cognitive items JSONL the annotators answered (default: the shipped sample items).
        threads: PerSo threads whose pairs the behavioral answers are about (default: the shipped ones).
    """
    if not annotations:
        raise ValueError("agreement needs -A annotations=FILE (see docs/perso.md for the format)")
    rows = load_annotations(annotations)
    pairs = None
    if any(r.study == "behavioral" for r in rows):
        from .data import load_threads

        # every pair a threads file lists (thread:winner-loser), whichever a study or run sampled
        pairs = {f"{t.id}:{w}-{lo}" for t in load_threads(threads) for w, lo in t.meta.get("pairs") or []}
    result = analyse(rows, {i.id: i for i in load_items(items)}, annotations, pairs)
    if as_json:
        console.file.write(dump_json(result) + "\n")
        return
    human_agreement_table(result, console)


def human_agreement_table(
    result: dict[str, Any],
    console: Console,
    title: str = "PerSo human studies: accuracy % per annotator (n) and agreement",
) -> None:
    """The result of `analyse` as a table (with the paper's Table 4 kappas) and the Likert summary. A study that
    asks no answers (perso-verify rates items 1-5) prints no accuracy table."""
    if not result["groups"]:
        if not result["likert"]:
            console.print(f"{title}: no answers yet")
    else:
        _accuracy_table(result, console, title)
    if result["likert"]:
        console.print(
            "Verification quality (1-5 Likert, mean ± SD; Table 7): "
            + "; ".join(f"{k} {v['mean']:.2f} ± {v['sd']:.2f} (n={v['n']})" for k, v in result["likert"].items())
        )


def _accuracy_table(result: dict[str, Any], console: Console, title: str) -> None:
    table = Table(title=title)
    for col in ("study", "annotators: accuracy % (n)", "mean Cohen's κ", "Fleiss' κ", "Krippendorff's α", "paper κ"):
        table.add_column(col)
    for group, g in result["groups"].items():
        dim = group.split(":")[-1]
        paper = f"{PAPER_KAPPA[dim]:.3f} (Table 4)" if group.startswith("verification:") and dim in DIMENSIONS else "-"
        people = ", ".join(f"{a}: {percent(g['accuracy'][a])} ({g['n'][a]})" for a in g["annotators"])
        table.add_row(group, people, _num(g["mean_cohen"]), _num(g["fleiss"]), _num(g["alpha"]), paper)
    console.print(table)


def _num(value: float) -> str:
    return "-" if value != value else f"{value:.3f}"
