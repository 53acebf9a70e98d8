"""``socialbench analyze longsocial lint``: the release criteria of Table 8 and the controls of Table 9 that a
program can check, over an items file and its episodes (`shared.itemlint` for the option checks and the file's
surface heuristics). LongSocialBench adds scope clarity and evidence sufficiency:
- the item has a scope and it resolves to posts (hard), and the stem names its unit: a post id or a unit word
  such as reply, chain, subtree, branch, participant (hard: "Which?" does not say what is asked about);
- the stem points at posts by id or names a participant (hard: "What is this post doing" asks about no post), and
  a username it writes is spelled as the thread spells it (hard: usernames are case-sensitive);
- the item cites evidence posts of its thread (hard), and its scope is near what the stem names (a scope post, its
  parent or a reply to it; hard: a scope elsewhere in the thread is another question);
- the stem does not repeat six consecutive words of the gold option (hard), and no item repeats another's
  episode, stem and options (hard);
- every evidence post lies in the scope, the posts it replies to or the posts the stem names (warning: the gold-scope
  setting then hides part of the evidence, docs/longsocial.md);
- reply-pair, aggregation, temporal, trajectory and cross-branch capabilities (C2-C6) rest on evidence from two or
  more posts, and C6 on evidence from both branches (hard).
Answerability, option uniqueness and an observable criterion need a reader: the verification study checks them.
"""

from __future__ import annotations

import re

from rich.console import Console

from ...conversations.model import Thread
from ...conversations.render import short_ids
from ...core.jsonl import dump_json
from ...shared.itemlint import Candidate, Finding, LintReport, lint_candidates, ngrams, print_lint
from .items import LETTERS, Item
from .pack import load_pack
from .workflows import ScopeError, gold_scope_posts, scope_nodes, stem_posts

UNIT = re.compile(
    r"\bc\d+\b|\b(repl(y|ies)|subtree|chain|comments?|posts?|branch(es)?|participant|author|thread|discussion|"
    r"exchange|sub-?discussion)\b",
    re.IGNORECASE,
)
SEVERAL_POSTS = {
    "C2": "a reply and the comment it answers",
    "C3": "collective structure",
    "C4": "how an ordered exchange changes",
    "C5": "a participant's trajectory",
    "C6": "a cross-branch comparison",
}
COPY_NGRAM = 6
"""Six consecutive words of the gold option in the stem give the answer away."""
NOT_CHECKED = [
    "answerability, option uniqueness and an observable criterion (Table 8): a reader's judgement; the "
    "longsocial-verify study asks it",
    "redundant structural hints (Table 9): no program check yet",
]


def episode_posts(thread: Thread) -> dict[str, str]:
    """The episode's posts by the short ids items use (built once per episode by `lint_items`)."""
    shorts = short_ids(thread)
    return {shorts[n.id]: n.text for n in thread.traverse("thread")}


def candidate(item: Item, thread: Thread, posts: dict[str, str] | None = None) -> Candidate:
    posts = episode_posts(thread) if posts is None else posts
    return Candidate(
        id=item.id,
        stem=item.stem,
        options=item.options,
        gold=LETTERS.index(item.gold),
        evidence_text="\n".join(posts[e] for e in item.evidence if e in posts),
        posts=posts,
        authors=[a for a in thread.participants() if a and a not in ("[deleted]", "[removed]")],
        episode=thread.id,
    )


def scope_findings(item: Item, thread: Thread) -> list[Finding]:
    found: list[Finding] = []

    def add(check: str, severity: str, serves: str, message: str) -> None:
        found.append(Finding(item.id, check, "hard" if severity == "hard" else "warning", serves, message))

    shorts = short_ids(thread)
    by_short = {s: n for n, s in shorts.items()}
    participants = {a for a in thread.participants() if a and a not in ("[deleted]", "[removed]")}
    named_people = {p for p in participants if re.search(rf"(?<![\w-]){re.escape(p)}(?![\w-])", item.stem)}
    if not UNIT.search(item.stem):
        add(
            "stem names no unit",
            "hard",
            "Table 8 scope clarity",
            "say which post, reply set, chain, subtree, participant or branches the question is about, by post id",
        )
    elif not stem_posts(thread, item.stem) and not named_people:
        add(
            "stem names no post",
            "hard",
            "Table 8 scope clarity",
            'the stem points at no post by id and names no participant ("this post", "the reply"): name the '
            "posts it asks about (c12, c12-c15) or the participant",
        )
    if not item.evidence:
        add("no evidence", "hard", "Table 8 evidence sufficiency", "cite the posts the gold answer rests on")
    if missing := [e for e in item.evidence if e not in by_short]:
        add(
            "evidence not in the thread",
            "hard",
            "Table 8 evidence sufficiency",
            f"evidence {', '.join(missing)} names no post of episode {thread.id}",
        )
    gold = item.options[LETTERS.index(item.gold)]
    if ngrams(gold, COPY_NGRAM) & ngrams(item.stem, COPY_NGRAM):
        add(
            "gold in the stem",
            "hard",
            "Table 9 no answer leakage",
            f"the stem repeats {COPY_NGRAM}+ consecutive words of the gold option: ask without its wording",
        )
    lower = {p.lower(): p for p in participants}
    for text in (item.stem, *item.options):
        for token in set(re.findall(r"(?<![\w/-])[\w-]{3,}(?![\w-])", text)):
            spelled = lower.get(token.lower())
            if spelled is not None and token != spelled:
                add(
                    "username misspelled",
                    "hard",
                    "Table 8 scope clarity",
                    f"'{token}' is written '{spelled}' in the thread: usernames are case-sensitive, copy it exactly",
                )
    scope = item.scope.model_dump() if item.scope else None
    if scope is None:
        add(
            "no scope",
            "hard",
            "Table 8 scope clarity",
            "mark the scope the question is about (posts, subtree, chain, participant or branches)",
        )
    else:
        try:
            shown, _ = gold_scope_posts(thread, item.stem, scope, item.evidence)
        except ScopeError as exc:
            add("scope does not resolve", "hard", "Table 8 scope clarity", f"{exc}: fix the scope")
        else:
            named = set(stem_posts(thread, item.stem))
            marked = set(scope_nodes(thread, scope))
            near = marked | {p.id for m in marked if (p := thread.parent(m)) is not None}
            near |= {c.id for m in marked for c in thread.children(m)}
            if named and marked and not named & near:
                add(
                    "scope unrelated to the stem",
                    "hard",
                    "Table 8 scope clarity",
                    f"the stem names {', '.join(sorted(shorts[n] for n in named))} but the scope marks "
                    f"{', '.join(sorted(shorts[n] for n in marked))}, none of them or their neighbours: fix the scope",
                )
            inside = {shorts[i] for i in shown}
            outside = [e for e in item.evidence if e not in inside]
            if outside:
                add(
                    "evidence outside the scope",
                    "warning",
                    "Table 8 evidence sufficiency",
                    f"evidence posts {', '.join(outside)} lie outside the scope: widen the scope or drop them",
                )
    posts = set(item.evidence)
    if item.capability in SEVERAL_POSTS and len(posts) < 2:
        add(
            "evidence from one post",
            "hard",
            "Table 8 evidence sufficiency",
            f"{item.capability} asks about {SEVERAL_POSTS[item.capability]}: cite the two or more posts it rests on",
        )
    if item.capability == "C6":
        roots = [by_short[r] for r in (item.scope.roots if item.scope else [])]
        if roots:
            hit = {r for r in roots for e in posts if e in by_short and thread.is_ancestor(r, by_short[e])}
            hit |= {r for r in roots for e in posts if by_short.get(e) == r}
        else:
            hit = {b.id for e in posts if e in by_short and (b := thread.branch_of(by_short[e])) is not None}
        if len(hit) < 2:
            add(
                "evidence from one branch",
                "hard",
                "Table 8 evidence sufficiency",
                "a cross-branch comparison rests on evidence from both branches: cite posts of each",
            )
    return found


def duplicate_findings(items: list[Item]) -> list[Finding]:
    """An item whose episode, stem and options (in any order, up to case and spacing) repeat an earlier item's."""
    seen: dict[tuple[str, str, frozenset[str]], str] = {}
    found = []
    for item in items:
        key = (item.episode_id, _norm(item.stem), frozenset(_norm(o) for o in item.options))
        if key in seen:
            found.append(
                Finding(
                    item.id,
                    "duplicate item",
                    "hard",
                    "Table 8 release (one item per question)",
                    f"the same question and options as {seen[key]}: drop one",
                )
            )
        else:
            seen[key] = item.id
    return found


def _norm(text: str) -> str:
    return " ".join(text.lower().split())


def lint_items(items: str | None = None, episodes: str | None = None) -> LintReport:
    items_path, _, threads, loaded = load_pack(items, episodes)
    posts = {eid: episode_posts(threads[eid]) for eid in {i.episode_id for i in loaded}}
    candidates = [candidate(i, threads[i.episode_id], posts[i.episode_id]) for i in loaded]
    findings, heuristics = lint_candidates(candidates)
    for item in loaded:
        findings += scope_findings(item, threads[item.episode_id])
    findings += duplicate_findings(loaded)
    return LintReport(f"LongSocialBench lint of {items_path}", len(loaded), findings, heuristics, NOT_CHECKED)


def lint(console: Console, as_json: bool = False, items: str | None = None, episodes: str | None = None) -> None:
    """Item lint: the release criteria (Table 8) and controls (Table 9) that a program can check.

    Exit status 1 on a hard finding or a surface heuristic above chance + 10 points.

    Args:
        items: items JSONL (default: the bundled sample pack's items).
        episodes: episodes JSONL (default: the bundled sample episodes).
    """
    report = lint_items(items, episodes)
    if as_json:
        console.file.write(dump_json(report.as_dict()) + "\n")
    else:
        print_lint(console, report)
    if not report.passed:
        raise SystemExit(1)
