"""Every importer on its real file, and on broken variants derived from it here (the data stays untouched)."""

from __future__ import annotations

import collections
import json
import random
import shutil
import warnings
from pathlib import Path
from typing import Any

import pytest

from conftest import socialbench
from socialbench.conversations.model import Thread
from socialbench.conversations.sources import (
    InputError,
    import_episodes,
    read_algolia,
    read_cmv,
    read_convokit,
    read_firebase,
    read_sibench,
    read_stackexchange,
    read_thread_json,
)
from socialbench.conversations.sources.stackexchange import parse_tags


def edges(thread: Thread) -> set[tuple[str, str | None]]:
    return {(n.id, n.parent_id) for n in thread.nodes}


# ---- Hacker News -------------------------------------------------------------------------------------------
def algolia_nodes(item: dict[str, Any], parent: int | None = None) -> list[tuple[dict[str, Any], int | None]]:
    out = [(item, parent)]
    for child in item["children"]:
        out += algolia_nodes(child, item["id"])
    return out


def test_hn_algolia(data: Path) -> None:
    thread = next(read_algolia(data / "hackernews/algolia_item_18475438.json"))
    assert thread.id == "hn:18475438" and thread.title == "Story of a failed pentest"
    assert len(thread) - 1 == 145  # comments
    assert thread.max_depth() == 7
    deleted = [n for n in thread.nodes if n.deleted]
    assert len(deleted) == 8 and all(n.author is None for n in deleted)
    assert thread.repairs == ()
    first = thread.node("18476289")
    assert first.author == "netsec_burn" and first.text.startswith("During pentests most testers")
    assert "&#x27;" not in first.text and "it's not realistic" in first.text  # HTML entities decoded
    assert first.created is not None and first.created.isoformat() == "2018-11-17T16:56:14+00:00"


def to_firebase(item: dict[str, Any], parent: int | None) -> dict[str, Any]:
    fb: dict[str, Any] = {
        "id": item["id"],
        "type": item["type"],
        "time": item["created_at_i"],
        "kids": [c["id"] for c in item["children"]],
    }
    if item["author"] is None:
        fb["deleted"] = True
    else:
        fb["by"] = item["author"]
    for src, dst in (("text", "text"), ("title", "title"), ("url", "url"), ("points", "score")):
        if item.get(src) is not None:
            fb[dst] = item[src]
    if parent is not None:
        fb["parent"] = parent
    return fb


def test_hn_firebase_folder_and_jsonl_rebuild_the_same_tree(data: Path, tmp_path: Path) -> None:
    raw = json.loads((data / "hackernews/algolia_item_18475438.json").read_text())
    items = [to_firebase(i, p) for i, p in algolia_nodes(raw)]
    folder = tmp_path / "item"
    folder.mkdir()
    for it in items:
        (folder / f"{it['id']}.json").write_text(json.dumps(it))
    jsonl = tmp_path / "items.jsonl"
    jsonl.write_text("\n".join(json.dumps(it) for it in reversed(items)) + "\n")
    reference = next(read_algolia(data / "hackernews/algolia_item_18475438.json"))
    for source in (folder, jsonl):
        (thread,) = list(read_firebase(source))
        assert thread.id == "hn:18475438" and len(thread) == 146
        assert edges(thread) == edges(reference)
        assert sum(n.deleted for n in thread.nodes) == 8
        assert ([n.id for n in thread.traverse("time")]) == [n.id for n in reference.traverse("time")]


def test_hn_firebase_missing_story_is_reported(data: Path, tmp_path: Path) -> None:
    raw = json.loads((data / "hackernews/algolia_item_18475438.json").read_text())
    items = [to_firebase(i, p) for i, p in algolia_nodes(raw)][1:]  # drop the story
    path = tmp_path / "items.jsonl"
    path.write_text("\n".join(json.dumps(it) for it in items))
    threads = list(read_firebase(path))
    assert len(threads) == 30  # one partial thread per root reply
    assert all("partial" in t.meta for t in threads)


# ---- Reddit thread JSON ------------------------------------------------------------------------------------
def test_reddit_thread_json(data: Path) -> None:
    (thread,) = list(read_thread_json(data / "reddit/thread_1cebxh.json"))
    assert thread.id == "reddit:1cebxh" and len(thread) - 1 == 199
    gaps = thread.meta["gaps"]
    assert len(gaps) == 125 and thread.meta["missing_comments"] == sum(g["count"] for g in gaps) == 1660
    assert thread.root.author == "hglkgkjd" and thread.title and thread.title.startswith("my wife passed away")
    assert thread.repairs == ()


def test_reddit_morechildren_of_another_thread_is_refused(data: Path) -> None:
    # The shipped morechildren answer belongs to thread hbo4a7, not 1cebxh: it must not be merged silently.
    with pytest.raises(InputError, match=r"morechildren_1cebxh\.json.*thread 'hbo4a7', not '1cebxh'"):
        next(read_thread_json(data / "reddit/thread_1cebxh.json", [data / "reddit/morechildren_1cebxh.json"]))


def test_reddit_morechildren_fills_gaps(data: Path, tmp_path: Path) -> None:
    """Hide two real reply subtrees behind a `more` stub, serve them as a morechildren answer, expand."""
    doc = json.loads((data / "reddit/thread_1cebxh.json").read_text())
    full = next(read_thread_json(data / "reddit/thread_1cebxh.json"))
    top = doc[1]["data"]["children"]

    def flatten(thing: dict[str, Any]) -> list[dict[str, Any]]:
        out = [thing]
        replies = thing["data"].get("replies")
        for child in replies["data"]["children"] if replies else []:
            out += flatten(child)
        return out

    # two real reply subtrees (with replies) that hold no `more` stubs of their own
    hidden = [c for c in top if c["kind"] == "t1" and all(t["kind"] == "t1" for t in flatten(c))]
    hidden = [c for c in hidden if len(flatten(c)) > 1][:2]
    assert len(hidden) == 2

    things = [t for h in hidden for t in flatten(h)]
    ids = [t["data"]["id"] for t in things]
    doc[1]["data"]["children"] = [c for c in top if c not in hidden] + [
        {"kind": "more", "data": {"count": len(ids), "parent_id": "t3_1cebxh", "children": ids}}
    ]
    stubbed = tmp_path / "thread.json"
    stubbed.write_text(json.dumps(doc))
    flat = [{"kind": "t1", "data": {**t["data"], "replies": ""}} for t in things]
    more = tmp_path / "more.json"
    more.write_text(json.dumps({"json": {"errors": [], "data": {"things": flat}}}))

    gapped = next(read_thread_json(stubbed))
    assert len(gapped) == len(full) - len(ids)
    assert gapped.meta["missing_comments"] == full.meta["missing_comments"] + len(ids)
    expanded = next(read_thread_json(stubbed, [more]))
    assert {n.id for n in expanded.nodes} == {n.id for n in full.nodes}
    assert {(n.id, n.parent_id) for n in expanded.nodes} == edges(full)
    assert expanded.meta["missing_comments"] == full.meta["missing_comments"]


# ---- Stack Exchange ----------------------------------------------------------------------------------------
def test_stackexchange_dump(data: Path) -> None:
    threads = list(read_stackexchange(data / "stackexchange"))
    assert len(threads) == 556
    kinds = collections.Counter(n.meta["post_type"] for t in threads for n in t.nodes)
    assert kinds == {"question": 556, "answer": 1095, "comment": 3454}
    first = next(t for t in threads if t.root_id == "p1")
    assert first.title == "Should we include sources in answers?"
    assert first.meta["tags"] == ["discussion", "answers"]
    assert "<p>" not in first.root.text and "As a historian" in first.root.text
    assert all(t.max_depth() <= 2 for t in threads)
    assert all(t.repairs == () for t in threads)
    # names come from Users.xml
    assert first.root.author and not first.root.author.startswith("user")


def test_stackexchange_tag_syntaxes() -> None:
    assert parse_tags("<discussion><answers>") == ["discussion", "answers"]
    assert parse_tags("|discussion|answers|") == ["discussion", "answers"]
    assert parse_tags(None) == []


def test_stackexchange_truncated_and_bad_values(data: Path, tmp_path: Path) -> None:
    dump = tmp_path / "site"
    dump.mkdir()
    shutil.copy(data / "stackexchange/Comments.xml", dump)
    posts = (data / "stackexchange/Posts.xml").read_bytes()
    (dump / "Posts.xml").write_bytes(posts[: len(posts) // 2])
    with pytest.raises(InputError, match=r"site/Posts\.xml:\d+: malformed XML"):
        list(read_stackexchange(dump))
    (dump / "Posts.xml").write_bytes(posts.replace(b'PostTypeId="2" ParentId="1"', b'PostTypeId="2" ParentId="one"', 1))
    with pytest.raises(InputError, match=r"Posts\.xml \(record Id=2\): attribute 'ParentId' should be an integer"):
        list(read_stackexchange(dump))


# ---- ConvoKit ----------------------------------------------------------------------------------------------
def test_convokit_corpus(data: Path) -> None:
    threads = list(read_convokit(data / "convokit"))
    assert len(threads) == 50 and sum(len(t) for t in threads) == 1519
    assert all(t.repairs == () for t in threads)
    first = next(t for t in threads if t.id == "convokit:o0ss4")
    assert first.title == "oh look.. a picture!" and first.root.author == "moon_river"


def test_convokit_reply_to_spelling_and_errors(data: Path, tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    shutil.copytree(data / "convokit", corpus, copy_function=shutil.copyfile)  # writable copies as any user
    lines = (data / "convokit/utterances.jsonl").read_text().splitlines()
    old = [json.loads(line) for line in lines]
    for u in old:
        u["reply_to"] = u.pop("reply-to")
    (corpus / "utterances.jsonl").write_text("\n".join(json.dumps(u) for u in old))
    assert sum(len(t) for t in read_convokit(corpus)) == 1519
    (corpus / "utterances.jsonl").write_text("\n".join([*lines[:3], lines[3][:40]]))
    with pytest.raises(InputError, match=r"utterances\.jsonl:4: truncated JSON line"):
        list(read_convokit(corpus))
    broken = json.loads(lines[0]) | {"reply-to": 5}
    (corpus / "utterances.jsonl").write_text(json.dumps(broken))
    with pytest.raises(InputError, match=r"utterances\.jsonl:1 \(record o0ss4\): field 'reply-to' should be str"):
        list(read_convokit(corpus))


# ---- ChangeMyView ------------------------------------------------------------------------------------------
def test_cmv_exchanges(data: Path) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        threads = list(read_cmv(data / "cmv"))
    assert any("negative/test.xml" in str(w.message) for w in caught)  # the one malformed real file
    assert len(threads) == 67
    assert sum(t.meta["exchanges"] for t in threads) == 201
    both = [t for t in threads if {n.meta.get("delta") for n in t.nodes} >= {True, False}]
    assert len(both) == 21
    thread = next(t for t in threads if t.id == "cmv:2rppq9")
    assert thread.root.author == "DurianMD" and thread.platform == "reddit_cmv"
    first = thread.children(thread.root_id)[0]
    assert first.meta["delta"] is True and first.meta["op_delta_in_text"] is True
    assert thread.children(first.id)[0].author == "DurianMD"  # the exchange is a reply chain


def test_cmv_inline_markup_is_text(data: Path) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        threads = list(read_cmv(data / "cmv/negative/test.xml"))
    texts = " ".join(n.text for n in threads[0].nodes)
    assert "<claim>" not in texts and "Your claim is that the conscious acceptance" in texts


def test_cmv_missing_op(data: Path, tmp_path: Path) -> None:
    folder = tmp_path / "positive"
    folder.mkdir()
    text = (data / "cmv/positive/0.xml").read_text()
    start, end = text.index("<OP"), text.index("</OP>") + len("</OP>")
    (folder / "0.xml").write_text(text[:start] + text[end:])
    with pytest.raises(InputError, match=r"positive/0\.xml \(record 2rppq9\): missing <OP> element"):
        list(read_cmv(folder))


# ---- SI-Bench ----------------------------------------------------------------------------------------------


def test_sibench_all_dialogues(data: Path, situation_counts: dict[str, int]) -> None:
    dialogues = list(read_sibench(data / "sibench/SI-Bench.json"))
    assert len(dialogues) == 2221
    assert collections.Counter(d.meta["scenario_en"] for d in dialogues) == situation_counts
    first = dialogues[0]
    assert first.id == "sibench:1" and first.meta["scenario"] == "言外之意-讽刺"
    assert [t.role for t in first.turns[:3]] == ["self", "other", "self"]
    assert first.turns[6].text == "睡不着[/委屈巴巴]"  # emoji codes kept
    assert sum(t.role == "other" for d in dialogues for t in d.turns) > 0
    stray = next(d for d in dialogues if d.id == "sibench:1886")
    assert stray.turns[0].text == "想吃李子" and stray.turns[0].meta == {"stray_prefix": "f"}


def test_sibench_bad_records(data: Path, tmp_path: Path) -> None:
    records = json.loads((data / "sibench/SI-Bench.json").read_text())[:3]
    path = tmp_path / "si.json"
    path.write_text(json.dumps([records[0], {k: v for k, v in records[1].items() if k != "scenario_en"}]))
    with pytest.raises(InputError, match=r"si\.json \(record #1 id=2\): missing field 'scenario_en'"):
        list(read_sibench(path))
    path.write_text(json.dumps([records[0] | {"chat_messages": ["用户: hi"]}]))
    with pytest.raises(InputError, match=r"'chat_messages' should be str, got list"):
        list(read_sibench(path))
    path.write_text(json.dumps(records)[:-50])
    with pytest.raises(InputError, match=r"si\.json:1: truncated JSON"):
        list(read_sibench(path))


def test_unknown_format_and_missing_path(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="unknown format 'mastodon'"):
        import_episodes("mastodon", [tmp_path])
    with pytest.raises(InputError, match="no such file or folder"):
        import_episodes("sibench", [tmp_path / "nope.json"])


def test_reddit_answers_of_one_thread_in_any_order_rebuild_the_whole_tree(data: Path, tmp_path: Path) -> None:
    folder = data / "reddit" / "n49rw"
    answers = sorted(folder.glob("*.json"))
    assert len(answers) == 236
    shuffled = answers[:]
    random.Random(7).shuffle(shuffled)
    main = next(p for p in shuffled if p.name.startswith("000_"))
    (by_folder,) = list(read_thread_json(folder))
    (by_files,) = list(read_thread_json(shuffled[0], [p for p in shuffled[1:]]))
    assert main in answers  # the thread's own answer need not come first

    def canonical(t: Thread) -> Any:
        gaps = sorted(json.dumps(g, sort_keys=True) for g in t.meta["gaps"])
        return [n.model_dump() for n in t.traverse("thread")], gaps, t.meta["unavailable_comments"]

    assert canonical(by_folder) == canonical(by_files)
    thread = by_folder
    assert len(thread) == 1 + 1428 and thread.repairs == () and thread.max_depth() == 11
    assert len(thread.participants()) >= 900
    # what is still listed as missing was never returned by any answer (the API leaves out deleted comments)
    returned: set[str] = set()
    stack: list[Any] = [json.loads(p.read_text()) for p in answers]
    while stack:  # every comment (t1 thing) any answer holds
        value = stack.pop()
        if isinstance(value, dict):
            if value.get("kind") == "t1":
                returned.add(value["data"]["id"])
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
    assert len(returned) == 1428
    for gap in thread.meta["gaps"]:
        assert gap["children"] and not set(gap["children"]) & returned
    assert thread.meta["missing_comments"] == sum(g["count"] for g in thread.meta["gaps"]) < 20
    # told that every stub was requested, the importer reads those never-returned ids as gone: the tree is complete
    (complete,) = list(read_thread_json(folder, all_expanded=True))
    assert complete.meta["gaps"] == [] and complete.meta["missing_comments"] == 0
    assert complete.meta["unavailable_comments"] == thread.meta["unavailable_comments"] + sum(
        len(g["children"]) for g in thread.meta["gaps"]
    )
    assert len(complete) == 1 + 1428 and complete.repairs == ()
    # the command line takes the folder too
    out = tmp_path / "n49rw.jsonl"
    result = socialbench("import", "reddit-json", str(folder), "-o", str(out))
    assert result.returncode == 0, result.stderr
    assert "wrote 1 episodes" in result.stderr
