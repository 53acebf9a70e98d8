"""``socialbench analyze perso lint``: release checks for PerSo cognitive items (§3.2.2) over an items file and its
threads: the option checks and surface heuristics every multiple-choice item gets (`shared.itemlint`; the visible
OP post and persuader reply stand for the evidence), plus the two leaks PerSo's design forbids (hard):
- an option (gold *or* distractor) copying six or more consecutive words of the OP's later reply, which holds the
  gold state and is withheld from the model: string matching against a leaked reply would answer it;
- a question using six or more consecutive words of the OP's later reply: it would ask about what happened after
  the persuader's reply.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from rich.console import Console

from ...conversations.model import Thread
from ...core.jsonl import dump_json
from ...shared.itemlint import (
    CHANCE,
    HEURISTIC_MARGIN,
    Candidate,
    Finding,
    LintReport,
    lint_candidates,
    ngrams,
    print_lint,
)
from .cognitive import LETTERS, gold_positions, shuffled
from .data import load_threads, shown_post
from .items import COPY_NGRAM, CognitiveItem, check_items, default_items, load_items

NOT_CHECKED = [
    "whether the gold follows from the OP's reply and the distractors do not: a reader's judgement",
    "hint vocabulary: an idf over two posts (the OP's post and the reply) says nothing about rare words",
]


def candidate(item: CognitiveItem, thread: Thread, seed: int | None = None, gold_at: int | None = None) -> Candidate:
    """The item as the task shows it: options in the seeded order (``seed``; None: as authored)."""
    post, reply = shown_post(thread), thread.node(item.reply_id).text
    options, letter, _ = shuffled(item, seed, gold_at)
    return Candidate(
        id=item.id,
        stem=item.question,
        options=options,
        gold=LETTERS.index(letter),
        evidence_text=f"{post}\n{reply}",
        posts={"the OP's post": post, f"reply {item.reply_id}": reply},
        authors=[a for a in thread.participants() if a and a not in ("[deleted]", "[removed]")],
    )


def leak_findings(item: CognitiveItem, thread: Thread) -> list[Finding]:
    later = ngrams(thread.node(item.op_reply_id).text, COPY_NGRAM)
    found = []
    for i, option in enumerate(item.options):
        if ngrams(option, COPY_NGRAM) & later:
            role = "the gold" if i == item.gold else "a distractor"
            found.append(
                Finding(
                    item.id,
                    "copies the OP's reply",
                    "hard",
                    "PerSo §3.2.2: the OP's reply is withheld",
                    f"option {'ABCD'[i]} ({role}) repeats {COPY_NGRAM}+ consecutive words of the OP's later reply: "
                    "describe the state in other words",
                )
            )
    if ngrams(item.question, COPY_NGRAM) & later:
        found.append(
            Finding(
                item.id,
                "question from after the reply",
                "hard",
                "PerSo §3.2.2: nothing after the persuader's reply",
                f"the question repeats {COPY_NGRAM}+ consecutive words of the OP's later reply: ask only about the "
                "state right after the persuader's reply",
            )
        )
    return found


def position_rows(candidates: list[Candidate], dimensions: dict[str, str]) -> list[dict[str, Any]]:
    """Per dimension, the constant-letter baseline of the file as shown: the share of the most common gold letter
    (a model that always answers it scores that), with a one-sided binomial test against chance."""
    from scipy.stats import binomtest

    rows = []
    for dimension in sorted(set(dimensions.values())):
        golds = [c.gold for c in candidates if dimensions[c.id] == dimension]
        letter, count = Counter(golds).most_common(1)[0]
        rows.append(
            {
                "heuristic": f"always {LETTERS[letter]} ({dimension})",
                "correct": count,
                "items": len(golds),
                "accuracy": count / len(golds),
                "p_value": float(binomtest(count, len(golds), CHANCE, alternative="greater").pvalue),
                "limit": CHANCE + HEURISTIC_MARGIN,
                "passed": count / len(golds) <= CHANCE + HEURISTIC_MARGIN,
            }
        )
    return rows


def lint_items(items: str | None = None, threads: str | None = None, seed: int = 0) -> LintReport:
    path = items or default_items()
    loaded = load_items(path)
    by_id = {t.id: t for t in load_threads(threads)}
    check_items(loaded, by_id, path)
    shuffle_seed = None if seed < 0 else seed
    positions = gold_positions(loaded, shuffle_seed)
    shown = [candidate(i, by_id[i.thread_id], shuffle_seed, positions.get(i.id)) for i in loaded]
    findings, heuristics = lint_candidates(shown, hints=False)
    heuristics += position_rows(shown, {i.id: i.dimension for i in loaded}) if loaded else []
    for item in loaded:
        findings += leak_findings(item, by_id[item.thread_id])
    title = f"PerSo cognitive lint of {path} as shown (seed {seed})"
    return LintReport(title, len(loaded), findings, heuristics, NOT_CHECKED)


def lint(
    console: Console, as_json: bool = False, items: str | None = None, threads: str | None = None, seed: int = 0
) -> None:
    """Item lint for cognitive items: option checks, locators, surface heuristics, leaks of the OP's reply.

    No option or question may draw on the OP's later reply; exit status 1 on a hard finding or a heuristic above
    chance + 10 points.

    Args:
        items: cognitive items JSONL (default: the shipped sample items).
        threads: PerSo threads (default: the shipped threads).
        seed: the option order checked, as the task shows it (``perso -T seed``; -1: as authored). The gold
            letters per dimension are checked against the constant-letter baseline.
    """
    report = lint_items(items, threads, seed)
    if as_json:
        console.file.write(dump_json(report.as_dict()) + "\n")
    else:
        print_lint(console, report)
    if not report.passed:
        raise SystemExit(1)
