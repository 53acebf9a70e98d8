from __future__ import annotations

import hashlib
import json
import os
import statistics
from pathlib import Path
from typing import Any

import pytest
import tiktoken.load

from socialbench.conversations import tokens
from socialbench.conversations.model import Node, Thread
from socialbench.conversations.render import render_dialogue, render_thread, short_ids
from socialbench.conversations.sources import (
    InputError,
    read_algolia,
    read_cmv,
    read_sibench,
    read_stackexchange,
    read_thread_json,
)
from socialbench.conversations.stats import episode_stats, table6
from socialbench.conversations.store import read_episodes, write_episodes
from socialbench.core.jsonl import atomic_writer

HN = "hackernews/algolia_item_18475438.json"


def real_episodes(data: Path) -> list[Any]:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return [
            next(read_algolia(data / HN)),
            next(read_thread_json(data / "reddit/thread_1cebxh.json")),
            *list(read_stackexchange(data / "stackexchange"))[:20],
            *list(read_cmv(data / "cmv"))[:5],
            *list(read_sibench(data / "sibench/SI-Bench.json"))[:20],
        ]


def test_store_round_trip_is_exact(data: Path, tmp_path: Path) -> None:
    episodes = real_episodes(data)
    path = tmp_path / "episodes.jsonl"
    assert write_episodes(path, episodes) == len(episodes)
    back = list(read_episodes(path))
    assert back == episodes
    assert [e.model_dump() for e in back] == [e.model_dump() for e in episodes]
    write_episodes(tmp_path / "again.jsonl", back)
    assert (tmp_path / "again.jsonl").read_bytes() == path.read_bytes()
    assert json.loads(path.read_text().splitlines()[0])["schema_version"] == 1


def test_failed_write_keeps_the_previous_file(data: Path, tmp_path: Path) -> None:
    path = tmp_path / "episodes.jsonl"
    write_episodes(path, real_episodes(data)[:2])
    before = path.read_bytes()

    def exploding():  # type: ignore[no-untyped-def]
        yield from real_episodes(data)[:3]
        raise InputError("input.json", "bad record", line=7)

    with pytest.raises(InputError, match=r"input\.json:7"):
        write_episodes(path, exploding())
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["episodes.jsonl"]  # no temp file left behind
    umask = os.umask(0)
    os.umask(umask)
    assert oct(path.stat().st_mode & 0o777) == oct(0o666 & ~umask)  # as open() makes it, not mkstemp's 0600


def test_atomic_writer_creates_nothing_on_error(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError), atomic_writer(tmp_path / "x.txt") as handle:
        handle.write("partial")
        raise RuntimeError
    assert list(tmp_path.iterdir()) == []


def test_reading_bad_episode_files(data: Path, tmp_path: Path) -> None:
    path = tmp_path / "episodes.jsonl"
    write_episodes(path, real_episodes(data)[:3])
    lines = path.read_text().splitlines()
    variants = {
        "bad_version": (
            json.dumps(json.loads(lines[1]) | {"schema_version": 99}),
            "line 2|:2: schema_version 99",
        ),
        "bad_field": (json.dumps(json.loads(lines[1]) | {"root_id": 5}), ":2 .*field root_id"),
        "bad_json": (lines[1][:50], ":2: invalid JSON"),
        "bad_kind": (json.dumps(json.loads(lines[1]) | {"kind": "poem"}), ":2: unknown episode kind 'poem'"),
    }
    for name, (line, message) in variants.items():
        broken = tmp_path / f"{name}.jsonl"
        broken.write_text("\n".join([lines[0], line, lines[2]]))
        with pytest.raises(InputError, match=message.split("|")[-1]):
            list(read_episodes(broken))


def test_render_thread_is_canonical(data: Path) -> None:
    thread = next(read_algolia(data / HN))
    text = render_thread(thread)
    assert text == render_thread(thread)  # deterministic
    assert text.startswith("DISCUSSION hn:18475438 (Hacker News)\nTitle: Story of a failed pentest\n146 posts")
    ids = short_ids(thread)
    assert ids[thread.root_id] == "c0" and len(set(ids.values())) == 146
    first = thread.node("18476289")
    assert f"[{ids[first.id]}] reply to c0 | depth 1 | netsec_burn | 2018-11-17 16:56 UTC\nDuring pentests" in text
    # every post appears once, and its parent is announced with the parent's short id
    for node in thread.nodes:
        head = f"[{ids[node.id]}] " + ("root post" if node.parent_id is None else f"reply to {ids[node.parent_id]}")
        assert text.count(head) == 1
    assert text.count("| [deleted] |") == 8
    by_time = render_thread(thread, "time")
    assert sorted(by_time.split("\n\n")[1:]) == sorted(text.split("\n\n")[1:])  # same blocks, other order
    assert by_time != text


def test_render_subset_and_hidden_authors() -> None:
    thread = Thread.build(
        [Node(id="r", author="op", text="post"), Node(id="a", parent_id="r", author="x", text="hi")],
        id="t",
        platform="hn",
    )
    text = render_thread(thread, nodes=[thread.node("a")], authors="hide")
    assert "1 posts shown of 2" in text and "[c1] reply to c0 | depth 1 | time unknown\nhi" in text
    assert "op" not in text.split("\n\n", 1)[1]


def test_render_dialogue(data: Path) -> None:
    dialogue = next(read_sibench(data / "sibench/SI-Bench.json"))
    assert render_dialogue(dialogue).startswith("用户: 哈喽\n对方: 嗨\n用户: 在干嘛呢小姐姐\n")


def test_tiktoken_is_seeded_offline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))

    def no_network(url: str) -> bytes:
        raise AssertionError(f"tiktoken tried to download {url}")

    monkeypatch.setattr(tiktoken.load, "read_file", no_network)
    tokens.ensure_offline_tiktoken()
    url = "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken"
    assert (tmp_path / hashlib.sha1(url.encode()).hexdigest()).exists()
    tokens.encoding.cache_clear()
    enc = tiktoken.get_encoding("cl100k_base")
    assert enc.encode("hello world") == [15339, 1917]  # the published cl100k_base ids
    assert os.environ["TIKTOKEN_CACHE_DIR"] == str(tmp_path)
    assert tokens.count_tokens("<|endoftext|> is text here") > 1


def hand_stats(data: Path) -> dict[str, Any]:
    """HN thread statistics computed straight from the raw Algolia JSON, independent of the Thread model."""
    raw = json.loads((data / HN).read_text())
    depths: list[int] = []
    authors: set[str] = set()

    def walk(item: dict[str, Any], depth: int) -> None:
        depths.append(depth)
        if item["author"]:
            authors.add(item["author"])
        for child in item["children"]:
            walk(child, depth + 1)

    walk(raw, 0)
    return {
        "nodes": len(depths),
        "max_depth": max(depths),
        "mean_depth": statistics.fmean(d for d in depths if d > 0),
        "root_replies": len(raw["children"]),
        "participants": len(authors),
        "depth_histogram": {d: depths.count(d) for d in sorted(set(depths))},
    }


def test_hn_stats_match_hand_computation(data: Path) -> None:
    thread = next(read_algolia(data / HN))
    stats = episode_stats(thread)
    expected = hand_stats(data)
    assert expected == {
        "nodes": 146,
        "max_depth": 7,
        "mean_depth": pytest.approx(413 / 145),
        "root_replies": 30,
        "participants": 95,
        "depth_histogram": {0: 1, 1: 30, 2: 37, 3: 31, 4: 28, 5: 12, 6: 5, 7: 2},
    }
    got = stats.model_dump()
    assert {k: got[k] for k in expected} == expected
    # tokens: cl100k_base over the rendered thread, cross-checked with bpe-openai's own tokenizer
    from bpe_openai import get_encoding

    assert stats.tokens == len(get_encoding("cl100k_base").encode(render_thread(thread))) > 10_000
    (row,) = table6([stats])
    assert (row.episodes, row.tokens_median, row.tokens_max, row.tokens_total) == (
        1,
        stats.tokens,
        stats.tokens,
        stats.tokens,
    )
    assert (row.mean_max_depth, row.mean_nodes, row.mean_root_replies) == (7, 146, 30)


def test_table6_per_source_and_overall(data: Path) -> None:
    rows = [episode_stats(e) for e in real_episodes(data)[:7]]
    table = {r.source: r for r in table6(rows)}
    assert set(table) == {"hn", "reddit", "stackexchange", "Overall"}
    assert table["stackexchange"].episodes == 5 and table["Overall"].episodes == 7
    assert table["Overall"].tokens_total == sum(r.tokens for r in rows)
    assert table["stackexchange"].tokens_median == statistics.median(r.tokens for r in rows[2:])
