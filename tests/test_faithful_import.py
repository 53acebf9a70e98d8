"""Exit 0 means the data is right: every importer imports faithfully, or says what it changed (a warning, a count in
the episode's ``meta["import_repairs"]`` and in the command's closing line), or refuses with one located line.
One test per class of silent change, each on variants of the real files in ../shared/data derived here."""

from __future__ import annotations

import bz2
import hashlib
import json
import os
import re
import shutil
import tempfile
import warnings
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import socialbench
from socialbench.conversations.sources import REPAIRS_KEY, ImportContext, import_episodes
from socialbench.core.errors import InputError

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def imported(fmt: str, *paths: Path, **options: Any) -> tuple[list[Any], ImportContext, list[str]]:
    context = ImportContext()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        episodes = list(import_episodes(fmt, list(paths), options, context))
    return episodes, context, [str(w.message) for w in caught]


def repairs(episodes: list[Any]) -> dict[str, int]:
    total: dict[str, int] = {}
    for e in episodes:
        for kind, n in e.meta.get(REPAIRS_KEY, {}).items():
            total[kind] = total.get(kind, 0) + n
    return total


def digest(folder: Path) -> dict[str, str]:
    files = [folder] if folder.is_file() else sorted(f for f in folder.rglob("*") if f.is_file())
    return {str(f): hashlib.sha256(f.read_bytes()).hexdigest() for f in files}


# ---- Stack Exchange ------------------------------------------------------------------------------------------------
def se_copy(data: Path, tmp_path: Path) -> Path:
    folder = tmp_path / "site"
    shutil.copytree(data / "stackexchange", folder, copy_function=shutil.copyfile)
    return folder


def se_rows(path: Path) -> list[str]:
    return re.findall(r"<row [^>]*/>", path.read_text(encoding="utf-8"))


def test_stackexchange_comments_on_an_absent_post_are_counted_not_dropped_silently(data: Path, tmp_path: Path) -> None:
    folder = se_copy(data, tmp_path)
    posts = (folder / "Posts.xml").read_text(encoding="utf-8")
    comments = se_rows(folder / "Comments.xml")
    on_post = {re.search(r' PostId="(\d+)"', c)[1] for c in comments}  # type: ignore[index]
    answer = next(
        r for r in se_rows(folder / "Posts.xml") if 'PostTypeId="2"' in r and re.search(r' Id="(\d+)"', r)[1] in on_post
    )  # type: ignore[index]
    aid = re.search(r' Id="(\d+)"', answer)[1]  # type: ignore[index]
    expected = sum(1 for c in comments if f' PostId="{aid}"' in c)
    (folder / "Posts.xml").write_text(posts.replace(answer, ""), encoding="utf-8")
    episodes, context, said = imported("stackexchange", folder)
    assert context.report.repairs["comments on posts not in Posts.xml (left out)"] == expected > 0
    assert any(f"{expected} comments on posts not in Posts.xml left out" in s for s in said)
    assert all(f"p{aid}" not in {n.id for n in e.nodes} for e in episodes)


def test_stackexchange_an_id_shared_by_two_posts_is_refused(data: Path, tmp_path: Path) -> None:
    folder = se_copy(data, tmp_path)
    rows = se_rows(folder / "Posts.xml")
    question = next(r for r in rows if 'PostTypeId="1"' in r)
    qid = re.search(r' Id="(\d+)"', question)[1]  # type: ignore[index]
    answer = next(r for r in rows if 'PostTypeId="2"' in r)
    clash = re.sub(r' Id="\d+"', f' Id="{qid}"', answer, count=1)
    text = (folder / "Posts.xml").read_text(encoding="utf-8")
    (folder / "Posts.xml").write_text(text.replace(answer, clash), encoding="utf-8")
    with pytest.raises(InputError, match=rf"Posts\.xml \(record Id={qid}\): two different posts share this Id"):
        imported("stackexchange", folder)
    # the same row twice is one post, read once and counted
    folder2 = se_copy(data, tmp_path / "again")
    text = (folder2 / "Posts.xml").read_text(encoding="utf-8")
    (folder2 / "Posts.xml").write_text(text.replace(question, question + "\n" + question), encoding="utf-8")
    again, context, _ = imported("stackexchange", folder2)
    assert context.report.repairs["post rows given twice (read once)"] == 1 and len(again) == 556


def test_stackexchange_ids_in_another_form_are_one_post_and_bad_dates_are_located(data: Path, tmp_path: Path) -> None:
    folder = se_copy(data, tmp_path)
    comments = (folder / "Comments.xml").read_text(encoding="utf-8")
    first = se_rows(folder / "Comments.xml")[0]
    padded = re.sub(r' PostId="(\d+)"', lambda m: f' PostId="000{m[1]}"', first)
    (folder / "Comments.xml").write_text(comments.replace(first, padded), encoding="utf-8")
    episodes, _, _ = imported("stackexchange", folder)
    assert not any(e.repairs for e in episodes)  # "0001" and "1" are one post: no orphan
    dated = se_rows(folder / "Posts.xml")[3]
    pid = re.search(r' Id="(\d+)"', dated)[1]  # type: ignore[index]
    broken = re.sub(r'CreationDate="[^"]*"', 'CreationDate="not-a-date"', dated)
    text = (folder / "Posts.xml").read_text(encoding="utf-8")
    (folder / "Posts.xml").write_text(text.replace(dated, broken), encoding="utf-8")
    with pytest.raises(InputError, match=rf"Posts\.xml \(record Id={pid}\): field created"):
        imported("stackexchange", folder)


# ---- ChangeMyView exchanges ------------------------------------------------------------------------------------------
def cmv_copy(data: Path, tmp_path: Path) -> Path:
    folder = tmp_path / "cmv"
    shutil.copytree(data / "cmv", folder, copy_function=shutil.copyfile)
    return folder


def test_cmv_an_exchange_in_both_label_folders_is_refused(data: Path, tmp_path: Path) -> None:
    folder = cmv_copy(data, tmp_path)
    shutil.copyfile(folder / "positive" / "0.xml", folder / "negative" / "9999.xml")
    with pytest.raises(InputError, match=r"negative/9999\.xml: reply \w+ opens an exchange labelled no delta"):
        imported("cmv", folder)


def test_cmv_an_exchange_without_replies_loses_its_label_loudly(data: Path, tmp_path: Path) -> None:
    folder = cmv_copy(data, tmp_path)
    target = folder / "positive" / "0.xml"
    text = target.read_text(encoding="utf-8")
    target.write_text(re.sub(r"<reply\b.*?</reply>\s*", "", text, flags=re.S), encoding="utf-8")
    episodes, _, said = imported("cmv", target)
    assert repairs(episodes) == {"exchanges without replies (label dropped)": 1}
    assert any("exchange without any reply" in s for s in said)
    assert [n for n in episodes[0].nodes if "delta" in n.meta] == []


def test_cmv_a_reply_id_reused_for_other_text_is_counted(data: Path, tmp_path: Path) -> None:
    folder = cmv_copy(data, tmp_path)
    source = folder / "positive" / "0.xml"
    copy = folder / "positive" / "9999.xml"
    text = source.read_text(encoding="utf-8")
    first_reply = re.search(r"(<reply\b[^>]*>)(.*?)(</reply>)", text, flags=re.S)
    assert first_reply is not None
    copy.write_text(text.replace(first_reply[0], first_reply[1] + "A different text." + first_reply[3]), "utf-8")
    episodes, _, said = imported("cmv", source, copy)
    assert repairs(episodes) == {"replies sharing an id with another reply (the first kept)": 1}
    assert any("differs from the reply with that id in positive/0.xml" in s for s in said)


def test_shipped_cmv_data_reports_its_real_conflicts(data: Path) -> None:
    # negative/test.xml repeats the replies of negative/79.xml, three of them with other punctuation
    episodes, _, _ = imported("cmv", data / "cmv")
    assert len(episodes) == 67
    assert repairs(episodes) == {"replies sharing an id with another reply (the first kept)": 3}


# ---- Reddit: API answers and dumps -----------------------------------------------------------------------------------
def reddit_comments(data: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    doc = json.loads((data / "reddit" / "thread_1cebxh.json").read_text())
    post = doc[0]["data"]["children"][0]["data"]
    comments: list[dict[str, Any]] = []
    stack = list(doc[1]["data"]["children"])
    while stack:
        thing = stack.pop()
        if thing["kind"] == "t1":
            comments.append({k: v for k, v in thing["data"].items() if k != "replies"})
            replies = thing["data"].get("replies")
            if isinstance(replies, dict):
                stack += replies["data"]["children"]
    return post, comments


def write_lines(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def test_dump_ids_written_as_fullnames_or_bare_are_one_thread(data: Path, tmp_path: Path) -> None:
    post, comments = reddit_comments(data)
    rs = write_lines(tmp_path / "RS.jsonl", [{**post, "id": "t3_" + post["id"]}])
    rc = write_lines(
        tmp_path / "RC.jsonl",
        [{**c, "link_id": c["link_id"].removeprefix("t3_") if i % 2 else c["link_id"]} for i, c in enumerate(comments)]
        + [{**comments[0], "id": "t1_" + comments[0]["id"]}],  # the same comment under its fullname
    )
    episodes, _, _ = imported("pushshift", rs, rc)
    (thread,) = episodes
    assert thread.id == f"reddit:{post['id']}" and not thread.node(post["id"]).meta.get("placeholder")
    # the comment under its fullname is the same comment: one node, the second copy said as a duplicate
    assert len(thread.nodes) == len(comments) + 1
    assert thread.repairs == (f"duplicate node id '{comments[0]['id']}' (first occurrence kept)",)


def test_dump_submission_repeated_with_other_content_is_counted(data: Path, tmp_path: Path) -> None:
    post, comments = reddit_comments(data)
    rs = write_lines(tmp_path / "RS.jsonl", [post, {**post, "title": "another title"}, post])
    rc = write_lines(tmp_path / "RC.jsonl", comments)
    episodes, _, said = imported("pushshift", rs, rc)
    assert repairs(episodes) == {"submissions given twice with different content (the first kept)": 1}
    assert episodes[0].title == post["title"] and any("the first kept" in s for s in said)


def test_reddit_comment_fullname_ids_and_other_copies(data: Path, tmp_path: Path) -> None:
    doc = json.loads((data / "reddit" / "thread_1cebxh.json").read_text())
    first = doc[1]["data"]["children"][0]["data"]
    first["id"] = "t1_" + first["id"]  # its replies name it as t1_<id>: still its replies
    path = tmp_path / "thread.json"
    path.write_text(json.dumps(doc))
    (thread,), _, _ = imported("reddit-json", path)
    assert not thread.repairs and first["id"].removeprefix("t1_") in {n.id for n in thread.nodes}
    more = first.get("replies", {}).get("data", {}).get("children", [])
    assert more, "the first comment of the shipped thread has replies"
    more[0]["data"]["body"] = "edited between two fetches"
    other = tmp_path / "continued.json"
    continued = [doc[0], {"kind": "Listing", "data": {"children": more[:1]}}]
    other.write_text(json.dumps(continued))
    (thread,), _, _ = imported("reddit-json", path, other)  # a "continue this thread" answer with another text
    assert thread.meta[REPAIRS_KEY] == {"comments given twice with different content (the first kept)": 1}


def test_reddit_more_count_that_is_not_a_number_is_located(data: Path, tmp_path: Path) -> None:
    text = (data / "reddit" / "thread_1cebxh.json").read_text()
    doc = json.loads(text)
    stack, stub = list(doc[1]["data"]["children"]), None
    while stack and stub is None:
        thing = stack.pop()
        if thing["kind"] == "more":
            stub = thing["data"]
        elif isinstance(thing["data"].get("replies"), dict):
            stack += thing["data"]["replies"]["data"]["children"]
    assert stub is not None
    stub["count"] = "x"
    path = tmp_path / "thread.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(InputError, match=rf"thread\.json \(record {stub['id']}\): a 'more' stub's count"):
        imported("reddit-json", path)


# ---- Hacker News (Firebase items), ConvoKit, cmv-pairs -------------------------------------------------------------
def firebase_items(data: Path) -> list[dict[str, Any]]:
    """The shipped Algolia thread as Firebase items (parent, kids, epoch time)."""
    root = json.loads((data / "hackernews" / "algolia_item_18475438.json").read_text())
    items, stack = [], [(root, None)]
    while stack:
        node, parent = stack.pop()
        item = {"id": node["id"], "type": node["type"], "by": node.get("author"), "time": node["created_at_i"]}
        item |= {"title": node["title"]} if node.get("title") else {"text": node.get("text"), "parent": parent}
        item["kids"] = [c["id"] for c in node.get("children", [])]
        items.append(item)
        stack += [(c, node["id"]) for c in node.get("children", [])]
    return items


def test_firebase_kids_that_are_absent_are_counted(data: Path, tmp_path: Path) -> None:
    items = firebase_items(data)
    leaf = next(i for i in items if i["type"] == "comment" and not i["kids"])
    path = write_lines(tmp_path / "items.jsonl", [i for i in items if i["id"] != leaf["id"]])
    (thread,), _, said = imported("hn-firebase", path)
    assert thread.meta[REPAIRS_KEY] == {"replies listed in kids but not given (not in the thread)": 1}
    assert any(f"e.g. {leaf['id']}" in s for s in said)
    inner = next(i for i in items if i["type"] == "comment" and i["kids"])
    path = write_lines(tmp_path / "cut.jsonl", [i for i in items if i["id"] != inner["id"]])
    episodes, _, _ = imported("hn-firebase", path)
    fragments = [e for e in episodes if "partial" in e.meta]
    assert fragments and all(
        f"whose parent {inner['id']} is not among the items given" in e.meta["partial"] for e in fragments
    )


def test_firebase_item_given_again_with_other_content_is_counted_and_bad_time_located(
    data: Path, tmp_path: Path
) -> None:
    items = firebase_items(data)
    same = write_lines(tmp_path / "same.jsonl", items + items[:5])  # identical copies: one item each, no count
    (thread,), _, said = imported("hn-firebase", same)
    assert REPAIRS_KEY not in thread.meta and not said
    other = write_lines(tmp_path / "other.jsonl", [*items, {**items[3], "text": "changed"}])
    (thread,), _, _ = imported("hn-firebase", other)
    assert thread.meta[REPAIRS_KEY] == {"items given twice with different content (the first kept)": 1}
    bad = write_lines(tmp_path / "bad.jsonl", [*items[:4], {**items[4], "time": "abc"}])
    with pytest.raises(InputError, match=rf"bad\.jsonl:5 \(record {items[4]['id']}\): field 'time' should be int"):
        imported("hn-firebase", bad)


def test_convokit_utterance_id_reused_is_refused_and_bad_timestamp_located(data: Path, tmp_path: Path) -> None:
    folder = tmp_path / "corpus"
    shutil.copytree(data / "convokit", folder, copy_function=shutil.copyfile)
    lines = (folder / "utterances.jsonl").read_text().splitlines()
    first = json.loads(lines[0])
    other = next(json.loads(line) for line in lines if json.loads(line)["conversation_id"] != first["conversation_id"])
    (folder / "utterances.jsonl").write_text("\n".join([*lines, json.dumps({**other, "id": first["id"]})]) + "\n")
    with pytest.raises(InputError, match=rf"utterances\.jsonl:{len(lines) + 1} \(record {first['id']}\): .*line 1\)"):
        imported("convokit", folder)
    (folder / "utterances.jsonl").write_text("\n".join([*lines, lines[0]]) + "\n")  # the same line twice: once
    episodes, _, _ = imported("convokit", folder)
    assert repairs(episodes) == {"utterance lines given twice (read once)": 1} and len(episodes) == 50
    broken = [*lines]
    broken[4] = json.dumps({**json.loads(lines[4]), "timestamp": "abc"})
    (folder / "utterances.jsonl").write_text("\n".join(broken) + "\n")
    with pytest.raises(InputError, match=r"utterances\.jsonl:5 \(record [^)]+\): field created"):
        imported("convokit", folder)


def test_cmv_pairs_in_the_shipped_file_are_kept_as_listed(data: Path) -> None:
    # 807 pair records, 5 of them listing a pair again: kept as listed (the published statistics count them)
    episodes, _, _ = imported("cmv-pairs", data / "cmv_pairs" / "heldout_pair_data.jsonlist.bz2")
    pairs = [tuple(p) for e in episodes for p in e.meta["pairs"]]
    assert len(pairs) == 807 and len(set(pairs)) == 802 and repairs(episodes) == {}


def test_cmv_pairs_comment_with_other_text_is_counted(data: Path, tmp_path: Path) -> None:
    with bz2.open(data / "cmv_pairs" / "heldout_pair_data.jsonlist.bz2", "rt") as handle:
        record = json.loads(handle.readline())
    changed = json.loads(json.dumps(record))
    changed["negative"]["comments"][0]["body"] = "a different body under the same id"
    changed["positive"] = record["positive"]
    path = write_lines(tmp_path / "pairs.jsonlist", [record, changed])
    (thread,), _, _ = imported("cmv-pairs", path)
    assert thread.meta[REPAIRS_KEY]["comments given twice with different content (the first kept)"] == 1


# ---- the same input twice -------------------------------------------------------------------------------------------
def test_the_same_input_twice_is_read_once_and_a_copy_is_refused(data: Path, tmp_path: Path) -> None:
    source = data / "sibench" / "SI-Bench.json"
    episodes, context, said = imported("sibench", source, Path(str(source.parent) + "/../sibench/SI-Bench.json"))
    assert len(episodes) == 2221 and context.report.repairs["duplicate input paths read once"] == 1
    assert any("read once" in s for s in said)
    copy = tmp_path / "copy.json"
    shutil.copyfile(source, copy)
    with pytest.raises(InputError, match="episode sibench:1 is built twice: the same data given twice"):
        imported("sibench", source, copy)
    se = se_copy(data, tmp_path)
    with pytest.raises(InputError, match="is built twice"):
        imported("stackexchange", data / "stackexchange", se.rename(tmp_path / "stackexchange"))


def test_cli_says_what_it_repaired_and_leaves_the_inputs_alone(data: Path, tmp_path: Path) -> None:
    folder = cmv_copy(data, tmp_path)
    before = digest(folder)
    out = tmp_path / "episodes.jsonl"
    done = socialbench("import", "cmv", folder, "-o", out)
    assert done.returncode == 0, done.stderr
    assert "replies sharing an id with another reply (the first kept): 3" in " ".join(done.stderr.split())
    assert done.stderr.count("differs from the reply with that id") == 3
    assert digest(folder) == before
    shutil.copyfile(folder / "positive" / "0.xml", folder / "negative" / "9999.xml")
    before_out = out.read_bytes()
    refused = socialbench("import", "cmv", folder, "-o", out)
    assert refused.returncode == 2 and "conflicting labels" in refused.stderr and "Traceback" not in refused.stderr
    assert out.read_bytes() == before_out  # a refused import leaves the earlier output as it was


# ---- properties over the real files (hypothesis, derandomized) ------------------------------------------------------
PROPERTY = settings(max_examples=15, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))


@PROPERTY
@given(st.data())
def test_any_mix_of_fullnames_and_bare_ids_imports_the_same_thread(data: st.DataObject) -> None:
    """Reddit writes ids as fullnames (t1_/t3_) in some fields and bare in others; any mix is the same thread."""
    root = DATA
    if not root.is_dir():
        pytest.skip("real data not found")
    post, comments = reddit_comments(root)
    comments = comments[:40]
    prefixed = data.draw(st.lists(st.booleans(), min_size=len(comments) * 3, max_size=len(comments) * 3))
    mixed = []
    for i, c in enumerate(comments):
        link, parent, own = prefixed[3 * i : 3 * i + 3]
        mixed.append(
            {
                **c,
                "id": ("t1_" if own else "") + c["id"],
                "link_id": c["link_id"] if link else c["link_id"].removeprefix("t3_"),
                "parent_id": c["parent_id"] if parent else c["parent_id"].split("_", 1)[1],
            }
        )
    post_id = data.draw(st.sampled_from([post["id"], "t3_" + post["id"]]))
    folder = Path(tempfile.mkdtemp())
    try:
        rs = write_lines(folder / "RS.jsonl", [{**post, "id": post_id}])
        expected, _, _ = imported("pushshift", rs, write_lines(folder / "RC0.jsonl", comments))
        got, _, _ = imported("pushshift", rs, write_lines(folder / "RC1.jsonl", mixed))
        assert got == expected
    finally:
        shutil.rmtree(folder)


@PROPERTY
@given(st.data())
def test_inputs_named_several_ways_are_each_read_once(data: st.DataObject) -> None:
    """Any list naming the real files, each possibly several times and through other paths, imports as each file
    once; the inputs are unchanged."""
    if not DATA.is_dir():
        pytest.skip("real data not found")
    files = sorted((DATA / "cmv" / "positive").glob("*.xml"))[:6]
    expected, _, _ = imported("cmv", *files)
    picks = files + data.draw(st.lists(st.sampled_from(files), max_size=8))  # the order of first mention kept
    spelled = [
        data.draw(st.sampled_from([p, p.parent / ".." / p.parent.name / p.name, Path(os.path.relpath(p))]))
        for p in picks
    ]
    before = {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in files}
    got, context, _ = imported("cmv", *spelled)
    assert sorted(got, key=lambda e: e.id) == sorted(expected, key=lambda e: e.id)
    assert context.report.repairs.get("duplicate input paths read once", 0) == len(spelled) - len(files)
    assert {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in files} == before
