"""The inputs of a LongSocialBench run: the items and the episodes they ask about (default: the bundled sample pack),
loaded once per file content, and what a run records of each episode for the report (`episode_stats`). The task
(`task.py`) and the report (`tables.py`) both read them here, so report code imports no task code."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from importlib import resources
from pathlib import Path
from typing import Any

from ...conversations.model import Thread
from ...conversations.render import render_thread
from ...conversations.store import read_episodes
from ...conversations.tokens import count_tokens
from ...core.errors import InputError
from ...shared.runs import file_digest
from .items import Item, check_items, load_items


def sample_pack() -> Path:
    """Folder of the bundled sample pack: real episodes and items authored for socialbench (not the paper's)."""
    return Path(str(resources.files("socialbench") / "benchmarks" / "longsocial" / "sample_pack"))


HN_TERMS = "none stated (Hacker News terms of use, Y Combinator)"
REDDIT_TERMS = "none stated (Reddit's User Agreement: posts licensed to Reddit, not to others)"
SE_LICENCE = "CC BY-SA 3.0 (posts before 2018-05-02) / 4.0 (later): attribution to each author, share alike"
SAMPLE_SOURCES: dict[str, tuple[str, str, str]] = {
    "hn:18475438": ("Hacker News", "https://news.ycombinator.com/item?id=18475438", HN_TERMS),
    "reddit:1cebxh": ("Reddit r/self", "https://www.reddit.com/r/self/comments/1cebxh/", REDDIT_TERMS),
    "se:stackexchange:618": ("History Meta Stack Exchange (2018 data dump)",
                             "https://history.meta.stackexchange.com/questions/618", SE_LICENCE),
    "se:stackexchange:3589": ("History Meta Stack Exchange (2018 data dump)",
                              "https://history.meta.stackexchange.com/questions/3589", SE_LICENCE),
    "se:stackexchange:3643": ("History Meta Stack Exchange (2018 data dump)",
                              "https://history.meta.stackexchange.com/questions/3643", SE_LICENCE),
    "cmv:2rkjr3": ("Reddit r/ChangeMyView (exchange files)",
                   "https://www.reddit.com/r/changemyview/comments/2rkjr3/", REDDIT_TERMS),
    "cmv:2rnr30": ("Reddit r/ChangeMyView (exchange files)",
                   "https://www.reddit.com/r/changemyview/comments/2rnr30/", REDDIT_TERMS),
    "cmv:2rgs7o": ("Reddit r/ChangeMyView (exchange files)",
                   "https://www.reddit.com/r/changemyview/comments/2rgs7o/", REDDIT_TERMS),
    "cmv:2rnfn0": ("Reddit r/ChangeMyView (exchange files)",
                   "https://www.reddit.com/r/changemyview/comments/2rnfn0/", REDDIT_TERMS),
}  # fmt: skip
"""The sample pack's episodes: source, URL and licence of each (docs/data.md)."""


def attribution(thread: Thread) -> dict[str, Any]:
    """Where an episode's text comes from: source, URL, licence and, where the licence requires attribution (CC
    BY-SA), every author handle; ``licence: "not recorded"`` for an episode outside the sample pack."""
    source, url, licence = SAMPLE_SOURCES.get(thread.id, ("", str(thread.meta.get("url") or ""), "not recorded"))
    out: dict[str, Any] = {"episode": thread.id, "source": source, "url": url, "licence": licence}
    if licence.startswith("CC BY-SA"):
        out["authors"] = sorted({str(n.author) for n in thread.nodes if n.author})
    return out


def attribution_markdown(threads: Iterable[Thread]) -> str:
    """ATTRIBUTION.md of the sample pack: per episode its source, URL, licence and (CC BY-SA) every author."""
    lines = [
        "# Where the sample pack's text comes from",
        "",
        "Written by `python scripts/build_sample_pack.py` from `socialbench.benchmarks.longsocial.pack.attribution`"
        " (a test keeps the two in step). The items (`items.jsonl`) were written for socialbench (MIT).",
        "",
    ]
    for thread in threads:
        a = attribution(thread)
        lines += [f"## {a['episode']}: {thread.title}", "", f"- source: {a['source']}", f"- URL: <{a['url']}>",
                  f"- licence: {a['licence']}"]  # fmt: skip
        if "authors" in a:
            lines.append(f"- authors ({len(a['authors'])}): " + ", ".join(a["authors"]))
        lines.append("")
    return "\n".join(lines)


def load_episodes(path: str | Path) -> dict[str, Thread]:
    episodes: dict[str, Thread] = {}
    for episode in read_episodes(path):
        if not isinstance(episode, Thread):
            raise InputError(path, f"episode {episode.id} is a dialogue; LongSocialBench needs threads")
        episodes[episode.id] = episode
    return episodes


class EpisodePack(Mapping[str, Thread]):
    """The episodes of a run, by id, as the solvers read them. inspect logs a solver's arguments: this one is logged
    as its file's path and digest (`_repr_params_`), never as the episodes (a paper-scale pack is ~40 MB of JSON,
    which a log header would otherwise carry twice)."""

    def __init__(self, path: Path, digest: str, threads: dict[str, Thread]) -> None:
        self.path, self.digest, self._threads = path, digest, threads

    def __getitem__(self, key: str) -> Thread:
        return self._threads[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._threads)

    def __len__(self) -> int:
        return len(self._threads)

    def _repr_params_(self) -> dict[str, str]:
        return {"path": str(self.path), "sha256": self.digest}


_PACKS: dict[tuple[str, str], EpisodePack] = {}


def episode_pack(path: str | Path) -> EpisodePack:
    """The episodes file, loaded once per content (a grid's tasks share one copy)."""
    resolved = Path(path).resolve()
    digest = file_digest(path)
    key = (str(resolved), digest)
    if key not in _PACKS:
        _PACKS[key] = EpisodePack(resolved, digest, load_episodes(path))
    return _PACKS[key]


def load_pack(items: str | None = None, episodes: str | None = None) -> tuple[Path, Path, EpisodePack, list[Item]]:
    """Items and the episodes they refer to (default: the bundled sample pack), checked against each other."""
    items_path = Path(items) if items else sample_pack() / "items.jsonl"
    episodes_path = Path(episodes) if episodes else sample_pack() / "episodes.jsonl"
    threads = episode_pack(episodes_path)
    loaded = load_items(items_path)
    if not loaded:
        raise InputError(items_path, "no items in the file: nothing to run, lint or plan")
    return items_path, episodes_path, threads, check_items(loaded, threads, items_path)


_STATS: dict[tuple[str, str], dict[str, dict[str, Any]]] = {}


def episode_stats(pack: EpisodePack, ids: Iterable[str]) -> dict[str, dict[str, Any]]:
    """What a report needs of each episode a run asked about, recorded in the log at run time so the report never
    re-reads the episodes file: its length (cl100k tokens of the complete rendering, Fig. 9) and its root post's
    date (Table 20)."""
    wanted = sorted(set(ids))
    key = (pack.digest, ",".join(wanted))
    if key not in _STATS:
        stats: dict[str, dict[str, Any]] = {}
        for eid in wanted:
            created = pack[eid].root.created
            stats[eid] = {
                "tokens": count_tokens(render_thread(pack[eid])),
                "created": created.isoformat() if created else None,
            }
        _STATS[key] = stats
    return _STATS[key]
