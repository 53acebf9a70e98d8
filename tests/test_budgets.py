"""Answer budgets for reasoning models and context windows from inspect's model data, checked on the requests a
local OpenAI-compatible server on 127.0.0.1 records (no network)."""

from __future__ import annotations

from http.server import ThreadingHTTPServer
from pathlib import Path

import pytest
from inspect_ai import eval
from inspect_ai.model import GenerateConfig, get_model

from conftest import one_item
from socialbench.benchmarks.longsocial.task import context_limit, longsocial
from socialbench.shared.budgets import REASONING_BUDGET, call_budget


@pytest.mark.parametrize(("name", "budget"), [("openai/gpt-5", REASONING_BUDGET), ("openai/gpt-4o", 32)])
def test_a_reasoning_models_full_request_leaves_room_for_reasoning(
    name: str, budget: int, openai_server: ThreadingHTTPServer, tmp_path: Path
) -> None:
    """Full asks for one letter (32 tokens); GPT-5 spends reasoning tokens against that budget, so its request must
    carry room for its reasoning. What the request carries is read from the server's record."""
    host, port = openai_server.server_address[:2]
    model = get_model(name, base_url=f"http://{host!s}:{port}/v1", api_key="sk-test", responses_api=False)
    (log,) = eval(
        longsocial(items=one_item(tmp_path), workflow="full"),
        model=model,
        log_dir=str(tmp_path / "logs"),
        display="none",
        max_retries=0,
    )
    assert log.status == "success", log.error
    requests = openai_server.requests  # type: ignore[attr-defined]
    (path, body) = requests[-1]
    assert path.endswith("/chat/completions")
    sent = body.get("max_completion_tokens") or body.get("max_tokens")
    assert sent == budget
    (sample,) = log.samples or []
    assert sample.metadata["answer_budget"]["tokens"] == budget
    assert sample.scores["choice_letter"].answer == "A"  # type: ignore[index]


def test_budgets_and_windows_from_inspects_model_data() -> None:
    gpt5 = get_model("openai/gpt-5", api_key="sk-test")
    gpt4o = get_model("openai/gpt-4o", api_key="sk-test")
    assert call_budget(gpt5, 32).tokens == REASONING_BUDGET and call_budget(gpt5, 32, 200).tokens == 200
    assert call_budget(gpt4o, 32).tokens == 32
    assert call_budget(
        get_model("openai/gpt-4o", api_key="sk-test", config=GenerateConfig(reasoning_effort="high")), 32
    ).tokens == (
        REASONING_BUDGET  # asked to reason through the generate config
    )
    assert context_limit(gpt4o, None) == 128_000 and context_limit(gpt4o, 8192) == 8192  # -T max_context wins
    assert (
        context_limit(get_model("openai-api/local/unknown-model", api_key="x", base_url="http://127.0.0.1:9"), None)
        is None
    )


@pytest.mark.parametrize(
    ("name", "unasked"),
    [
        ("anthropic/claude-3-7-sonnet-latest", False),
        ("anthropic/claude-sonnet-4-5", False),
        ("anthropic/claude-sonnet-4-5-20250929", False),
        ("anthropic/claude-opus-4-20250514", False),
        ("anthropic/claude-opus-4-7", True),
        ("anthropic/claude-sonnet-5", True),
        ("bedrock/us.anthropic.claude-opus-4-8-v1:0", True),
        ("openai/gpt-5", True),
    ],
)
def test_which_models_that_can_reason_do_so_unasked(name: str, unasked: bool) -> None:
    """Issue 39: the plan gave Claude Sonnet 4.5 without thinking 16,000 reasoning tokens per item. Claude before
    4.7 thinks only when asked; 4.7 and later think by default (inspect's Anthropic provider)."""
    from socialbench.shared.budgets import thinks_unasked

    assert thinks_unasked(name) is unasked


def test_the_collector_runs_no_collection_in_a_short_run_then_keeps_under_its_share(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """memory.Collector: none in the first second (a short run pays nothing), then full collections at most as often
    as keeps their measured cost under a tenth of the elapsed time."""
    import socialbench.shared.memory as memory

    clock = [100.0]
    collected: list[float] = []

    def collect() -> int:
        collected.append(clock[0])
        clock[0] += 0.5  # each collection costs 0.5 s
        return 0

    monkeypatch.setattr(memory.time, "monotonic", lambda: clock[0])
    monkeypatch.setattr(memory.gc, "collect", collect)
    collector = memory.Collector()
    clock[0] = 100.9
    assert not collector.maybe_collect() and collected == []
    clock[0] = 101.0
    assert collector.maybe_collect() and collected == [101.0]
    clock[0] = 105.4  # 3.9 s after it ended: under 0.5 / 0.1 = 5 s
    assert not collector.maybe_collect()
    clock[0] = 106.5
    assert collector.maybe_collect() and collected == [101.0, 106.5]


def test_a_knowledge_cutoff_is_looked_up_once_per_inspect_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from socialbench.shared import budgets

    monkeypatch.setenv("SOCIALBENCH_CACHE", str(tmp_path))
    assert budgets.knowledge_cutoff("openai/gpt-4o") == "2023-11-30"  # inspect's model data
    assert budgets.knowledge_cutoff("mockllm/model") is None
    monkeypatch.setattr(budgets, "_info", lambda model: pytest.fail("looked up again"))
    assert budgets.knowledge_cutoff("openai/gpt-4o") == "2023-11-30"  # from the cache file
    assert budgets.knowledge_cutoff("mockllm/model") is None
    (tmp_path / "model-cutoffs.json").write_text("{damaged")
    monkeypatch.setattr(budgets, "_info", lambda model: None)
    assert budgets.knowledge_cutoff("openai/gpt-4o") is None  # a damaged cache is looked up again, never trusted
