"""PerSo threads, their persuasion branches, and the paper's construction rules (PerSo §3.1).

A PerSo thread is a ChangeMyView thread in the conversation model: the OP's post is the root, each root reply by
someone else starts a *branch* (the persuader's reply, the OP's answer to it, and what follows). Any importer that
yields such threads feeds PerSo: ``cmv-pairs`` (the Winning Arguments pair file: labels, scores, no OP replies),
``cmv`` (delta-labelled exchanges with the OP's replies, no scores), and complete threads from ``reddit-json`` /
``pushshift`` (labels inferred from the OP's ``∆`` / ``!delta`` or DeltaBot's confirmation).
"""

from __future__ import annotations

import random
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Literal

from rich.console import Console

from ...conversations.model import Node, Thread
from ...conversations.sources.cmv import has_delta
from ...conversations.store import read_episodes
from ...conversations.tokens import count_tokens
from ...core.errors import InputError
from ...core.jsonl import dump_json
from ...shared.datasets import RemoteFile, locate
from ...shared.terminal import Table
from .posts import PostCleaning, clean, clean_post

DIMENSIONS = ("belief", "emotion", "intent")
OP_REPLY_MIN_TOKENS = 100
"""PerSo §3.1: OP replies of at least 100 tokens (counted here with tiktoken's cl100k_base)."""
PAPER_SAMPLE = 200
LENGTH_RATIO_LIMIT = 4.97
"""PerSo §A.8: pairs whose delta reply is more than 4.97x longer (in words) than the other are length outliers."""

_DELTABOT = re.compile(r"Confirmed:\s*1\s*delta awarded to\s*/?u/([\w-]+)", re.I)


def data_dir() -> Path:
    return Path(str(resources.files("socialbench") / "benchmarks" / "perso" / "data"))


PAIRS = RemoteFile(
    name="Winning Arguments heldout pairs",
    filename="heldout_pair_data.jsonlist.bz2",
    url="https://chenhaot.com/data/cmv/cmv.tar.bz2",
    sha256="51f0e7ddc6de165fa80f465ffbc19e784024221905ef7fd2946e954b8c64bc6b",
    licence="its authors state none beyond citation",
    citation="Tan, Niculae, Danescu-Niculescu-Mizil and Lee, Winning Arguments: Interaction Dynamics and Persuasion "
    "Strategies in Good-faith Online Discussions, WWW 2016",
    option="-T threads=FILE (threads from `socialbench import cmv-pairs` / `cmv` / `reddit-json`)",
    benchmark="perso",
    member="heldout_pair_data.jsonlist.bz2",
)
"""The pair file (807 pairs over 542 posts), in its authors' cmv.tar.bz2 (no commit to pin: the member's sha256)."""
EXCHANGES = RemoteFile(
    name="r/ChangeMyView exchange files",
    filename="cmv",
    url="https://github.com/chridey/change-my-view-modes/archive/d1fe2b305539cecb975165eb90620634093ad9e9.tar.gz",
    sha256="dc78a8c64eeaa9aefd47580565985211794a52b1b7bc063eaf78ec2be8c206d1",
    licence="its repository, github.com/chridey/change-my-view-modes, states no licence",
    citation="Hidey, Musi, Hwang, Muresan and McKeown, Analyzing the Semantic Types of Claims and Premises in an "
    "Online Persuasive Forum, ArgMining 2017",
    option="-T threads=FILE (threads from `socialbench import cmv-pairs` / `cmv` / `reddit-json`)",
    benchmark="perso",
    member="original",
    files=("positive/*.xml", "negative/*.xml"),
)
"""The 201 delta-labelled exchange files (`original/positive`, `original/negative` at the pinned commit)."""
THREADS_SHA256 = "6761a01837ac5403a6fe329ef678dc150bbb67a9735a3de902bfa8afd6fd47b3"
"""Of the threads `build_threads` makes from those two (one JSON line per thread): a build that differs (another
importer) is refused, so every PerSo number stays the one the pinned sources give."""


def build_threads(pairs: Path, exchanges: Path) -> list[Thread]:
    """The PerSo threads: every original post of the pair file, then every exchange file's post, as conversation
    threads (nothing filtered: the construction rules run at load time, so their counts are always reported). Each
    pair thread names its source file by name, not by where this machine keeps it."""
    import warnings

    from ...conversations.sources import read_cmv, read_cmv_pairs

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # cmv/negative/test.xml is recovered with a warning (docs/perso.md)
        threads = [*read_cmv_pairs(pairs), *read_cmv(exchanges)]
    for thread in threads:
        if "file" in thread.meta:
            thread.meta["file"] = Path(str(thread.meta["file"])).name
    ids = [t.id for t in threads]
    if len(set(ids)) != len(ids):
        raise InputError(pairs, "thread ids in both sources")
    return threads


def default_threads() -> Path:
    """The PerSo threads built from the fetched pair and exchange files (`socialbench fetch perso`), once: the first
    use writes them into the data folder beside their sources; an error saying how to get the sources otherwise."""
    import tempfile

    from ...conversations.store import write_episodes
    from ...shared.datasets import data_dir as fetched
    from ...shared.runs import file_digest

    built = fetched() / THREADS_SHA256[:16] / "threads.jsonl"
    if built.is_file():
        return built
    pairs, exchanges = locate(PAIRS), locate(EXCHANGES)
    built.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=built.parent) as scratch:
        part = Path(scratch) / built.name
        write_episodes(part, build_threads(pairs, exchanges))
        if (digest := file_digest(part)) != THREADS_SHA256:
            raise InputError(built, f"the threads built from the fetched sources have sha256 {digest[:12]}..., not "
                             f"the pinned {THREADS_SHA256[:12]}...: refused (another importer version?)")  # fmt: skip
        part.replace(built)
    return built


def shown_post(thread: Thread) -> str:
    """The OP's post of ``thread`` as both tasks show it (`posts.clean`: no later edits, no footnote)."""
    return clean_post(thread.root.text, thread.title)


def post_record(thread: Thread) -> dict[str, int | bool]:
    """What the edit and footnote rule removed from the post of ``thread`` (for a sample's metadata)."""
    return clean(thread.root.text, thread.title).record()


def post_cleaning(threads: Iterable[Thread]) -> PostCleaning:
    """What the edit and footnote rule removed from the posts of ``threads`` (each counted once)."""
    return PostCleaning.of((t.id, t.root.text, t.title) for t in threads)


def words(text: str) -> int:
    return len(text.split())


@dataclass(frozen=True)
class Branch:
    """One persuader's branch of a thread."""

    thread_id: str
    reply: Node
    """The persuader's root reply: the candidate response of the behavioral task, the body of the cognitive one."""
    path: tuple[Node, ...]
    """The persuader's comments in the branch, in thread order (the root reply first)."""
    op_reply: Node | None
    """The OP's answer to the root reply (holds the gold mental state); None when the source lacks it."""
    delta: bool
    won_by_first_reply: bool | None
    """For a delta branch: was the delta awarded to the root reply itself? None when the source cannot tell."""
    source: str = ""

    @property
    def id(self) -> str:
        return self.reply.id


@dataclass(frozen=True)
class Pair:
    """A behavioral instance: the OP's post, the branch that won a delta and one that did not."""

    thread: Thread
    winner: Branch
    loser: Branch

    @property
    def id(self) -> str:
        return f"{self.thread.id}:{self.winner.id}-{self.loser.id}"

    @property
    def post(self) -> str:
        """The OP's post as the persuaders read it: no later edits, no moderator footnote (`posts`)."""
        return shown_post(self.thread)

    def length_ratio(self) -> float:
        return words(self.winner.reply.text) / max(1, words(self.loser.reply.text))


def _inferred_delta(thread: Thread, reply: Node, op: str | None) -> bool:
    for node in thread.subtree(reply.id)[1:]:
        if op and node.author == op and has_delta(node.text):
            return True
        match = _DELTABOT.search(node.text) if (node.author or "").lower() == "deltabot" else None
        if match and match.group(1).lower() == (reply.author or "").lower():
            return True
    return False


def branches(thread: Thread) -> list[Branch]:
    """The persuasion branches of a thread: root replies with text by someone other than the OP."""
    op = thread.root.author
    out = []
    for reply in thread.root_replies():
        # A reply whose *author* is [deleted] keeps its text (the account is gone, not the words): it stays a
        # candidate. Only a reply whose text is gone is none.
        gone = reply.removed or reply.text.strip() in ("", "[deleted]", "[removed]")
        if gone or (op is not None and reply.author == op):
            continue
        children = thread.children(reply.id)
        op_reply = next(
            (
                c
                for c in children
                if op is not None and c.author == op and c.text.strip() and "unavailable" not in c.meta
            ),
            None,
        )
        label = reply.meta.get("delta")
        delta = bool(label) if label is not None else _inferred_delta(thread, reply, op)
        if "path" in reply.meta:
            path = tuple(thread.node(i) for i in reply.meta["path"])
        else:
            path = tuple(n for n in thread.subtree(reply.id) if n.author == reply.author)
        if not delta:
            first: bool | None = None
        elif "delta_comment" in reply.meta:
            first = reply.meta["delta_comment"] == reply.id
        elif op_reply is not None:
            first = has_delta(op_reply.text)
        else:
            first = None
        out.append(Branch(thread.id, reply, path, op_reply, delta, first, str(thread.meta.get("source", ""))))
    return out


def candidate_pairs(thread: Thread) -> list[Pair]:
    """The source's matched pairs where it has them (``thread.meta["pairs"]``), else every delta x non-delta."""
    by_id = {b.id: b for b in branches(thread)}
    if "pairs" in thread.meta:
        return [
            Pair(thread, by_id[w], by_id[lo])
            for w, lo in thread.meta["pairs"]
            if w in by_id and lo in by_id and by_id[w].delta and not by_id[lo].delta
        ]
    wins = [b for b in by_id.values() if b.delta]
    others = [b for b in by_id.values() if not b.delta]
    return [Pair(thread, w, lo) for w in wins for lo in others]


@cache
def _language(text: str) -> str:
    import langid  # offline: the model ships inside the package

    return str(langid.classify(text)[0])


def _english(pair: Pair) -> bool | None:
    return all(_language(t[:3000]) == "en" for t in (pair.post, pair.winner.reply.text, pair.loser.reply.text))


def _single_turn(pair: Pair) -> bool | None:
    return pair.winner.won_by_first_reply


def _approval(pair: Pair) -> bool | None:
    a, b = pair.winner.reply.score, pair.loser.reply.score
    return None if a is None or b is None else a > b


def _op_replies(pair: Pair) -> bool | None:
    replies = [b.op_reply for b in (pair.winner, pair.loser) if b.op_reply is not None]
    if not replies:
        return None
    return len(replies) == 2 and all(count_tokens(r.text) >= OP_REPLY_MIN_TOKENS for r in replies)


@dataclass(frozen=True)
class Rule:
    name: str
    description: str
    check: Callable[[Pair], bool | None]
    """True passes, False fails, None: the source cannot tell (the rule was not checked)."""
    cannot_tell: str = ""
    """Why a source may not be able to check the rule (shown next to the not-checkable count)."""


RULES = (
    Rule(
        "single-turn",
        "the delta was awarded to the persuader's first reply (single-turn exchange, PerSo Limitations)",
        _single_turn,
        "the source does not say which comment won the delta",
    ),
    Rule("english", "the post and both replies are English (langid.py)", _english),
    Rule(
        "approval",
        "the delta reply has the higher community score (§3.1)",
        _approval,
        "the source has no scores",
    ),
    Rule(
        "op-replies",
        f"the OP answered both persuaders with at least {OP_REPLY_MIN_TOKENS} cl100k tokens (§3.1)",
        _op_replies,
        "the source has no OP replies",
    ),
)

Unchecked = Literal["exclude", "admit"]
"""What the construction does with a thread on which a rule could not be checked: ``exclude`` it (the default: a
rule that cannot be checked does not pass) or ``admit`` it, recording the rule as unchecked for its pair."""


@dataclass
class RuleCount:
    """One step of the construction: of the threads that reached it, how many the rule was checked on (and of
    those passed / failed), how many it could not be checked on, and how many threads are left after it."""

    name: str
    description: str
    threads: int
    """Threads left after this step."""
    reached: int = 0
    checked: int = 0
    passed: int = 0
    failed: int = 0
    not_checkable: int = 0
    admitted_unchecked: int = 0
    """Not-checkable threads kept because the construction admits them (``unchecked=admit``)."""


@dataclass
class Construction:
    pairs: list[Pair]
    """One pair per qualifying thread, in thread order."""
    counts: list[RuleCount] = field(default_factory=list)
    unchecked: dict[str, list[str]] = field(default_factory=dict)
    """Pair id -> the rules that could not be checked on it (only with ``unchecked=admit``)."""
    policy: Unchecked = "exclude"

    def not_checkable(self) -> str:
        """Which rules could not be checked on how many threads, as one phrase (empty when every rule was)."""
        reasons = {r.name: r.cannot_tell for r in RULES}
        return "; ".join(
            f"{c.name}: not checkable on {c.not_checkable} threads ({reasons.get(c.name) or 'the source cannot tell'})"
            for c in self.counts
            if c.not_checkable
        )


def construct(threads: Iterable[Thread], seed: int = 0, unchecked: Unchecked = "exclude") -> Construction:
    """Apply the construction rules in order and keep one delta / non-delta pair per thread (seeded).

    For each rule a thread *passes* when one of its candidate pairs passes, *fails* when every pair fails, and is
    *not checkable* otherwise (the source cannot tell). A rule that cannot be checked does not pass: such threads
    are dropped unless ``unchecked="admit"``, which keeps them and records the rule for their pair."""
    if unchecked not in ("exclude", "admit"):
        raise ValueError(f"unchecked must be 'exclude' or 'admit', got {unchecked!r}")
    threads = list(threads)
    counts = [RuleCount("threads", "threads imported", len(threads), len(threads))]
    surviving = {t.id: candidate_pairs(t) for t in threads}
    surviving = {k: v for k, v in surviving.items() if v}
    counts.append(
        RuleCount(
            "contrasting",
            "a branch that won a delta and one that won none (§3.1; replies whose text is gone are no candidates)",
            len(surviving),
            len(threads),
            len(threads),
            len(surviving),
            len(threads) - len(surviving),
        )
    )
    pending: dict[str, set[str]] = defaultdict(set)
    for rule in RULES:
        count = RuleCount(rule.name, rule.description, 0, len(surviving))
        kept: dict[str, list[Pair]] = {}
        for key, pairs in surviving.items():
            verdicts = [(p, rule.check(p)) for p in pairs]
            passing = [p for p, ok in verdicts if ok is True]
            unknown = [p for p, ok in verdicts if ok is None]
            if passing:
                count.passed += 1
                kept[key] = passing + (unknown if unchecked == "admit" else [])
            elif not unknown:
                count.failed += 1
            else:
                count.not_checkable += 1
                if unchecked == "admit":
                    count.admitted_unchecked += 1
                    kept[key] = unknown
            for p in unknown:
                pending[p.id].add(rule.name)
        count.checked = count.passed + count.failed
        count.threads = len(kept)
        counts.append(count)
        surviving = kept
    chosen = []
    for thread in threads:
        pairs = sorted(surviving.get(thread.id, []), key=lambda p: p.id)
        if pairs:
            chosen.append(random.Random(f"{seed}:{thread.id}").choice(pairs))
    counts.append(
        RuleCount(
            "one-pair",
            "one delta and one non-delta branch per thread (seeded choice)",
            len(chosen),
            len(surviving),
            len(surviving),
            len(chosen),
        )
    )
    order = [r.name for r in RULES]
    record = {p.id: sorted(pending[p.id], key=order.index) for p in chosen if pending.get(p.id)}
    return Construction(chosen, counts, record, unchecked)


def subset_pairs(pairs: Sequence[Pair], subset: str, seed: int = 0) -> list[Pair]:
    """``all`` or a number of threads drawn at random (seeded; PerSo samples 200), kept in thread order."""
    if subset == "all":
        return list(pairs)
    try:
        n = int(subset)
    except ValueError:
        raise ValueError(f"subset must be 'all' or a number of threads, got {subset!r}") from None
    if n <= 0:
        raise ValueError(f"subset must be positive, got {n}")
    if n >= len(pairs):
        return list(pairs)
    keep = set(random.Random(seed).sample(range(len(pairs)), n))
    return [p for i, p in enumerate(pairs) if i in keep]


def load_threads(path: str | Path | None = None) -> list[Thread]:
    """PerSo threads from an episodes JSONL (plain or .gz; default: the shipped threads)."""
    target = Path(path) if path else default_threads()
    out = []
    for episode in read_episodes(target):
        if not isinstance(episode, Thread):
            raise InputError(target, f"episode {episode.id} is a dialogue; PerSo needs ChangeMyView threads")
        pairs = episode.meta.get("pairs")
        if pairs is not None and not (
            isinstance(pairs, list)
            and all(isinstance(p, list | tuple) and len(p) == 2 and all(isinstance(x, str) for x in p) for p in pairs)
        ):
            raise InputError(
                target,
                f"meta.pairs must be a list of [delta reply id, other reply id] pairs, got {str(pairs)[:80]}",
                record=episode.id,
            )
        out.append(episode)
    return out


@cache
def _constructed(path: str, modified: float, seed: int, unchecked: Unchecked) -> Construction:
    return construct(load_threads(path), seed, unchecked)


def load_pairs(
    threads: str | None = None, subset: str = "200", seed: int = 0, unchecked: Unchecked = "admit"
) -> tuple[Construction, list[Pair]]:
    """The constructed pairs of a threads file (computed once per file version, seed and policy) and the chosen
    subset. With ``unchecked="exclude"`` and no thread on which every rule could be checked, a one-line error
    says which rules could not be checked and how to admit such threads."""
    target = Path(threads) if threads else default_threads()
    if not target.exists():
        raise InputError(target, "threads file not found")
    built = _constructed(str(target), target.stat().st_mtime, seed, unchecked)
    if not built.pairs:
        why = built.not_checkable()
        hint = (
            "; to sample threads whose rules could not be checked (recorded per pair in the log), "
            "pass unchecked=admit (-T unchecked=admit to run, -A unchecked=admit to analyze, -S unchecked=admit "
            "for a study)"
            if why and unchecked == "exclude"
            else ""
        )
        raise InputError(
            target,
            "no thread passes PerSo's construction rules"
            + (f" with every rule checked ({why})" if why and unchecked == "exclude" else "")
            + hint
            + " (counts: socialbench analyze perso construction)",
        )
    return built, subset_pairs(built.pairs, subset, seed)


def construction_report(
    console: Console, as_json: bool = False, threads: str | None = None, seed: int = 0, unchecked: Unchecked = "admit"
) -> None:
    """Each construction rule (§3.1), per source and overall: threads that reached it, on how many it was checked
    (passed / failed), on how many it could not be checked, and the threads left after it.

    Args:
        threads: PerSo threads as an episodes JSONL (default: the shipped ones).
        seed: seed of the one-pair-per-thread choice.
        unchecked: ``admit`` threads on which a rule could not be checked (default, counted apart), or
            ``exclude`` them (strict).
    """
    loaded = load_threads(threads)
    sources = sorted({str(t.meta.get("source", "?")) for t in loaded})
    results = {
        src: construct([t for t in loaded if t.meta.get("source", "?") == src], seed, unchecked) for src in sources
    }
    results["all"] = construct(loaded, seed, unchecked)
    if as_json:
        counts = {k: [vars(c) for c in v.counts] for k, v in results.items()}
        console.file.write(dump_json({"unchecked": unchecked, "seed": seed, "sources": counts}) + "\n")
        return
    table = Table(
        title=f"PerSo construction (seed {seed}, unchecked={unchecked}): per rule, threads left "
        "[checked: passed / failed; not checkable]"
    )
    table.add_column("rule")
    table.add_column("description")
    for name in results:
        table.add_column(name, justify="right")
    for i, count in enumerate(results["all"].counts):
        cells = []
        for built in results.values():
            c = built.counts[i]
            detail = f" [{c.passed} / {c.failed}; {c.not_checkable}]" if c.name in {r.name for r in RULES} else ""
            admitted = f" ({c.admitted_unchecked} admitted unchecked)" if c.admitted_unchecked else ""
            cells.append(f"{c.threads}{detail}{admitted}")
        table.add_row(count.name, count.description, *cells)
    console.print(table)
    if unchecked == "exclude" and (why := results["all"].not_checkable()):
        console.print(
            f"A rule that cannot be checked does not pass: {why}. -A unchecked=admit keeps such threads "
            "(the task takes -T unchecked=admit and records the unchecked rules per pair)."
        )
