"""One clear line, never a traceback: logs that are corrupt, truncated, not logs or another benchmark's; outputs that
cannot be written (said before any input is read); a model role naming no provider; a misspelt workflow. And every
``--json`` answer is strict JSON (null where a number was not measured)."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import numpy as np
import pytest
from inspect_ai import eval
from inspect_ai.model import get_model

from conftest import socialbench
from socialbench.benchmarks.longsocial import longsocial
from socialbench.benchmarks.perso import perso
from socialbench.core.jsonl import dump_json

# its module fixtures are built once: all its tests on one xdist worker
pytestmark = pytest.mark.xdist_group("test_one_line_errors")


def run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return socialbench(*args)


def one_line(result: subprocess.CompletedProcess[str]) -> str:
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert result.returncode == 2 and len(lines) == 1 and "Traceback" not in result.stderr, result.stderr[-3000:]
    return lines[0]


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("logs")
    found = {}
    for name, task in (("longsocial", longsocial(workflow="full")), ("perso", perso(task="cognitive"))):
        (log,) = eval(task, model=get_model("mockllm/model"), log_dir=str(folder / name), display="none", limit=2)
        found[name] = Path(str(log.location))
    return found


def test_report_names_a_corrupt_truncated_or_foreign_file(logs: dict[str, Path], tmp_path: Path) -> None:
    good = logs["longsocial"].read_bytes()
    corrupt = tmp_path / "corrupt.eval"
    middle = len(good) // 2
    corrupt.write_bytes(good[:middle] + bytes(b ^ 0xFF for b in good[middle : middle + 64]) + good[middle + 64 :])
    truncated = tmp_path / "truncated.eval"
    truncated.write_bytes(good[: len(good) // 2])
    text = tmp_path / "notes.eval"
    text.write_text("not a log\n")
    plain = tmp_path / "notes.json"
    plain.write_text("not a log either\n")
    said = {}
    for bad in (corrupt, truncated, text, plain):
        line = one_line(run("report", "longsocial", bad))
        assert str(bad) in line and "not a readable inspect log" in line, line
        # issue 53: in words, never the exception's class ("(ValueError: EOCD not found)", "(ZstdError: ...)")
        assert not re.search(r"\b[A-Z][a-z]+(?:[A-Z][a-z]*)*(?:Error|Exception)\b|EOCD", line), line
        said[bad.name] = line
    assert "zip archive ends before its directory" in said["truncated.eval"]
    line = one_line(run("report", "longsocial", logs["perso"]))
    assert str(logs["perso"]) in line and "benchmark perso" in line and "socialbench report perso" in line


def test_an_output_that_cannot_be_written_is_said_before_reading(logs: dict[str, Path], tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("a regular file\n")
    broken = tmp_path / "broken.json"  # the input is bad too: the output is checked first
    broken.write_text("{")
    line = one_line(run("import", "hn-algolia", broken, "-o", blocker / "out.jsonl"))
    assert "is a file, not a folder" in line
    line = one_line(run("report", "longsocial", logs["longsocial"], "--html", blocker / "r.html"))
    assert "is a file, not a folder" in line


def test_a_model_role_without_a_provider_and_a_misspelt_workflow(tmp_path: Path) -> None:
    role = run("run", "sibench", "--model", "mockllm/model", "--model-role", "grader=nonexistent/x", "--limit", "1")
    assert role.returncode == 2 and "Traceback" not in role.stderr
    assert "role 'grader': no model provider 'nonexistent'" in role.stderr and "openai" in role.stderr
    typo = one_line(run("run", "longsocial", "-T", "workflow=ful", "--model", "mockllm/model", "--log-dir", tmp_path))
    assert "unknown workflow 'ful'; did you mean 'full'?" in typo


def test_report_over_a_run_whose_items_were_all_skipped(tmp_path: Path) -> None:
    (log,) = eval(
        longsocial(workflow="full", max_context=100),
        model=get_model("mockllm/model"),
        log_dir=str(tmp_path),
        display="none",
        limit=2,
    )
    done = run("report", "longsocial", str(log.location), "--json")
    assert done.returncode == 0, done.stderr
    json.loads(done.stdout, parse_constant=lambda c: pytest.fail(f"not strict JSON: {c}"))
    assert "Warning" not in done.stderr


def test_json_answers_are_strict() -> None:
    text = dump_json({"a": float("nan"), "b": [np.float64("inf"), np.int64(3)], "c": (1.5, None), "d": Path("x")})
    assert json.loads(text, parse_constant=lambda c: pytest.fail(c)) == {
        "a": None,
        "b": [None, 3],
        "c": [1.5, None],
        "d": "x",
    }


def test_report_json_is_strict_on_real_runs(logs: dict[str, Path]) -> None:
    for bench, log in logs.items():
        done = run("report", bench, log, "--json")
        assert done.returncode == 0, done.stderr
        json.loads(done.stdout, parse_constant=lambda c, b=bench: pytest.fail(f"{b}: not strict JSON: {c}"))


def _error_line(result: subprocess.CompletedProcess[str]) -> str:
    """The one error line of a refused command (click adds its usage lines before it), exit 2, no traceback."""
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr[-3000:]
    errors = [line for line in result.stderr.splitlines() if line.lower().startswith("error")]
    assert len(errors) == 1, result.stderr
    return errors[0]


def test_values_that_cannot_be_right_are_refused_with_the_file_and_key(tmp_path: Path) -> None:
    """Issue 37: a negative price gave a negative bill, -T max_tokens=-5 a negative budget, `--model ,` an empty
    plan with exit 0, a misspelt provider was planned without a word, an empty items file printed "nan%" verdicts,
    and `run --log-dir FILE` ended in a traceback."""
    negative = tmp_path / "prices.yaml"
    negative.write_text("openai/gpt-5: {input: -1.25, output: 10, input_cache_write: 0, input_cache_read: 0.125}\n")
    binary = tmp_path / "binary.yaml"
    binary.write_bytes(b"\xff\xfe\x00price")
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    a_file = tmp_path / "a-file"
    a_file.write_text("")
    infinite = tmp_path / "infinite.yaml"  # issue 53: a price that is not finite, a key no model matches
    infinite.write_text("openai/gpt-5: {input: .inf, output: 10, input_cache_write: 0, input_cache_read: 0.125}\n")
    unprefixed = tmp_path / "unprefixed.yaml"
    unprefixed.write_text("gpt-5: {input: 1.25, output: 10, input_cache_write: 0, input_cache_read: 0.125}\n")
    other = tmp_path / "other.yaml"
    other.write_text("openai/gpt-4o: {input: 2.5, output: 10, input_cache_write: 0, input_cache_read: 1.25}\n")
    plan = ["plan", "longsocial", "--model"]
    cases = [
        ([*plan, ","], "no model named"),
        ([*plan, "opnai/gpt-5"], "'opnai/gpt-5': not PROVIDER/MODEL with a known provider"),
        ([*plan, "openai/gpt-5", "-T", "max_tokens=-5"], "max_tokens=-5: an output budget is at least 1 token"),
        ([*plan, "openai/gpt-5", "-T", "max_tokens=abc"], "max_tokens='abc': not a whole number"),
        ([*plan, "openai/gpt-5", "--model-cost-config", negative], f"{negative} (record openai/gpt-5): input: a price"),
        ([*plan, "openai/gpt-5", "--model-cost-config", binary], f"{binary}: not UTF-8 text"),
        (
            [*plan, "openai/gpt-5", "--model-cost-config", infinite],
            f"{infinite} (record openai/gpt-5): input: a price must be a finite number",
        ),
        (
            [*plan, "openai/gpt-5", "--model-cost-config", unprefixed],
            f"{unprefixed} (record gpt-5): not an inspect model name",
        ),
        (
            [
                "run",
                "longsocial",
                "--model",
                "mockllm/model",
                "--model-cost-config",
                other,
                "--log-dir",
                tmp_path / "l",
            ],
            f"{other} prices none of this run's models (mockllm/model); it prices openai/gpt-4o",
        ),
        (["analyze", "longsocial", "lint", "-A", f"items={empty}"], f"{empty}: no items in the file"),
        (["analyze", "perso", "lint", "-A", f"items={empty}"], f"{empty}: no items in the file"),
        (["run", "longsocial", "--model", "mockllm/model", "--log-dir", a_file], f"{a_file} is a file"),
        (["run", "perso", "--model", "mockllm/model", "-T", "max_tokens=0"], "max_tokens=0: an output budget"),
    ]
    for args, expected in cases:
        line = _error_line(run(*args))
        assert expected in line, (args, line)


def test_a_cutoff_that_is_not_a_date_names_the_file_and_the_model(logs: dict[str, Path], tmp_path: Path) -> None:
    cutoffs = tmp_path / "cutoffs.json"
    cutoffs.write_text(json.dumps({"mockllm/model": "April 2024"}))
    line = _error_line(run("report", "longsocial", logs["longsocial"], "-R", f"cutoffs={cutoffs}"))
    assert f"{cutoffs} (record mockllm/model): cutoffs: 'April 2024' is not a date" in line, line


def test_malformed_pairs_and_an_item_without_its_thread_are_located(tmp_path: Path) -> None:
    """Issue 37: malformed `meta.pairs` in a threads file, and a study of items whose thread is missing, ended in
    a traceback or an unlocated message."""
    from socialbench.benchmarks.perso.data import default_threads
    from socialbench.benchmarks.perso.items import default_items

    with open(default_threads(), encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle]
    with_pairs = next(r for r in rows if "pairs" in (r.get("meta") or {}))
    with_pairs["meta"]["pairs"] = "w1-l1"
    threads = tmp_path / "threads.jsonl"
    threads.write_text("".join(json.dumps(r) + "\n" for r in rows))
    line = _error_line(run("run", "perso", "--model", "mockllm/model", "-T", f"threads={threads}", "--limit", "1"))
    assert f"{threads} (record {with_pairs['id']}): meta.pairs must be a list" in line, line
    items = [json.loads(x) for x in Path(default_items()).read_text().splitlines()]
    items[0]["thread_id"] = "cmv:nope"
    mine = tmp_path / "items.jsonl"
    mine.write_text("".join(json.dumps(r) + "\n" for r in items))
    made = run("study", "create", "perso-cognitive", "-o", tmp_path / "s", "--annotators", "a", "-S", f"items={mine}")
    line = _error_line(made)
    assert f"{mine} (record {items[0]['id']}): thread 'cmv:nope' is not in the threads file" in line, line
    assert not (tmp_path / "s").exists()


@pytest.mark.parametrize("member", ["study.json", "key.jsonl", "server/annotation_output/a/user_state.json"])
def test_a_study_file_that_is_a_folder_is_one_line(member: str, tmp_path: Path) -> None:
    """Issue 53: a study file that is a folder ended in a traceback (IsADirectoryError)."""
    folder = tmp_path / "study"
    made = run("study", "create", "perso-cognitive", "-o", folder, "--annotators", "a")
    assert made.returncode == 0, made.stderr[-2000:]
    target = folder / member
    if target.exists():
        target.unlink()
    target.mkdir(parents=True)
    line = one_line(run("study", "score", folder))
    assert str(target) in line and "is a folder" in line and "Error" not in line, line


def test_a_hosted_model_without_its_api_key_is_one_line(tmp_path: Path) -> None:
    """Issue 53: inspect's refusal (no OPENAI_API_KEY) ended in a traceback."""
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and "AZURE" not in k}
    done = socialbench(
        "run", "longsocial", "--model", "openai/gpt-5", "--limit", "1", "--log-dir", str(tmp_path / "logs"), env=env
    )
    line = one_line(done)
    assert "OPENAI_API_KEY" in line and "Traceback" not in done.stderr and "[bold]" not in line, line
    assert not list((tmp_path / "logs").glob("*.eval"))  # refused before any log was written
