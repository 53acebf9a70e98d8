"""Unreadable model output (empty, refused, cut off, off-format) is scored wrong, labelled by cause, counted in the
metrics and named in every benchmark's summary: never a crash, never silently scored."""

from __future__ import annotations

import io
import itertools
from pathlib import Path
from typing import Any

from inspect_ai import eval
from inspect_ai.log import EvalLog
from inspect_ai.model import ChatMessage, ContentText, GenerateConfig, ModelOutput, get_model
from rich.console import Console

from socialbench.benchmarks.longsocial.summary import summarize as longsocial_summary
from socialbench.benchmarks.longsocial.task import longsocial
from socialbench.benchmarks.perso.figures import summarize as perso_summary
from socialbench.benchmarks.perso.task import perso
from socialbench.benchmarks.sibench.report import summarize as sibench_summary
from socialbench.benchmarks.sibench.task import sibench
from socialbench.shared.outputs import describe, output_problem

BAD = [
    ModelOutput.from_content("mockllm/model", ""),
    ModelOutput.from_content("mockllm/model", "", stop_reason="content_filter"),
    ModelOutput.from_content("mockllm/model", [ContentText(text="I can't help with that.", refusal=True)]),
    ModelOutput.from_content("mockllm/model", "The answer is probably", stop_reason="model_length"),
    ModelOutput.from_content("mockllm/model", "Well, it depends on", stop_reason="max_tokens"),
    ModelOutput.from_content("mockllm/model", "I think the second one, maybe."),
]
CAUSES = ["empty", "refused", "refused", "model_length", "max_tokens", "format"]


def test_each_output_gets_its_cause() -> None:
    assert [output_problem(o) for o in BAD] == CAUSES
    assert describe(CAUSES) == (
        "6 unreadable answers: refused 2, empty 1, not in the answer format 1, cut off by the token limit 1, "
        "cut off by the context window 1"
    )
    assert describe([None, None]) is None


def cycling(outputs: list[ModelOutput]):  # type: ignore[no-untyped-def]
    """mockllm answering with these outputs in turn, whatever it is asked."""
    queue = itertools.cycle(outputs)

    def respond(input: list[ChatMessage], tools: Any, tool_choice: Any, config: GenerateConfig) -> ModelOutput:
        return next(queue)

    return respond


def run(task: Any, outputs: list[ModelOutput], tmp_path: Path) -> EvalLog:
    model = get_model("mockllm/model", custom_outputs=cycling(outputs))
    (log,) = eval(task, model=model, log_dir=str(tmp_path), display="none", max_samples=1)
    assert log.status == "success", log.error
    return log


def metrics(log: EvalLog) -> dict[str, Any]:
    return {k: m.value for s in (log.results.scores if log.results else []) for k, m in s.metrics.items()}


def printed(summarize: Any, log: EvalLog) -> str:
    out = io.StringIO()
    summarize(log, Console(file=out, width=200))
    return out.getvalue()


def test_longsocial_counts_each_cause(tmp_path: Path) -> None:
    log = run(longsocial(), BAD, tmp_path)
    values = metrics(log)
    asked = int(values["asked_items"])
    assert values["unparsed"] == asked and values["accuracy"] == 0.0  # every answer unreadable, scored wrong
    per_cycle = asked // len(BAD)
    assert values["empty_outputs"] >= per_cycle and values["refusals"] >= 2 * per_cycle
    assert values["cut_off"] >= 2 * per_cycle
    labels = [s.scores["choice_letter"].metadata["output_problem"] for s in log.samples or []]  # type: ignore[index]
    assert set(labels) == set(CAUSES)
    assert "Unparsed, by cause:" in printed(longsocial_summary, log)


def test_perso_counts_each_cause(tmp_path: Path) -> None:
    log = run(perso(task="cognitive", answer_mode="generate"), BAD, tmp_path)
    values = metrics(log)
    assert values["unparsed"] == 24 and values["empty_outputs"] + values["refusals"] + values["cut_off"] == 20
    assert "Answers that could not be read, by cause: 24 unreadable answers" in printed(perso_summary, log)


def test_sibench_names_the_cause_of_unreadable_replies(tmp_path: Path) -> None:
    log = run(sibench(mode="direct", subset="random", n=6, structured="off"), BAD, tmp_path)
    causes = [(s.metadata or {}).get("output_problem") for s in log.samples or []]
    assert sorted(c for c in causes if c) == sorted(CAUSES)
    assert "Replies that could not be read, by cause: 6 unreadable answers" in printed(sibench_summary, log)
