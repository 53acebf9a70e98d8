"""PerSo: importing the real CMV files, the construction rules, both tasks and generation on mockllm, baselines,
human agreement and the report."""

from __future__ import annotations

import bz2
import contextvars
import io
import json
import math
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval
from inspect_ai.log import EvalLog
from inspect_ai.model import ChatMessage, GenerateConfig, ModelOutput, get_model
from rich.console import Console

from conftest import socialbench
from socialbench.benchmarks.perso import perso, perso_generate
from socialbench.benchmarks.perso.baselines import (
    CLASSIFIERS,
    baselines,
    behavioral_baselines,
    feature_classifier,
    length_estimate,
    length_heuristic,
    length_statistics,
    path_lengths,
    root_lengths,
)
from socialbench.benchmarks.perso.behavioral import VALID, parse_ratings
from socialbench.benchmarks.perso.data import (
    branches,
    candidate_pairs,
    construct,
    default_threads,
    load_pairs,
    load_threads,
    post_cleaning,
    shown_post,
    subset_pairs,
)
from socialbench.benchmarks.perso.features import FEATURES, surface_features
from socialbench.benchmarks.perso.generation import export_items
from socialbench.benchmarks.perso.human import analyse, load_annotations
from socialbench.benchmarks.perso.items import CognitiveItem, lint, load_items
from socialbench.benchmarks.perso.posts import PostCleaning, clean, clean_post, marker_line
from socialbench.benchmarks.perso.report import behavioral_summary, collect
from socialbench.conversations.model import Node, Thread
from socialbench.conversations.sources import read_cmv_pairs
from socialbench.core.errors import InputError
from socialbench.shared.statistics import bootstrap_ci

PAIRS = "cmv_pairs/heldout_pair_data.jsonlist.bz2"


def _pair_rows(data: Path) -> list[dict[str, Any]]:
    with bz2.open(data / PAIRS, "rt") as handle:
        return [json.loads(line) for line in handle]


# ---- data -------------------------------------------------------------------------------------------------
def test_pair_file_imports_as_threads_with_placeholders_for_missing_op_replies(data: Path) -> None:
    threads = list(read_cmv_pairs(data / PAIRS))
    assert len(threads) == 542  # original posts
    assert sum(len(t.meta["pairs"]) for t in threads) == 807
    assert all(not t.repairs for t in threads)
    rows = _pair_rows(data)
    # every comment of every path is in its thread, under its real parent
    by_id = {t.id: t for t in threads}
    for row in rows[:50]:
        thread = by_id[f"cmv:{row['op_name'][3:]}"]
        for side in ("positive", "negative"):
            for comment in row[side]["comments"]:
                node = thread.node(comment["id"])
                assert node.parent_id == comment["parent_id"].split("_", 1)[1]
    # multi-comment paths: the OP replies between them are placeholders, never invented text
    holes = [n for t in threads for n in t.nodes if "unavailable" in n.meta]
    assert holes and all(n.text == "" for n in holes)
    multi = sum(len(r["positive"]["comments"]) - 1 + len(r["negative"]["comments"]) - 1 for r in rows)
    assert 0 < len({n.id for n in holes}) <= multi


def test_pair_file_errors_name_file_line_and_record(data: Path, tmp_path: Path) -> None:
    rows = _pair_rows(data)[:3]
    rows[2]["positive"]["comments"][0]["parent_id"] = "t1_elsewhere"
    bad = tmp_path / "pairs.jsonlist"
    bad.write_text("\n".join(json.dumps(r) for r in rows))
    with pytest.raises(InputError) as err:
        list(read_cmv_pairs(bad))
    assert f"{bad}:3" in str(err.value) and "does not reply to the post" in str(err.value)
    rows[2]["positive"]["comments"][0]["parent_id"] = rows[2]["op_name"]
    del rows[2]["negative"]
    bad.write_text("\n".join(json.dumps(r) for r in rows))
    with pytest.raises(InputError, match="negative"):
        list(read_cmv_pairs(bad))


def test_shipped_threads_and_construction_counts() -> None:
    threads = load_threads()
    sources = {t.meta["source"] for t in threads}
    assert sources == {"cmv-pairs", "cmv"} and len(threads) == 542 + 67
    # a rule that cannot be checked does not pass: the pair file has no OP replies, the exchanges no scores
    strict = construct(threads)
    rules = {c.name: c for c in strict.counts}
    assert not strict.pairs and rules["approval"].not_checkable > 0 and rules["op-replies"].not_checkable > 0
    for c in strict.counts[2:-1]:  # every rule: each thread that reached it was checked or not checkable
        assert c.checked == c.passed + c.failed and c.reached == c.checked + c.not_checkable
        assert c.threads == c.passed and c.admitted_unchecked == 0
    with pytest.raises(InputError, match=r"unchecked=admit"):  # the strict construction, one flag away
        load_pairs(subset="200", unchecked="exclude")
    admitted, _ = load_pairs(subset="200")  # the default admits and records the rules it could not check
    assert admitted.policy == "admit" and admitted.pairs and admitted.unchecked
    built = construct(threads, unchecked="admit")
    counts = {c.name: c.threads for c in built.counts}
    seq = [c.threads for c in built.counts]
    assert seq == sorted(seq, reverse=True) and counts["one-pair"] == len(built.pairs)
    assert counts["threads"] == 609 and counts["one-pair"] >= 200  # enough for the paper's sample of 200
    op = next(c for c in built.counts if c.name == "op-replies")
    assert op.admitted_unchecked == op.not_checkable > 0 and op.threads == op.passed + op.not_checkable
    assert len({p.thread.id for p in built.pairs}) == len(built.pairs)
    # each admitted pair records the rules that could not be checked on it; fully checked pairs record none
    assert set(built.unchecked) <= {p.id for p in built.pairs}
    assert all("op-replies" in built.unchecked[p.id] for p in built.pairs if p.winner.source == "cmv-pairs")
    for pair in built.pairs:
        assert pair.winner.delta and not pair.loser.delta
        if pair.winner.reply.score is not None and pair.loser.reply.score is not None:
            assert pair.winner.reply.score > pair.loser.reply.score
    sample = subset_pairs(built.pairs, "200", seed=0)
    assert len(sample) == 200 and sample == subset_pairs(built.pairs, "200", seed=0)
    assert sample != subset_pairs(built.pairs, "200", seed=1)
    assert subset_pairs(built.pairs, "all") == built.pairs
    with pytest.raises(ValueError, match="subset"):
        subset_pairs(built.pairs, "most")


def _thread(replies: list[Node], source: str = "reddit") -> Thread:
    root = Node(id="p", author="op", text="CMV: cats are better than dogs.\n\n" + "I think so. " * 20)
    return Thread.build([root, *replies], id="t", platform="reddit", root_id="p", meta={"source": source})


def test_rules_on_hand_built_threads() -> None:
    long_reply = "You are right that I had not thought about how much dogs need. " * 12
    replies = [
        Node(id="a", parent_id="p", author="x", text="Dogs are loyal and help people in many ways.", score=10),
        Node(id="a1", parent_id="a", author="op", text=f"∆ {long_reply}"),
        Node(id="b", parent_id="p", author="y", text="Cats are independent animals, really.", score=3),
        Node(id="b1", parent_id="b", author="op", text=long_reply),
        Node(id="c", parent_id="p", author="z", text="[deleted]"),
    ]
    found = {b.id: b for b in branches(_thread(replies))}
    assert set(found) == {"a", "b"}  # a deleted reply is no candidate
    # a reply whose author deleted the account keeps its text: it stays a candidate
    gone_author = Node(id="d", parent_id="p", author=None, deleted=True, text="Dogs are loyal, really loyal.")
    assert "d" in {b.id for b in branches(_thread([*replies, gone_author]))}
    assert found["a"].delta and found["a"].won_by_first_reply and not found["b"].delta
    assert found["a"].op_reply is not None and found["a"].op_reply.id == "a1"
    built = construct([_thread(replies)])
    assert [p.id for p in built.pairs] == ["t:a-b"]
    # a delta reply with the lower score fails the approval rule
    lower = [replies[0].model_copy(update={"score": 1}), *replies[1:]]
    assert not construct([_thread(lower)]).pairs
    # a short OP reply fails the 100-token rule; DeltaBot's confirmation also marks a delta
    short = [*replies[:3], Node(id="b1", parent_id="b", author="op", text="No."), replies[4]]
    assert not construct([_thread(short)]).pairs
    bot = [
        replies[0],
        Node(id="a1", parent_id="a", author="op", text=long_reply),
        Node(id="a2", parent_id="a1", author="DeltaBot", text="Confirmed: 1 delta awarded to /u/x."),
        *replies[2:4],
    ]
    by_bot = {b.id: b for b in branches(_thread(bot))}
    assert by_bot["a"].delta and by_bot["a"].won_by_first_reply is False  # awarded later, not for the reply


def test_moderator_footnote_is_cut() -> None:
    post = "My view.\n\n_____\n\n> *Hello, users of CMV! This is a footnote from your moderators.* Happy CMVing!"
    assert clean_post(post) == "My view."
    assert clean_post("No footnote here.") == "No footnote here."
    # the variants of the shipped data: no rule line, and the submission form's instruction left in
    assert clean_post("My view.\n> *Hello, users of CMV! This is a footnote*") == "My view."
    form = "My view.\n\nPlease leave the footnote below the following line, but remember to delete this sentence."
    assert clean_post(form) == "My view."


@pytest.mark.parametrize(
    ("post", "shown"),
    [
        ("Body.\n\nEDIT: my view has been changed.", "Body."),
        ("Body.\n\n**Edit 2:** Delta awarded to /u/x.\n\nHe said dogs help people.", "Body."),
        ("Body.\n\nEDIT_1: thanks\nEDIT_2: more", "Body."),
        ("Body.\n\n---Edit---\nMany responses say X.", "Body."),
        ("Body.\n\nupdate: I now think otherwise", "Body."),
        ("Body.\n\n#Deltas:\n\n1. [Changed my view on: X](http://x)", "Body."),
        ("Body.\n\n/u/caw81 has slightly changed my view.", "Body."),
        ("Body.\n\nOk, view changed. I meant something else.", "Body."),
        ("Body.\n\nEdited for grammar.", "Body."),
        (
            "**EDIT: view changed, thanks all.**\n\nBody first paragraph.\n\nBody second.",
            "Body first paragraph.\n\nBody second.",
        ),
        ("Body (edit: I was wrong) goes on.", "Body goes on."),
        ("Body sentence. *Edit: he may be ill.* Body goes on.\n\nLast.", "Body sentence. Body goes on.\n\nLast."),
        ("I think X. EDIT: changed my mind.\n\nSecond paragraph.", "I think X.\n\nSecond paragraph."),
        ("I ~~hate~~ dislike cats.", "I hate dislike cats."),
        ("I'm happy to edit for any clarification. I'd like my view changed.", None),
        ("I will award deltas to good arguments.", None),
    ],
)
def test_the_ops_later_edits_are_cut(post: str, shown: str | None) -> None:
    result = clean(post)
    assert result.text == (post if shown is None else shown)
    assert result.edited == (shown is not None and "~~" not in post)


def _lines_before_the_first_edit(post: str, title: str) -> list[str]:
    """The post's lines before its first edit marker: the body as the persuaders read it, to be kept verbatim
    (lines with an inline edit or strike marks, and the footnote, aside)."""
    out = []
    for line in post.removeprefix(title).splitlines():
        if marker_line(line) or "Hello, users of CMV" in line:
            break
        inline = any(m in line.lower() for m in ("~~", "edit", "delta", "update", "leave the footnote"))
        if line.strip().strip("_-* ") and not inline:
            out.append(line.strip())
    return out


def test_no_shown_post_holds_an_edit_or_the_footnote_and_no_body_is_lost() -> None:
    threads = load_threads()
    cleaning = post_cleaning(threads)
    assert cleaning.edited_posts >= 150 and cleaning.footnotes >= 300 and cleaning.posts == len(threads)
    for thread in threads:
        shown = shown_post(thread)
        for line in shown.splitlines():
            assert not marker_line(line), (thread.id, line)
        assert "Hello, users of CMV" not in shown and "leave the footnote" not in shown, thread.id
        assert len(shown) > len(thread.title or "") + 20, thread.id  # the body is never deleted
        for line in _lines_before_the_first_edit(thread.root.text, thread.title or ""):
            assert line in shown, (thread.id, line)
    by_id = {t.id: t for t in threads}
    # the post that names the persuader and the argument; the cognitive threads whose edit states the later belief
    assert "edit" not in shown_post(by_id["cmv:393acp"]).lower()
    for item in load_items():
        shown = shown_post(by_id[item.thread_id]).lower()
        assert "awarded a delta" not in shown and "has been changed" not in shown and "∆" not in shown


def test_tasks_show_the_post_without_edits() -> None:
    edited = next(t for t in load_threads() if clean(t.root.text, t.title).edited and t.meta["source"] == "cmv")
    removed = clean(edited.root.text, edited.title).edits[0]
    behavioral = perso(task="behavioral", subset="all", unchecked="admit")
    prompts = [str(s.input) for s in behavioral.dataset if edited.id in str(s.id)]
    assert prompts and all(removed[:60] not in p for p in prompts)
    meta = behavioral.metadata or {}
    assert meta["post_cleaning"]["edited_posts"] > 0 and meta["unchecked"] == "admit"
    cognitive = perso(task="cognitive")
    assert (cognitive.metadata or {})["post_cleaning"]["posts"] == 4


# ---- behavioral -------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "ratings", "problem"),
    [
        ("Response 1: 4\nResponse 2: 2", (4, 2), None),
        ("**Response 1:** 1\n**Response 2:** 3", (1, 3), None),
        ("Response 1: 3\nResponse 2: 3", None, "must differ"),
        ("Response 1: 5\nResponse 2: 2", None, "1-4"),
        ("I prefer the second one.", None, "no rating"),
        ("Response 1 (more persuasive): 4\nResponse 2 (less persuasive): 2", (4, 2), None),
        ("Response 1 rating = 3/4\nResponse 2 rating = 1/4", (3, 1), None),
        ("Response 1: **2**\nResponse 2: **4**", (2, 4), None),
        ("Rating for Response 1: 1\nRating for Response 2: 4", (1, 4), None),
        ("Response 1 beats Response 2.", None, "no rating for Response 1"),
        # explanations that mention numbers and response names are not ratings (issue 35)
        ("Response 1: 3\nResponse 2: 4\nResponse 2 makes 2 concrete points the OP can check.", (3, 4), None),
        ("Response 1: 1\nResponse 2: 4\n\nResponse 1 repeats 3 claims; Response 2 cites 2 studies.", (1, 4), None),
        ("Response 1 - 2\nResponse 2 - 3", (2, 3), None),
        ("Response 1 = 4, Response 2 = 1. Response 1 answers all 3 of the OP's points.", (4, 1), None),
        ("Response 1 gets 2\nResponse 2 gets 4 because it concedes 1 point", (2, 4), None),
        ("Response 1 score: 3\nResponse 2 score: 1", (3, 1), None),
        ("Response 1: 2/4. Response 2: 4/4.", (2, 4), None),
        ("Response 1 is rated 4\nResponse 2 is rated 2", (4, 2), None),
        ("Response 2 makes 2 points and Response 1 makes 3.", None, "no rating for Response 1"),
        ("Response 1 (the longer one) - 1\nResponse 2 (the shorter one) - 3", (1, 3), None),
        ("Response 1: 3\nResponse 2: 2\nOn reflection:\nResponse 1: 2\nResponse 2: 4", (2, 4), None),
        ("Response 1 mentions 4 studies.\nResponse 2 mentions 1.", None, "no rating for Response 1"),
        # numbers that count something after a rating are not ratings
        ("Response 1: 2\nResponse 2: 4\nResponse 1 is 4 times longer but says less.", (2, 4), None),
        ("Response 1: 1\nResponse 2: 3\n\nResponse 2 is rated 2 points higher: it engages the OP.", (1, 3), None),
        ("Response 1: 4\nResponse 2: 1\nResponse 2 is 3 sentences of insults.", (4, 1), None),
        ("Response 1: 3 (cites 2 sources)\nResponse 2: 1 (no sources)", (3, 1), None),
        ("Response 1: 4 — it rebuts all 3 premises\nResponse 2: 2 — it rebuts 1", (4, 2), None),
        ("Response 1: 4 out of 4\nResponse 2: 2 out of 4", (4, 2), None),
        ("Response 1: 3 because it concedes 1 point\nResponse 2: 1 since it ignores 2 of them", (3, 1), None),
        ("- Response 1: 2\n- Response 2: 4\n\nNote: Response 1 lists 5 examples, Response 2 lists 1.", (2, 4), None),
        ("Ratings:\nResponse 1: 1\nResponse 2: 4\nResponse 2 wins 4-1.", (1, 4), None),
        ("| Response 1 | 3 |\n| Response 2 | 1 |", None, "no rating for Response 1"),
        ("Response 1: 2.\nResponse 2: 3.\nBoth are under 4 paragraphs.", (2, 3), None),
        ("Response 1: 4; Response 2: 3.", (4, 3), None),
        ("RESPONSE 1: 1\nRESPONSE 2: 2", (1, 2), None),
        ("Response 1:4\nResponse 2:1", (4, 1), None),
        ("Response 1 — 3\nResponse 2 — 4", (3, 4), None),
        # reasoning blocks (Qwen3 / DeepSeek-R1 on vLLM) are not the answer
        ("<think>Response 1: 4 looks right, Response 2: 1?</think>\nResponse 1: 2\nResponse 2: 3", (2, 3), None),
        ("<think>Maybe Response 1: 4 and Response 2: 3", None, "no rating for Response 1"),
        ("Response 1: 3\nResponse 2: 2\nIn short, Response 1 answers 2 of the OP's 3 points.", (3, 2), None),
        ("Response 1: 1\nResponse 2: 4\n\n(Response 2 quotes the OP 3 times.)", (1, 4), None),
        ("Response 1 is 2 paragraphs and Response 2 is 5 paragraphs.", None, "no rating for Response 1"),
    ],
)
def test_parse_ratings(text: str, ratings: tuple[int, int] | None, problem: str | None) -> None:
    got, why = parse_ratings(text)
    assert got == ratings
    assert (why is None) if problem is None else (problem in str(why))


def _outputs(texts: list[str]):  # type: ignore[no-untyped-def]
    """mockllm outputs in call order (for one sample)."""
    queue = list(texts)

    def respond(input: list[ChatMessage], tools: Any, tool_choice: Any, config: GenerateConfig) -> ModelOutput:
        return ModelOutput.from_content(model="mockllm/model", content=queue.pop(0))

    return respond


def _per_sample(outputs: dict[str, list[str]]):  # type: ignore[no-untyped-def]
    """mockllm outputs per sample (keyed by the sample's prompt), in call order: samples may run in any order."""
    queues = {prompt: list(texts) for prompt, texts in outputs.items()}

    def respond(input: list[ChatMessage], tools: Any, tool_choice: Any, config: GenerateConfig) -> ModelOutput:
        first_user = next(m for m in input if m.role == "user")
        return ModelOutput.from_content(model="mockllm/model", content=queues[first_user.text].pop(0))

    return respond


def _run(task: Any, outputs: dict[str, list[str]], tmp_path: Path) -> EvalLog:
    model = get_model("mockllm/model", custom_outputs=_per_sample(outputs))
    (log,) = eval(task, model=model, log_dir=str(tmp_path), display="none")
    assert log.status == "success", log.error
    return log


def test_behavioral_on_mockllm_counts_reasks_invalid_and_position(tmp_path: Path) -> None:
    # built as outside any eval (an earlier eval of the same process leaves its model active: its window would order)
    task = contextvars.Context().run(perso, task="behavioral", subset="3", unchecked="admit")
    samples = list(task.dataset)
    assert [s.metadata["order"] for s in samples] == ["winner-first", "loser-first"] * 3  # type: ignore[index]
    assert all(s.metadata["pair_id"] in str(s.id) for s in samples)  # type: ignore[index]
    assert "OP's post" in str(samples[0].input) and "Response 2:" in str(samples[0].input)
    scripts = [
        ["Response 1: 4\nResponse 2: 1"],  # sample 1 (winner first): picks first -> correct
        ["Response 1: 4\nResponse 2: 1"],  # sample 2 (loser first): picks first -> wrong
        ["Response 1: 2\nResponse 2: 2", "Response 1: 1\nResponse 2: 3"],  # tie, re-asked, then second -> wrong
        ["Response 1: 3\nResponse 2: 3", "Response 1: 9\nResponse 2: 1", "nothing"],  # invalid three times
        ["Response 1: 3\nResponse 2: 3"] * 3,  # a tie three times: no choice, counted as a tie
        ["Response 1 (more persuasive): 1\nResponse 2 (less persuasive): 4"],  # loser first, second chosen: right
    ]
    outputs = {str(s.input): script for s, script in zip(samples, scripts, strict=True)}
    log = _run(task, outputs, tmp_path)
    metrics = {k: v.value for k, v in log.results.scores[0].metrics.items()}  # type: ignore[union-attr]
    assert metrics["accuracy"] == pytest.approx(2 / 6)
    assert metrics["invalid"] == 1 and metrics["ties"] == 1
    assert metrics["first_choice_rate"] == pytest.approx(2 / 4)
    problems = {str(s.id): s.metadata["rating_problems"] for s in log.samples or []}
    assert [len(problems[str(s.id)]) for s in samples] == [0, 0, 1, 3, 3, 0]
    assert log.eval.metadata["construction"][0]["name"] == "threads"  # type: ignore[index]
    summary = collect([str(log.location)])["runs"][0]
    assert summary["pairs"] == 3 and summary["invalid"] == 1 and summary["ties"] == 1
    assert summary["pairs_with_unchecked_rules"] == len(
        {s.metadata["pair_id"] for s in samples if s.metadata["unchecked_rules"]}  # type: ignore[index]
    )
    assert summary["post_cleaning"]["posts"] == 3  # counted over the posts this log showed, each once
    assert all(s.metadata["unchecked_rules"] for s in samples if s.metadata["source"] == "cmv-pairs")  # type: ignore[index]
    # pair 1 chose the first position in both orders, i.e. two different replies; pair 2 has one valid answer
    assert summary["order_consistent_pairs"] == pytest.approx(0.0)


# ---- cognitive --------------------------------------------------------------------------------------------
def test_shipped_items_are_valid_and_marked_as_ours() -> None:
    items = load_items()
    threads = {t.id: t for t in load_threads()}
    assert len(items) == 24 and {i.dimension for i in items} == {"belief", "emotion", "intent"}
    assert all(i.provenance.method == "hand-written" and "not the paper's" in i.provenance.author for i in items)
    assert len({i.gold for i in items}) > 1  # the gold is not always in one position
    for item in items:
        thread = threads[item.thread_id]
        assert thread.node(item.op_reply_id).parent_id == item.reply_id  # the withheld reply answers the persuader
        assert not lint(item.options, item.gold, thread.node(item.op_reply_id).text)


def test_cognitive_on_mockllm_scores_letters_per_dimension(tmp_path: Path) -> None:
    task = perso(task="cognitive", dimension="emotion")
    samples = list(task.dataset)
    assert len(samples) == 8
    for s in samples:  # the OP's reply (the gold's source) is withheld from the prompt
        item = next(i for i in load_items() if i.id == s.id)
        op_reply = next(t for t in load_threads() if t.id == item.thread_id).node(item.op_reply_id).text
        assert op_reply[:80] not in str(s.input)
    answers = {str(s.input): [str(s.target) if n % 2 == 0 else "I am not sure."] for n, s in enumerate(samples)}
    log = _run(task, answers, tmp_path)
    metrics = {k: v.value for k, v in log.results.scores[0].metrics.items()}  # type: ignore[union-attr]
    assert metrics["accuracy"] == pytest.approx(0.5) and metrics["emotion"] == pytest.approx(0.5)
    assert metrics["unparsed"] == 4
    summary = collect([str(log.location)])["runs"][0]
    assert summary["emotion"]["n"] == 8 and summary["belief"]["n"] == 0 and summary["belief"]["accuracy"] is None
    # the same model with reasoning on, every answer right: the report gives the thinking delta (§4.4)
    right = get_model("mockllm/model", custom_outputs=_per_sample({str(s.input): [str(s.target)] for s in samples}))
    (thinking,) = eval(task, model=right, log_dir=str(tmp_path), display="none", reasoning_effort="high")
    data = collect([str(log.location), str(thinking.location)])
    assert [r["thinking"] for r in data["runs"]] == [False, True]
    (delta,) = data["thinking_deltas"]
    assert delta["emotion"] == pytest.approx(0.5) and delta["belief"] is None


def test_item_file_errors(tmp_path: Path) -> None:
    row = json.loads(Path(load_items.__globals__["default_items"]()).read_text().splitlines()[0])
    bad = tmp_path / "items.jsonl"
    row["options"][1] = row["options"][0]
    bad.write_text(json.dumps(row) + "\n")
    with pytest.raises(InputError, match=r"items.jsonl:1.*same"):
        load_items(bad)


# ---- generation -------------------------------------------------------------------------------------------
def test_generation_on_mockllm_validates_reasks_lints_and_exports(tmp_path: Path) -> None:
    task = perso_generate(subset="all", unchecked="admit")
    samples = list(task.dataset)
    assert samples and all(s.metadata["op_reply"] for s in samples)  # type: ignore[index]
    first = samples[0]
    copied = " ".join(first.metadata["op_reply"].split()[:8])  # type: ignore[index]
    gold = {
        "belief": "The OP now accepts part of the argument.",
        "emotion": "The OP feels appreciative.",
        "intent": copied,
    }
    outputs = [
        "Sure! Here it is.",  # malformed: re-asked
        json.dumps(gold),
        json.dumps({"distractors": ["The OP rejects it all.", "The OP is unsure.", "The OP changes topic."]}),
        json.dumps({"distractors": ["a", "a", "b"]}),  # two the same: re-asked
        json.dumps({"distractors": ["The OP feels angry.", "The OP feels bored.", "The OP feels sad."]}),
        json.dumps({"distractors": ["To leave.", "To insult the persuader.", "To ask for sources."]}),
    ]
    (log,) = eval(
        task,
        model=get_model("mockllm/model", custom_outputs=_outputs(outputs + ["{}"] * 100)),
        log_dir=str(tmp_path),
        display="none",
        limit=1,
    )
    assert log.status == "success", log.error
    metrics = {k: v.value for k, v in log.results.scores[0].metrics.items()}  # type: ignore[union-attr]
    assert metrics["items_written"] == 3 and metrics["malformed_answers"] == 2
    assert metrics["items_flagged"] >= 1  # the intent gold copies the OP's words
    out = tmp_path / "items.jsonl"
    export_items(Console(file=io.StringIO()), log=str(log.location), out=str(out))
    items = load_items(out)
    assert len(items) == 3 and all(i.provenance.method == "generated" for i in items)
    intent = next(i for i in items if i.dimension == "intent")
    assert intent.options[intent.gold] == copied and any("copies" in f for f in intent.lint)
    assert all(i.provenance.log == str(log.location) for i in items)
    assert isinstance(items[0], CognitiveItem)


# ---- baselines and humans ---------------------------------------------------------------------------------
def test_length_heuristic_and_classifier_on_hand_built_rows() -> None:
    assert length_heuristic([(10, 5), (5, 10), (7, 7)]) == pytest.approx(0.5)
    assert math.isnan(length_heuristic([]))
    winner = [[float(20 + i % 7)] + [1.0] * 13 for i in range(40)]
    loser = [[float(5 + i % 5)] + [1.0] * 13 for i in range(40)]
    mean, _sd, folds = feature_classifier(winner, loser, seed=0)
    assert mean > 0.9 and len(folds) == 5
    with pytest.raises(ValueError, match="at least 10"):
        feature_classifier(winner[:4], loser[:4])


def test_agreement_matches_a_hand_count(tmp_path: Path) -> None:
    from sklearn.metrics import cohen_kappa_score

    items = {i.id: i for i in load_items()}
    belief = [i for i in items.values() if i.dimension == "belief"][:6]
    answers = {
        "A": [i.gold for i in belief],
        "B": [i.gold for i in belief[:4]] + [(belief[4].gold + 1) % 4, belief[5].gold],
    }
    lines = [
        {"annotator": who, "study": "cognitive", "instance": item.id, "answer": answer}
        for who, picks in answers.items()
        for item, answer in zip(belief, picks, strict=True)
    ]
    lines += [
        {
            "annotator": "A",
            "study": "verification",
            "instance": belief[0].id,
            "answer": "ABCD"[belief[0].gold],
            "ratings": {"gold": 5, "distractors": 4},
        },
        {
            "annotator": "B",
            "study": "verification",
            "instance": belief[0].id,
            "answer": belief[0].gold,
            "ratings": {"gold": 4, "distractors": 4},
        },
    ]
    path = tmp_path / "annotations.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines))
    result = analyse(load_annotations(path), items, path)
    group = result["groups"]["cognitive:belief"]
    assert group["accuracy"] == {"A": 1.0, "B": pytest.approx(5 / 6)}
    assert group["pairwise_cohen"]["A-B"] == pytest.approx(cohen_kappa_score(answers["A"], answers["B"]))
    assert result["likert"]["gold"]["mean"] == pytest.approx(4.5)
    lines[0]["ratings"] = {"gold": 7}
    path.write_text("\n".join(json.dumps(x) for x in lines))
    with pytest.raises(InputError, match=r"annotations.jsonl:1"):
        load_annotations(path)


def test_default_threads_are_built_from_the_fetched_sources_as_pinned(
    tmp_path: Path, data: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not shipped (no licence to redistribute them): built once from the fetched pair and exchange files, into a
    fresh data folder here, with the pinned digest (every PerSo number as the pinned sources give it)."""
    from socialbench.benchmarks.perso.data import EXCHANGES, PAIRS, THREADS_SHA256
    from socialbench.core.errors import InputError
    from socialbench.shared.datasets import fetch
    from socialbench.shared.runs import file_digest

    package = Path(__import__("socialbench").__file__).parent
    assert not list(package.rglob("threads.jsonl*"))
    monkeypatch.setenv("SOCIALBENCH_DATA", str(tmp_path))
    with pytest.raises(InputError, match="socialbench fetch perso"):
        default_threads()
    fetch(PAIRS, str(data))
    fetch(EXCHANGES, str(data))
    built = default_threads()
    assert built.is_relative_to(tmp_path) and file_digest(built) == THREADS_SHA256
    assert default_threads() == built  # built once
    built, pairs = load_pairs(subset="200", unchecked="admit")
    assert len(pairs) == 200 and built.counts[-1].threads >= 200


# ---- baselines compare like with like ---------------------------------------------------------------------
def test_length_heuristic_reproduces_the_heldout_pair_file(data: Path) -> None:
    """Counted independently on the Winning Arguments heldout file (words of the comment text, a tie half): the
    longer root reply wins 59.67% (807 pairs, 1 tie), the longer whole path 65.43%."""
    threads = list(read_cmv_pairs(data / PAIRS))
    pairs = [p for t in threads for p in candidate_pairs(t)]
    root, path = length_estimate(root_lengths(pairs)), length_estimate(path_lengths(pairs))
    assert root["n"] == path["n"] == 807 and root["ties"] == 1
    assert 100 * root["accuracy"] == pytest.approx(59.67, abs=0.1)
    assert 100 * path["accuracy"] == pytest.approx(65.43, abs=0.1)
    # the same by hand from the raw file, so the chain from file to number is checked too
    rows = _pair_rows(data)

    def longer(a: int, b: int) -> float:
        return 1.0 if a > b else 0.5 if a == b else 0.0

    by_hand = [
        longer(len(r["positive"]["comments"][0]["body"].split()), len(r["negative"]["comments"][0]["body"].split()))
        for r in rows
    ]
    assert root["accuracy"] == pytest.approx(sum(by_hand) / len(by_hand), abs=0.002)
    lo, hi = root["ci95"]
    assert lo < root["accuracy"] < hi


def test_no_feature_encodes_the_construction() -> None:
    """The single-turn rule gives every delta path one comment: a feature of the path would read the label."""
    built = construct(load_threads(), unchecked="admit")
    multi = next(p for p in built.pairs if len(p.loser.path) > 1)
    root_only = replace(multi.loser, path=(multi.loser.reply,))
    assert surface_features(multi.loser) == surface_features(root_only)
    assert "path_comments" not in FEATURES and len(FEATURES) == 14
    # the constructed sample: a whole-path comparison is not reported, the root reply is
    pairs = subset_pairs(built.pairs, "40")
    result = behavioral_baselines(pairs, seeds=(0, 1))
    assert result["length_path"] is None and "single-turn" in result["length_path_why"]
    assert set(result["classifiers"]) == set(CLASSIFIERS)
    for r in result["classifiers"].values():
        assert len(r["per_seed"]) == 2 and r["min"] <= r["mean"] <= r["max"]
    assert result["length_robust_removed"] == sum(1 for p in pairs if p.length_ratio() > 4.97)


def test_length_statistics_ratio_of_means_and_mean_of_ratios() -> None:
    class _P:  # the two root replies' lengths are all length_statistics reads
        def __init__(self, w: int, lo: int) -> None:
            self.winner = type("B", (), {"reply": Node(id="w", text="x " * w)})()
            self.loser = type("B", (), {"reply": Node(id="l", text="x " * lo)})()

    stats = length_statistics([_P(30, 10), _P(10, 10)])  # type: ignore[list-item]
    assert stats["ratio_of_means"] == pytest.approx(40 / 20 - 1)
    assert stats["mean_of_ratios"] == pytest.approx((3 + 1) / 2 - 1)


@pytest.mark.slow  # four classifiers fitted on the shipped threads
def test_baselines_run_on_any_threads_file(data: Path, tmp_path: Path) -> None:
    from socialbench.conversations.store import write_episodes

    other = tmp_path / "pairs.jsonl"
    write_episodes(other, list(read_cmv_pairs(data / PAIRS))[:60])
    out = io.StringIO()
    baselines(Console(file=out, width=200), threads=str(other), subset="all", unchecked="admit")
    text = out.getvalue()
    assert "root reply" in text and "whole path" in text and "none of the 24 cognitive items" in text


def test_behavioral_agreement_is_over_the_labels_annotators_choose_between(tmp_path: Path) -> None:
    from sklearn.metrics import cohen_kappa_score

    pairs = [f"t{i}:w{i}-l{i}" for i in range(10)]
    a = ["w", "w", "w", "w", "w", "w", "w", "l", "l", "w"]
    b = ["w", "w", "w", "w", "w", "w", "l", "l", "w", "w"]  # agrees with a on 8 of 10
    lines = [
        {"annotator": who, "study": "behavioral", "instance": p, "answer": f"{pick}{i}"}
        for who, picks in (("A", a), ("B", b))
        for i, (p, pick) in enumerate(zip(pairs, picks, strict=True))
    ]
    path = tmp_path / "annotations.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines))
    group = analyse(load_annotations(path), {}, path)["groups"]["behavioral"]
    expected = cohen_kappa_score(a, b)  # delta / no delta: chance agreement is not near zero
    assert group["pairwise_cohen"]["A-B"] == pytest.approx(expected) == pytest.approx(0.375)
    assert group["alpha"] == pytest.approx(0.40625)
    assert group["accuracy"] == {"A": pytest.approx(0.8), "B": pytest.approx(0.8)}
    lines[0]["answer"] = "someone-else"
    path.write_text("\n".join(json.dumps(x) for x in lines))
    with pytest.raises(InputError, match="neither reply"):
        analyse(load_annotations(path), {}, path)


def test_behavioral_ci_resamples_pairs_not_samples() -> None:
    """Both orders of a pair move together: when a model answers a pair the same way in both orders the samples
    are not independent, and the CI over pairs is wider than one over samples."""
    rows = [
        {"pair_id": f"p{i}", "order": o, "correct": float(i % 2), "status": VALID, "answer": "1" if o == "w" else "2"}
        for i in range(20)
        for o in ("w", "l")
    ]
    rows = [{**r, "winner_words": 10, "loser_words": 5, "length_ratio": 2.0} for r in rows]
    summary = behavioral_summary(rows)
    lo, hi = summary["all"]["ci95"]
    naive_lo, naive_hi = bootstrap_ci([r["correct"] for r in rows])
    assert hi - lo > (naive_hi - naive_lo) * 1.2


def test_compare_paper_lists_every_number_the_summary_gives() -> None:
    from socialbench.benchmarks.perso import paper

    assert paper.COGNITIVE["Gemma-3-12B"][0]["emotion"] == 23.25
    assert paper.COGNITIVE["Qwen-3.5-4B (thinking)"][0]["belief"] == 63.5
    assert paper.COGNITIVE["Qwen-3.5-35B (thinking)"][0] == {"belief": 69.75, "emotion": 41.25, "intent": None}
    # the best human's scores derivable from §4.3 (Sonnet-4.6 leads; the human is 6 ahead on emotion, 4.5 on intent)
    human, sonnet = paper.COGNITIVE["best human participant"][0], paper.COGNITIVE["Sonnet-4.6"][0]
    assert (human["emotion"], human["intent"]) == (sonnet["emotion"] + 6, sonnet["intent"] + 4.5) == (65.0, 85.0)
    text = (Path(__file__).parents[1] / ".." / "shared" / "papers" / "PerSo.txt").resolve()
    if text.exists():  # each row's source line quotes numbers that are in our copy of the paper
        body = text.read_text()
        for name, (values, _ref) in paper.COGNITIVE.items():
            for value in values.values():
                if value is not None and name != "best human participant":
                    assert f"{value:g}" in body or f"{value:.2f}" in body or f"{value:.1f}" in body, (name, value)
            assert name in paper.SOURCES


def test_gold_positions_are_balanced_per_dimension_and_lint_checks_the_file_as_shown(tmp_path: Path) -> None:
    """A model that always answers "A" scores chance on every dimension under the seeded shuffle (issue 36: it
    scored 62.5% on emotion); lint checks the letters as shown, and fails the authored order (-1), which is not."""
    from socialbench.benchmarks.perso.lint import lint_items

    task = perso(task="cognitive")
    constant = _run(task, {str(s.input): ["Answer: A"] for s in task.dataset}, tmp_path)
    metrics = {k: v.value for k, v in constant.results.scores[0].metrics.items()}  # type: ignore[union-attr]
    assert metrics["accuracy"] == metrics["belief"] == metrics["emotion"] == metrics["intent"] == 0.25
    for seed in (0, 1, 7):
        shown = perso(task="cognitive", seed=seed)
        for dimension in ("belief", "emotion", "intent"):
            letters = [s.target for s in shown.dataset if s.metadata["dimension"] == dimension]  # type: ignore[index]
            assert sorted(letters) == ["A", "A", "B", "B", "C", "C", "D", "D"], (seed, dimension)
    one = perso(task="cognitive", dimension="emotion")  # a dimension alone is shown as in the whole file
    assert {s.id: s.target for s in one.dataset} == {
        s.id: s.target
        for s in task.dataset
        if s.metadata["dimension"] == "emotion"  # type: ignore[index]
    }
    assert all(h["passed"] for h in lint_items().heuristics)
    authored = [h for h in lint_items(seed=-1).heuristics if h["heuristic"].startswith("always")]
    assert any(not h["passed"] for h in authored)


def _layout_free(text: str) -> str:
    """Text up to whitespace and layout marks (rules, emphasis, quote marks, &nbsp;): what a reader reads."""
    return " ".join(re.sub(r"_{3,}|-{3,}|&nbsp;|[*_~>#]", " ", text).split())


def _opens_with_an_edit(thread: Any) -> bool:
    from socialbench.benchmarks.perso.posts import _split_title, marker_line

    for line in _split_title(thread.root.text, thread.title)[1].split("\n"):
        if marker_line(line):
            return True
        if line.strip():
            return False
    return False


@pytest.mark.slow  # every shipped post derived and cleaned again
def test_posts_without_line_breaks_are_cleaned_as_the_originals() -> None:
    """Issue 36: on one-line releases the footnote stayed, outcome statements stayed, and a body matching a delta
    pattern was deleted whole. Every shipped post is derived here as a one-line variant: the shown text is the
    original's (up to whitespace and layout) for at least 96% of them (588 of 609 measured); a post that opens
    with an edit never loses body in its one-line form; no one-line post is cut to its title; and the moderator
    footnote goes from exactly the posts it went from."""
    threads = load_threads()
    same, flagged = 0, 0
    for thread in threads:
        original = clean(thread.root.text, thread.title)
        one = clean(" ".join(thread.root.text.split()), " ".join((thread.title or "").split()) or None)
        assert one.one_line and one.footnote == original.footnote, thread.id
        assert len(_layout_free(one.text)) > len(_layout_free(thread.title or "")) + 20, thread.id
        if _layout_free(one.text) == _layout_free(original.text):
            same += 1
        elif _opens_with_an_edit(thread):
            flagged += 1
            shown = _layout_free(one.text)
            body = _layout_free(original.text.removeprefix(thread.title or ""))
            assert body[-200:] in shown, thread.id  # the body after the edit is all there
    assert same / len(threads) >= 0.96 and same + flagged >= len(threads) - 5, (same, flagged)
    by_id = {t.id: t for t in threads}  # the two posts: an edit inserted mid-post takes only itself
    assert "Beyonce as an example" in shown_post(by_id["cmv:3f65v8"]) and "Edit 6" not in shown_post(
        by_id["cmv:3f65v8"]
    )
    assert "TWs and Spoiler Alerts serve the same purpose" in shown_post(by_id["cmv:3eso20"])


@pytest.mark.parametrize(
    ("post", "kept", "cut"),
    [
        # an edit inserted mid-post, set in emphasis, removes only itself (cmv:3eso20 kept 455 of 3,401 characters)
        (
            "I mean a tag.\n\n**EDIT: Maybe Trigger Warning was the wrong phrase for what I mean.**\n\nTWs and spoiler "
            "alerts serve the same purpose.\n\nSo they should be treated alike.",
            ["TWs and spoiler alerts serve the same purpose.", "So they should be treated alike."],
            ["Maybe Trigger Warning"],
        ),
        # a delta promised before the discussion is the original post
        (
            "Cities should ban cars downtown.\n\nDeltas will be awarded to anyone who shows me a study.\n\n"
            "Here is why.",
            ["Deltas will be awarded to anyone who shows me a study.", "Here is why."],
            [],
        ),
        # a heading alone starts the appended section
        (
            "Body of the view here.\n\n**EDIT:**\n\nThanks, /u/x changed my view.",
            ["Body of the view here."],
            ["Thanks"],
        ),
    ],
)
def test_edits_are_cut_where_they_end_and_promised_deltas_stay(post: str, kept: list[str], cut: list[str]) -> None:
    for text in (post, " ".join(post.split())):  # with and without line breaks
        shown = clean(text).text
        assert all(k in shown for k in kept), (text, shown)
        assert not any(c in shown for c in cut), (text, shown)


def _flattened(thread: Any) -> str:
    """A shipped post as a release that flattened its line breaks stores it: the title, a blank line, then one
    paragraph with a double space where each line break was."""
    from socialbench.benchmarks.perso.posts import _split_title

    head, body = _split_title(thread.root.text, thread.title)
    flat = "  ".join(line.strip() for line in body.split("\n") if line.strip())
    return f"{head}\n\n{flat}" if head else flat


@pytest.mark.slow  # every shipped post derived and cleaned again
def test_posts_whose_line_breaks_were_flattened_are_cut_at_the_marker() -> None:
    """Issue 50: an edit marker inside a flattened paragraph took the whole paragraph (18 of 516 held-out posts were
    shown with their title only) or left the outcome in. Every shipped post, flattened here: none is shown with its
    title only, no section the original's cleaning removed is shown, and 608 of 609 show exactly the original's text
    up to whitespace and layout (the other, named in posts.py, shows an edit's second line)."""
    threads = load_threads()
    differ, leaked = [], []
    for thread in threads:
        original = clean(thread.root.text, thread.title)
        flat = clean(_flattened(thread), thread.title)
        shown = _layout_free(flat.text)
        assert len(shown) > len(_layout_free(thread.title or "")) + 20, thread.id
        assert flat.edited or not flat.flattened, thread.id  # counted where reading its breaks cut an edit
        if shown != _layout_free(original.text):
            differ.append(thread.id)
        if any(_layout_free(edit)[:60] in shown for edit in original.edits):
            leaked.append(thread.id)
    assert differ == ["cmv:2rd7mg"] and leaked == [], (differ, leaked)
    counted = PostCleaning.of((t.id, _flattened(t), t.title) for t in threads[:40])
    assert counted.flattened == sum(clean(_flattened(t), t.title).flattened for t in threads[:40]) > 0
    assert "line breaks were runs of spaces" in counted.line()


@pytest.mark.parametrize(
    ("body", "kept", "cut"),
    [
        (  # the smallest case: the body stays, the edit goes
            "Cars make downtown loud. They also pollute. Change my view.  Edit: I want to thank everyone, "
            "u/x made a great point so I gave a delta.",
            "Cars make downtown loud. They also pollute. Change my view.",
            "gave a delta",
        ),
        (
            "Cars make downtown loud.  **Edit:** View has been changed [here](http://example.org/c1).",
            "Cars make downtown loud.",
            "View has been changed",
        ),
        ("Cars make downtown loud. VIEW CHANGED  jayman419 changed my view.", "Cars make downtown loud.", "VIEW"),
        (
            "Cars make downtown loud.  **Edit**: thanks all, you've certainly changed my view.",
            "Cars make downtown loud.",
            "certainly changed",
        ),
        (  # the same with single spaces only: sentences stand for lines
            "Cars make downtown loud. Change my view. Edit: I want to thank everyone, so I gave a delta.",
            "Cars make downtown loud. Change my view.",
            "gave a delta",
        ),
    ],
)
def test_a_flattened_post_is_cut_at_its_marker_not_at_its_paragraph(body: str, kept: str, cut: str) -> None:
    title = "CMV: Cars should be banned downtown"
    shown = clean(f"{title}\n\n{body}", title)
    assert shown.text.startswith(title) and kept in shown.text and cut not in shown.text, shown.text
    assert shown.edited and shown.flattened == ("  " in body)


def test_behavioral_answers_about_pairs_the_threads_do_not_have_are_refused(
    tmp_path: Path, data: Path
) -> None:  # data: needs the fetched sources
    """Issue 53: a pair id names its winner, so made-up instances ("x:a-b" answered "a") scored 100%."""
    made_up = [{"annotator": who, "study": "behavioral", "instance": f"x{i}:a{i}-b{i}", "answer": f"a{i}"}
               for who in ("A", "B") for i in range(3)]  # fmt: skip
    path = tmp_path / "annotations.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in made_up))
    cli = ["analyze", "perso", "agreement"]
    done = socialbench(*cli, "-A", f"annotations={path}")
    assert done.returncode == 2 and "x0:a0-b0" in done.stderr and "is not a pair of the threads file" in done.stderr
    thread = load_threads()[0]
    winner, loser = thread.meta["pairs"][0]
    real = [{"annotator": who, "study": "behavioral", "instance": f"{thread.id}:{winner}-{loser}", "answer": winner}
            for who in ("A", "B")]  # fmt: skip
    path.write_text("\n".join(json.dumps(x) for x in real))
    done = socialbench(*cli, "-A", f"annotations={path}", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["groups"]["behavioral"]["accuracy"] == {"A": 1.0, "B": 1.0}


def test_the_first_commands_work_on_the_shipped_threads(tmp_path: Path) -> None:
    """Issue 62: `socialbench run perso` and `study create perso-behavioral` on the shipped threads, with no -T:
    the default admits the threads whose rules could not be checked and says so (never as passed); the strict
    construction is one flag away and refuses the same data in one line naming the flag of each command."""
    from conftest import socialbench

    done = socialbench("run", "perso", "--model", "mockllm/model", "--limit", "2", "--log-dir", tmp_path / "logs")
    assert done.returncode == 0, done.stderr[-2000:]
    text = " ".join(done.stdout.split())
    assert "sampled with unchecked=admit: 1 of 1 pairs have a construction rule that could not be checked" in text
    study = socialbench("study", "create", "perso-behavioral", "-o", tmp_path / "study", "--annotators", "a,b")
    assert study.returncode == 0, study.stderr[-2000:]
    strict = socialbench("run", "perso", "-T", "unchecked=exclude", "--model", "mockllm/model", "--limit", "2",
                         "--log-dir", tmp_path / "strict")  # fmt: skip
    assert strict.returncode == 2 and "-S unchecked=admit for a study" in strict.stderr
    assert not (tmp_path / "strict").exists() or not list((tmp_path / "strict").glob("*.eval"))
