"""LongSocialBench's human studies (Table 15: human readers; Table 23: independent verification and adjudication).

- ``longsocial-readers``: the serialized thread (collapsible branches, short post ids, authors, times), the question
  and four options in a seeded order; one answer and an optional rationale. Scored as Table 15: accuracy per reader
  and the mean with its CI, agreement, attention checks, seconds per item.
- ``longsocial-verify``: exactly the model-facing input, as Table 23's verifier gets it (serialized thread, reply
  structure, stem, four options): no gold, criterion, evidence list or scope marks. The verifier re-answers and
  decides pass / revise / reject on the criteria a reader of that input can judge. Items whose verifiers miss the
  gold or do not all pass every criterion go to adjudication.
- ``longsocial-adjudicate``: the flagged items with everything: scope and evidence marked, the gold, the criterion,
  the verifiers' answers, decisions and notes; one outcome each (Table 23: confirmed, clarified, rewritten and
  re-verified, or removed).
- ``longsocial-author``: authoring (Table 23, "Authoring"): an author reads a whole episode and writes an item:
  capability and form tags, stem, four options, gold, criterion, scope and evidence posts by id.
  `socialbench analyze longsocial authored` turns the saved answers into an items file with provenance and lints it;
  `socialbench analyze longsocial release` takes it through verification and adjudication to a release
  (`release.py`).
"""

from __future__ import annotations

import random
import statistics
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from rich.console import Console

from ...conversations.render import short_ids
from ...core.errors import InputError
from ...core.jsonl import dump_json
from ...shared import studies
from ...shared.agreement import agreement, alpha_text
from ...shared.statistics import bootstrap_ci, ci_fields, percent
from ...shared.terminal import Table
from .items import CAPABILITIES, LETTERS, Item, stratified_sample
from .pack import load_episodes, load_pack, sample_pack
from .task import shuffled
from .workflows import scope_nodes

CRITERIA = {
    "scope_clear": "The question says which part of the thread it is about (a post, reply set, chain, participant "
    "or branches), and you could find it.",
    "scope_reasoning": "Answering needs reasoning over that part of the thread, not topic familiarity or one salient "
    "comment.",
    "one_answer": "Exactly one option is defensible from the thread; the distractors are plausible but wrong.",
    "no_artifacts": "Stem and options carry no answer-bearing wording (quotes, usernames, structural hints).",
}
"""What a verifier judges from the model-facing input alone (Table 23: no gold, criterion or evidence list)."""
DECISIONS = ["pass", "revise", "reject"]
OUTCOMES = ["confirm", "clarify", "rewrite and re-verify", "remove"]
PAPER_READERS = 72.4  # Table 15: mean of five readers on the 150-item stratified sample
ANSWER = studies.Question("answer", "radio", "Your answer", list(LETTERS))


def _attention(n: int, seed: int) -> list[studies.Item]:
    out = []
    for i in range(n):
        target = random.Random(f"{seed}:attention:{i}").choice(LETTERS)
        html = (
            "<p><b>Attention check.</b> This is not a question about a discussion. To show that you read the "
            f"instructions on each page, choose option {target}.</p>"
            + studies.question_panel("Which option does this page ask you to choose?", ["W", "X", "Y", "Z"])
        )
        out.append(studies.Item(f"check{i + 1}", html, {"expected": target}, attention=True))
    return out


def _items(items: str | None, episodes: str | None, seed: int, limit: int | None) -> tuple[Any, list[Item]]:
    _, _, threads, loaded = load_pack(items, episodes)
    if limit:
        loaded = loaded[:limit]
    return threads, loaded


def readers(
    items: str | None = None,
    episodes: str | None = None,
    seed: int = 0,
    attention: int = 2,
    sample: int = 150,
    limit: int | None = None,
) -> studies.Design:
    """Human readers answer items blind (Table 15).

    Args:
        items: items JSONL (default: the bundled sample pack).
        episodes: episodes JSONL (default: the bundled sample episodes).
        seed: option-order, sample and attention-check seed.
        attention: attention-check items mixed in (scored apart).
        sample: items drawn in the capability x platform proportions of the file (Table 15: 150; all when the
            file has fewer).
        limit: use only the first N of the drawn items (a pilot).
    """
    _, _, threads, every = load_pack(items, episodes)
    loaded = stratified_sample(every, sample, seed)[:limit] if limit else stratified_sample(every, sample, seed)
    out = []
    for n, item in enumerate(loaded, 1):
        options, gold, order = shuffled(item, seed)
        html = studies.question_panel(item.stem, options, link_posts=True) + studies.thread_html(
            threads[item.episode_id]
        )
        key = {
            "item_id": item.id,
            "episode_id": item.episode_id,
            "capability": item.capability,
            "gold": gold,
            "option_order": order,
        }
        out.append(studies.Item(f"i{n:04d}", html, key))
    return studies.Design(
        kind="longsocial-readers",
        title="LongSocialBench human readers",
        instructions="Read the discussion (expand branches as you need), then choose the one best answer. "
        "Take the time you need; a short rationale is welcome but optional.",
        questions=[ANSWER, studies.Question("rationale", "text", "Why (optional)", required=False)],
        items=out + _attention(attention, seed),
    )


def verify(
    items: str | None = None,
    episodes: str | None = None,
    seed: int = 0,
    attention: int = 1,
    limit: int | None = None,
    adjudicate: str | None = None,
) -> studies.Design:
    """Independent verification of items (Table 23), or with ``adjudicate=VERIFY_STUDY`` the adjudication of the
    items that verification flagged.

    Args:
        items: items JSONL (default: the bundled sample pack).
        episodes: episodes JSONL (default: the bundled sample episodes).
        seed: option-order seed.
        attention: attention-check items mixed in.
        limit: use only the first N items.
        adjudicate: folder of a scored verification study: build its adjudication study instead.
    """
    threads, loaded = _items(items, episodes, seed, limit)
    if adjudicate:
        return _adjudication(adjudicate, threads, loaded, seed)
    out = []
    for n, item in enumerate(loaded, 1):
        options, gold, order = shuffled(item, seed)
        # Table 23: the verifier re-answers from the model-facing input only (no scope or evidence marks)
        html = studies.question_panel(item.stem, options, link_posts=True) + studies.thread_html(
            threads[item.episode_id]
        )
        key = {
            "item_id": item.id,
            "item_version": item_version(item),
            "author": (item.meta.get("provenance") or {}).get("author"),
            "episode_id": item.episode_id,
            "gold": gold,
            "option_order": order,
        }
        out.append(studies.Item(f"v{n:04d}", html, key))
    questions = [ANSWER] + [studies.Question(k, "radio", text, DECISIONS) for k, text in CRITERIA.items()]
    questions.append(studies.Question("notes", "text", "What should change (for revise / reject)", required=False))
    return studies.Design(
        kind="longsocial-verify",
        title="LongSocialBench item verification",
        instructions="Answer the item as a reader would, then judge it against each release criterion.",
        questions=questions,
        items=out + _attention(attention, seed),
    )


def adjudicate(verified: str, items: str | None = None, episodes: str | None = None, seed: int = 0) -> studies.Design:
    """Adjudication (Table 23) of the items a scored verification study flagged.

    Args:
        verified: folder of the verification study.
        items: the items JSONL it used (default: the bundled sample pack).
        episodes: the episodes JSONL it used.
        seed: the option-order seed it used.
    """
    return verify(items, episodes, seed, adjudicate=verified)


def _marks(thread: Any, item: Item) -> dict[str, str]:
    """The posts an adjudicator sees marked: every post of the scope, whatever its kind (posts, subtree, chain,
    branches, participant; `workflows.scope_nodes`), and the evidence posts over them."""
    by_short = {s: n for n, s in short_ids(thread).items()}
    marks: dict[str, str] = {}
    if item.scope:
        try:
            scoped = scope_nodes(thread, item.scope.model_dump())
        except KeyError:  # a scope naming a post the thread lacks: lint's hard finding; mark what resolves
            scoped = [by_short[s] for s in item.scope.nodes if s in by_short]
        for node_id in scoped:
            marks[node_id] = "scope"
    for short in item.evidence:
        if short in by_short:
            marks[by_short[short]] = "evidence"
    return marks


def item_version(item: Item) -> str:
    """A digest of what a verifier judges and a release ships (episode, stem, options, gold, scope, evidence,
    criterion): a verification or adjudication counts only for the version of the item it saw."""
    import hashlib
    import json

    fields = item.model_dump(include={"episode_id", "stem", "options", "gold", "scope", "evidence", "criterion"})
    return hashlib.sha256(json.dumps(fields, sort_keys=True).encode()).hexdigest()[:16]


def verification_outcomes(folder: str | Path) -> list[dict[str, Any]]:
    """Per verified item: the verifiers' answers against the gold, their decisions, whether it needs adjudication.
    An item's author verifying it does not count (Table 23: a different contributor); such answers are counted in
    ``self_verifications``, and an item no one else verified has ``verifiers`` 0 and is not sent to adjudication."""
    keys = studies.key(folder)
    per: dict[str, list[studies.Answer]] = defaultdict(list)
    selves: Counter[str] = Counter()
    for row in studies.answers(folder):
        k = keys.get(row.item, {})
        if k.get("attention"):
            continue
        if k.get("author") and row.annotator == k["author"]:
            selves[row.item] += 1
        else:
            per[row.item].append(row)
    out = []
    for item_id in sorted(set(per) | set(selves)):
        rows, k = per[item_id], keys[item_id]
        recovered = [r.values.get("answer") == k["gold"] for r in rows]
        decisions = {c: Counter(str(r.values.get(c)) for r in rows) for c in CRITERIA}
        all_pass = all(set(d) == {"pass"} for d in decisions.values())
        out.append(
            {
                "study_item": item_id,
                "item_id": k["item_id"],
                "item_version": k.get("item_version"),
                "verifiers": len(rows),
                "self_verifications": selves[item_id],
                "recovered_gold": sum(recovered),
                "answers": {r.annotator: r.values.get("answer") for r in rows},
                "decisions": {c: dict(d) for c, d in decisions.items()},
                "notes": {r.annotator: r.values.get("notes") for r in rows if r.values.get("notes")},
                "adjudicate": bool(rows) and not (all(recovered) and all_pass),
            }
        )
    return out


def _verification_record(outcome: dict[str, Any], gold: str, criterion: str | None) -> str:
    """What verification found, as the adjudicator reads it in the side panel: the gold, the criterion, each
    verifier's answer (marked where it is the gold), the decisions per release criterion with their counts, and
    the verifiers' notes (never a Python dict)."""
    esc = studies.escape
    answers = ", ".join(
        f"{esc(who)} {esc(str(letter or 'no answer'))}" + (" ✓" if letter == gold else "")
        for who, letter in outcome["answers"].items()
    )
    decisions = "".join(
        f"<li>{esc(name.replace('_', ' '))}: "
        + ", ".join(f"{count} {esc(decision)}" for decision, count in sorted(counts.items()))
        + "</li>"
        for name, counts in outcome["decisions"].items()
    )
    notes = "".join(f"<li>{esc(who)}: {esc(text)}</li>" for who, text in outcome["notes"].items())
    return (
        f"<p><b>Gold:</b> {esc(gold)}. <b>Criterion:</b> {esc(criterion or '-')}</p>"
        f"<p><b>Verifiers answered:</b> {answers or 'none'}</p>"
        f"<p><b>Their decisions:</b></p><ul>{decisions}</ul>"
        + (f"<p><b>Notes:</b></p><ul>{notes}</ul>" if notes else "")
    )


def _adjudication(folder: str, threads: Any, loaded: list[Item], seed: int) -> studies.Design:
    flagged = {o["item_id"]: o for o in verification_outcomes(folder) if o["adjudicate"]}
    out = []
    for n, item in enumerate([i for i in loaded if i.id in flagged], 1):
        o = flagged[item.id]
        options, gold, order = shuffled(item, seed)
        thread = threads[item.episode_id]
        html = studies.question_panel(
            item.stem,
            options,
            link_posts=True,
            note="<p><small><mark>evidence</mark> posts are highlighted; posts in the item's scope have a pale blue "
            "background.</small></p>",
            extra=_verification_record(o, gold, item.criterion),
        ) + studies.thread_html(thread, _marks(thread, item))
        key = {"item_id": item.id, "item_version": item_version(item), "gold": gold, "option_order": order}
        out.append(studies.Item(f"a{n:04d}", html, key))
    if not out:
        raise ValueError(f"{folder}: no verified item needs adjudication")
    return studies.Design(
        kind="longsocial-adjudicate",
        title="LongSocialBench adjudication",
        instructions="Each item here was flagged by verification. Decide its outcome (Table 23).",
        questions=[
            studies.Question("outcome", "radio", "Outcome", OUTCOMES),
            studies.Question("notes", "text", "Change to make", required=False),
        ],
        items=out,
    )


def score(folder: str, console: Console, as_json: bool = False) -> None:
    record = studies.load(folder)
    rows = studies.answers(folder)
    keys = studies.key(folder)
    kind = record["kind"]
    result: dict[str, Any] = {
        "kind": kind,
        "attention": studies.attention_report(folder, rows, "answer"),
        "no_answers": studies.unanswered(folder, rows),
    }
    regular = [r for r in rows if not keys.get(r.item, {}).get("attention")]
    if kind == "longsocial-adjudicate":
        result["outcomes"] = {r.item: {"annotator": r.annotator, **r.values} for r in regular}
        result["counts"] = dict(Counter(str(r.values.get("outcome")) for r in regular))
    else:
        per_reader: dict[str, list[float]] = defaultdict(list)
        for r in regular:
            per_reader[r.annotator].append(float(r.values.get("answer") == keys[r.item]["gold"]))
        readers_acc = {a: statistics.fmean(v) for a, v in sorted(per_reader.items())}
        answers = {a: {r.item: r.values.get("answer") for r in regular if r.annotator == a} for a in per_reader}
        stats = agreement(answers)
        seconds = [r.seconds for r in regular if r.seconds is not None]
        result |= {
            "readers": {
                a: {"accuracy": acc, "correct": int(sum(per_reader[a])), "n": len(per_reader[a])}
                for a, acc in readers_acc.items()
            }
            | {a: {"accuracy": None, "correct": 0, "n": 0} for a in result["no_answers"]},
            "mean_accuracy": statistics.fmean(readers_acc.values()) if readers_acc else None,
            # over readers: none can be formed from one reader (not a point: "n/a")
            "mean_ci95": ci_fields(bootstrap_ci(list(readers_acc.values())))["ci95"] if readers_acc else None,
            "agreement": {"mean_cohen": stats.mean_cohen, "fleiss": stats.fleiss, "alpha": stats.alpha},
            # each statistic as printed: its value, or n/a with why it is undefined (`agreement.alpha_text`)
            "agreement_text": {
                k: alpha_text(v, answers)
                for k, v in {"mean_cohen": stats.mean_cohen, "fleiss": stats.fleiss, "alpha": stats.alpha}.items()
            },
            # Potato's own active time per item, rounded: a median of timings is not known to the millisecond
            "median_seconds": round(statistics.median(seconds), 1) if seconds else None,
        }
        if kind == "longsocial-verify":
            result["verification"] = verification_outcomes(folder)
    if as_json:
        console.file.write(dump_json(result) + "\n")
        return
    if kind == "longsocial-adjudicate":
        console.print(f"Adjudication outcomes: {result['counts']}")
        return
    table = Table(title=f"{record['title']}: accuracy per reader (Table 15 analogue)")
    for col in ("reader", "accuracy %", "# correct / n", "attention checks passed"):
        table.add_column(col)
    for a, r in result["readers"].items():
        att = result["attention"].get(a, {"passed": 0, "answered": 0})
        shown = percent(r["accuracy"]) if r["accuracy"] is not None else "no answers yet"
        table.add_row(a, shown, f"{r['correct']} / {r['n']}", f"{att['passed']} / {att['answered']}")
    console.print(table)
    ci = result["mean_ci95"]
    # Table 15's readers answered the stratified sample; verifiers answer items they did not write: another task
    paper = (
        f"; paper (Table 15, 5 readers, 150 items): {PAPER_READERS}%"
        if kind == "longsocial-readers"
        else " (verifiers' answers: no paper number measures this task)"
    )
    agree = result["agreement_text"]
    console.print(
        f"Mean over {len(result['readers']) - len(result['no_answers'])} readers {percent(result['mean_accuracy'])}%"
        + (f" [{percent(ci[0])}, {percent(ci[1])}]" if ci else "")
        + f"{paper}. Agreement: mean Cohen's κ {agree['mean_cohen']}, Fleiss' κ {agree['fleiss']}, Krippendorff's α "
        f"{agree['alpha']}. Median seconds per item (Potato's active time): "
        f"{'n/a' if result['median_seconds'] is None else result['median_seconds']}."
        + (
            f" The mean leaves out readers without answers: {', '.join(result['no_answers'])}."
            if result["no_answers"]
            else ""
        )
    )
    if kind == "longsocial-verify":
        flagged = [o for o in result["verification"] if o["adjudicate"]]
        alone = [o for o in result["verification"] if not o["verifiers"]]
        console.print(
            f"Verification: {len(result['verification']) - len(flagged) - len(alone)} items pass, {len(flagged)} go to "
            f"adjudication, {len(alone)} were verified only by their author "
            "(socialbench study create longsocial-adjudicate -o DIR --annotators NAME --items ITEMS "
            f"-S verified={folder})."
        )


FORMS = {
    "local-role": "C1: what one post does in its place",
    "reply-relation": "C2: how a reply relates to its parent",
    "position-structure": "C3: how a reply set or subtree is organised",
    "turning-point": "C4: where a chain changes course",
    "participant-trajectory": "C5: how one participant's stance or role develops",
    "cross-branch-contrast": "C6: how branches differ",
    "cross-branch-change": "C6: how a change differs between branches",
}
"""Item forms of the sample pack (metadata only, Table 23 "Artifact control")."""
SCOPE_POSTS = {
    "nodes": "the posts it asks about",
    "subtree": "the subtree's root (one id)",
    "chain": "the chain's first and last post (two ids)",
    "participant": "the participant's posts, the one the stem names first",
    "branches": "the root reply of each branch (two or more ids)",
}
OPTION_NAMES = [f"option_{letter.lower()}" for letter in LETTERS]


def episode_version(thread: Any) -> str:
    """What an item's post ids mean: a digest of the episode's model-facing rendering (the ids, authors, times and
    texts the author read). An item authored on another version may point at other posts."""
    import hashlib

    from ...conversations.render import render

    return hashlib.sha256(render(thread).encode()).hexdigest()[:16]


def author(
    episodes: str | None = None, per_episode: int = 1, ids: str | None = None, limit: int | None = None
) -> studies.Design:
    """Authoring (Table 23, "Authoring"): per episode, ``per_episode`` pages on each of which an author writes one
    item over the whole thread. Assign each page to one author (``--overlap 1``) or to several (each answer is a
    separate candidate item).

    Args:
        episodes: episodes JSONL to author on (default: the bundled sample episodes).
        per_episode: items to write per episode.
        ids: author on these episodes only (comma-separated episode ids).
        limit: author on the first N episodes (of those chosen) only.
    """
    path = Path(episodes) if episodes else sample_pack() / "episodes.jsonl"
    every = load_episodes(path)
    chosen = [e.strip() for e in ids.split(",") if e.strip()] if ids else list(every)
    unknown = [e for e in chosen if e not in every]
    if unknown:
        raise InputError(path, f"no episode {', '.join(unknown)} (-S ids)")
    threads = [every[e] for e in chosen][:limit] if limit else [every[e] for e in chosen]
    if per_episode < 1:
        raise ValueError(f"-S per_episode must be 1 or more, got {per_episode}")
    out: list[studies.Item] = []
    guide = studies.question_panel(
        "write one item over this discussion. The question must need reasoning over the part of the thread it names "
        "(its scope), not topic knowledge or one salient comment; name the scope by post id; four options in parallel "
        "form, the distractors plausible wrong readings (wrong scope, nearby count, boundary error, near-synonym "
        "label); no quotes, usernames or answer-bearing words (Tables 8 and 9). Fill in the form in this panel.",
        label="Your task",
    )
    for thread in threads:
        version = episode_version(thread)
        for slot in range(1, per_episode + 1):
            key = {
                "episode_id": thread.id,
                "episode_version": version,
                "episodes": str(path.resolve()),
                "slot": slot,
            }
            out.append(studies.Item(f"w{len(out) + 1:04d}", guide + studies.thread_html(thread), key))
    ids = "Post ids separated by spaces or commas"
    questions = [
        studies.Question("capability", "radio", "Capability", list(CAPABILITIES)),
        studies.Question("form", "radio", "Item form (metadata)", list(FORMS)),
        studies.Question("scope_kind", "radio", "Scope: the unit the question is about", list(SCOPE_POSTS)),
        studies.Question("scope_posts", "text", f"{ids}: " + "; ".join(f"{k}: {v}" for k, v in SCOPE_POSTS.items())),
        studies.Question("evidence", "text", f"Evidence posts: {ids} (every post the gold and its premises rest on)"),
        studies.Question("stem", "text", "Question stem (name the scope by post id)"),
        *(
            studies.Question(name, "text", f"Option {letter}")
            for name, letter in zip(OPTION_NAMES, LETTERS, strict=True)
        ),
        studies.Question("gold", "radio", "The correct option", list(LETTERS)),
        studies.Question("criterion", "text", "Criterion: why the gold is right under the scope, and the others not"),
    ]
    return studies.Design(
        kind="longsocial-author",
        title="LongSocialBench item authoring",
        instructions="Read the whole discussion, then write one item on each page. "
        + "Capabilities: "
        + "; ".join(f"{k} {v}" for k, v in CAPABILITIES.items())
        + ".",
        questions=questions,
        items=out,
    )
