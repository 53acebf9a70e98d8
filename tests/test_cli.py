"""The `socialbench` command as a user runs it (a real subprocess)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conftest import socialbench


def run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return socialbench(*args)


@pytest.mark.parametrize(
    ("fmt", "path", "episodes"),
    [
        ("hn-algolia", "hackernews/algolia_item_18475438.json", 1),
        ("reddit-json", "reddit/thread_1cebxh.json", 1),
        ("stackexchange", "stackexchange", 556),
        ("convokit", "convokit", 50),
        ("cmv", "cmv", 67),
        ("sibench", "sibench/SI-Bench.json", 2221),
    ],
)
def test_import_then_stats(data: Path, tmp_path: Path, fmt: str, path: str, episodes: int) -> None:
    out = tmp_path / "episodes.jsonl"
    result = run("import", fmt, data / path, "-o", out)
    assert result.returncode == 0, result.stderr
    assert f"wrote {episodes} episodes" in result.stderr
    stats = run("stats", out, "--json")
    assert stats.returncode == 0, stats.stderr
    payload = json.loads(stats.stdout)
    assert len(payload["episodes"]) == episodes
    assert payload["sources"][0]["episodes"] == episodes


def test_stats_table_and_show(data: Path, tmp_path: Path) -> None:
    out = tmp_path / "hn.jsonl"
    assert run("import", "hn-algolia", data / "hackernews/algolia_item_18475438.json", "-o", out).returncode == 0
    table = run("stats", out)
    assert "Tokens med." in table.stdout and "146.0" in table.stdout and "30.0" in table.stdout
    payload = json.loads(run("stats", out, "--json").stdout)
    assert payload["episodes"][0]["max_depth"] == 7 and payload["sources"][0]["mean_nodes"] == 146
    shown = run("show", out, "hn:18475438")
    assert shown.returncode == 0 and shown.stdout.startswith("DISCUSSION hn:18475438 (Hacker News)")
    missing = run("show", out, "hn:1")
    assert missing.returncode == 2 and "no episode with id 'hn:1'" in missing.stderr


def test_bad_input_is_one_line_and_exit_2(data: Path, tmp_path: Path) -> None:
    broken = tmp_path / "thread.json"
    broken.write_bytes((data / "hackernews/algolia_item_18475438.json").read_bytes()[:5000])
    result = run("import", "hn-algolia", broken, "-o", tmp_path / "out.jsonl")
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and re.search(r"thread\.json:\d+: truncated JSON document", lines[0])
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "out.jsonl").exists()  # nothing half-written
    debug = run("--debug", "import", "hn-algolia", broken, "-o", tmp_path / "out.jsonl")
    assert debug.returncode == 2 and "Traceback" in debug.stderr
    unknown = run("import", "mastodon", broken, "-o", tmp_path / "out.jsonl")
    assert unknown.returncode == 2 and "mastodon" in unknown.stderr


def test_pushshift_skip_bad_reports(data: Path, tmp_path: Path) -> None:
    raw = json.loads((data / "reddit/thread_1cebxh.json").read_text())
    comments = [c["data"] for c in raw[1]["data"]["children"] if c["kind"] == "t1"]
    dump = tmp_path / "RC.jsonl"
    dump.write_text(
        "\n".join(
            [
                *(json.dumps({**c, "replies": ""}) for c in comments[:5]),
                '{"id": oops, "link_id": "t3_1cebxh", "body": "some text here"}',
            ]
        )
        + "\n"
    )
    strict = run("import", "pushshift", dump, "-o", tmp_path / "a.jsonl")
    assert strict.returncode == 2 and "RC.jsonl:6: invalid JSON" in strict.stderr
    lenient = run("import", "pushshift", dump, "--skip-bad", "-o", tmp_path / "a.jsonl")
    assert lenient.returncode == 0 and "skipped 1 bad records of 6" in lenient.stderr


def test_run_prints_the_table_and_log_path(tmp_path: Path) -> None:
    result = run(
        "run", "longsocial", "-T", "workflow=full", "--model", "mockllm/model", "--limit", "6", "--log-dir", tmp_path
    )
    assert result.returncode == 0, result.stderr
    assert "LongSocialBench — mockllm/model — workflow full" in result.stdout
    # mockllm's default output names no letter: every asked item is counted as unparsed, none crash
    all_row = next(line for line in result.stdout.splitlines() if "All items" in line)
    assert re.search(r"All items\s*│\s*6\s*│\s*6\s*│\s*0\.0\s*│.*│\s*6\s*│\s*0\s*│", all_row), all_row
    logs = list(tmp_path.glob("*.eval"))
    assert len(logs) == 1 and str(logs[0].name) in result.stdout.replace("\n", "")


def test_a_run_that_asked_nothing_prints_dashes_not_zeros(tmp_path: Path) -> None:
    # a 1,000-token window fits none of the sample pack's episodes: all three items are skipped as over-length
    result = run(
        "run", "longsocial", "-T", "max_context=1000", "--model", "mockllm/model", "--limit", "3", "--log-dir", tmp_path
    )
    assert result.returncode == 0, result.stderr
    all_row = next(line for line in result.stdout.splitlines() if "All items" in line)
    assert re.search(r"All items\s*│\s*3\s*│\s*0\s*│\s*-\s*│\s*-\s*│\s*0\s*│\s*3\s*│", all_row), all_row
    assert "0.0" not in result.stdout.split("All items")[1].split("log:")[0]
    assert "C-mac (mean over C1-C6): - (no asked items for C1, C2, C3, C4, C5, C6)" in result.stdout


def test_list_shows_benchmarks_tasks_parameters_and_workflows() -> None:
    result = run("list")
    assert result.returncode == 0, result.stderr
    text = result.stdout
    for expected in ("longsocial", "LongSocialBench", "sibench", "SI-Bench", "task longsocial", "task sibench"):
        assert expected in text
    # parameters with their types, defaults and docstring text
    assert re.search(r"answer_mode\s*│\s*auto\|generate\|logprobs\s*│\s*'auto'", text)
    assert re.search(r"mode\s*│\s*paper\|cot\|direct\|pairwise\s*│\s*'paper'", text)
    assert "option-shuffling seed" in text
    assert re.search(r"│ full\s*│ Full context", text)  # the registered workflows
    assert re.search(r"similarity\s*│\s*bool\s*│\s*True", text)  # a report option (-R)
    flat = " ".join(text.split())  # the embedded model each task runs on without --model (issue 65)
    assert "without --model: socialbench/gemma-3-270m (multiple choice from log-probabilities;" in flat
    instruct = "socialbench/smollm2-135m-instruct"
    assert f"without --model: {instruct}, grader={instruct} (writes replies; grader: rubric JSON)" in flat
    assert f"without --model: {instruct}, generator={instruct} (generator: item JSON)" in flat


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["run", "longsocial", "-T", "wrkflow=full"],
            "-T wrkflow: unknown argument of longsocial; did you mean 'workflow'? valid: items, ",
        ),
        (["run", "longsocal"], "unknown benchmark 'longsocal'; did you mean 'longsocial'? available: longsocial, "),
        (["run", "longsocial", "-T", "workflow=bm25-k2O"], "unknown workflow 'bm25-k2O'; did you mean 'bm25-k20'? "),
        (["analyze", "longsocial", "recal"], "has no analysis 'recal'; did you mean 'recall'? analyses: "),
        (
            ["study", "create", "longsocial-reader", "-o", "x", "--annotators", "a"],
            "unknown study 'longsocial-reader'; did you mean ",
        ),
        (["import", "hn-algolai", "x", "-o", "y"], "unknown format 'hn-algolai'; did you mean 'hn-algolia'? formats: "),
        (["run", "longsocial", "-T", "workflow=nope"], "unknown workflow 'nope'; registered: full, cot, cot-evidence"),
        (["run", "longsocial", "-T", "max_context=lots"], "-T max_context='lots': Input should be a valid integer"),
        (["run", "longsocial", "-T", "answer_mode=maybe"], "-T answer_mode='maybe': Input should be 'auto'"),
        (["run", "sibench", "-T", "mode=direct", "-T", "max_context=10"], "unknown argument of sibench"),
        (["run", "sotopia"], "unknown benchmark 'sotopia'; available: longsocial, perso, sibench"),
        (["run", "longsocial", "--task", "other"], "benchmark 'longsocial' has no task 'other'; tasks: longsocial"),
        (["run", "longsocial", "-T", "novalue"], "-T expects KEY=VALUE, got 'novalue'"),
        (["report", "sibench", "nowhere/"], "nowhere: no such log file or folder"),
        (
            ["report", "sibench", ".", "-R", "similarty=false"],
            "-R similarty: unknown argument of report; did you mean ",
        ),
    ],
)
def test_bad_arguments_are_one_line_errors(args: list[str], message: str) -> None:
    result = run(*args, "--model", "mockllm/model") if args[0] == "run" else run(*args)
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert message in result.stderr and "Traceback" not in result.stderr
    assert result.stderr.count("\n") == 1, result.stderr


@pytest.mark.subprocess
def test_inspect_cli_finds_the_task_through_the_entry_point(tmp_path: Path) -> None:
    inspect = Path(sys.executable).parent / "inspect"
    result = subprocess.run(
        [
            str(inspect),
            "eval",
            "socialbench/longsocial",
            "--model",
            "mockllm/model",
            "--limit",
            "2",
            "--log-dir",
            str(tmp_path),
            "--display",
            "plain",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert len(list(tmp_path.glob("*.eval"))) == 1


def test_run_sibench_prints_its_table(tmp_path: Path) -> None:
    result = run(
        "run",
        "sibench",
        "-T",
        "mode=direct",
        "--model",
        "mockllm/model",
        "--limit",
        "3",
        "--log-dir",
        tmp_path,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert "SI-Bench — mockllm/model — mode direct" in result.stdout
    all_row = next(line for line in result.stdout.splitlines() if line.startswith("│ All"))
    assert re.search(r"│ All\s*│\s*3\s*│\s*-\s*│\s*3\s*│\s*0\s*│\s*0\s*│", all_row), all_row  # 3 unparsed


def test_report_sibench_from_logs(tmp_path: Path, data: Path) -> None:
    assert (
        run(
            "run",
            "sibench",
            "-T",
            "mode=direct",
            "--model",
            "mockllm/model",
            "--limit",
            "2",
            "--log-dir",
            tmp_path,
        ).returncode
        == 0
    )
    result = run("report", "sibench", tmp_path, "--json", "-R", "similarity=false")
    assert result.returncode == 0, result.stderr[-2000:]
    tables = json.loads(result.stdout)
    (row,) = tables["table1"]
    assert row["model"] == "mockllm/model" and row["n_direct"] == 0  # both replies unparsed: no judged mean
    assert row["direct_reply"] is None


def test_a_resumed_single_run_prints_its_samples(tmp_path: Path) -> None:
    args = ["run", "longsocial", "-T", "workflow=question-only", "--model", "mockllm/model", "--limit", "3"]
    result = run(*args, "--log-dir", tmp_path, "--resume")
    assert result.returncode == 0, result.stderr[-2000:]
    assert re.search(r"All items\s*│\s*3\s*│\s*3", result.stdout)  # eval_set's logs come back without samples


def test_a_repeated_task_argument_runs_a_grid_and_prints_the_report(tmp_path: Path) -> None:
    args = ["run", "longsocial", "-T", "workflow=full", "-T", "workflow=question-only", "-T", "seed=1"]
    result = run(*args, "--model", "mockllm/model", "--limit", "2", "--log-dir", tmp_path, "--resume")
    assert result.returncode == 0, result.stderr[-2000:]
    assert len(list(tmp_path.glob("*.eval"))) == 2
    assert "Grid (Table 14 cells)" in result.stdout
    # Wilson: 0 of 2 is [0.0, 65.8], the full row's accuracy over its 2 asked items
    assert re.search(r"• full · [^\n]*\n\s+accuracy % 0\.0 \[0\.0, 65\.8\]; asked 2;", result.stdout), result.stdout
    assert re.search(r"• question-only \(diagnostic\) · ", result.stdout)
    # the answer last: the headline, what differs between the runs, and where the logs are
    tail = " ".join(result.stdout.split())
    assert tail.index("Each model's Full accuracy") > tail.index("Tokens and cost per run")
    assert tail.endswith(f"2 logs in {tmp_path} (open with `inspect view --log-dir {tmp_path}`)")
    # run again with --resume: the eval set is already complete, so no new log is written
    again = run(*args, "--model", "mockllm/model", "--limit", "2", "--log-dir", tmp_path, "--resume")
    assert again.returncode == 0 and len(list(tmp_path.glob("*.eval"))) == 2


@pytest.mark.model  # the e5 rows embed with the shipped sentence-transformers model
def test_analyze_recall_prints_table_18_for_the_sample_pack() -> None:
    result = run("analyze", "longsocial", "recall", "--json")
    assert result.returncode == 0, result.stderr[-2000:]
    rows = {r["setting"]: r for r in json.loads(result.stdout)["recall"]}
    assert rows["bm25-k20"]["items"] == 36 and rows["e5-k20"]["embedder"] == "sentence-transformers/all-MiniLM-L6-v2"
    assert 0 < rows["bm25-k20"]["mean_recall"] <= rows["bm25-k50"]["mean_recall"] <= 1
    unknown = run("analyze", "longsocial", "nothing")
    assert unknown.returncode == 2 and "no analysis 'nothing'; analyses: recall" in unknown.stderr


def test_report_counts_each_run_once_when_a_folder_holds_reruns(tmp_path: Path) -> None:
    written: list[Path] = []  # each run's log, in the order they ran (a rerun can be created in the same second)
    for args in (["-T", "workflow=full"], ["-T", "workflow=full"], ["-T", "workflow=question-only"]):
        done = run("run", "longsocial", *args, "--model", "mockllm/model", "--limit", "2", "--log-dir", tmp_path)
        assert done.returncode == 0, done.stderr[-2000:]
        (new,) = set(tmp_path.glob("*.eval")) - set(written)
        written.append(new)
    result = run("report", "longsocial", tmp_path, "--json")
    assert result.returncode == 0, result.stderr[-2000:]
    runs = json.loads(result.stdout)["runs"]
    assert sorted(r["workflow"] for r in runs) == ["full", "question-only"]  # the rerun of full counted once
    assert next(r["log"] for r in runs if r["workflow"] == "full") == str(written[1])  # the later of the two


@pytest.mark.parametrize(
    ("option", "value", "minimum"),
    [
        ("--max-connections", "0", 1),  # issue 53: never returned, and left an empty log
        ("--max-connections", "-3", 1),
        ("--limit", "-2", 1),
        ("--max-samples", "0", 1),
        ("--timeout", "0", 1),
        ("--max-retries", "-1", 0),
        ("--batch", "0", 1),
    ],
)
def test_every_count_like_run_option_has_a_minimum_named_in_its_message(
    option: str, value: str, minimum: int, tmp_path: Path
) -> None:
    command = [str(Path(sys.executable).parent / "socialbench"), "run", "longsocial", "--model", "mockllm/model"]
    command += [f"{option}={value}", "--log-dir", str(tmp_path / "logs")]
    done = subprocess.run(command, capture_output=True, text=True)
    assert done.returncode == 2 and option in done.stderr and f"at least {minimum}" in done.stderr, done.stderr
    assert not (tmp_path / "logs").exists()  # refused before anything runs


def test_study_create_help_names_every_study_kind() -> None:
    """Issue 52: `study create --help` named four examples; only `socialbench list` named them all."""
    from socialbench.benchmarks import registered

    done = subprocess.run([str(Path(sys.executable).parent / "socialbench"), "study", "create", "--help"],
                          capture_output=True, text=True)  # fmt: skip
    assert done.returncode == 0, done.stderr
    kinds = [name for b in registered().values() for name in b.studies]
    assert len(kinds) >= 10 and all(re.search(rf"^\s+{re.escape(k)}\s", done.stdout, re.M) for k in kinds), done.stdout


def test_a_hosted_model_the_price_list_does_not_know_is_named_before_the_run(tmp_path: Path) -> None:
    """Issue 53: a misspelt model was accepted unsaid (the provider refuses it only at its first call, after the
    tasks were built). A hosted model the price list does not know is named before the run, with what to check; a
    known one and a local server's model are not."""
    from conftest import free_port

    dead = f"http://127.0.0.1:{free_port()}/v1"  # nothing listens: the run fails fast after the note
    for model, noted in (("openai/gpt-4o-mnii", True), ("openai/gpt-4o-mini", False), ("openai-api/x/y", False)):
        done = run("run", "longsocial", "-T", "workflow=full", "--limit", "1", "--model", model,
                   "--model-base-url", dead, "--max-retries", "0", "--timeout", "5", "--log-dir", tmp_path / "logs",
                   "--display", "plain")  # fmt: skip
        text = " ".join(done.stderr.split())
        assert (f"note: {model} is not in the price list" in text) == noted, (model, text[-1500:])
        if noted:
            assert "check its name" in text


# ---- `socialbench run` over inspect's eval: each option it rewrites, one named function (issue 63) -------------
def test_reasoning_flags_are_the_task_arguments_they_stand_for() -> None:
    import click

    from socialbench.benchmarks.longsocial import longsocial
    from socialbench.benchmarks.perso import perso
    from socialbench.cli import _declared_reasoning

    assert _declared_reasoning(longsocial, ("seed=1",), True, (), None) == ("seed=1", "reasoning=true")
    roles = {"grader": "openai/o3"}
    assert _declared_reasoning(longsocial, (), False, ("grader", "grader"), roles) == ("reasoning_roles=grader",)
    for args, message in (
        (((" reasoning = false",), True, (), None), "given twice"),
        (((), False, ("judge",), roles), "no --model-role given for judge"),
        (((), False, ("grader",), roles), "has no model role to declare"),
    ):
        fn = perso if "model role to declare" in message else longsocial
        with pytest.raises(click.BadParameter, match=message):
            _declared_reasoning(fn, *args)


def test_batch_is_inspects_batch_option_without_a_connection_bound(capsys: pytest.CaptureFixture[str]) -> None:
    import click

    from socialbench.cli import _batch_options

    assert _batch_options(None, 4) == {}
    assert _batch_options("on", None) == {"batch": True}
    assert _batch_options("50", 4) == {"batch": 50, "max_connections": None}
    assert "--max-connections 4 does not bound a batch run" in capsys.readouterr().err
    for bad in ("0", "x", "-3"):
        with pytest.raises(click.BadParameter, match="at least 1"):
            _batch_options(bad, None)


def test_a_price_file_must_price_a_model_the_run_calls(tmp_path: Path) -> None:
    import click

    from socialbench.cli import _run_prices

    prices = tmp_path / "prices.yaml"
    prices.write_text("openai/gpt-5: {input: 1.25, output: 10, input_cache_write: 1.25, input_cache_read: 0.125}\n")
    assert _run_prices(None, ["openai/gpt-5"]) == {}
    assert set(_run_prices(str(prices), ["openai/gpt-5", "anthropic/claude-sonnet-4-5"])) == {"openai/gpt-5"}
    with pytest.raises(click.BadParameter, match="prices none of this run's models"):
        _run_prices(str(prices), ["gpt-5"])


def test_cache_ttl_is_anthropics_model_argument() -> None:
    import click

    from socialbench.cli import _cache_ttl_argument

    assert _cache_ttl_argument(None, ["openai/gpt-5"]) == {}
    assert _cache_ttl_argument("1h", ["anthropic/claude-sonnet-4-5"]) == {"cache_ttl": "1h"}
    with pytest.raises(click.BadParameter, match="anthropic/ models only, not openai/gpt-5"):
        _cache_ttl_argument("1h", ["anthropic/claude-sonnet-4-5", "openai/gpt-5"])


@pytest.mark.parametrize(
    ("fmt", "path", "reads_as"),
    [
        ("hn-algolia", "reddit/thread_1cebxh.json", "reddit-json"),
        ("sibench", "reddit/thread_1cebxh.json", "reddit-json"),
        ("cmv-pairs", "sibench/SI-Bench.json", "sibench"),
        ("reddit-json", "hackernews/algolia_item_18475438.json", "hn-algolia"),
    ],
)
def test_a_file_in_another_known_format_names_the_importer_that_reads_it(
    fmt: str, path: str, reads_as: str, data: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out.jsonl"
    done = socialbench("import", fmt, str(data / path), "-o", str(out))
    assert done.returncode == 2 and not out.exists()
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr  # one line (a parallel run once saw more: the stderr says what they were)
    (line,) = lines
    assert f"(not {fmt}: it reads as " in line and f"`socialbench import {reads_as} ...`" in line


def test_a_file_no_format_reads_gets_its_own_error_alone(tmp_path: Path) -> None:
    bad = tmp_path / "notes.json"
    bad.write_text('{"hello": "world"}')
    done = socialbench("import", "hn-algolia", str(bad), "-o", str(tmp_path / "out.jsonl"))
    assert done.returncode == 2 and "it reads as" not in done.stderr


@pytest.mark.parametrize(
    ("bench", "task", "args", "roles", "model", "bound"),
    [
        ("longsocial", None, {"workflow": "full"}, {}, "socialbench/gemma-3-270m", {}),
        ("longsocial", None, {"workflow": "bm25-k20"}, {}, "socialbench/gemma-3-270m", {}),
        ("longsocial", None, {"workflow": "open-answer"}, {}, "socialbench/gemma-3-270m",
         {"grader": "socialbench/smollm2-135m-instruct"}),
        ("longsocial", None, {"workflow": "open-answer"}, {"grader": "openai/gpt-4o"}, "socialbench/gemma-3-270m", {}),
        ("sibench", None, {}, {}, "socialbench/smollm2-135m-instruct", {"grader": "socialbench/smollm2-135m-instruct"}),
        ("perso", None, {"task": "behavioral"}, {}, "socialbench/smollm2-135m-instruct", {}),
        ("perso", "perso_generate", {}, {}, "socialbench/smollm2-135m-instruct",
         {"generator": "socialbench/smollm2-135m-instruct"}),
    ],
)  # fmt: skip
def test_a_run_without_a_model_takes_the_embedded_model_each_tasks_work_needs(
    bench: str,
    task: str | None,
    args: dict[str, str],
    roles: dict[str, str],
    model: str,
    bound: dict[str, str],
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Issue 65: multiple choice on the base model's log-probabilities, writing and every grader / generator role on
    the instruct model; a role the task does not call stays unbound (it would change the run's identity), and a role
    the user gave is the user's."""
    from socialbench import cli
    from socialbench.benchmarks import get_benchmark

    benchmark = get_benchmark(bench)
    (chosen,) = cli._embedded(benchmark, benchmark.task(task), [args], roles)
    assert (chosen.model, dict(chosen.roles)) == (model, bound)
    said = capsys.readouterr().err
    assert f"no --model: the embedded {model}" in said and "pipeline check" in said


def test_tasks_are_built_with_their_models_roles_and_the_model_arguments_only_of_the_models_under_test(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """One model object per name (a role played by the model under test shares it); -M reaches the models under
    test, never a role's own embedded model (Gemma's -M n_ctx=32768 would not fit SmolLM2's 8K window)."""
    import types

    import inspect_ai.model

    from socialbench import cli

    loaded: list[tuple[str, dict[str, Any]]] = []

    def fake_get_model(name: str, base_url: str | None = None, config: Any = None, **args: Any) -> str:
        loaded.append((name, args))
        return f"<{name}>"

    monkeypatch.setattr(inspect_ai.model, "get_model", fake_get_model)

    def fn(**args: Any) -> Any:
        return types.SimpleNamespace(args=args, model=None, model_roles=None)

    base, instruct = "socialbench/gemma-3-270m", "socialbench/smollm2-135m-instruct"
    plan = [({"workflow": "full"}, base, {}), ({"workflow": "open-answer"}, base, {"grader": instruct})]
    tasks = cli._build_tasks(fn, plan, None, {"n_ctx": 32768}, {})
    assert loaded == [(base, {"n_ctx": 32768}), (instruct, {})]
    assert [(t.args, t.model, t.model_roles) for t in tasks] == [
        ({"workflow": "full"}, f"<{base}>", None),
        ({"workflow": "open-answer"}, f"<{base}>", {"grader": f"<{instruct}>"}),
    ]
    loaded.clear()  # SI-Bench: the instruct model grades itself, one instance
    (task,) = cli._build_tasks(fn, [({}, instruct, {"grader": instruct})], None, {"n_ctx": 4096}, {})
    assert loaded == [(instruct, {"n_ctx": 4096})] and task.model_roles == {"grader": f"<{instruct}>"}
    loaded.clear()  # --model a,b: every task once per model, each with the -M arguments
    plan = [(args, name, {}) for name in ("m/a", "m/b") for args in ({"seed": 0}, {"seed": 1})]
    tasks = cli._build_tasks(fn, plan, None, {"k": 1}, {})
    assert loaded == [("m/a", {"k": 1}), ("m/b", {"k": 1})]
    assert [(t.model, t.args["seed"]) for t in tasks] == [("<m/a>", 0), ("<m/a>", 1), ("<m/b>", 0), ("<m/b>", 1)]
