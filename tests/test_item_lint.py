"""Item lint, known answers: a deliberately bad items file derived inside the test from the real sample items and
episodes gets exactly the findings it was built to have; a file whose gold is always the longest option fails the
length heuristic; the shipped items of both benchmarks pass; the command exits 1 on a failing file and 0 on the
shipped items, with strict JSON."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

import pytest

from conftest import socialbench
from socialbench.benchmarks.longsocial import longsocial
from socialbench.benchmarks.longsocial.lint import lint_items
from socialbench.benchmarks.longsocial.task import load_pack, sample_pack
from socialbench.benchmarks.perso.items import default_items
from socialbench.benchmarks.perso.lint import lint_items as perso_lint
from socialbench.conversations.render import short_ids
from socialbench.shared.itemlint import Candidate, heuristic_rows


def _rows() -> list[dict[str, Any]]:
    return [json.loads(line) for line in (sample_pack() / "items.jsonl").read_text().splitlines()]


def _write(tmp_path: Path, rows: list[dict[str, Any]], name: str = "items.jsonl") -> str:
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return str(path)


def _checks(report: Any, item: str) -> dict[str, str]:
    return {f.check: f.severity for f in report.findings if f.item == item}


def test_a_bad_items_file_gets_the_findings_it_was_built_to_have(tmp_path: Path) -> None:
    _, _, threads, _ = load_pack()
    rows = {r["id"]: r for r in _rows()}
    thread = threads["se:stackexchange:3589"]
    shorts = short_ids(thread)
    c1 = next(n for n in thread.traverse("thread") if shorts[n.id] == "c1")
    quote = " ".join(c1.text.split()[:10])
    bad = dict(rows["se3589-C3-01"])
    bad |= {
        "id": "bad-locators",
        "capability": "C1",
        "stem": f"What is animuson doing when writing '{quote}'?",
        "options": ["Agreeing", "Joking", "Leaving", "Welcoming the new moderator election while doubting " * 2],
        "gold": "D",
        "scope": None,
    }
    which = dict(rows["se3589-C3-01"]) | {"id": "bad-which", "stem": "Which?"}
    one_post = dict(rows["se3589-C3-01"]) | {"id": "bad-one-post", "evidence": ["c16"]}
    one_branch = dict(rows["se3589-C6-01"]) | {"id": "bad-one-branch", "evidence": ["c3", "c4"]}
    report = lint_items(_write(tmp_path, [bad, which, one_post, one_branch]))
    locators = _checks(report, "bad-locators")
    assert locators["username"] == "hard" and locators["exact quote"] == "hard"
    assert locators["length outlier"] == "hard" and locators["no scope"] == "hard"
    assert locators["gold longest"] == "warning"
    assert _checks(report, "bad-which")["stem names no unit"] == "hard"
    assert _checks(report, "bad-one-post")["evidence from one post"] == "hard"
    assert _checks(report, "bad-one-branch")["evidence from one branch"] == "hard"
    assert "evidence from one branch" not in _checks(report, "bad-one-post")
    assert not report.passed
    assert sorted(report.as_dict()["items_failing"]) == ["bad-locators", "bad-one-branch", "bad-one-post", "bad-which"]


def test_gold_always_longest_fails_the_length_heuristic_and_the_command_exits_1(tmp_path: Path) -> None:
    rows = _rows()
    for row in rows:  # make the gold the longest option of every item, nothing else changed
        gold = "ABCD".index(row["gold"])
        row["options"][gold] += " " + "x" * 40
    path = _write(tmp_path, rows)
    report = lint_items(path)
    longest = next(h for h in report.heuristics if h["heuristic"] == "longest option")
    assert longest["correct"] == len(rows) and longest["accuracy"] == 1.0 and longest["p_value"] < 1e-10
    assert not longest["passed"]
    done = socialbench("analyze", "longsocial", "lint", "-A", f"items={path}", "--json")
    assert done.returncode == 1
    assert json.loads(done.stdout)["passed"] is False
    assert (tmp_path / "items.jsonl").read_text() == "".join(json.dumps(r) + "\n" for r in rows)  # input untouched


def test_ties_count_their_share() -> None:
    tied = Candidate("t", "stem", ["aaa", "bbb", "cc", "d"], gold=0)
    (longest,) = [h for h in heuristic_rows([tied]) if h["heuristic"] == "longest option"]
    assert longest["correct"] == 0.5


@pytest.mark.parametrize("bench", ["longsocial", "perso"])
def test_the_shipped_items_pass(bench: str) -> None:
    report = lint_items() if bench == "longsocial" else perso_lint()
    assert report.passed, [f for f in report.findings if f.severity == "hard"] or report.failed_heuristics
    assert all(h["accuracy"] <= 0.35 for h in report.heuristics)
    done = socialbench("analyze", bench, "lint")
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr
    assert "lint passed" in done.stdout


def test_perso_options_and_questions_drawn_from_the_later_reply_fail(tmp_path: Path) -> None:
    from socialbench.benchmarks.perso.data import load_threads

    rows = [json.loads(line) for line in default_items().read_text().splitlines()]
    threads = {t.id: t for t in load_threads()}
    row = rows[0]
    later = " ".join(threads[row["thread_id"]].node(row["op_reply_id"]).text.split()[:8])
    distractor = next(i for i in range(4) if i != row["gold"])
    row["options"][distractor] = f"The OP says: {later}"
    rows[1]["question"] = f"After reading this response, why does the OP write '{later}'?"
    rows[1]["thread_id"], rows[1]["op_reply_id"] = row["thread_id"], row["op_reply_id"]
    rows[1]["reply_id"] = row["reply_id"]
    report = perso_lint(_write(tmp_path, rows[:2]))
    assert _checks(report, row["id"])["copies the OP's reply"] == "hard"
    assert _checks(report, rows[1]["id"])["question from after the reply"] == "hard"


# ---- the shortcut screen --------------------------------------------------------------------------------------
def _cheater(solved: set[str]) -> Any:
    """A scripted model that answers from the options alone: the gold of the items in ``solved`` (it recognises
    them by their options), a wrong option of every other item."""
    from inspect_ai.model import ChatMessage, GenerateConfig, ModelOutput, get_model

    gold = {frozenset(r["options"]): (r["id"], r["options"]["ABCD".index(r["gold"])]) for r in _rows()}

    def respond(messages: list[ChatMessage], tools: Any, tool_choice: Any, config: GenerateConfig) -> ModelOutput:
        shown = dict(
            line.split(". ", 1) for line in messages[-1].text.splitlines() if line[:3] in ("A. ", "B. ", "C. ", "D. ")
        )
        item, right = gold[frozenset(shown.values())]
        letter = next(k for k, v in shown.items() if (v == right) == (item in solved))
        return ModelOutput.from_content(model="mockllm/model", content=f"Answer: {letter}")

    return get_model("mockllm/model", custom_outputs=respond, memoize=False)


@pytest.mark.slow  # every shortcut probe run over the whole sample pack
def test_the_screen_flags_exactly_the_items_the_probes_solve(tmp_path: Path) -> None:
    from inspect_ai import eval

    from socialbench.benchmarks.longsocial.screen import PROBES

    solved = {"se3589-C1-01", "cmv2rnfn0-C3-01", "hn18475438-C6-01"}
    tasks = [longsocial(workflow=p, seed=s, answer_mode="generate") for p in PROBES for s in range(4)]
    logs = eval(tasks, model=_cheater(solved), log_dir=str(tmp_path / "logs"), display="none")
    assert all(log.status == "success" for log in logs)
    done = socialbench("analyze", "longsocial", "screen", "-A", f"runs={tmp_path / 'logs'}", "--json")
    assert done.returncode == 1, done.stderr
    result = json.loads(done.stdout)
    episode = {r["id"]: r["episode_id"] for r in _rows()}
    flagged = {(r["item"], r["probe"]) for r in result["flagged"]}
    assert flagged == {(f"{episode[i]}:{i}", p) for i in solved for p in PROBES}
    assert result["tests"] == 36 * 3 and "one solved item alone cannot be flagged" in result["power"]
    # every probe is right exactly on the solved items: 3 of 36 items, 4 seeds each
    assert all(r["correct"] == (4 if r["item"].split(":")[-1] in solved else 0) for r in result["rows"])


def test_the_screen_says_when_it_cannot_flag_anything(tmp_path: Path) -> None:
    from inspect_ai import eval

    logs = eval(
        [longsocial(workflow="option-only", seed=0, answer_mode="generate")],
        model=_cheater({"se3589-C1-01"}),
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    assert logs[0].status == "success"
    done = socialbench("analyze", "longsocial", "screen", "-A", f"runs={tmp_path / 'logs'}", "--json")
    result = json.loads(done.stdout)
    assert done.returncode == 0 and result["flagged"] == []
    assert "no item can be flagged" in result["power"]


def test_the_readers_study_draws_a_stratified_sample_not_the_first_items() -> None:
    from collections import Counter

    from socialbench.benchmarks.longsocial.studies import readers

    design = readers(sample=12, attention=0)
    keys = [item.key for item in design.items]
    assert len(keys) == 12
    assert Counter(k["capability"] for k in keys) == {c: 2 for c in ("C1", "C2", "C3", "C4", "C5", "C6")}
    first = [r["id"] for r in _rows()[:12]]
    assert [k["item_id"] for k in keys] != first
    again = [item.key["item_id"] for item in readers(sample=12, attention=0).items]  # seeded: the same draw
    assert again == [k["item_id"] for k in keys]
    everything = readers(attention=0)  # the default 150 is more than the pack's 36: all of them
    assert len(everything.items) == 36


def test_the_verifier_sees_only_the_model_facing_input() -> None:
    """Table 23: the verifier re-answers from the serialized thread, its structure, the stem and the options; no
    gold, criterion, evidence list or scope marks (the adjudicator sees them)."""
    from socialbench.benchmarks.longsocial.studies import verify

    rows = {r["id"]: r for r in _rows()}
    design = verify(attention=0)
    for item in design.items:
        row = rows[item.key["item_id"]]
        assert "<mark>" not in item.html and "#fff3b0" not in item.html and "#dcebfb" not in item.html
        assert row["criterion"][:40] not in item.html
        text = html.unescape(re.sub(r"<[^>]+>", "", item.html))  # post ids in the stem are links now
        assert row["stem"][:60] in text
    assert not any("evidence" in q.name for q in design.questions)


def test_lint_builds_each_episodes_index_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Lint's per-episode work (the quote index, the idf) is done once per episode, not once per item (issue 40:
    80 idf builds for 5 episodes), and gives the same findings as the per-item checks."""
    from socialbench.shared import itemlint

    built: list[int] = []
    idf: list[int] = []
    original_init, original_idf = itemlint.EpisodeIndex.__init__, itemlint.episode_idf

    def counting_init(self: Any, posts: Any, *args: Any) -> None:
        built.append(len(posts))
        original_init(self, posts, *args)

    def counting_idf(posts: Any, *args: Any) -> Any:
        idf.append(len(posts))
        return original_idf(posts, *args)

    monkeypatch.setattr(itemlint.EpisodeIndex, "__init__", counting_init)
    monkeypatch.setattr(itemlint, "episode_idf", counting_idf)
    report = lint_items()
    _, _, threads, items = load_pack()
    episodes = {i.episode_id for i in items}
    assert report.items == len(items) == 36 and len(built) == len(idf) == len(episodes) == 9
    monkeypatch.undo()
    # the index answers as the direct checks do: every finding of the shipped pack again, per item from scratch
    from socialbench.benchmarks.longsocial.lint import candidate

    direct = [f for i in items for f in itemlint.locator_findings(candidate(i, threads[i.episode_id]))]
    indexed = [f for f in report.findings if f.check in ("username", "exact quote")]
    assert sorted(map(str, direct)) == sorted(map(str, indexed))
    # and it finds what it is there to find: a participant's name and an 8-word quote of a post, in one stem
    item = items[0]
    thread = threads[item.episode_id]
    post = next(n for n in thread.traverse("thread") if len(itemlint.words(n.text)) >= 12 and n.author)
    quote = " ".join(itemlint.words(post.text)[2:11])
    bad = item.model_copy(update={"stem": f"What did {post.author} mean by '{quote}'? {item.stem}"})
    checks = {f.check: f.message for f in itemlint.locator_findings(candidate(bad, thread))}
    assert set(checks) == {"username", "exact quote"} and post.author in checks["username"]


def test_lint_fails_each_deliberately_bad_item_with_its_own_hard_check(tmp_path: Path) -> None:
    """Issue 36: each bad item is derived from a shipped one that passes, broken in one way only; each gets the hard
    finding a program can give (Table 8 / 9), and the shipped original none of them."""
    rows = {r["id"]: r for r in _rows()}
    c2, c4 = rows["se3589-C2-01"], rows["hn18475438-C4-01"]
    gold = c2["options"]["ABCD".index(c2["gold"])]
    bad = {
        "no evidence": dict(c2) | {"id": "no-evidence", "evidence": []},
        "stem names no post": dict(c2) | {"id": "no-post", "stem": "What is this post doing in its thread?"},
        "gold in the stem": dict(c2) | {"id": "gold-in-stem", "stem": f"{c2['stem']} Hint: {gold}"},
        "scope unrelated to the stem": dict(c2)
        | {"id": "unrelated-scope", "scope": {"kind": "nodes", "nodes": ["c1"]}},
        "username misspelled": dict(c2) | {"id": "misspelled", "stem": c2["stem"] + " (as AnimuSon put it)"},
        "duplicate item": dict(c2) | {"id": "duplicate"},
        "evidence from one post": dict(c2) | {"id": "c2-one-post", "evidence": ["c41"]},
    }
    c4_one = dict(c4) | {"id": "c4-one-post", "evidence": ["c90"]}
    report = lint_items(_write(tmp_path, [c2, *bad.values(), c4_one]))
    assert not _checks(report, c2["id"]) or all(v == "warning" for v in _checks(report, c2["id"]).values())
    for check, row in bad.items():
        assert _checks(report, row["id"]).get(check) == "hard", (check, _checks(report, row["id"]))
    assert _checks(report, "c4-one-post")["evidence from one post"] == "hard"
    assert "duplicate item" not in _checks(report, c2["id"])  # the first of two copies is not the duplicate


def test_the_adjudication_page_marks_every_kind_of_scope() -> None:
    """Issue 36: only `nodes` scopes were shaded; a chain, subtree, branches or participant scope showed nothing
    although the page says scope posts are shaded. Every sample item now marks every post of its scope."""
    from socialbench.benchmarks.longsocial.studies import _marks
    from socialbench.benchmarks.longsocial.workflows import scope_nodes

    _, _, threads, loaded = load_pack()
    kinds = set()
    for item in loaded:
        if item.scope is None:
            continue
        thread = threads[item.episode_id]
        marks = _marks(thread, item)
        scoped = set(scope_nodes(thread, item.scope.model_dump()))
        assert scoped and scoped <= set(marks), item.id
        kinds.add(item.scope.kind)
    assert {"chain", "branches"} <= kinds
