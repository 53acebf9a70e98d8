"""Issue 52: what a reader meets, at the size of a real grid, looked at in a real browser and a real pdflatex.

The screenshots (each report and study page at 1,280 and 390 px) go to ``$SOCIALBENCH_SCREENSHOTS`` when it is
set (to look at them), else to the test's temporary folder; each is also checked to show something."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval
from inspect_ai.model import ChatMessage, GenerateConfig, ModelOutput, get_model

from conftest import chromium_browser, free_port, potato_login
from socialbench.benchmarks.longsocial.task import longsocial
from socialbench.shared import studies

SOCIALBENCH = str(Path(sys.executable).parent / "socialbench")
MODELS = (
    "anthropic/claude-sonnet-4-5-20250929",
    "openai/gpt-5-mini-2025-08-07",
    "google/gemini-2.5-flash-lite-preview-09-2025",
)
"""Provider model names as long as real ones (the grid table was shrunk to 0.62 with them)."""
LATEX_DOCUMENT = (
    "\\documentclass[twocolumn]{article}\n\\usepackage{booktabs}\n\\usepackage{graphicx}\n\\begin{document}\n"
    "%s\n\\end{document}\n"
)


def _shots(tmp_path: Path) -> Path:
    folder = Path(os.environ.get("SOCIALBENCH_SCREENSHOTS") or tmp_path / "screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _shows_something(png: Path) -> None:
    """A screenshot that is not blank: many pixels that are not the background."""
    from PIL import Image

    with Image.open(png) as image:
        grey = image.convert("L")
        dark = sum(1 for value in grey.getdata() if value < 200)
        assert dark > grey.width * grey.height * 0.002, png


def _renamer() -> Any:
    path = Path(__file__).resolve().parents[1] / "benchmarks" / "report_speed.py"
    spec = importlib.util.spec_from_file_location("bench_report_speed", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def grid_logs(folder: Path, settings: tuple[str, ...], limit: int = 4) -> list[str]:
    """Each setting run once on mockllm over the sample pack's first ``limit`` items, its log copied for each of
    `MODELS` (the header naming that model): a grid of settings x models."""

    def respond(input: list[ChatMessage], tools: Any, tool_choice: Any, config: GenerateConfig) -> ModelOutput:
        return ModelOutput.from_content(model="mockllm/model", content="Answer: " + "ABCD"[len(input[-1].text) % 4])

    model = get_model("mockllm/model", custom_outputs=respond, memoize=False)
    runs = eval(
        [longsocial(workflow=s) for s in settings],
        model=model,
        model_roles={"grader": model},  # open-answer's
        limit=limit,
        log_dir=str(folder / "first"),
        display="none",
        max_tasks=4,
    )
    assert all(r.status == "success" for r in runs)
    renamed = _renamer()._renamed
    out = folder / "logs"
    out.mkdir()
    for run, setting in zip(runs, settings, strict=True):
        for name in MODELS:
            renamed(Path(str(run.location)), out / f"{setting}-{name.split('/')[0]}.eval", name)
    return sorted(str(p) for p in out.glob("*.eval"))


FIFTEEN = ("full", "cot", "bm25-k20", "struct-ancestors", "option-only")
"""Five settings x three models: a 15-series grid."""


@pytest.mark.browser
def test_a_15_series_grid_report_opens_with_its_headline_and_reads_at_1280_and_390_px(tmp_path: Path) -> None:
    """The first screen held the title, the run count and a 21-entry contents list; the contents' second column ran
    into the first; setting names broke at their hyphen at 390 px (``bm25-`` / ``k20``); at 390 px every figure was
    shrunk to 371 px and no text could be read. Now: the headline table (each model's Full and best setting with
    intervals and n) and a line on what differs open the page; contents entries keep to their column; hyphenated
    names stay whole; on a phone a figure keeps its size in a box that scrolls sideways, and says so."""
    logs = grid_logs(tmp_path, FIFTEEN)
    html = tmp_path / "report.html"
    done = subprocess.run([SOCIALBENCH, "report", "longsocial", *logs, "--html", str(html)], capture_output=True,
                          text=True, timeout=1800)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    shots = _shots(tmp_path)
    with chromium_browser() as browser:  # after the runs: inspect's eval cannot run under Playwright's event loop
        _look_at_the_grid(browser, html, shots)


def _look_at_the_grid(browser: Any, html: Path, shots: Path) -> None:
    for width, height in ((1280, 900), (390, 844)):
        page = browser.new_page(viewport={"width": width, "height": height})
        page.goto(html.as_uri())
        first = shots / f"grid-15-{width}-first-screen.png"
        page.screenshot(path=str(first))
        page.screenshot(path=str(shots / f"grid-15-{width}.png"), full_page=True)
        _shows_something(first)
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        # the answer first: the headline table is the page's first table, its first row on the first screen
        head = page.evaluate(
            "(() => { const t = document.querySelector('table'); const row = t.querySelector('tbody tr');"
            " return [t.closest('section').id, row.getBoundingClientRect().bottom,"
            " document.querySelector('.differs').textContent]; })()"
        )
        assert head[0] == "table-longsocial-headline" and head[1] < height, head
        assert "15 runs, differing in model (3)" in head[2] and "workflow (5)" in head[2], head[2]
        rows = page.evaluate(
            "[...document.querySelectorAll('#table-longsocial-headline tbody tr')]"
            ".map(r => [...r.querySelectorAll('td')].map(c => c.textContent))"
        )
        assert sorted(r[0] for r in rows) == sorted(MODELS) and all(re.search(r"\[.*\] n=\d", r[2]) for r in rows)
        # contents: every entry within one column, none over another
        entries = page.evaluate(
            "[...document.querySelectorAll('nav li')].map(li => [...li.getClientRects()]"
            ".map(r => [r.left, r.top, r.right, r.bottom]))"
        )
        assert len(entries) >= 15
        for rects in entries:
            assert max(r[0] for r in rects) - min(r[0] for r in rects) < 40, rects  # not split across columns
        boxes = [(min(r[0] for r in e), min(r[1] for r in e), max(r[2] for r in e), max(r[3] for r in e))
                 for e in entries]  # fmt: skip
        for i, a in enumerate(boxes):
            for b in boxes[i + 1 :]:
                overlap = min(a[2], b[2]) - max(a[0], b[0]) > 1 and min(a[3], b[3]) - max(a[1], b[1]) > 1
                assert not overlap, (a, b)
        # a hyphenated setting name is never broken at its hyphen
        names = page.evaluate(
            "[...document.querySelectorAll('td .nb')].map(s => [s.textContent, s.getClientRects().length])"
        )
        assert any(n == "bm25-k20" for n, _ in names) and all(lines == 1 for _, lines in names), names
        # figures: shrunk to the page on a desktop; at their size in a sideways box on a phone, which says so
        figures = page.evaluate(
            "[...document.querySelectorAll('figure .fig svg')].map(s => [s.getBoundingClientRect().width,"
            " parseFloat(s.getAttribute('width')) * 96 / 72, s.closest('.fig').clientWidth,"
            " getComputedStyle(s.closest('figure').querySelector('.phone')).display])"
        )
        assert len(figures) >= 5
        for drawn, natural, box, hint in figures:
            if width == 390:
                assert drawn >= natural * 0.99 and hint != "none", (drawn, natural, hint)
            else:
                assert drawn <= box + 1 and hint == "none", (drawn, box, hint)
        for n, figure in enumerate(page.locator("figure").all()):
            shot = shots / f"grid-15-{width}-figure-{n + 1}.png"
            figure.screenshot(path=str(shot))
            _shows_something(shot)
        page.close()


@pytest.mark.latex
def test_every_latex_table_of_a_29_by_3_grid_fits_a_two_column_paper(tmp_path: Path) -> None:
    """`perso-paper.tex` was a float too large for the page by 1,762 pt, a grid of 29 settings x 3 models too tall
    by ~1,057 pt, and with real provider model names the grid table was shrunk to 0.62 (under 70%); a line starting
    with "[" ("[fell back to Full on 4/4]") did not compile. Every table of the report compiles in a two-column
    paper: no overfull box, no float too large, nothing shrunk under 70%, and the report warns of nothing."""
    if shutil.which("pdflatex") is None:
        pytest.skip("pdflatex is not installed (`make test` installs texlive-latex-base and -recommended)")
    report_speed = _renamer()
    logs = grid_logs(tmp_path, report_speed.PAPER_SETTINGS)
    assert len(logs) == 29 * 3
    tables = tmp_path / "tables"
    done = subprocess.run([SOCIALBENCH, "report", "longsocial", *logs, "--tables", str(tables)], capture_output=True,
                          text=True, timeout=1800)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert "warning:" not in done.stderr, done.stderr[-2000:]
    written = sorted(tables.glob("*.tex"))
    assert len(written) >= 12
    split = 0
    for tex in written:
        body = tex.read_text()
        split += "(continued, part 2 of" in body
        measured = body.replace(r"\ifdim\wd0>", r"\typeout{WIDTH \the\wd0\space LINE \the\linewidth}\ifdim\wd0>")
        source = tmp_path / f"{tex.stem}.tex"
        source.write_text(LATEX_DOCUMENT % measured)
        compiled = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", source.name],
                                  cwd=tmp_path, capture_output=True, text=True, timeout=600)  # fmt: skip
        log = compiled.stdout
        assert compiled.returncode == 0, (tex.name, log[-1500:])
        assert "Overfull \\hbox" not in log and "Float too large" not in log, (tex.name, log[-1500:])
        assert "is shrunk below" not in log, tex.name
        parts = re.findall(r"WIDTH ([\d.]+)pt ?LINE ([\d.]+)pt", log)
        assert parts and len(parts) == body.count(r"\ifdim\wd0>"), tex.name
        for width, line in parts:
            assert float(line) / float(width) >= 0.7, (tex.name, width, line)
    assert split >= 3  # the grid and the per-run tables of 87 rows are split into floats that fit


def _study_args(kind: str, tmp_path: Path) -> list[str]:
    """A small study of each kind (the same inputs the end-to-end study tests use)."""
    from test_release import EPISODE, _authored, _verify
    from test_studies import _sibench_logs

    if kind.startswith("sibench"):
        return ["--logs", str(_sibench_logs(tmp_path / "sibench-logs"))]
    if kind == "longsocial-adjudicate":
        authored, _ = _authored(tmp_path / "authoring")
        verify = _verify(tmp_path / "authoring", authored, wrong={"cmv2rnr30-C4-bob-w0001"})
        return ["--items", str(authored), "-S", f"verified={verify}"]
    return {
        "longsocial-author": ["-S", f"ids={EPISODE}"],
        "longsocial-readers": ["-S", "limit=2", "-S", "attention=0"],
        "longsocial-verify": ["-S", "limit=2", "-S", "attention=0"],
        "perso-behavioral": ["-S", "subset=2", "-S", "unchecked=admit"],
    }.get(kind, [])


KINDS = (
    "longsocial-author", "longsocial-readers", "longsocial-verify", "longsocial-adjudicate", "perso-behavioral",
    "perso-cognitive", "perso-verify-answers", "perso-verify", "sibench-process", "sibench-replies",
)  # fmt: skip


@pytest.mark.browser
@pytest.mark.potato
def test_every_study_kind_keeps_its_question_in_view_at_1280_and_390_px(tmp_path: Path) -> None:
    """PerSo's questions sat at the bottom of 1.7-5.2K px pages (7-15K px on a phone) and the cognitive study made an
    annotator read one post and reply three times (24 pages for 8 pairs). On each study kind's first page, on a real
    Potato server: at 1,280 px the question and the answer forms are beside the texts and still in view once the
    texts are scrolled to their end; at 390 px they come before the texts; no page scrolls sideways. PerSo's
    cognitive study shows a post and reply once, with its three questions."""
    shots = _shots(tmp_path)
    listed = subprocess.run([SOCIALBENCH, "study", "create", "--help"], capture_output=True, text=True).stdout
    assert set(re.findall(r"^  ([a-z]+-[a-z-]+)\s", listed, re.M)) == set(KINDS)  # every kind is looked at
    for kind in KINDS:  # every study first: inspect's eval (SI-Bench's runs) cannot run under Playwright's loop
        create = [SOCIALBENCH, "study", "create", kind, "-o", str(tmp_path / kind), "--annotators", "ann"]
        made = subprocess.run(create + _study_args(kind, tmp_path / f"{kind}-inputs"), capture_output=True, text=True)
        assert made.returncode == 0, (kind, made.stderr[-2000:])
    with chromium_browser() as browser:
        for kind in KINDS:
            folder = tmp_path / kind
            record = studies.load(folder)
            if kind == "perso-cognitive":
                assert record["items"] == 8 and len(record["questions"]) == 3
            port = free_port()
            server = studies.start(folder, port=port)
            try:
                context = browser.new_context(viewport={"width": 1280, "height": 900})
                page = context.new_page()
                potato_login(page, f"http://127.0.0.1:{port}", "ann", record["annotators"]["ann"])
                page.wait_for_selector(".sb-side #annotation-forms")
                for width, height in ((1280, 900), (390, 844)):
                    page.set_viewport_size({"width": width, "height": height})
                    page.evaluate("window.scrollTo(0, 0)")
                    shot = shots / f"study-{kind}-{width}.png"
                    page.screenshot(path=str(shot))
                    _shows_something(shot)
                    assert page.evaluate("document.documentElement.scrollWidth") <= width + 1, (kind, width)
                    side = page.evaluate("(() => { const r = document.querySelector('.sb-side')"
                                         ".getBoundingClientRect(); return [r.top, r.bottom]; })()")  # fmt: skip
                    assert side[0] < height * 0.5, (kind, width, side)  # the question on the first screen
                    if width == 1280:  # the texts scrolled: the panel is still in view
                        # (the window halfway down the texts: where a reader is; at the very end of a page the panel
                        # moves up with the end of Potato's card)
                        page.evaluate(
                            "(() => { const ends = [...document.querySelectorAll('.sb-thread, .sb-post')]"
                            ".map(e => e.getBoundingClientRect().bottom + window.scrollY);"
                            " window.scrollTo(0, (Math.max(...ends) - window.innerHeight) / 2); })()"
                        )
                        page.wait_for_timeout(200)
                        top, bar = page.evaluate(
                            "[document.querySelector('.sb-side').getBoundingClientRect().top,"
                            " document.querySelector('.potato-navbar').getBoundingClientRect().bottom]"
                        )
                        assert bar - 1 <= top < height * 0.5, (kind, top, bar)  # all of it, under Potato's bar
                        page.screenshot(path=str(shots / f"study-{kind}-{width}-scrolled.png"))
                    else:  # the panel first, the texts under it
                        order = page.evaluate(
                            "(() => { const t = document.querySelector('.sb-thread, .sb-post, #instance-text');"
                            " return t ? t.getBoundingClientRect().top : 1e9; })()"
                        )
                        assert side[0] < order, (kind, side, order)
                context.close()
            finally:
                studies.stop(server)
    with (shots / "studies.json").open("w") as handle:
        json.dump(list(KINDS), handle)
