"""PerSo's human studies (§3.3, §4.1.2; Tables 4, 6, 7), scored through `human.analyse`.

- ``perso-behavioral``: the OP's post and two replies in a seeded order (recorded); a 1-4 rating of each. Equal
  ratings break the task's rule: a tie, never resolved by guessing (Potato cannot require two answers to differ, so
  the check is at scoring time), counted in n and wrong, as a model's tie is, and shown per annotator.
- ``perso-cognitive``: the OP's post and one persuader's reply, on one page with the questions on it (belief,
  emotion, intent: four options each), so the annotator reads the pair once, not once per question.
- ``perso-verify-answers``: as cognitive, but with the OP's withheld reply shown (the paper's annotators saw it);
  answer-selection agreement is Table 4.
- ``perso-verify``: the items with the OP's reply and the intended answers marked; 1-5 Likert ratings of each
  gold and of its distractors (Table 7, mean +- SD).

The questions and the answer forms sit in a panel that stays in view while the texts are read (as on the
LongSocialBench pages: `studies.question_panel`, the study page's CSS and script).
"""

from __future__ import annotations

import random
from typing import Any

from rich.console import Console

from ...core.jsonl import dump_json
from ...shared import studies
from .data import DIMENSIONS, Unchecked, load_pairs, load_threads, shown_post
from .human import TIE, Annotation, Shown, analyse
from .items import check_items, default_items, load_items

RATINGS = ["1", "2", "3", "4"]


def _post(thread: Any) -> str:
    return f"<p><b>OP's post</b></p><div>{studies.escape(shown_post(thread))}</div>"


def _texts(*parts: str) -> str:
    """The texts an annotator reads, single-spaced (the study page's thread style)."""
    return '<div class="sb-thread">' + "<hr>".join(parts) + "</div>"


TASK = (
    "Rate how likely each response is to change the OP's view (1 = very unlikely, 4 = very likely). "
    "The two ratings must differ."
)


def behavioral(
    threads: str | None = None, subset: str = "20", seed: int = 0, unchecked: Unchecked = "admit"
) -> studies.Design:
    """Which reply changed the OP's view: rate each 1-4 (they must differ).

    Args:
        threads: PerSo threads (default: the shipped ones).
        subset: number of pairs (seeded; the paper's humans did 20) or ``all``.
        seed: sampling and order seed.
        unchecked: ``admit`` threads on which a construction rule could not be checked, recorded per pair
            (default), or ``exclude`` them (strict).
    """
    _, pairs = load_pairs(threads, subset, seed, unchecked)
    out = []
    for n, pair in enumerate(pairs, 1):
        winner_first = random.Random(f"{seed}:{pair.id}").random() < 0.5
        first, second = (pair.winner, pair.loser) if winner_first else (pair.loser, pair.winner)
        html = (
            '<div class="sb-distinct-ratings">'  # study.js: the page is neither saved nor left with two equal ratings
            + studies.question_panel(TASK, label="Task")
            + _texts(
                _post(pair.thread),
                f"<p><b>Response 1</b></p><div>{studies.escape(first.reply.text)}</div>",
                f"<p><b>Response 2</b></p><div>{studies.escape(second.reply.text)}</div>",
            )
            + "</div>"
        )
        key = {"pair_id": pair.id, "first": first.id, "second": second.id, "winner_first": winner_first}
        out.append(studies.Item(f"b{n:04d}", html, key))
    question = "How likely is Response {} to change the OP's view? (1 = very unlikely, 4 = very likely)"
    return studies.Design(
        kind="perso-behavioral",
        title="PerSo behavioral task",
        instructions="Rate how likely each response is to change the OP's view. The two ratings must differ.",
        questions=[studies.Question(f"rating_{i}", "radio", question.format(i), RATINGS) for i in (1, 2)],
        items=out,
    )


def _pages(items: list[Any]) -> list[list[Any]]:
    """The items on one post and reply, one page each (the annotator reads them once), at most one item of a
    dimension a page (a second one goes to a page of its own); pages in the items' order."""
    pages: dict[tuple[str, str], list[list[Any]]] = {}
    for item in items:
        runs = pages.setdefault((item.thread_id, item.reply_id), [])
        page = next((run for run in runs if all(i.dimension != item.dimension for i in run)), None)
        if page is None:
            runs.append(page := [])
        page.append(item)
    return [sorted(run, key=lambda i: DIMENSIONS.index(i.dimension)) for runs in pages.values() for run in runs]


def _cognitive(kind: str, items: str | None, threads: str | None, show_reply: bool, mark_gold: bool) -> studies.Design:
    by_id = {t.id: t for t in load_threads(threads)}
    loaded = load_items(items)
    check_items(loaded, by_id, items or default_items())  # an item whose thread is missing: one located line
    pages = _pages(loaded)
    dimensions = [d for d in DIMENSIONS if any(i.dimension == d for page in pages for i in page)]
    complete = all(len(page) == len(dimensions) for page in pages)
    out = []
    for n, page in enumerate(pages, 1):
        thread = by_id[page[0].thread_id]
        texts = [
            _post(thread),
            f"<p><b>A response to the OP</b></p><div>{studies.escape(thread.node(page[0].reply_id).text)}</div>",
        ]
        if show_reply:
            texts.append(
                f"<p><b>The OP's reply to it</b></p><div>{studies.escape(thread.node(page[0].op_reply_id).text)}</div>"
            )
        blocks = ""
        for item in page:
            options = zip("ABCD", item.options, strict=False)
            rows = "".join(f"<li><b>{letter}.</b> {studies.escape(o)}</li>" for letter, o in options)
            gold = f"<p><i>Intended answer: option {'ABCD'[item.gold]}</i></p>" if mark_gold else ""
            blocks += (
                f"<p><b>{item.dimension.capitalize()}:</b> {studies.escape(item.question)}</p><ul>{rows}</ul>{gold}"
            )
        missing = [d for d in dimensions if all(i.dimension != d for i in page)]
        if missing:
            blocks += f"<p><i>No {' or '.join(missing)} question for this response: leave it blank.</i></p>"
        html = studies.panel(blocks, long=len(page) > 1) + _texts(*texts)
        key = {
            "pair": f"{page[0].thread_id}:{page[0].reply_id}",
            "items": {i.dimension: {"item_id": i.id, "gold": i.gold, "dimension": i.dimension} for i in page},
        }
        out.append(studies.Item(f"c{n:04d}", html, key))
    if mark_gold:
        questions = [
            studies.Question(
                f"{part}_{d}",
                "likert",
                f"{d.capitalize()}: {text}",
                size=5,
                min_label=low,
                max_label=high,
                required=complete,
            )
            for d in dimensions
            for part, text, low, high in (
                ("gold", "the intended answer captures the OP's state in their reply", "not at all", "exactly"),
                ("distractors", "the other options are plausible yet clearly wrong", "not at all", "completely"),
            )
        ]
    else:
        questions = [
            studies.Question(f"answer_{d}", "radio", f"{d.capitalize()}: your answer", list("ABCD"), required=complete)
            for d in dimensions
        ]
    notes = (
        []
        if complete
        else ["some responses lack a question of some dimension: those answers are optional on every page"]
    )
    return studies.Design(
        kind=kind,
        title=f"PerSo {kind.removeprefix('perso-')}",
        instructions="Read the post and the response, then answer the questions about the OP (one per dimension).",
        questions=questions,
        items=out,
        notes=notes,
    )


def cognitive(items: str | None = None, threads: str | None = None) -> studies.Design:
    """Forecast the OP's belief / emotion / intent (the OP's reply withheld).

    Args:
        items: cognitive items JSONL (default: the shipped sample items).
        threads: PerSo threads (default: the shipped ones).
    """
    return _cognitive("perso-cognitive", items, threads, show_reply=False, mark_gold=False)


def verify_answers(items: str | None = None, threads: str | None = None) -> studies.Design:
    """Answer selection with the OP's reply shown (Table 4).

    Args:
        items: cognitive items JSONL (default: the shipped sample items).
        threads: PerSo threads (default: the shipped ones).
    """
    return _cognitive("perso-verify-answers", items, threads, show_reply=True, mark_gold=False)


def verify(items: str | None = None, threads: str | None = None) -> studies.Design:
    """Quality of generated items: 1-5 ratings of the gold and the distractors, the OP's reply shown (Table 7).

    Args:
        items: cognitive items JSONL (default: the shipped sample items).
        threads: PerSo threads (default: the shipped ones).
    """
    return _cognitive("perso-verify", items, threads, show_reply=True, mark_gold=True)


def study_annotations(folder: str) -> tuple[list[Annotation], int]:
    """The study's answers as `human.Annotation` rows (and how many behavioral answers broke the rules)."""
    record = studies.load(folder)
    keys = studies.key(folder)
    kind = record["kind"]
    rows, invalid = [], 0
    for a in studies.answers(folder):
        k = keys[a.item]
        if kind == "perso-behavioral":
            r1, r2 = a.values.get("rating_1"), a.values.get("rating_2")
            if r1 is None or r2 is None:
                invalid += 1
                continue
            # equal ratings choose nothing: a tie, counted wrong as a model's tie is (`human.TIE`)
            chosen = TIE if int(r1) == int(r2) else k["first"] if int(r1) > int(r2) else k["second"]
            rows.append(Annotation(annotator=a.annotator, study="behavioral", instance=k["pair_id"], answer=chosen))
        else:
            rows += _item_answers(kind, a, k)
    return rows, invalid


def _shown_items(k: dict[str, Any]) -> list[tuple[dict[str, Any], str]]:
    """The items a page showed, each with the suffix its answers carry: a page per post and reply holds one per
    dimension (``answer_belief``); a study made before that, one item a page (``answer``)."""
    if "items" in k:
        return [(entry, f"_{dimension}") for dimension, entry in k["items"].items()]
    return [(k, "")] if "item_id" in k else []


def _item_answers(kind: str, a: studies.Answer, k: dict[str, Any]) -> list[Annotation]:
    rows = []
    for entry, suffix in _shown_items(k):
        if kind == "perso-verify":
            ratings = {q: int(a.values[q + suffix]) for q in ("gold", "distractors") if q + suffix in a.values}
            if ratings:
                rows.append(
                    Annotation(
                        annotator=a.annotator,
                        study="verification",
                        instance=entry["item_id"],
                        answer=None,
                        ratings=ratings,
                    )
                )
        else:
            study = "verification" if kind == "perso-verify-answers" else "cognitive"
            answer = a.values.get("answer" + suffix)
            rows.append(Annotation(annotator=a.annotator, study=study, instance=entry["item_id"], answer=answer))
    return rows


def score(folder: str, console: Console, as_json: bool = False) -> None:
    from .human import human_agreement_table

    record = studies.load(folder)
    rows, invalid = study_annotations(folder)
    # scored against what the study showed (its key: the gold as shown and the dimension), never the shipped items
    items = {
        str(entry["item_id"]): Shown(dimension=str(entry["dimension"]), gold=int(entry["gold"]))
        for k in studies.key(folder).values()
        for entry, _ in _shown_items(k)
        if "gold" in entry
    }
    result = (
        analyse([r for r in rows if r.answer is not None or r.ratings], items, folder)
        if rows
        else {"groups": {}, "likert": {}}
    )
    result["invalid_behavioral_answers"] = invalid
    result["no_answers"] = studies.unanswered(folder, studies.answers(folder))
    if as_json:
        console.file.write(dump_json(result) + "\n")
        return
    human_agreement_table(result, console, title=f"{record['title']}: accuracy % per annotator (n) and agreement")
    if record["kind"] == "perso-behavioral":
        ties = (result["groups"].get("behavioral") or {}).get("ties") or {}
        console.print(
            "Equal ratings (no choice; in n and counted wrong, as a model's ties are): "
            + (", ".join(f"{a} {n}" for a, n in ties.items()) or "none")
            + f". Answers missing a rating: {invalid}."
        )
    if result["no_answers"]:
        console.print(f"Annotators without answers yet (not in the table): {', '.join(result['no_answers'])}")


STUDIES = {
    "perso-behavioral": studies.Study(behavioral, score, "rate two replies 1-4 (20 pairs, as the paper)"),
    "perso-cognitive": studies.Study(cognitive, score, "forecast the OP's belief / emotion / intent"),
    "perso-verify-answers": studies.Study(
        verify_answers, score, "answer selection with the OP's reply shown (Table 4)"
    ),
    "perso-verify": studies.Study(verify, score, "1-5 quality ratings of generated items (Table 7)"),
}
