"""SI-Bench: data, prompts, answer parsing, rubric judge, pairwise comparison (mockllm as model and grader)."""

from __future__ import annotations

import collections
import io
import json
import re
import statistics
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval
from inspect_ai.log import EvalLog
from inspect_ai.model import ChatMessage, GenerateConfig, Model, ModelOutput, get_model
from rich.console import Console

from socialbench.benchmarks.sibench import load_dialogues
from socialbench.benchmarks.sibench.dataset import balanced_sample, context_group, situation, stratified_sample
from socialbench.benchmarks.sibench.parsing import parse_answer, reply_length
from socialbench.benchmarks.sibench.prompts import COMPONENT_KEYS, cot_prompt, direct_prompt
from socialbench.benchmarks.sibench.report import summarize
from socialbench.benchmarks.sibench.rubric import PROCESS_RUBRIC, REPLY_RUBRIC
from socialbench.benchmarks.sibench.task import sibench
from socialbench.core.errors import InputError
from socialbench.shared.judging import first_json_object


def test_all_dialogues_ship_with_the_package(situation_counts: dict[str, int]) -> None:
    dialogues = load_dialogues()
    assert len(dialogues) == 2221
    assert collections.Counter(map(situation, dialogues)) == situation_counts
    groups = collections.Counter(map(context_group, dialogues))
    assert groups == {"high": 879 + 284, "low": 709 + 349}
    assert all(d.turns[0].role in {"self", "other"} for d in dialogues)


def test_balanced_and_stratified_samples() -> None:
    dialogues = load_dialogues()
    sample = balanced_sample(dialogues, 312, seed=0)
    counts = collections.Counter(map(situation, sample))
    assert len(sample) == 312 and counts["Relational Test - Value"] == 21  # all it has
    assert {n for s, n in counts.items() if s != "Relational Test - Value"} <= {26, 27}
    assert [d.id for d in balanced_sample(dialogues, 312, seed=0)] == [d.id for d in sample]
    assert [d.id for d in balanced_sample(dialogues, 312, seed=1)] != [d.id for d in sample]
    strat = stratified_sample(dialogues, 222, seed=0)
    assert len(strat) == 222
    assert collections.Counter(map(situation, strat))["Relational Distance - Rejection"] == round(593 * 222 / 2221)


def test_prompts_follow_the_paper_and_ablate_cleanly() -> None:
    en = cot_prompt("en")
    for fragment in (
        "Step 1: Contextual Understanding",
        "a. Motivation Analysis",
        "Boundary testing: emotional probing",
        "3. Response length must not exceed 15 characters",
        "“Communicative Strategy”: “xxx”",
        "“Response”: “xxx”",
    ):
        assert fragment in en
    no_strategy = cot_prompt("en", ["communicative_strategy"])
    assert "Communicative Strategy" not in no_strategy and "“Social Intention”" in no_strategy
    no_step1 = cot_prompt("en", ["motivation", "cause", "emotional_attitude"])
    assert "Step 1: Response Strategy" in no_step1 and "Motivation" not in no_step1
    zh = cot_prompt("zh")
    assert "“动机”: “xxx”" in zh and "不得超过15个字" in zh
    assert "“Response”: “xxx”" in direct_prompt("en") and "“回复”: “xxx”" in direct_prompt("zh")
    with pytest.raises(ValueError, match="unknown CoT component"):
        cot_prompt("en", ["mood"])


@pytest.mark.parametrize(
    ("text", "response", "fields"),
    [
        ('{"Motivation": "想被关心", "Response": "那我请你喝奶茶"}', "那我请你喝奶茶", 2),
        (
            "{\n\n“Motivation”: “xxx”\n\n“Cause”: “yyy”\n\n“Response”: “哈哈好呀”\n\n}",
            "哈哈好呀",
            3,
        ),  # template, no commas
        ('```json\n{"Response": "改天一起？"}\n```', "改天一起？", 1),
        ('Sure! Here is my answer:\n"Response": "那你想我吗"\nHope this helps.', "那你想我吗", 1),
        ("“动机”：“试探”\n“回复”：“你猜”", "你猜", 2),
        ('{"Emotional Attitude": "playful", "Social Intention": "rapport", "Response": "ok"', "ok", 3),  # no brace
        # replies are data: full-width punctuation inside a value stays as written
        ('{"Response": "好，“真的”：走吧"}', "好，“真的”：走吧", 1),
        ("{“Motivation”：“想被哄，真的”，“Response”：“好，我请你”}", "好，我请你", 2),
        ("Response: 好，走吧", "好，走吧", 1),
    ],
)
def test_parser_reads_what_models_emit(text: str, response: str, fields: int) -> None:
    parsed = parse_answer(text)
    assert parsed.ok and parsed.response == response and len(parsed.fields) == fields


@pytest.mark.parametrize("text", ["", "I would say something nice.", '{"Motivation": "x"}', "Response"])
def test_parser_reports_what_it_cannot_read(text: str) -> None:
    parsed = parse_answer(text, expected=["motivation"])
    assert not parsed.ok and "no response field found" in parsed.problems


def test_reply_length_counts_characters() -> None:
    assert reply_length("那我请你喝奶茶") == 7 and reply_length("ok then") == 6
    assert reply_length("好，走吧！") == 5  # punctuation counts, whitespace does not


def test_rubric_schema_is_the_single_source() -> None:
    assert [d.key for d in PROCESS_RUBRIC.dimensions] == list(COMPONENT_KEYS)
    assert all(d.scores == [0, 5, 10] for d in [*PROCESS_RUBRIC.dimensions, *REPLY_RUBRIC.dimensions])
    text = REPLY_RUBRIC.render()
    assert "10 (Excellent)" in text and "Sophisticated Strategy" in text and "5 (Qualified)" in text


# ---- end to end with mockllm as the model and as the grader -----------------------------------------------
COT_ANSWER = json.dumps(
    {
        "Motivation": "想被哄",
        "Cause": "没钱",
        "Emotional Attitude": "撒娇",
        "Social Intention": "拉近",
        "Communicative Strategy": "幽默",
        "Response": "我请你喝奶茶",
    },
    ensure_ascii=False,
)
VERDICT = {k: {"score": 5, "rationale": "ok"} for k in COMPONENT_KEYS} | {"reply": {"score": 10, "rationale": "good"}}


def model_answers(answers: list[str]) -> Model:
    it = iter(answers * 100)

    def respond(input: list[ChatMessage], tools: Any, tool_choice: Any, config: GenerateConfig) -> ModelOutput:
        return ModelOutput.from_content(model="mockllm/model", content=next(it))

    return get_model("mockllm/model", custom_outputs=respond, memoize=False)


def judge_answers(answers: list[str]) -> tuple[Model, list[str]]:
    prompts: list[str] = []
    it = iter(answers)

    def respond(input: list[ChatMessage], tools: Any, tool_choice: Any, config: GenerateConfig) -> ModelOutput:
        prompts.append(input[1].text)
        return ModelOutput.from_content(model="mockllm/grader", content=next(it))

    return get_model("mockllm/model", custom_outputs=respond, memoize=False), prompts


def run(task_args: dict[str, Any], model: Model, grader: Model, limit: int, tmp: Any) -> EvalLog:
    (log,) = eval(
        sibench(**task_args),
        model=model,
        model_roles={"grader": grader},
        limit=limit,
        log_dir=str(tmp),
        display="none",
        max_connections=1,
        max_samples=1,
    )
    assert log.status == "success", log.error
    return log


def scores(log: EvalLog) -> list[Any]:
    return [s.scores["cot_judge" if "cot_judge" in (s.scores or {}) else "reply_judge"] for s in log.samples or []]  # type: ignore[index]


def test_cot_judge_valid_retry_and_out_of_range(tmp_path: Any) -> None:
    valid = json.dumps(VERDICT)
    out_of_range = json.dumps(VERDICT | {"reply": {"score": 7, "rationale": "?"}})
    grader, prompts = judge_answers(
        [
            valid,  # sample 1: valid at once
            "I think it is good",
            valid,  # sample 2: invalid, then valid on retry
            out_of_range,
            out_of_range,
            out_of_range,  # sample 3: out of range three times -> unjudged
        ]
    )
    log = run({"mode": "cot"}, model_answers([COT_ANSWER]), grader, 3, tmp_path)
    # samples run one at a time, so the judge's answers go to them in order; the log lists them by id
    outcomes = sorted(
        (len(sc.metadata["judge_problems"]), sc.value["unjudged"], sc.value["reply"], sc.value["motivation"])
        for sc in scores(log)
    )
    assert outcomes == [(0, 0, 10, 5), (1, 0, 10, 5), (3, 1, 0, 0)]
    unjudged = next(sc for sc in scores(log) if sc.value["unjudged"])
    assert "one of (0, 5, 10)" in unjudged.metadata["judge_problems"][0]
    assert "Motivation" in prompts[0] and "Excellent" in prompts[0] and "我请你喝奶茶" in prompts[0]
    assert {sc.metadata.get("rationales", {}).get("reply") for sc in scores(log)} == {"good", None}
    means = {s.name: s.metrics["mean"].value for s in log.results.scores}  # type: ignore[union-attr]
    assert means["reply"] == pytest.approx(20 / 3) and means["unjudged"] == pytest.approx(1 / 3)


def test_unparsed_and_overlong_replies_are_counted(tmp_path: Any) -> None:
    grader, prompts = judge_answers([json.dumps({"reply": {"score": 10, "rationale": "x"}})] * 4)
    answers = ['{"Response": "好"}', "no json at all", '{"Response": "这是一个非常非常非常长的回复超过十五个字了吧"}']
    log = run({"mode": "direct", "penalize_length": True}, model_answers(answers), grader, 3, tmp_path)
    by_answer = {sc.answer: sc.value for sc in scores(log)}
    assert by_answer[None]["unparsed"] == 1
    long = next(v for a, v in by_answer.items() if a and len(a) > 15)
    assert long["length_violation"] == 1 and long["reply"] == 0  # penalized
    assert by_answer["好"]["reply"] == 10 and len(prompts) == 2  # the unparsed reply never reached the judge


def test_pairwise_is_blind_seeded_and_checks_position_bias(tmp_path: Any) -> None:
    cot = (
        '{"Motivation": "a", "Cause": "b", "Emotional Attitude": "c", "Social Intention": "d", '
        '"Communicative Strategy": "e", "Response": "COT回复"}'
    )
    direct = '{"Response": "直接回复"}'

    def prefer(which: str):  # type: ignore[no-untyped-def]
        def respond(input: list[ChatMessage], tools: Any, tool_choice: Any, config: GenerateConfig) -> ModelOutput:
            text = input[1].text
            first = text.split("Reply 1: ", 1)[1].split("\n", 1)[0]
            pick = 1 if which == "first" else (1 if (which == "cot") == ("COT" in first) else 2)
            body = {"reply_1": {"score": 5}, "reply_2": {"score": 5}, "preferred": pick, "rationale": "tie, forced"}
            return ModelOutput.from_content(model="mockllm/grader", content=json.dumps(body))

        return get_model("mockllm/model", custom_outputs=respond, memoize=False)

    log = run({"mode": "pairwise"}, model_answers([cot, direct]), prefer("cot"), 6, tmp_path)
    metrics = {k: v.value for k, v in log.results.scores[0].metrics.items()}  # type: ignore[union-attr]
    assert metrics["cot_win_rate"] == 1.0 and metrics["position_consistency"] == 1.0
    orders = [s.scores["pairwise_judge"].metadata["cot_first"] for s in log.samples]  # type: ignore[index,union-attr]
    assert len(set(orders)) == 2  # shown in both orders across dialogues (seeded)
    again = run({"mode": "pairwise"}, model_answers([cot, direct]), prefer("cot"), 6, tmp_path)
    assert orders == [s.scores["pairwise_judge"].metadata["cot_first"] for s in again.samples]  # type: ignore[index,union-attr]

    biased = run({"mode": "pairwise"}, model_answers([cot, direct]), prefer("first"), 6, tmp_path)
    metrics = {k: v.value for k, v in biased.results.scores[0].metrics.items()}  # type: ignore[union-attr]
    assert metrics["position_consistency"] == 0.0 and metrics["first_position_rate"] == 1.0


def test_first_json_object_tolerates_fences_and_prose() -> None:
    assert first_json_object('Here:\n```json\n{"a": {"score": 5}}\n``` done') == {"a": {"score": 5}}
    with pytest.raises(ValueError, match="no JSON object"):
        first_json_object("no json")


# ---- human annotations ---------------------------------------------------------------------------------------
def test_krippendorff_alpha_matches_hand_computation(tmp_path: Any) -> None:
    from socialbench.benchmarks.sibench.human import agreement, item_means, load_human_scores

    path = tmp_path / "scores.csv"
    rows = [("a1", 1, 0), ("a1", 2, 5), ("a1", 3, 10), ("a2", 1, 5), ("a2", 2, 5), ("a2", 3, 5)]
    path.write_text("annotator,dialogue,dimension,score\n" + "".join(f"{a},{d},reply,{s}\n" for a, d, s in rows))
    scores = load_human_scores(path)
    # by hand: Do = (50 + 0 + 50) / 6 = 16.67, De = 600 / (6 * 5) = 20, alpha = 1 - Do / De = 1/6
    assert agreement(scores, "interval") == pytest.approx(1 / 6)
    assert item_means(scores)[("sibench:1", "reply")] == 2.5
    same = [s.model_copy(update={"annotator": "a3"}) for s in scores if s.annotator == "a1"]
    assert agreement([s for s in scores if s.annotator == "a1"] + same, "ordinal") == pytest.approx(1.0)


def test_human_score_errors_name_the_line(tmp_path: Any) -> None:
    from socialbench.benchmarks.sibench.human import load_human_scores

    path = tmp_path / "scores.csv"
    path.write_text("annotator,dialogue,dimension,score\na1,1,reply,5\na1,2,charm,5\n")
    with pytest.raises(InputError, match=r"scores\.csv:3: field dimension: .*unknown dimension 'charm'"):
        load_human_scores(path)
    path.write_text("annotator,dialogue,dimension,score\na1,1,reply,five\n")
    with pytest.raises(InputError, match=r"scores\.csv:2: field score"):
        load_human_scores(path)


def test_human_replies_are_judged_like_a_model(tmp_path: Any) -> None:
    replies = tmp_path / "replies.jsonl"
    replies.write_text(
        "\n".join(
            json.dumps({"dialogue": i, "reply": r}, ensure_ascii=False) for i, r in ((1, "那我请你"), (2, "好呀"))
        )
    )

    def never(*args: Any) -> ModelOutput:
        raise AssertionError("the model under test must not be called for human replies")

    grader, prompts = judge_answers([json.dumps({"reply": {"score": 5, "rationale": "fine"}})] * 2)
    log = run(
        {"mode": "direct", "human_replies": str(replies)},
        get_model("mockllm/model", custom_outputs=never, memoize=False),
        grader,
        10,
        tmp_path,
    )
    assert sorted(s.id for s in log.samples or []) == ["sibench:1", "sibench:2"]
    assert [sc.value["reply"] for sc in scores(log)] == [5, 5]
    assert any("那我请你" in p for p in prompts)


# ---- analyses over logs --------------------------------------------------------------------------------------
def test_richness_by_hand() -> None:
    from socialbench.benchmarks.sibench.analysis import richness, words

    assert words("对方想被哄，因为最近没钱。") == ["对方", "想", "被", "哄", "因为", "最近", "没", "钱"]  # jieba
    r = richness("我 爱 你，我")  # 4 words, 3 distinct: punctuation and spaces are not words
    assert r["words"] == 4 and r["diversity"] == pytest.approx(3 / 4)
    assert r["entropy"] == pytest.approx(1.5)  # -(1/2 log2 1/2 + 2 * 1/4 log2 1/4)
    assert r["richness"] == pytest.approx(0.5 * 0.75 + 0.5 * 1.5 / 2)  # entropy normalised by log2(4)
    english = richness("The cat saw the dog.")
    assert english["words"] == 5 and english["diversity"] == pytest.approx(4 / 5)


def test_tables_from_logs(tmp_path: Any) -> None:
    from socialbench.benchmarks.sibench.analysis import ablation_deltas, by_group, score_rows, table1

    def verdict(reply: int, process: int = 5) -> str:
        return json.dumps({k: {"score": process} for k in COMPONENT_KEYS} | {"reply": {"score": reply}})

    full = run({"mode": "cot"}, model_answers([COT_ANSWER]), judge_answers([verdict(10)] * 4)[0], 4, tmp_path)
    no_strategy_answer = json.dumps(
        {"Motivation": "a", "Cause": "b", "Emotional Attitude": "c", "Social Intention": "d", "Response": "嗯嗯"},
        ensure_ascii=False,
    )
    ablated = run(
        {"mode": "cot", "ablate": "communicative_strategy"},
        model_answers([no_strategy_answer]),
        judge_answers([verdict(5)] * 4)[0],
        4,
        tmp_path,
    )
    direct = run(
        {"mode": "direct"},
        model_answers(['{"Response": "好"}']),
        judge_answers([json.dumps({"reply": {"score": 0}})] * 4)[0],
        4,
        tmp_path,
    )
    rows = score_rows([full.location, ablated.location, direct.location])
    (t1,) = table1(rows)
    assert (t1["cot_reply"], t1["direct_reply"], t1["motivation"], t1["n_cot"], t1["n_direct"]) == (10, 0, 5, 4, 4)
    assert t1["protocol"] == "single-reply"
    (delta,) = ablation_deltas(rows)  # paired on the same 4 dialogues
    assert delta["removed"] == "communicative_strategy" and delta["delta"] == -5
    assert delta["n"] == 4 and delta["unpaired"] == 0  # every dialogue -5 on a 0-10 score: no interval, not [-5, -5]
    assert delta["ci95"] is None and delta["ci_method"].startswith("cannot be formed")
    assert delta["baseline"] == Path(str(full.location)).name and delta["candidates"] == 1
    groups = by_group(rows, "context_group")
    assert sum(g["n"] for g in groups) == 4 and all(g["reply"] == 10 and g["process"] == 5 for g in groups)


@pytest.mark.model  # the shipped sentence-transformers model
def test_process_reply_similarity_has_both_series(tmp_path: Any) -> None:
    from socialbench.benchmarks.sibench.similarity import process_reply_similarity
    from socialbench.shared.embeddings import cosine_pairs

    same, different = cosine_pairs(
        ["I will buy you a milk tea", "I will buy you a milk tea"],
        ["I will buy you a milk tea", "The tax law changed in 1998"],
    )
    assert same == pytest.approx(1.0, abs=1e-4) and different < 0.5
    cot = run({"mode": "cot"}, model_answers([COT_ANSWER]), judge_answers([json.dumps(VERDICT)] * 3)[0], 3, tmp_path)
    direct = run(
        {"mode": "direct"},
        model_answers(['{"Response": "今天天气不错"}']),
        judge_answers([json.dumps({"reply": {"score": 5}})] * 3)[0],
        3,
        tmp_path,
    )
    (row,) = process_reply_similarity([cot.location, direct.location])  # joined on the dialogue ids
    assert row["n"] == 3 and row["embedder"] == "sentence-transformers/all-MiniLM-L6-v2"
    assert row["english_only_embedder"] and len(row["values_cot"]) == len(row["values_direct"]) == 3
    assert row["difference"] == pytest.approx(row["process_cot_reply"] - row["process_direct_reply"])
    # the same answer for every dialogue: every difference alike, so no interval can be formed (issue 50: it was
    # printed as the point [d, d])
    assert (
        len(set(map(round, [a - b for a, b in zip(row["values_cot"], row["values_direct"], strict=True)], [9] * 3)))
        == 1
    )
    assert row["ci95"] is None and row["ci_method"].startswith("cannot be formed")


def test_without_a_grader_role_the_model_under_test_judges_with_one_warning(
    tmp_path: Any, caplog: pytest.LogCaptureFixture
) -> None:
    # the model writes a readable direct reply, then (as its own judge) a valid verdict
    answers = [
        json.dumps({"Response": "好呀"}, ensure_ascii=False),
        json.dumps({"reply": {"score": 5, "rationale": "x"}}),
    ]
    with caplog.at_level("WARNING"):
        (log,) = eval(
            sibench(mode="direct"), model=model_answers(answers), limit=2, log_dir=str(tmp_path), display="none"
        )
    assert log.status == "success", log.error
    assert [s.value["reply"] for s in scores(log)] == [5.0, 5.0]
    warnings = [r for r in caplog.records if "no grader model role given" in r.getMessage()]
    assert len(warnings) == 1  # resolved once per task, not once per sample


def test_a_misconfigured_grader_fails_the_run_instead_of_being_replaced(tmp_path: Any) -> None:
    answers = [json.dumps({"Response": "好呀"}, ensure_ascii=False)]
    with pytest.raises(ValueError, match="Model API nosuchprovider of model 'nosuchprovider/judge' not recognized"):
        eval(
            sibench(mode="direct"),
            model=model_answers(answers),
            model_roles={"grader": "nosuchprovider/judge"},
            limit=1,
            log_dir=str(tmp_path),
            display="none",
        )


# ---- the paper's protocol ------------------------------------------------------------------------------------
def test_paper_protocol_scores_both_replies_blind_with_a_preference_only_on_ties(tmp_path: Any) -> None:
    cot_answer = json.dumps(
        {"Motivation": "想被哄", "Cause": "没钱", "Emotional Attitude": "撒娇", "Social Intention": "拉近",
         "Communicative Strategy": "幽默", "Response": "思考后的回复"},
        ensure_ascii=False,
    )  # fmt: skip
    direct_answer = json.dumps({"Response": "直接的回复"}, ensure_ascii=False)
    prompts: list[str] = []
    process = json.dumps({k: {"score": 5} for k in COMPONENT_KEYS})

    def judge(input: list[ChatMessage], tools: Any, tool_choice: Any, config: GenerateConfig) -> ModelOutput:
        text = input[-1].text
        prompts.append(text)
        if "analysis of this conversation" in text:
            return ModelOutput.from_content(model="g", content=process)
        if "same score" in text:  # a tie: prefer the CoT reply wherever it is shown
            first = text.split("Reply 1: ", 1)[1].split("\n", 1)[0]
            return ModelOutput.from_content(model="g", content=json.dumps({"preferred": 1 if "思考" in first else 2}))
        first = text.split("Reply 1: ", 1)[1].split("\n", 1)[0]
        dialogue_tie = "一起" in text or len(text) % 2 == 0  # some dialogues tie, others do not
        cot_score, direct_score = (10, 10) if dialogue_tie else (5, 10)
        a, b = (cot_score, direct_score) if "思考" in first else (direct_score, cot_score)
        return ModelOutput.from_content(
            model="g", content=json.dumps({"reply_1": {"score": a}, "reply_2": {"score": b}})
        )

    grader = get_model("mockllm/model", custom_outputs=judge, memoize=False)
    log = run({"mode": "paper"}, model_answers([cot_answer, direct_answer]), grader, 8, tmp_path)
    reply_prompts = [p for p in prompts if "Score each reply" in p]
    process_prompts = [p for p in prompts if "analysis of this conversation" in p]
    tie_prompts = [p for p in prompts if "same score" in p]
    assert len(reply_prompts) == len(process_prompts) == 8  # both replies of a dialogue in ONE presentation
    assert all("思考后的回复" in p and "直接的回复" in p for p in reply_prompts)
    assert not any("想被哄" in p for p in reply_prompts)  # blind: the analysis is not shown with the replies
    assert not any("思考后的回复" in p for p in process_prompts)  # the process is judged from the analysis alone
    values = [s.scores["paper_judge"].value for s in log.samples or []]  # type: ignore[index]
    metas = [s.scores["paper_judge"].metadata for s in log.samples or []]  # type: ignore[index]
    ties = [v for v in values if v["tie"] == 1.0]
    assert len(tie_prompts) == len(ties) and 0 < len(ties) < 8  # a preference only where the scores tie
    assert all(v["cot_wins"] == 1.0 for v in ties)  # the tie-break preferred the CoT reply
    assert all(v["cot_wins"] == 0.0 for v in values if v["tie"] == 0.0)  # the scores decide otherwise (5 < 10)
    assert len({m["cot_first"] for m in metas}) == 2  # order randomized per dialogue and recorded
    assert all(v["motivation"] == 5.0 for v in values)
    by_key = {s.name: {k.split("/")[-1]: m.value for k, m in s.metrics.items()} for s in log.results.scores}  # type: ignore[union-attr]
    assert by_key["cot_wins"]["judged_mean"] == pytest.approx(len(ties) / 8)
    assert by_key["tie"]["judged_mean"] == pytest.approx(len(ties) / 8)


def test_always_asked_preference_contradicting_scores_is_measured(tmp_path: Any) -> None:
    cot = json.dumps({**{k: "x" for k in ("Motivation", "Cause")}, "Response": "COT回复"}, ensure_ascii=False)
    direct = '{"Response": "直接回复"}'

    def contrary(input: list[ChatMessage], tools: Any, tool_choice: Any, config: GenerateConfig) -> ModelOutput:
        body = {"reply_1": {"score": 10}, "reply_2": {"score": 0}, "preferred": 2}  # prefers the lower score
        return ModelOutput.from_content(model="g", content=json.dumps(body))

    grader = get_model("mockllm/model", custom_outputs=contrary, memoize=False)
    log = run({"mode": "pairwise"}, model_answers([cot, direct]), grader, 3, tmp_path)
    metrics = {k: v.value for k, v in log.results.scores[0].metrics.items()}  # type: ignore[union-attr]
    assert metrics["preference_contradicts_scores"] == 1.0


def test_random_subset_and_unpaired_ablations() -> None:
    from socialbench.benchmarks.sibench.analysis import ablation_deltas
    from socialbench.benchmarks.sibench.dataset import random_sample

    dialogues = load_dialogues()
    first = random_sample(dialogues, 100, seed=0)
    assert len(first) == 100 and [d.id for d in first] == [d.id for d in random_sample(dialogues, 100, seed=0)]
    rows = [_row("full.eval", "", d, 10.0) for d in ("a", "b", "c")]
    rows += [_row("cause.eval", "cause", d, 5.0) for d in ("b", "c", "z")]
    (delta,) = ablation_deltas(rows)
    assert delta["n"] == 2 and delta["delta"] == -5 and delta["unpaired"] == 2  # only b and c pair up


def _row(log: str, ablate: str, dialogue: str, cot_reply: float, **key: Any) -> dict[str, Any]:
    """A paper-protocol score row as `score_rows` makes it, with the run key fields (override with ``key``)."""
    run = {"run_model": "m", "human": False, "lang": "zh", "mode": "paper", "subset": "balanced", "n": 312,
           "seed": 0, "grader": "g", "created": log} | key  # fmt: skip
    return {"model": "m", "log": log, "ablate": ablate, "dialogue": dialogue, "cot_reply": cot_reply, **run}


def test_an_ablation_is_compared_only_with_the_full_run_it_varies_from() -> None:
    """A zh ablation whose scores equal the zh full run: delta 0, even when a later en full run (or a full run
    under another protocol, seed or grader) is among the logs; several candidates: the latest, named; none: said."""
    from socialbench.benchmarks.sibench.analysis import ablation_deltas, ablation_notes

    dialogues = ("a", "b", "c", "d")
    rows = [_row("zh-full.eval", "", d, 5.0) for d in dialogues]
    rows += [_row("zh-cause.eval", "cause", d, 5.0) for d in dialogues]
    rows += [_row("zz-en-full.eval", "", d, 10.0, lang="en") for d in dialogues]  # later, other language
    rows += [_row("zz-cot-full.eval", "", d, 0.0, mode="cot") for d in dialogues]  # other protocol
    rows += [_row("zz-seed.eval", "", d, 0.0, seed=1) for d in dialogues]
    rows += [_row("zz-grader.eval", "", d, 0.0, grader="other") for d in dialogues]
    (delta,) = ablation_deltas(rows)
    assert delta["delta"] == 0 and delta["ci95"] is None and delta["n"] == 4
    assert delta["baseline"] == "zh-full.eval" and delta["candidates"] == 1
    rerun = rows + [_row("zh-full-2.eval", "", d, 5.0, created="zz-later") for d in dialogues]
    (delta,) = ablation_deltas(rerun)
    assert delta["candidates"] == 2 and delta["baseline"] == "zh-full-2.eval"
    assert "2 full runs qualify" in ablation_notes([delta])[0]
    alone = [r for r in rows if r["log"] != "zh-full.eval"]
    (delta,) = ablation_deltas(alone)
    assert delta["baseline"] is None and delta["delta"] is None and "no full run" in ablation_notes([delta])[0]


@pytest.mark.parametrize(
    ("reply", "cause"),
    [
        ("xxx", "template"),
        ("“xxx”", "template"),
        ("XXXX", "template"),
        ("回复", "template"),
        ("   ", "empty"),
        ("用户: 我请你喝奶茶\n对方: 好呀", "copied_chat"),
        ("今天好累啊，不想动了 那就休息一下吧", "copied_chat"),  # two turns of the chat, word for word
        ("我请你喝奶茶", None),
        ("嗯", None),
        # real short replies, judged (SI-Bench's own chats send "……" as a message): issue 35
        ("...", None),
        ("……", None),
        ("…", None),
        ("今天好累啊，不想动了", None),  # repeats one turn: a poor reply, for the judge to score
    ],
)
def test_what_is_not_a_reply(reply: str, cause: str | None) -> None:
    from socialbench.benchmarks.sibench.parsing import unreadable_reply

    chat = "对方: 今天好累啊，不想动了\n用户: 那就休息一下吧"
    assert unreadable_reply(reply, chat) == cause


def test_template_echoes_are_never_judged_and_identical_replies_tie_without_a_preference(tmp_path: Any) -> None:
    """The embedded model once returned the template's "xxx" in every field: accepted as replies, judged 0 against
    0, and the tie preference "1" gave a 50% CoT win rate from position alone."""
    echo = json.dumps({**{c: "xxx" for c in ("Motivation", "Cause", "Emotional Attitude", "Social Intention",
                                             "Communicative Strategy")}, "Response": "xxx"})  # fmt: skip
    asked: list[str] = []

    def grader_fn(input: list[ChatMessage], tools: Any, tool_choice: Any, config: GenerateConfig) -> ModelOutput:
        asked.append(input[-1].text)
        return ModelOutput.from_content(model="g", content=json.dumps({"preferred": 1}))

    grader = get_model("mockllm/model", custom_outputs=grader_fn, memoize=False)
    log = run({"mode": "paper"}, model_answers([echo, '{"Response": "xxx"}']), grader, 3, tmp_path)
    assert not asked  # nothing to judge: no process (every field echoes the template), no reply
    for sample in log.samples or []:
        value = sample.scores["paper_judge"].value  # type: ignore[index]
        assert value["unparsed_cot"] == value["unparsed_direct"] == 1.0 and value["cot_wins"] != value["cot_wins"]
        assert sample.metadata["output_problem_cot"] == sample.metadata["output_problem_direct"] == "template"
    out = io.StringIO()
    summarize(log, Console(file=out, width=250))
    assert "6 unreadable answers: the answer template echoed 6" in out.getvalue()
    # the same real reply from both prompts: a tie, no preference asked, half a win, counted
    same = json.dumps({"Response": "我请你喝奶茶"}, ensure_ascii=False)
    asked.clear()

    def scores_only(input: list[ChatMessage], tools: Any, tool_choice: Any, config: GenerateConfig) -> ModelOutput:
        asked.append(input[-1].text)
        body = {"reply_1": {"score": 10}, "reply_2": {"score": 5}}  # position noise between identical texts
        return ModelOutput.from_content(model="g", content=json.dumps(body))

    grader = get_model("mockllm/model", custom_outputs=scores_only, memoize=False)
    log = run({"mode": "paper"}, model_answers([same]), grader, 2, tmp_path)
    assert not any("same score" in p for p in asked)
    for sample in log.samples or []:
        value = sample.scores["paper_judge"].value  # type: ignore[index]
        assert value["tie"] == value["identical_replies"] == 1.0 and value["cot_wins"] == 0.5
        assert value["cot_reply"] == value["direct_reply"] == 7.5


def test_report_keeps_languages_subsets_humans_and_ablations_apart(tmp_path: Any) -> None:
    """A folder with zh and en runs, a human-reply run and an ablation: Table 1 has one block per language and
    subset, the human replies are their own row, nothing is pooled (n per row = the dialogues of that run)."""
    from socialbench.benchmarks.sibench.analysis import by_group, score_rows, table1
    from socialbench.benchmarks.sibench.figures import document
    from socialbench.shared.reporting import print_headline, print_tables

    def verdict(reply: int) -> str:
        return json.dumps({k: {"score": 5} for k in COMPONENT_KEYS} | {"reply": {"score": reply}})

    def grader(reply: int) -> Model:
        return get_model(
            "mockllm/model",
            custom_outputs=lambda *a: ModelOutput.from_content(model="g", content=verdict(reply)),
            memoize=False,
        )

    folder = tmp_path / "logs"
    zh = run({"mode": "cot"}, model_answers([COT_ANSWER]), grader(10), 3, folder)
    en = run({"mode": "cot", "lang": "en"}, model_answers([COT_ANSWER]), grader(0), 3, folder)
    ablated = run({"mode": "cot", "ablate": "cause"}, model_answers([COT_ANSWER]), grader(5), 3, folder)
    replies = tmp_path / "replies.jsonl"
    replies.write_text("\n".join(json.dumps({"dialogue": i, "reply": "那我请你"}, ensure_ascii=False) for i in (1, 2)))
    human = run({"mode": "cot", "human_replies": str(replies)}, model_answers(["unused"]), grader(5), 10, folder)
    logs = [str(x.location) for x in (zh, en, ablated, human)]
    rows = score_rows(logs)
    t1 = table1(rows)
    assert {r["block"] for r in t1} == {"zh · balanced 312", "en · balanced 312"}
    by_label = {r["model"]: r for r in t1}
    # the human run asked 10 (--limit 10), the model's runs 3: every label names the limit, the common one too
    assert by_label["mockllm/model · limit=3 · zh · balanced 312"]["cot_reply"] == 10
    assert by_label["mockllm/model · limit=3 · zh · balanced 312"]["n_cot"] == 3  # not 6: the en run is another block
    assert by_label["mockllm/model · limit=3 · en · balanced 312"]["cot_reply"] == 0
    human_row = by_label["Human (replies.jsonl) · zh · balanced 312"]
    assert human_row["cot_reply"] == 5 and human_row["n_cot"] == 2 and "human" in human_row["protocol"]
    assert human_row["motivation"] is None  # the humans wrote no analysis: no process score, not 0
    situations = by_group(rows, "situation")
    assert any(r["model"].startswith("Human") for r in situations)
    assert all(r["model"] != "mockllm/model" for r in situations)  # every label names its block
    out = io.StringIO()
    terminal = document(logs, similarity=False)
    print_tables(terminal, Console(file=out, width=300))
    print_headline(terminal, Console(file=out, width=300))
    text = out.getvalue()
    assert (
        "mockllm/model · limit=3 · zh · balanced 312" in text and "mockllm/model · limit=3 · en · balanced 312" in text
    )
    # the ablation is compared with the zh full run only (Δ 5 - 10), never the en one
    from socialbench.benchmarks.sibench.analysis import ablation_deltas

    (delta,) = ablation_deltas(rows)
    assert delta["delta"] == -5 and delta["baseline"] == Path(str(zh.location)).name
    doc = document(logs, compare_paper=True)
    tables = {t.name: t for t in doc.parts() if hasattr(t, "rows")}  # the headline (Table 1) and every section
    assert "CoT win rate %" in tables["sibench-table1"].columns
    assert "sibench-paper-table2" in tables and "process score per situation" in tables["sibench-situation"].title
    assert "reply score per situation" in tables["sibench-situation-reply"].title  # the second, labelled figure
    from socialbench.benchmarks.sibench.paper import TABLE1

    assert TABLE1["Doubao-1.5-Pro-Character"]["cot_reply"] == 4.63 and TABLE1["Human expert"]["motivation"] == 5.68
    assert TABLE1["Qwen-2.5-Max"]["cot_reply"] == 4.85
    assert any(str(r[0]).startswith("Human") for r in tables["sibench-table1"].rows)
    # every row says how it was judged: a Human row single-reply, never passed off as the paper's protocol
    protocols = {str(r[0]): r[-1] for r in tables["sibench-table1"].rows}
    assert all(p.startswith("human replies, single-reply") for m, p in protocols.items() if m.startswith("Human"))


def _study_grader() -> Model:
    """A judge that scores every process dimension 5 and the blind pair 5 / 10."""

    def judge(*args: Any) -> ModelOutput:
        body = {"reply_1": {"score": 5}, "reply_2": {"score": 10}} | {k: {"score": 5} for k in COMPONENT_KEYS}
        return ModelOutput.from_content(model="g", content=json.dumps(body))

    return get_model("mockllm/model", custom_outputs=judge, memoize=False)


def test_the_study_key_names_the_run_and_ids_carry_no_order(tmp_path: Any) -> None:
    from socialbench.benchmarks.sibench.studies import replies, run_label

    folder = tmp_path / "logs"
    cot = json.dumps({"Motivation": "m", "Cause": "c", "Response": "思考后的回复"}, ensure_ascii=False)
    direct = json.dumps({"Response": "直接的回复"}, ensure_ascii=False)

    run({"mode": "paper"}, model_answers([cot, direct]), _study_grader(), 3, folder)
    run({"mode": "paper", "ablate": "cause"}, model_answers([cot, direct]), _study_grader(), 3, folder)
    design = replies(str(folder))
    keys = [item.key for item in design.items]
    assert len(keys) == 6 and {k["ablate"] for k in keys} == {"", "cause"}
    assert all(k["lang"] == "zh" and k["mode"] == "paper" and k["subset"] == "balanced 312" for k in keys)
    labels = {run_label(k) for k in keys}
    assert labels == {"mockllm/model · paper · zh · balanced 312 · full CoT",
                      "mockllm/model · paper · zh · balanced 312 · without cause"}  # fmt: skip
    ids = [item.id for item in design.items]
    assert len(set(ids)) == 6 and not any(re.fullmatch(r"s0*[1-6]", i) for i in ids)  # no running numbers
    assert all(re.fullmatch(r"s[0-9a-f]{10}", i) for i in ids)
    assert [k["ablate"] for k in keys] != sorted(k["ablate"] for k in keys)  # the runs are interleaved
    assert replies(str(folder)).items == design.items  # the same seed gives the same study


def test_the_studies_show_humans_what_the_judge_saw_and_ask_only_what_an_item_can_answer(tmp_path: Any) -> None:
    """Issue 36: one form showed the analysis next to both replies (the judge scores the replies without it: a reader
    could tell which reply followed it) and asked every process dimension on ablated items (an empty Cause both
    revealed the condition and asked for a score of nothing). Issue 38: a dialogue came back once per run to the same
    annotator, and the folder's name was on every page."""
    from socialbench.benchmarks.sibench.studies import process, replies
    from socialbench.shared import studies

    folder, ablated = tmp_path / "logs", tmp_path / "ablated"
    full = {"Motivation": "动机文字", "Cause": "原因文字", "Emotional Attitude": "情绪文字",
            "Social Intention": "意图文字", "Communicative Strategy": "策略文字",
            "Response": "思考后的回复"}  # fmt: skip
    cot = json.dumps(full, ensure_ascii=False)
    no_cause = json.dumps({k: v for k, v in full.items() if k != "Cause"}, ensure_ascii=False)
    direct = json.dumps({"Response": "直接的回复"}, ensure_ascii=False)

    run({"mode": "paper"}, model_answers([cot, direct]), _study_grader(), 3, folder)
    run({"mode": "paper", "ablate": "cause"}, model_answers([no_cause, direct]), _study_grader(), 3, folder)
    run({"mode": "paper", "ablate": "cause"}, model_answers([no_cause, direct]), _study_grader(), 3, ablated)
    shown = replies(str(folder))
    assert [q.name for q in shown.questions] == ["reply_1", "reply_2", "preferred"]
    rubric = "Strategically skilled reply that actively guides the conversation"
    assert all(item.html.count(rubric) == 1 for item in shown.items)  # once a page, not once per question
    assert not any(rubric in q.description for q in shown.questions)
    assert len(shown.items) == 6
    for item in shown.items:
        assert "思考后的回复" in item.html and "直接的回复" in item.html
        assert not any(text in item.html for text in ("动机文字", "意图文字", "analysis"))  # the judge never sees it
    with pytest.raises(ValueError, match=r"different parts.*without cause.*one sibench-process study per ablation"):
        process(str(folder))  # full and ablated analyses cannot share one set of questions
    analysed = process(str(ablated))
    assert [q.name for q in analysed.questions] == [k for k in COMPONENT_KEYS if k != "cause"]
    asked = [q.name for q in analysed.questions]
    assert len(analysed.items) == 3 and all(i.key["asked"] == asked for i in analysed.items)
    for item in analysed.items:
        assert "动机文字" in item.html and "Cause" not in item.html
        assert "思考后的回复" not in item.html and "直接的回复" not in item.html  # replies are the other study's
    # one dialogue, two runs: at overlap 1 two annotators see each dialogue once, and the study says when they cannot
    made = studies.create(shown, tmp_path / "gpt-4o-full-cot", ["ann", "bob"], overlap=1)
    config = json.loads((tmp_path / "gpt-4o-full-cot" / "server" / "config.yaml").read_text())
    for group in config["batch_assignment"]["groups"]:
        keys = studies.key(tmp_path / "gpt-4o-full-cot")
        dialogues = [keys[page.rsplit("_", 1)[0]]["dialogue"] for page in group["instances"]]  # ITEM_TOKEN pages
        assert len(dialogues) == 3 and len(set(dialogues)) == 3
    assert made["notes"] == [] and "gpt-4o" not in config["annotation_task_name"]
    crowded = studies.create(shown, tmp_path / "crowded", ["ann", "bob"], overlap=2)
    assert crowded["notes"] == ["6 page(s) show an annotator a dialogue they already saw: a dialogue has up to 2 "
                                "items, so 4 annotators at overlap 2 would see each once"]  # fmt: skip


def test_a_limited_run_is_a_situation_balanced_sample() -> None:
    """`--limit N` runs the first N dialogues of the task: they must be balanced, not the source's first N."""
    for subset in ("balanced", "all"):
        samples = list(sibench(mode="direct", subset=subset).dataset)
        first = [s.metadata["situation"] for s in samples[:24]]  # type: ignore[index]
        counts = collections.Counter(first)
        assert len(counts) == 12 and set(counts.values()) == {2}, subset
    balanced = {s.id for s in sibench(mode="direct").dataset}
    assert balanced == {d.id for d in balanced_sample(load_dialogues(), 312, 0)}  # the same dialogues, reordered


def test_limit_draws_at_random_within_situations_and_the_blind_order_is_balanced_per_situation() -> None:
    """Issue 36: `--limit N` ran each situation's first dialogues in the source's order (the same 24 for every seed),
    and the CoT reply was shown first in 165 of 312 blind pairs; now the first N are a seeded draw within each
    situation, and the order is half each way in every situation."""
    from collections import Counter

    from socialbench.benchmarks.sibench.task import reply_orders

    source = {d.id: i for i, d in enumerate(load_dialogues())}
    firsts = {seed: [s.id for s in list(sibench(subset="all", seed=seed).dataset)[:24]] for seed in (0, 1)}
    assert set(firsts[0]) != set(firsts[1])
    assert statistics.fmean(source[str(i)] for i in firsts[0]) > len(source) / 4  # not the head of each situation
    task = sibench(mode="paper")
    samples = list(task.dataset)
    assert len(samples) == 312
    shown = Counter((s.metadata["situation"], s.metadata["cot_first"]) for s in samples)  # type: ignore[index]
    for name in {s.metadata["situation"] for s in samples}:  # type: ignore[index]
        assert abs(shown[(name, True)] - shown[(name, False)]) <= 1
    assert sum(s.metadata["cot_first"] for s in samples) == 156  # type: ignore[index]
    assert reply_orders(load_dialogues()[:40], 0) != reply_orders(load_dialogues()[:40], 1)


def test_the_report_names_which_model_played_each_role(tmp_path: Any) -> None:
    """Issue 65: the run record says which model was under test and which graded (in the HTML's runs table too)."""
    from socialbench.shared.reporting import Document, provenance, write_html

    log = run({"mode": "direct"}, model_answers(['{"Response": "好"}']),
              judge_answers([json.dumps({"reply": {"score": 5}})] * 2)[0], 2, tmp_path)  # fmt: skip
    prov = provenance([str(log.location)])
    (record,) = prov["runs"]
    assert record["roles"] == {"under test": "mockllm/model", "grader": "mockllm/model"}  # both scripted: one name
    page = write_html(Document("sibench", "SI-Bench", prov), tmp_path / "r.html").read_text()
    assert "<td>under test: mockllm/model<br>grader: mockllm/model</td>" in page


def test_a_readable_reply_whose_partner_is_not_a_reply_is_counted_not_judged_alone(tmp_path: Any) -> None:
    """The paper's protocol scores the two replies side by side: when the direct answer only echoes the template,
    the CoT reply is not scored alone (that would pool two judging conditions in one mean); the summary counts it."""
    process = json.dumps({k: {"score": 5, "rationale": "r"} for k in COMPONENT_KEYS})
    grader, prompts = judge_answers([process] * 2)
    log = run({"mode": "paper"}, model_answers([COT_ANSWER, '{"Response": "xxx"}']), grader, 2, tmp_path)
    assert len(prompts) == 2  # the process of each dialogue, no reply prompt
    for sample in log.samples or []:
        value = sample.scores["paper_judge"].value  # type: ignore[index]
        assert value["unparsed_cot"] == 0.0 and value["unparsed_direct"] == 1.0 and value["motivation"] == 5.0
        assert value["cot_reply"] != value["cot_reply"]  # NaN: not judged
    out = io.StringIO()
    summarize(log, Console(file=out, width=250))
    assert "a readable reply whose partner is not (the two are judged side by side) 2," in out.getvalue()
