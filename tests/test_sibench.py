"""SI-Bench: data, prompts, answer parsing, rubric judge, pairwise comparison (mockllm as model and grader)."""

from __future__ import annotations

import collections
import json
from typing import Any

import pytest
from inspect_ai import eval
from inspect_ai.log import EvalLog
from inspect_ai.model import ChatMessage, GenerateConfig, Model, ModelOutput, get_model

from socialbench.benchmarks.sibench import load_dialogues
from socialbench.benchmarks.sibench.dataset import balanced_sample, context_group, situation, stratified_sample
from socialbench.benchmarks.sibench.parsing import parse_answer, reply_length
from socialbench.benchmarks.sibench.prompts import COMPONENT_KEYS, cot_prompt, direct_prompt
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
    from socialbench.benchmarks.sibench.analysis import richness

    r = richness("哈哈 好")
    assert r["length"] == 3 and r["diversity"] == pytest.approx(2 / 3)
    assert r["entropy"] == pytest.approx(
        -(2 / 3) * __import__("math").log2(2 / 3) - (1 / 3) * __import__("math").log2(1 / 3)
    )


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
    assert (t1["cot_reply"], t1["direct_reply"], t1["motivation"], t1["n_cot"]) == (10, 0, 5, 4)
    (delta,) = ablation_deltas(rows)
    assert delta["removed"] == "communicative_strategy" and delta["delta"] == -5
    groups = by_group(rows, "context_group")
    assert sum(g["n"] for g in groups.values()) == 4 and all(g["reply"] == 10 for g in groups.values())


def test_reply_cot_similarity_with_the_offline_model(tmp_path: Any) -> None:
    from socialbench.benchmarks.sibench.similarity import reply_cot_similarity
    from socialbench.shared.embeddings import cosine_pairs

    same, different = cosine_pairs(
        ["I will buy you a milk tea", "I will buy you a milk tea"],
        ["I will buy you a milk tea", "The tax law changed in 1998"],
    )
    assert same == pytest.approx(1.0, abs=1e-4) and different < 0.5
    log = run({"mode": "cot"}, model_answers([COT_ANSWER]), judge_answers([json.dumps(VERDICT)] * 3)[0], 3, tmp_path)
    rows = reply_cot_similarity([log.location])
    assert [r["component"] for r in rows] == sorted(COMPONENT_KEYS)
    assert all(r["n"] == 3 and -1.0 <= r["similarity"] <= 1.0 for r in rows)


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
