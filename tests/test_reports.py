"""Publishable reports: figure functions on hand-built rows, and the HTML report of all three benchmarks opened in
a real headless browser (Playwright driving Debian's chromium)."""

from __future__ import annotations

import csv
import io
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval
from inspect_ai.model import ChatMessage, GenerateConfig, ModelOutput, get_model

from socialbench.benchmarks.longsocial.task import longsocial
from socialbench.benchmarks.perso import perso
from socialbench.benchmarks.sibench.prompts import COMPONENT_KEYS
from socialbench.benchmarks.sibench.task import sibench
from socialbench.shared.figures import Estimate, bars, estimate, heatmap, scatter, stacked_shares
from socialbench.shared.reporting import Document, Section, Table, write_tables


def _svg(fig: Any) -> str:
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg")
    return buffer.getvalue()


# ---- figure functions on hand-built rows ------------------------------------------------------------------
def test_bars_draw_missing_as_missing_and_label_every_n() -> None:
    fig = bars(
        "t",
        ["empty", "single", "many"],
        {"m": [Estimate(None), estimate([1.0]), estimate([0.0, 1.0, 1.0, 1.0])]},
        references={"chance": 0.25},
    )
    svg = _svg(fig)
    assert svg.count("n/a") == 1  # the empty group, never a 0 bar
    assert "n=1" in svg and "n=4" in svg and "chance" in svg
    single = estimate([1.0])
    assert (single.value, single.low, single.high, single.n) == (1.0, 1.0, 1.0, 1)
    assert estimate([]).missing


def test_bars_with_only_missing_values_and_negative_deltas() -> None:
    svg = _svg(bars("t", ["a", "b"], {"m": [Estimate(None), Estimate(None)]}))
    assert svg.count("n/a") == 2
    fig = bars("lift", ["cot"], {"m": [Estimate(-0.1, -0.2, 0.05, 30)]}, ylabel="pp")
    low, high = fig.axes[0].get_ylim()
    assert low < -20 and high > 5  # the axis shows the negative delta and its whole CI


def test_heatmap_marks_cells_without_data() -> None:
    svg = _svg(heatmap("g", ["full", "bm25"], ["m1", "m2"], {("full", "m1"): Estimate(0.5, 0.3, 0.7, 10)}))
    assert svg.count("n/a") == 3 and "n=10" in svg


def test_scatter_and_shares_survive_empty_groups() -> None:
    assert "no data" in _svg(scatter("s", {"m": []}, "x", "y"))
    svg = _svg(stacked_shares("d", ["a", "b"], {"A": [0.5, None], "B": [0.5, None]}))
    assert svg.count("n/a") == 1


def test_tables_write_csv_with_blanks_and_escaped_latex(tmp_path: Path) -> None:
    doc = Document(
        "x",
        "X",
        {"socialbench": "0", "generated": "now", "models": [], "runs": []},
        [Section("s", [Table("t-1", "Accuracy % & CI_95", ["model_name", "acc %"], [["a_b", 0.5], ["c", None]])])],
    )
    write_tables(doc, tmp_path)
    rows = list(csv.reader((tmp_path / "t-1.csv").open()))
    assert rows == [["model_name", "acc %"], ["a_b", "0.5"], ["c", ""]]  # missing is blank, not 0
    tex = (tmp_path / "t-1.tex").read_text()
    assert "\\toprule" in tex and "\\bottomrule" in tex
    assert "a\\_b" in tex and "acc \\%" in tex and "Accuracy \\% \\& CI\\_95" in tex and "–" in tex


# ---- logs of the three benchmarks on mockllm -------------------------------------------------------------
def _by_prompt(answer: Any):  # type: ignore[no-untyped-def]
    def respond(input: list[ChatMessage], tools: Any, tool_choice: Any, config: GenerateConfig) -> ModelOutput:
        return ModelOutput.from_content(model="mockllm/model", content=answer(input))

    return get_model("mockllm/model", custom_outputs=respond, memoize=False)


def _longsocial_logs(folder: Path) -> list[str]:
    def answer(messages: list[ChatMessage]) -> str:
        return "Answer: " + "ABCD"[len(messages[-1].text) % 4]

    logs = eval(
        [longsocial(workflow="full"), longsocial(workflow="bm25-k20")],
        model=_by_prompt(answer),
        limit=12,
        log_dir=str(folder),
        display="none",
    )
    return [str(log.location) for log in logs]


COT = json.dumps(
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


def _sibench_logs(folder: Path) -> list[str]:
    def model(messages: list[ChatMessage]) -> str:
        return COT if "Motivation" in messages[-1].text else json.dumps({"Response": "好的"}, ensure_ascii=False)

    def grader(messages: list[ChatMessage]) -> str:
        text = messages[-1].text
        score = len(text) % 3 * 5
        if "same score" in text:
            return json.dumps({"preferred": 1 + len(text) % 2})
        if "Score each reply" in text:
            return json.dumps({"reply_1": {"score": score}, "reply_2": {"score": 10 - score}})
        return json.dumps({k: {"score": score} for k in COMPONENT_KEYS} | {"reply": {"score": 10 - score}})

    logs = []
    for args in ({"mode": "paper"}, {"mode": "paper", "ablate": "cause"}, {"mode": "cot"}, {"mode": "direct"}):
        (log,) = eval(
            sibench(**args),
            model=_by_prompt(model),
            model_roles={"grader": _by_prompt(grader)},
            limit=6,
            log_dir=str(folder),
            display="none",
        )
        logs.append(str(log.location))
    return logs


def _perso_logs(folder: Path) -> list[str]:
    def answer(messages: list[ChatMessage]) -> str:
        text = messages[-1].text
        if "Response 1:" in text:
            return "Response 1: 3\nResponse 2: 1" if len(text) % 2 else "Response 1: 1\nResponse 2: 4"
        return "ABCD"[len(text) % 4]

    logs = eval(
        [perso(task="behavioral", subset="10"), perso(task="cognitive")],
        model=_by_prompt(answer),
        log_dir=str(folder),
        display="none",
    )
    return [str(log.location) for log in logs]


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Each benchmark's report written through the CLI, as a user runs it."""
    root = tmp_path_factory.mktemp("reports")
    builders = {"longsocial": _longsocial_logs, "sibench": _sibench_logs, "perso": _perso_logs}
    out = {}
    for bench, build in builders.items():
        logs = build(root / f"{bench}-logs")
        target = root / bench
        command = [
            str(Path(sys.executable).parent / "socialbench"),
            "report",
            bench,
            *logs,
            "--compare-paper",
            "--html",
            str(target / "report.html"),
            "--figures",
            str(target / "figures"),
            "--tables",
            str(target / "tables"),
        ]
        done = subprocess.run(command, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr[-2000:]
        out[bench] = target
    return out


@pytest.mark.parametrize("bench", ["longsocial", "sibench", "perso"])
def test_report_files_are_written(reports: dict[str, Path], bench: str) -> None:
    folder = reports[bench]
    html = (folder / "report.html").read_text()
    figures = re.findall(r'<figure id="figure-([^"]+)"', html)
    tables = re.findall(r'<section class="table" id="table-([^"]+)"', html)
    assert figures and tables
    for name in figures:  # every figure of the page also as SVG and PDF
        assert (folder / "figures" / f"{name}.svg").stat().st_size > 0
        assert (folder / "figures" / f"{name}.pdf").read_bytes().startswith(b"%PDF")
    for name in tables:
        assert (folder / "tables" / f"{name}.csv").exists() and "\\toprule" in (
            folder / "tables" / f"{name}.tex"
        ).read_text()
    # self-contained: no script, no stylesheet link, nothing fetched
    assert "<script" not in html and "<link" not in html and not re.search(r'(src|href)="https?:', html)
    # what produced it
    assert "mockllm/model" in html and "socialbench" in html and ".eval" in html
    assert "paper" in html.lower()  # --compare-paper adds the paper's numbers, labelled


def test_reports_open_in_a_real_browser_without_errors(reports: dict[str, Path], browser: Any) -> None:
    for bench, folder in reports.items():
        page = browser.new_page()
        errors: list[str] = []
        requests: list[str] = []
        page.on("console", lambda m, seen=errors: seen.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e, seen=errors: seen.append(str(e)))
        page.on("request", lambda r, seen=requests: seen.append(r.url))
        page.goto((folder / "report.html").as_uri())
        assert errors == [], (bench, errors)
        assert all(url.startswith("file:") for url in requests), requests
        links = page.locator("nav a")
        assert links.count() > 0
        for i in range(links.count()):  # every entry of the contents is present and visible
            target = links.nth(i).get_attribute("href")
            assert target and target.startswith("#")
            part = page.locator(target)
            assert part.count() == 1, (bench, target)
            part.scroll_into_view_if_needed()
            assert part.is_visible(), (bench, target)
            if part.get_attribute("data-part") == "figure":
                box = part.locator("svg").bounding_box()
                assert box and box["width"] > 100 and box["height"] > 100, (bench, target)
        page.close()
