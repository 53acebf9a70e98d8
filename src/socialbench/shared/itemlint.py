"""Item lint: the release criteria of multiple-choice items that a program can check (LongSocialBench Table 8
criteria and Table 9 controls; PerSo's cognitive items), per item and for a whole file.

Per item (each finding names the criterion or control it serves and says what to change):
- option balance (Table 8 "Option balance", Table 9 "length / form matching"; lengths in characters): an option
  more than twice or less than half the median option length (hard); the gold the longest option by 15% or more
  over the next (warning); the distractors sharing an opening word the gold does not have (warning: parallel
  form); the gold carrying specific details (numbers, post ids, quoted words, capitalised names) that no
  distractor has (warning);
- hint vocabulary (Table 9): words of the gold that are rare in the episode (TF-IDF's idf over its posts, top
  quarter), appear in the evidence posts, and appear in no distractor and not in the stem (warning, from two such
  words: the gold can be found by matching words);
- minimal locators (Table 9): a participant's username in the stem or an option (hard: items point at posts by id);
  eight or more consecutive words shared with a post, in an option or the stem (hard: string matching answers or
  locates it).

For the file, the surface heuristics a model could use without reading (longest option, shortest, most word
overlap with the stem, most overlap with the evidence text, most specific): their accuracy over the items (a tie
among k options including the gold counts 1/k), with a one-sided binomial test against chance (scipy); above
chance + 10 points is a hard finding. Exit status 1 on any hard finding, so lint can gate a release.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from rich.console import Console
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

Severity = Literal["hard", "warning"]
LENGTH_OUTLIER = 2.0
LONGEST_MARGIN = 1.15
QUOTE_WORDS = 8
HINT_WORDS = 2
HEURISTIC_MARGIN = 0.10
CHANCE = 0.25
_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
_DETAIL = re.compile(r"\d+|\"[^\"]+\"|\u201c[^\u201d]+\u201d")
_CAPITALISED = re.compile(r"(?<=[a-z,;:] )[A-Z][a-z]{2,}")
STOP = ENGLISH_STOP_WORDS
"""scikit-learn's English stop words."""


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def content_words(text: str) -> set[str]:
    return {w for w in words(text) if w not in STOP and len(w) > 2}


def ngrams(text: str, n: int) -> set[tuple[str, ...]]:
    return _grams(words(text), n)


def _grams(tokens: list[str], n: int) -> set[tuple[str, ...]]:
    return {tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1)}


def specificity(text: str) -> int:
    """Specific details: numbers (post ids included), quoted words, capitalised names inside a sentence."""
    return len(_DETAIL.findall(text)) + len(_CAPITALISED.findall(text))


@dataclass(frozen=True)
class Candidate:
    """One item as lint sees it: what the model sees (stem, options) and what the author used (evidence)."""

    id: str
    stem: str
    options: Sequence[str]
    gold: int
    evidence_text: str = ""
    """The evidence posts' text (LongSocialBench) or the visible context (PerSo)."""
    posts: Mapping[str, str] = field(default_factory=dict)
    """Every post of the episode, id -> text (for quotes and the episode's vocabulary)."""
    authors: Sequence[str] = ()
    episode: str = ""
    """The episode's key: items of one episode share one `EpisodeIndex` (its idf, quote index, author list)."""


@dataclass(frozen=True)
class Finding:
    item: str
    check: str
    severity: Severity
    serves: str
    message: str


def option_findings(c: Candidate) -> list[Finding]:
    found: list[Finding] = []

    def add(check: str, severity: Severity, serves: str, message: str) -> None:
        found.append(Finding(c.id, check, severity, serves, message))

    letters = "ABCD"
    lengths = [max(1, len(o.strip())) for o in c.options]
    median = statistics.median(lengths)
    for i, n in enumerate(lengths):
        if n > LENGTH_OUTLIER * median or n * LENGTH_OUTLIER < median:
            gold = " (gold)" if i == c.gold else ""
            add(
                "length outlier",
                "hard",
                "Table 8 option balance",
                f"option {letters[i]}{gold} has {n} characters against a median of {median:g}: "
                "rewrite the options to comparable length",
            )
    others = [n for i, n in enumerate(lengths) if i != c.gold]
    if lengths[c.gold] >= LONGEST_MARGIN * max(others):
        add(
            "gold longest",
            "warning",
            "Table 9 length matching",
            f"the gold ({lengths[c.gold]} characters) is the longest option, {lengths[c.gold] / max(others):.2f}x the "
            "longest distractor: lengthen a distractor or shorten the gold",
        )
    openings = [(words(o) or [""])[0] for o in c.options]
    distractor_openings = {w for i, w in enumerate(openings) if i != c.gold}
    if len(distractor_openings) == 1 and openings[c.gold] not in distractor_openings:
        add(
            "parallel form",
            "warning",
            "Table 9 form matching",
            f"the distractors all open with '{next(iter(distractor_openings))}', the gold with "
            f"'{openings[c.gold]}': give the options the same form",
        )
    specific = [specificity(o) for o in c.options]
    if specific[c.gold] > 0 and all(s == 0 for i, s in enumerate(specific) if i != c.gold):
        add(
            "specificity",
            "warning",
            "Table 8 option balance (comparable specificity)",
            "only the gold carries specific details (numbers, post ids, quotes or names): make the distractors as "
            "specific, or the gold as general",
        )
    return found


def hint_findings(c: Candidate, idf: Mapping[str, float], rare: float) -> list[Finding]:
    """Rare episode words the gold shares with the evidence posts and no distractor or the stem has."""
    distractors = set().union(*(content_words(o) for i, o in enumerate(c.options) if i != c.gold))
    shared = content_words(c.options[c.gold]) & content_words(c.evidence_text)
    hints = sorted(w for w in shared - distractors - content_words(c.stem) if idf.get(w, 0.0) >= rare)
    if len(hints) < HINT_WORDS:
        return []
    return [
        Finding(
            c.id,
            "hint vocabulary",
            "warning",
            "Table 9 hint-vocabulary control",
            f"the gold shares rare words with the evidence posts that no distractor uses ({', '.join(hints)}): "
            "paraphrase them in the gold or use them in a distractor",
        )
    ]


class EpisodeIndex:
    """What the checks look up in an episode, built once per episode: the posts' 8-word quotes (gram -> post ids),
    the idf of its words and the participants. Lint over many items of one episode builds it once. ``wanted``: the
    8-grams of the texts that will be looked up (the episode's items); only those are kept, since every 8-gram of a
    ~100K-token discussion is millions of tuples (lint at the paper's scale held 2.4 GB of them)."""

    def __init__(
        self, posts: Mapping[str, str], authors: Sequence[str], wanted: set[tuple[str, ...]] | None = None
    ) -> None:
        self.posts = posts
        self.authors = sorted({a for a in authors if len(a) >= 4})
        self.quotes: dict[tuple[str, ...], set[str]] = {}
        self._tokens = {pid: words(post) for pid, post in posts.items()}  # tokenized once: quotes and idf
        for pid, tokens in self._tokens.items():
            grams = _grams(tokens, QUOTE_WORDS)
            for gram in grams if wanted is None else grams & wanted:
                self.quotes.setdefault(gram, set()).add(pid)
        self._idf: tuple[dict[str, float], float] | None = None

    @property
    def idf(self) -> tuple[dict[str, float], float]:
        if self._idf is None:
            self._idf = episode_idf(list(self.posts.values()), list(self._tokens.values()))
        return self._idf

    def names_in(self, text: str) -> list[str]:
        # a substring test first: one regex per participant for every text (176K compiles for 80 items) overflows
        # re's cache; the regex only confirms the word boundaries of names the text contains
        return [a for a in self.authors if a in text and re.search(rf"(?<!\w){re.escape(a)}(?!\w)", text)]

    def quoted_in(self, text: str) -> list[str]:
        found: set[str] = set()
        for gram in ngrams(text, QUOTE_WORDS):
            found |= self.quotes.get(gram, set())
        return sorted(found)


def locator_findings(c: Candidate, index: EpisodeIndex | None = None) -> list[Finding]:
    index = index or EpisodeIndex(c.posts, c.authors)
    found = []
    for where, text in zip(["the stem", *(f"option {x}" for x in "ABCD")], _texts(c), strict=False):
        names = index.names_in(text)
        if names:
            found.append(
                Finding(
                    c.id,
                    "username",
                    "hard",
                    "Table 9 minimal locators",
                    f"{where} names the participant {', '.join(names)}: point at posts by id "
                    "(e.g. 'the author of c12')",
                )
            )
        quoted = index.quoted_in(text)
        if quoted:
            found.append(
                Finding(
                    c.id,
                    "exact quote",
                    "hard",
                    "Table 9 minimal locators",
                    f"{where} repeats {QUOTE_WORDS}+ consecutive words of post {', '.join(quoted[:3])}: "
                    "paraphrase it (string matching would answer or locate it)",
                )
            )
    return found


def episode_idf(posts: Sequence[str], tokens: Sequence[list[str]] | None = None) -> tuple[dict[str, float], float]:
    """idf of each word over the episode's posts (scikit-learn's TF-IDF), and the rare threshold (top quarter).
    ``tokens``: the posts already split into `words` (the vectorizer then does not split them again)."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    docs = [t for t in (tokens if tokens is not None else [words(p) for p in posts]) if t]
    if len(docs) < 2:
        return {}, float("inf")
    vectorizer = TfidfVectorizer(analyzer=_given, lowercase=False)
    vectorizer.fit(docs)
    idf = dict(zip(vectorizer.get_feature_names_out(), vectorizer.idf_, strict=True))
    return idf, float(statistics.quantiles(idf.values(), n=4)[2]) if len(idf) >= 4 else float("inf")


def _given(tokens: list[str]) -> list[str]:
    return tokens


def _credit(scores: Sequence[float], gold: int) -> float:
    """1/k when the gold is one of the k options the heuristic ties on: the expected score of a random tie-break."""
    best = max(scores)
    tied = [i for i, s in enumerate(scores) if s == best]
    return 1 / len(tied) if gold in tied else 0.0


HEURISTICS: dict[str, Callable[[Candidate], list[float]]] = {
    "longest option": lambda c: [len(o.strip()) for o in c.options],
    "shortest option": lambda c: [-len(o.strip()) for o in c.options],
    "most overlap with the stem": lambda c: [len(content_words(o) & content_words(c.stem)) for o in c.options],
    "most overlap with the evidence": lambda c: [
        len(content_words(o) & content_words(c.evidence_text)) for o in c.options
    ],
    "most specific": lambda c: [specificity(o) for o in c.options],
}


def heuristic_rows(candidates: Sequence[Candidate]) -> list[dict[str, Any]]:
    """Each surface heuristic's accuracy over the items (a tie among k options including the gold counts 1/k: the
    expected accuracy of a random tie-break) with a one-sided binomial test against chance on the rounded count
    (scipy.stats.binomtest), and whether it stays within chance + 10 points."""
    from scipy.stats import binomtest

    rows = []
    for name, score in HEURISTICS.items():
        correct = sum(_credit(score(c), c.gold) for c in candidates)
        n = len(candidates)
        p = float(binomtest(round(correct), n, CHANCE, alternative="greater").pvalue) if n else float("nan")
        accuracy = correct / n if n else float("nan")
        rows.append(
            {
                "heuristic": name,
                "correct": round(correct, 2),
                "items": n,
                "accuracy": accuracy,
                "p_value": p,
                "limit": CHANCE + HEURISTIC_MARGIN,
                "passed": bool(n) and accuracy <= CHANCE + HEURISTIC_MARGIN,
            }
        )
    return rows


@dataclass
class LintReport:
    title: str
    items: int
    findings: list[Finding]
    heuristics: list[dict[str, Any]]
    not_checked: list[str] = field(default_factory=list)

    @property
    def hard(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "hard"]

    @property
    def failed_heuristics(self) -> list[dict[str, Any]]:
        return [h for h in self.heuristics if not h["passed"]]

    @property
    def passed(self) -> bool:
        return not self.hard and not self.failed_heuristics

    def as_dict(self) -> dict[str, Any]:
        return {
            "title": self.title,
            "items": self.items,
            "passed": self.passed,
            "hard_findings": len(self.hard),
            "warnings": len(self.findings) - len(self.hard),
            "items_failing": sorted({f.item for f in self.hard}),
            "heuristics": self.heuristics,
            "findings": [asdict(f) for f in self.findings],
            "not_checked": self.not_checked,
        }


def lint_candidates(candidates: Sequence[Candidate], hints: bool = True) -> tuple[list[Finding], list[dict[str, Any]]]:
    """The checks every multiple-choice item gets, and the file's surface heuristics. ``hints``: the hint-vocabulary
    check, which needs an episode of many posts for its idf (LongSocialBench; not PerSo's post and reply)."""
    groups: dict[Any, list[int]] = {}
    for n, c in enumerate(candidates):  # items without an episode key: one group per posts mapping
        groups.setdefault(c.episode or id(c.posts), []).append(n)
    per_item: dict[int, list[Finding]] = {}
    for members in groups.values():  # one episode at a time: its index is dropped before the next is built
        first = candidates[members[0]]
        wanted = {g for n in members for text in _texts(candidates[n]) for g in ngrams(text, QUOTE_WORDS)}
        index = EpisodeIndex(first.posts, first.authors, wanted)
        for n in members:
            c = candidates[n]
            per_item[n] = option_findings(c) + locator_findings(c, index)
            if hints:
                per_item[n] += hint_findings(c, *index.idf)
    findings = [f for n in range(len(candidates)) for f in per_item[n]]
    return findings, heuristic_rows(candidates)


def _texts(c: Candidate) -> list[str]:
    """The texts a model sees of an item: where a name or a quote must not be."""
    return [c.stem, *c.options]


def print_lint(console: Console, report: LintReport) -> None:
    from rich.text import Text

    from .terminal import Table

    table = Table(title=f"{report.title}: surface heuristics over {report.items} items (chance 25%)")
    for column in ("heuristic", "correct", "accuracy", "p (binomial, > chance)", "limit", "result"):
        table.add_column(column, justify="left" if column in ("heuristic", "result") else "right")
    for h in report.heuristics:
        table.add_row(
            h["heuristic"],
            f"{h['correct']:g} of {h['items']}",
            f"{h['accuracy']:.1%}",
            f"{h['p_value']:.3g}",
            f"{h['limit']:.0%}",
            "ok" if h["passed"] else Text("above chance + 10 points", style="red"),
        )
    console.print(table)
    if report.findings:
        findings = Table(title="Findings (hard findings fail the file)")
        for column in ("item", "check", "severity", "serves", "what to change"):
            findings.add_column(column, overflow="fold")
        for f in sorted(report.findings, key=lambda f: (f.severity != "hard", f.item, f.check)):
            severity = Text("hard", style="red") if f.severity == "hard" else "warning"
            findings.add_row(f.item, f.check, severity, f.serves, f.message)
        console.print(findings)
    for note in report.not_checked:
        console.print(f"not checked: {note}")
    failing = len({f.item for f in report.hard})
    verdict = "passed" if report.passed else "failed"
    console.print(
        f"lint {verdict}: {report.items} items, {failing} failing a hard check, "
        f"{len(report.findings) - len(report.hard)} warnings, {len(report.failed_heuristics)} heuristics above "
        "chance + 10 points"
    )
