"""LongSocialBench end to end on inspect_ai: items, prompts, answer reading, scoring, over-length, resume."""

from __future__ import annotations

import contextvars
import json
import math
import random
import re
import statistics
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval, eval_set
from inspect_ai.log import EvalLog, read_eval_log
from inspect_ai.model import (
    ChatMessage,
    GenerateConfig,
    Logprob,
    Logprobs,
    ModelAPI,
    ModelOutput,
    TopLogprob,
    get_model,
    modelapi,
)
from inspect_ai.scorer import SampleScore, Score
from rich.console import Console

from socialbench.benchmarks.longsocial.items import Item, check_items, load_items
from socialbench.benchmarks.longsocial.scorer import (
    accuracy,
    asked_items,
    c_mac,
    capability_accuracy,
    ci95_low,
    overlength,
    unparsed,
)
from socialbench.benchmarks.longsocial.summary import c_mac_text, group_line, score_rows, summarize
from socialbench.benchmarks.longsocial.task import load_episodes, longsocial, sample_pack, shuffled
from socialbench.benchmarks.longsocial.workflows import WORKFLOWS, Full, Question, get_workflow, register
from socialbench.core.errors import InputError
from socialbench.shared.answers import extract_letter, letter_from_logprobs
from socialbench.shared.logstore import restored, sample_prompts

PACK = sample_pack()
ITEMS = PACK / "items.jsonl"


LETTER_READINGS = [
    # the whole answer is a letter
    ("B", "B"),
    ("b", "B"),
    ("(B)", "B"),
    ("**B**", "B"),
    (" C.", "C"),
    ("[D]", "D"),
    # answer statements (the last one wins)
    ("Answer: B", "B"),
    ("Answer: b", "B"),
    ("answer: c", "C"),
    ("Final answer: C", "C"),
    ("Reasoning...\nFinal answer: **D**", "D"),
    ("The answer is (A).", "A"),
    ("The correct answer is C because c12 concedes the point.", "C"),
    ("the answer is B) because c12 concedes", "B"),
    ("I first thought A, but the answer is C", "C"),
    ("Answer: A\n\nOn reflection, the final answer is B.", "B"),
    ("**Answer:** D", "D"),
    ("Answer - C", "C"),
    ("My choice is B.", "B"),
    ("I choose D.", "D"),
    ("The final answer is: a.", "A"),
    # other places a letter is an answer
    ("Option C is correct.", "C"),
    ("Looking at the thread, c14 replies to c12.\n\nC", "C"),
    ("After weighing the options:\n**B**", "B"),
    ("I'd go with (C).", "C"),
    ("It's not clear; I'd guess D", "D"),  # issue 50
    ("My best guess is B.", "B"),
    ("I'd say B, since the OP conceded", "B"),
    ("I would say a lot depends on tone", None),
    ("I'd guess A or C", None),
    ("B) It refutes the parent.", "B"),
    ("C. The reply concedes.", "C"),
    ("(D) because the OP changes the topic", "D"),
    # what reasoning and chat models write (issue 35)
    ("Final answer: \\boxed{C}", "C"),
    ("The replies mostly concede, so $\\boxed{B}$.", "B"),
    ("<answer>C</answer>", "C"),
    ("Reading c3 and c7 closely... <answer>(D)</answer>", "D"),
    ("I would choose D.", "D"),
    ("I'll go with B", "B"),
    ("<think>Option A looks tempting, but c4 rebuts it. Answer: A?</think>\nAnswer: C", "C"),
    ("<think>The answer is B.</think>", None),
    ("<think>Let me weigh A against B. The answer is", None),  # cut off while thinking: no answer
    ("A seems wrong; B fits c3 better.</think>\nAnswer: D", "D"),  # the template opened the block (DeepSeek-R1)
    ("Answer: C\n\nWhy not the others: A and C read 2 of the 3 cues, (B) overstates c2, D ignores c1.", "C"),
    ("**Answer:** B\n\nOption A is tempting (c4 says so), but c7 settles it.", "B"),
    # no answer: English words, two letters, letters outside the options, prose
    ("The answer is a bit unclear.", None),
    ("The answer is a matter of interpretation.", None),
    ("I think the thread is about moderation.", None),
    ("I am not sure.", None),
    ("A and B are both plausible.", None),
    ("It could be A or B.", None),
    ("Answer: A or B", None),
    ("Answer: A/B", None),
    ("(A) and (B) both fit.", None),
    ("Answer: E", None),
    ("None of the options fit.", None),
    ("Because of the evidence", None),
    ("ABCD", None),
    ("", None),
    ("   ", None),
    ("A bit of context is missing here.", None),
    ("a", "A"),
    ("As the OP says, it depends.", None),
    ("Both are plausible; a careful reading is needed.", None),
]


@pytest.mark.parametrize(("text", "letter"), LETTER_READINGS)
def test_a_letter_is_read_only_where_it_is_an_answer(text: str, letter: str | None) -> None:
    assert extract_letter(text) == letter
    assert len(LETTER_READINGS) >= 40


def pack_items() -> list[Item]:
    return check_items(load_items(ITEMS), load_episodes(PACK / "episodes.jsonl"), ITEMS)


def test_sample_pack_items_are_valid() -> None:
    items = pack_items()
    assert len(items) >= 36
    by_cap = {c: sum(1 for i in items if i.capability == c) for c in ("C1", "C2", "C3", "C4", "C5", "C6")}
    assert all(n >= 6 for n in by_cap.values()), by_cap
    assert {i.platform for i in items} == {"hn", "reddit", "stackexchange", "reddit_cmv"}
    for item in items:
        assert item.scope is not None and item.evidence and item.criterion, item.id
        assert not re.search(r'["“]', item.stem), f"{item.id}: stems carry no quotes"


def write_lines(path: Path, rows: list[Any]) -> Path:
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows) + "\n")
    return path


def test_item_loader_errors_name_file_line_and_field(tmp_path: Path) -> None:
    rows = [json.loads(line) for line in ITEMS.read_text().splitlines()[:3]]
    cases = [
        ({**rows[1], "gold": "E"}, r"bad\.jsonl:2 \(record [^)]+\): field gold"),
        ({k: v for k, v in rows[1].items() if k != "stem"}, r"bad\.jsonl:2 .*field stem: Field required"),
        ({**rows[1], "options": ["x", "y", "x", "z"]}, r"bad\.jsonl:2 .*four distinct"),
        ({**rows[1], "options": ["x", "y", "z"]}, r"bad\.jsonl:2 .*field options"),
        ({**rows[1], "capability": "C9"}, r"bad\.jsonl:2 .*field capability"),
        ({**rows[1], "scope": {"kind": "chain", "start": "c1"}}, r"bad\.jsonl:2 .*needs end"),
        ({**rows[1], "id": rows[0]["id"]}, r"bad\.jsonl:2 .*duplicate item id"),
        ('{"id": "x", "stem": ', r"bad\.jsonl:2: invalid JSON"),
    ]
    for bad, message in cases:
        path = write_lines(tmp_path / "bad.jsonl", [rows[0], bad, rows[2]])
        with pytest.raises(InputError, match=message):
            load_items(path)


def test_items_must_refer_to_existing_nodes(tmp_path: Path) -> None:
    rows = [json.loads(line) for line in ITEMS.read_text().splitlines()[:2]]
    episodes = load_episodes(PACK / "episodes.jsonl")
    path = write_lines(tmp_path / "items.jsonl", [rows[0], {**rows[1], "evidence": ["c99999"]}])
    with pytest.raises(InputError, match=r"items\.jsonl \(record [^)]+\): nodes c99999 do not exist"):
        check_items(load_items(path), episodes, path)
    path = write_lines(tmp_path / "items.jsonl", [{**rows[0], "episode_id": "hn:1"}])
    with pytest.raises(InputError, match="episode 'hn:1' not found"):
        check_items(load_items(path), episodes, path)
    chain = {**rows[0], "scope": {"kind": "chain", "start": "c5", "end": "c1"}}
    with pytest.raises(InputError, match="chain start c5 is not an ancestor of c1"):
        check_items(load_items(write_lines(tmp_path / "c.jsonl", [chain])), episodes)


def test_release_format_is_mapped(tmp_path: Path) -> None:
    row = json.loads(ITEMS.read_text().splitlines()[0])
    release = {
        "item_id": row["id"],
        "thread_id": row["episode_id"],
        "capability": row["capability"],
        "question": row["stem"],
        "options": dict(zip("ABCD", row["options"], strict=True)),
        "answer": row["gold"],
        "evidence_nodes": row["evidence"],
    }
    (item,) = load_items(write_lines(tmp_path / "release.jsonl", [release]))
    assert (item.id, item.stem, item.gold, item.options, item.evidence) == (
        row["id"],
        row["stem"],
        row["gold"],
        row["options"],
        row["evidence"],
    )


def test_option_shuffle_is_seeded_and_keeps_the_gold() -> None:
    item = pack_items()[0]
    options, gold, order = shuffled(item, 0)
    assert shuffled(item, 0) == (options, gold, order)
    assert options[ord(gold) - 65] == item.gold_text
    assert shuffled(item, None) == (item.options, item.gold, [0, 1, 2, 3])
    golds = {shuffled(item, s)[1] for s in range(20)}
    assert len(golds) > 1


# ---- end to end on mockllm -------------------------------------------------------------------------------
def scripted(answers: dict[str, str]):  # type: ignore[no-untyped-def]
    """A mockllm output function: looks the question up and answers as scripted (by stem)."""

    def respond(input: list[ChatMessage], tools: Any, tool_choice: Any, config: GenerateConfig) -> ModelOutput:
        text = input[-1].text
        stem = text.split("\nQuestion: ", 1)[1].split("\n", 1)[0]
        return ModelOutput.from_content(model="mockllm/model", content=answers[stem])

    return respond


def run_mock(task_args: dict[str, Any], answers: dict[str, str], tmp_path: Path) -> EvalLog:
    model = get_model("mockllm/model", custom_outputs=scripted(answers))
    (log,) = eval(longsocial(**task_args), model=model, log_dir=str(tmp_path), display="none")
    assert log.status == "success", log.error
    return log


def test_full_context_end_to_end_on_mockllm(tmp_path: Path) -> None:
    # built as outside any eval: an earlier eval of the same process leaves its model active (and its connections
    # would set the schedule's window)
    task = contextvars.Context().run(longsocial)
    samples = list(task.dataset)
    assert len({s.id for s in samples}) == len(samples)
    assert all(s.id == f"{s.metadata['episode_id']}:{s.metadata['item_id']}" for s in samples)  # type: ignore[index]
    episode_order = [s.metadata["episode_id"] for s in samples]  # type: ignore[index]
    assert episode_order == sorted(episode_order, key=episode_order.index)  # grouped by episode
    assert all(str(s.input) == s.metadata["stem"] for s in samples)  # type: ignore[index]

    # right, right in another shape, wrong, and malformed answers, decided per item
    answers, expected = {}, {"correct": 0, "unparsed": 0}
    for n, s in enumerate(samples):
        stem, gold = s.metadata["stem"], str(s.target)  # type: ignore[index]
        wrong = "ABCD"[("ABCD".index(gold) + 1) % 4]
        answers[stem] = [f"Answer: {gold}", f"**{gold}**", f"({wrong})", "I cannot tell from the thread."][n % 4]
        expected["correct"] += n % 4 in (0, 1)
        expected["unparsed"] += n % 4 == 3
    log = run_mock({}, answers, tmp_path)
    # the prompt was built at solve time by the workflow: episode first, question and options last
    first = restored(log.location, (log.samples or [])[0].messages[0].text)
    assert first.index("DISCUSSION ") < first.index("Question: ") < first.index("\nA. ") < first.index("Answer:")
    metrics = {k: v.value for k, v in log.results.scores[0].metrics.items()}  # type: ignore[union-attr]
    assert metrics["accuracy"] == pytest.approx(expected["correct"] / len(samples))
    assert metrics["unparsed"] == expected["unparsed"] and metrics["asked_items"] == len(samples)
    assert metrics["overlength"] == 0
    assert metrics["ci95_low"] <= metrics["accuracy"] <= metrics["ci95_high"]
    assert {"C1", "C2", "C3", "C4", "C5", "C6", "hn", "reddit_cmv"} <= set(metrics)
    assert metrics["c_mac"] == pytest.approx(sum(metrics[f"C{i}"] for i in range(1, 7)) / 6)
    statuses = [s.scores["choice_letter"].metadata["status"] for s in log.samples]  # type: ignore[index,union-attr]
    assert statuses.count("unparsed") == expected["unparsed"]


def test_overlength_items_are_skipped_or_truncated(tmp_path: Path) -> None:
    samples = list(longsocial().dataset)
    answers = {s.metadata["stem"]: f"Answer: {s.target}" for s in samples}  # type: ignore[index]
    log = run_mock({"max_context": 6000}, answers, tmp_path)
    skipped = [s for s in log.samples if s.scores["choice_letter"].metadata["status"] == "overlength"]  # type: ignore[index,union-attr]
    assert 0 < len(skipped) < len(samples)
    assert all(s.metadata["prompt_tokens"] > 6000 - 16 for s in skipped)
    assert all(not s.output.completion for s in skipped)  # the model was never called for them
    metrics = log.results.scores[0].metrics  # type: ignore[union-attr]
    assert metrics["overlength"].value == len(skipped) and metrics["accuracy"].value == 1.0

    log = run_mock({"max_context": 6000, "overlength": "truncate"}, answers, tmp_path)
    truncated = [s for s in log.samples if "truncated" in s.metadata]
    assert len(truncated) == len(skipped)
    for s in truncated:
        info = s.metadata["truncated"]
        assert 1 <= info["kept_posts"] < info["total_posts"]
        prompt = sample_prompts(str(log.location), str(s.id))[-1][0]["content"]  # the log stores discussions once
        assert f"{info['kept_posts']} posts shown of {info['total_posts']}" in prompt
        assert s.scores["choice_letter"].metadata["status"] == "answered"  # type: ignore[index,union-attr]
    # the summary counts them and the share of their posts kept: never a full-discussion result in disguise
    kept = sum(s.metadata["truncated"]["kept_posts"] for s in truncated)
    total = sum(s.metadata["truncated"]["total_posts"] for s in truncated)
    line = group_line(score_rows(log))
    assert line["truncated"] == len(truncated) and line["posts_kept"] == pytest.approx(kept / total)
    console = Console(width=200, record=True)
    summarize(log, console)
    text = console.export_text()
    share = f"{100 * kept / total:.1f}%"
    assert f"Truncated: truncated {len(truncated)} of {len(samples)} asked, {share} of their posts kept" in text
    assert re.search(rf"All items\s*│.*│\s*0\s*│\s*{len(truncated)}\s*│", text), text


# ---- resume after an interruption --------------------------------------------------------------------------
CALLS: list[str] = []
FAIL_AFTER: dict[str, int | None] = {"n": None}


@modelapi(name="sbtest")
class FlakyAPI(ModelAPI):
    """Answers "A"; raises after FAIL_AFTER calls, like a server going away mid-run."""

    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: GenerateConfig = GenerateConfig(),  # noqa: B008 - inspect's own signature
        **kwargs: Any,
    ) -> None:
        super().__init__(model_name, base_url, api_key, [], config)

    async def generate(
        self, input: list[ChatMessage], tools: Any, tool_choice: Any, config: GenerateConfig
    ) -> ModelOutput:
        CALLS.append(input[-1].text.split("\nQuestion: ", 1)[1].split("\n", 1)[0])
        if FAIL_AFTER["n"] is not None and len(CALLS) > FAIL_AFTER["n"]:
            raise RuntimeError("connection lost")
        return ModelOutput.from_content(model=self.model_name, content="A")

    def should_retry(self, ex: Exception) -> bool:
        return False


def test_eval_set_resumes_without_redoing_or_duplicating(tmp_path: Path) -> None:
    total = len(list(longsocial().dataset))
    CALLS.clear()
    FAIL_AFTER["n"] = 5
    ok, logs = eval_set(
        longsocial(), model="sbtest/flaky", log_dir=str(tmp_path), max_connections=1, retry_attempts=0, display="none"
    )
    assert not ok and logs[0].status == "error"
    done_first = {s.id for s in read_eval_log(logs[0].location).samples or [] if s.error is None}
    assert len(done_first) == 5
    CALLS.clear()
    FAIL_AFTER["n"] = None
    ok, logs = eval_set(longsocial(), model="sbtest/flaky", log_dir=str(tmp_path), max_connections=1, display="none")
    assert ok and logs[0].status == "success"
    ids = [s.id for s in read_eval_log(logs[0].location).samples or []]
    assert len(ids) == len(set(ids)) == total
    assert len(CALLS) == total - len(done_first)  # completed samples were not asked again


# ---- metrics, log-probability letters, the printed summary, the workflow registry ---------------------------
def sample_score(correct: int, capability: str, platform: str = "hn", status: str = "answered") -> SampleScore:
    meta = {"capability": capability, "platform": platform}
    return SampleScore(
        score=Score(value=correct, metadata={**meta, "status": status}),
        sample_id=f"{capability}-{random.random()}",
        sample_metadata=meta,
    )


def test_metrics_leave_out_skipped_items_and_report_nan_when_nothing_was_asked() -> None:
    scores = [
        sample_score(1, "C1"),
        sample_score(0, "C1", status="unparsed"),
        sample_score(1, "C2", "reddit"),
        sample_score(0, "C3", status="overlength"),
    ]
    assert accuracy()(scores) == pytest.approx(2 / 3)
    assert (asked_items()(scores), unparsed()(scores), overlength()(scores)) == (3, 1, 1)
    per = capability_accuracy(scores)
    assert per["C1"] == 0.5 and per["C2"] == 1.0 and math.isnan(per["C3"]) and math.isnan(per["C6"])
    assert math.isnan(c_mac()(scores))  # C3-C6 were not asked: no C-mac over fewer capabilities
    full = [sample_score(n % 2, f"C{1 + n % 6}") for n in range(12)]
    assert c_mac()(full) == pytest.approx(statistics.fmean(capability_accuracy(full).values()))
    skipped = [sample_score(0, "C1", status="overlength")]
    assert math.isnan(accuracy()(skipped)) and math.isnan(ci95_low()(skipped)) and math.isnan(c_mac()(skipped))


def with_logprobs(tokens: list[tuple[str, float]]) -> ModelOutput:
    top = [TopLogprob(token=t, logprob=lp) for t, lp in tokens]
    out = ModelOutput.from_content(model="m", content=tokens[0][0])
    out.choices[0].logprobs = Logprobs(content=[Logprob(token=tokens[0][0], logprob=tokens[0][1], top_logprobs=top)])
    return out


def test_letter_from_logprobs_takes_the_most_probable_letter_in_any_spelling() -> None:
    assert letter_from_logprobs(with_logprobs([(" The", -0.1), (" C", -1.2), ("B", -2.0), ("(A", -3.0)])) == "C"
    assert letter_from_logprobs(with_logprobs([("\n", -0.5), ("(b", -0.7), (" D", -0.9)])) == "B"
    assert letter_from_logprobs(with_logprobs([(" The", -0.1), (" E", -0.2)])) is None
    assert letter_from_logprobs(ModelOutput.from_content(model="m", content="A")) is None  # no logprobs returned


def test_summary_table_counts_and_formats(tmp_path: Path) -> None:
    samples = list(longsocial().dataset)
    answers = {s.metadata["stem"]: f"Answer: {s.target}" for s in samples}  # type: ignore[index]
    log = run_mock({"capabilities": "C1,C2"}, answers, tmp_path)
    rows = score_rows(log)
    assert {r["capability"] for r in rows} == {"C1", "C2"} and all(r["correct"] == 1.0 for r in rows)
    line = group_line(rows)
    assert line["items"] == line["asked"] == len(rows) and line["accuracy"] == 1.0
    assert line["ci95"][1] == 1.0 and 0.5 < line["ci95"][0] < 1.0  # Wilson: an interval even at 100% (issue 38)
    assert c_mac_text(rows).startswith("- (no asked items for C3, C4, C5, C6; the mean over the 2 capabilities")
    console = Console(width=160, record=True)
    summarize(log, console)
    text = console.export_text()
    assert re.search(r"C1 Local social meaning\s*│\s*6\s*│\s*6\s*│\s*100\.0\s*│\s*\[61\.0, 100\.0\]", text), text
    assert "C3 " not in text.split("All items")[0]  # capabilities without items get no row
    assert f"log: {log.location}" in text


def test_workflow_registry_names_and_builds_prompts_from_selected_posts() -> None:
    assert get_workflow("full") is WORKFLOWS["full"]
    with pytest.raises(ValueError, match="unknown workflow 'nope'; registered: full, cot, "):
        get_workflow("nope")
    with pytest.raises(ValueError, match="already registered"):
        register(Full())
    threads = load_episodes(sample_pack() / "episodes.jsonl")
    thread = threads["se:stackexchange:3589"]
    question = Question(stem="Who asked first?", options=["a", "b", "c", "d"], metadata={})
    nodes = list(thread.traverse("thread"))
    whole, part = Full().prompt(thread, nodes, question, {}), Full().prompt(thread, nodes[:2], question, {})
    assert len(part) < len(whole) and part.endswith("Answer:") and "Who asked first?\nA. a\nB. b" in part
