"""``socialbench analyze longsocial lint``: the release criteria of Table 8 and the controls of Table 9 that a
program can check, over an items file and its episodes (`shared.itemlint` for the option checks and the file's
surface heuristics). LongSocialBench adds scope clarity and evidence sufficiency:
- the item has a scope and it resolves to posts (hard), and the stem names its unit: a post id or a unit word
  such as reply, chain, subtree, branch, participant (hard: "Which?" does not say what is asked about);
- every evidence post lies in the scope, the posts it replies to or the posts the stem names (warning);
- aggregation, trajectory and cross-branch capabilities (C3, C5, C6) rest on evidence from two or more posts,
  and C6 on evidence from both branches (hard).
Answerability, option uniqueness and an observable criterion need a reader: the verification study checks them.
"""

from __future__ import annotations

import re

from rich.console import Console

from ...conversations.model import Thread
from ...conversations.render import short_ids
from ...core.jsonl import dump_json
from ...shared.itemlint import Candidate, Finding, LintReport, lint_candidates, print_lint
from .items import LETTERS, Item
from .task import load_pack
from .workflows import ScopeError, gold_scope_posts

UNIT = re.compile(
    r"\bc\d+\b|\b(repl(y|ies)|subtree|chain|comments?|posts?|branch(es)?|participant|author|thread|discussion|"
    r"exchange|sub-?discussion)\b",
    re.IGNORECASE,
)
SEVERAL_POSTS = {"C3": "collective structure", "C5": "a participant's trajectory", "C6": "a cross-branch comparison"}
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

    if not UNIT.search(item.stem):
        add(
            "stem names no unit",
            "hard",
            "Table 8 scope clarity",
            "say which post, reply set, chain, subtree, participant or branches the question is about, by post id",
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
            shorts = short_ids(thread)
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
        by_short = {s: n for n, s in short_ids(thread).items()}
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


def lint_items(items: str | None = None, episodes: str | None = None) -> LintReport:
    items_path, _, threads, loaded = load_pack(items, episodes)
    posts = {eid: episode_posts(threads[eid]) for eid in {i.episode_id for i in loaded}}
    candidates = [candidate(i, threads[i.episode_id], posts[i.episode_id]) for i in loaded]
    findings, heuristics = lint_candidates(candidates)
    for item in loaded:
        findings += scope_findings(item, threads[item.episode_id])
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
