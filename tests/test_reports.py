"""Publishable reports: figure functions on hand-built rows, and the HTML report of all three benchmarks opened in
a real headless browser (Playwright driving Debian's chromium)."""

from __future__ import annotations

import csv
import io
import itertools
import json
import math
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval
from inspect_ai.model import ChatMessage, GenerateConfig, ModelOutput, get_model

from conftest import socialbench
from socialbench.benchmarks.longsocial.task import longsocial
from socialbench.benchmarks.perso import perso
from socialbench.benchmarks.sibench.prompts import COMPONENT_KEYS
from socialbench.benchmarks.sibench.task import sibench
from socialbench.shared.figures import Drawing, Estimate, bars, estimate, heatmap, scatter, stacked_shares
from socialbench.shared.reporting import Document, Section, Table, write_tables

# its module fixtures are built once: all its tests on one xdist worker
pytestmark = pytest.mark.xdist_group("test_reports")


def _mpl(fig: Any) -> Any:
    """The matplotlib figure of a `Drawing` (drawn now)."""
    return fig.figure if isinstance(fig, Drawing) else fig


def _marked_missing(fig: Any) -> int:
    """The "n/a" marks drawn in the plot (the legend may name the mark once more)."""
    return sum(1 for ax in _mpl(fig).axes for t in ax.texts if t.get_text() == "n/a")


def _svg(fig: Any) -> str:
    buffer = io.StringIO()
    _mpl(fig).savefig(buffer, format="svg")
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
    assert _marked_missing(fig) == 1  # the empty group, never a 0 bar
    assert "n=1" in svg and "n=4" in svg and "chance" in svg
    single = estimate([1.0], "binary")
    # one outcome: the exact binomial interval of 1 of 1 (issue 50: a bootstrap of it was the point [1, 1])
    assert (single.value, single.high, single.n) == (1.0, 1.0, 1) and single.low == pytest.approx(0.025)
    score = estimate([7.0, 7.0])  # a 0-10 score alike twice: no interval can be formed, and none is drawn
    assert (score.value, score.low, score.high, score.n) == (7.0, None, None, 2)
    assert estimate([]).missing


def test_bars_with_only_missing_values_and_negative_deltas() -> None:
    assert _marked_missing(bars("t", ["a", "b"], {"m": [Estimate(None), Estimate(None)]})) == 2
    fig = bars("lift", ["cot"], {"m": [Estimate(-0.1, -0.2, 0.05, 30)]}, ylabel="pp")
    low, high = fig.figure.axes[0].get_ylim()
    assert low < -20 and high > 5  # the axis shows the negative delta and its whole CI


def test_heatmap_marks_cells_without_data() -> None:
    fig = heatmap("g", ["full", "bm25"], ["m1", "m2"], {("full", "m1"): Estimate(0.5, 0.3, 0.7, 10)})
    assert _marked_missing(fig) == 3 and "n=10" in _svg(fig)


def test_scatter_and_shares_survive_empty_groups() -> None:
    assert "no data" in _svg(scatter("s", {"m": []}, "x", "y"))
    assert _marked_missing(stacked_shares("d", ["a", "b"], {"A": [0.5, None], "B": [0.5, None]})) == 1


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
    assert "a\\_b" in tex and "acc \\%" in tex and "Accuracy \\% \\& CI\\_95" in tex and "c & --" in tex


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
        [perso(task="behavioral", subset="10", unchecked="admit"), perso(task="cognitive")],
        model=_by_prompt(answer),
        log_dir=str(folder),
        display="none",
    )
    return [str(log.location) for log in logs]


BUILDERS = {"longsocial": _longsocial_logs, "sibench": _sibench_logs, "perso": _perso_logs}


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[str]]:
    """mockllm logs of all three benchmarks."""
    root = tmp_path_factory.mktemp("logs")
    return {bench: build(root / bench) for bench, build in BUILDERS.items()}


@pytest.fixture(scope="module")
def reports(logs: dict[str, list[str]], tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Each benchmark's report written through the CLI, as a user runs it."""
    root = tmp_path_factory.mktemp("reports")
    out = {}
    for bench, bench_logs in logs.items():
        target = root / bench
        command = [
            "report",
            bench,
            *bench_logs,
            "--compare-paper",
            "--html",
            str(target / "report.html"),
            "--figures",
            str(target / "figures"),
            "--tables",
            str(target / "tables"),
        ]
        done = socialbench(*command)
        assert done.returncode == 0, done.stderr[-2000:]
        (target / "stdout.txt").write_text(done.stdout)
        out[bench] = target
    return out


@pytest.mark.slow  # the three benchmarks' whole reports (HTML, every figure, every table) over their logs
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
    # self-contained: no script file, no stylesheet link, nothing fetched; the one inline script only opens the
    # samples a number links to (without it the link still lands on their collapsed heading)
    assert html.count("<script") == 1 and "<script>function openTarget()" in html
    assert "<link" not in html and not re.search(r'(src|href)="https?:', html) and " src=" not in html
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


# ---- publication checks: sizes, fonts, legends, overlaps, LaTeX, PDF pages, page width -------------------------
def check_figure(fig: Any, name: str) -> None:
    """At its drawn size: one or two columns wide, no text under 7 pt, none past the figure's edge, no two texts
    on top of each other."""
    from matplotlib.text import Text

    from socialbench.shared.figures import MIN_FONT, TEXT_WIDTH

    fig = _mpl(fig)
    width, height = fig.get_size_inches()
    assert width <= TEXT_WIDTH + 1e-6 and height <= 9.0, (name, width, height)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    frame = fig.bbox
    undrawn = set()  # tick labels outside the view limits exist but are never drawn
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            low, high = sorted(axis.get_view_interval())
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                if not low - 1e-9 <= tick.get_loc() <= high + 1e-9:
                    undrawn |= {id(tick.label1), id(tick.label2)}
    boxes = []
    for text in fig.findobj(Text):
        if not text.get_visible() or not text.get_text().strip() or id(text) in undrawn:
            continue
        box = text.get_window_extent(renderer)
        if box.width == 0:
            continue
        assert text.get_fontsize() >= MIN_FONT, (name, text.get_text(), text.get_fontsize())
        assert box.x0 >= frame.x0 - 1 and box.x1 <= frame.x1 + 1, (name, "off the page", text.get_text())
        assert box.y0 >= frame.y0 - 1 and box.y1 <= frame.y1 + 1, (name, "off the page", text.get_text())
        boxes.append((text.get_text(), box))
    for i, (a, box_a) in enumerate(boxes):
        for b, box_b in boxes[i + 1 :]:
            overlap_w = min(box_a.x1, box_b.x1) - max(box_a.x0, box_b.x0)
            overlap_h = min(box_a.y1, box_b.y1) - max(box_a.y0, box_b.y0)
            assert overlap_w <= 1 or overlap_h <= 1, (name, "overlapping labels", a, b)
    # issue 38: the plot keeps its room whatever the legend holds, and no two series look alike
    # (small multiples: the panels together, and each panel at least an inch tall)
    plots = [ax for ax in fig.axes if ax.get_label() != "<colorbar>"]
    heights = [ax.get_window_extent(renderer).height for ax in plots]
    share = sum(heights) / frame.height
    assert share >= PLOT_SHARE, (name, "plot area squeezed to", round(share, 2))
    assert len(plots) == 1 or min(heights) >= fig.dpi, (name, "a panel under an inch tall")
    legends = [*fig.legends, *(ax.get_legend() for ax in plots if ax.get_legend() is not None)]
    for legend in legends:  # within each legend: a panel's legend tells its own series apart
        looks = [_look(h) for h in legend.legend_handles]
        assert len(looks) == len(set(looks)), (name, "two series share a style")


PLOT_SHARE = 0.3
"""The smallest share of a figure's height its plot may have."""


def _look(handle: Any) -> tuple[Any, ...]:
    """What tells a legend entry apart: colours, fill pattern, marker, line style."""
    from matplotlib.colors import to_hex

    def colour(value: Any) -> str:
        try:
            return to_hex(value, keep_alpha=True)
        except ValueError:
            return str(value)

    parts: list[Any] = [type(handle).__name__]
    for getter in ("get_facecolor", "get_edgecolor", "get_color", "get_markerfacecolor", "get_markeredgecolor"):
        if hasattr(handle, getter):
            parts.append(colour(getattr(handle, getter)()))
    for getter in ("get_hatch", "get_marker", "get_linestyle", "get_fill"):
        if hasattr(handle, getter):
            parts.append(str(getattr(handle, getter)()))
    return tuple(parts)


def legend_labels(fig: Any) -> list[str]:
    """Every legend entry of ``fig`` (the figure's and each panel's), a wrapped label read as one line."""
    fig = _mpl(fig)
    legends = [*fig.legends, *(ax.get_legend() for ax in fig.axes if ax.get_legend() is not None)]
    return [t.get_text().replace("\n", " ") for legend in legends for t in legend.get_texts()]


def test_every_series_is_in_the_legend_even_when_its_first_value_is_missing() -> None:
    # the SI-Bench Table 1 case: paper series whose first groups the paper does not give
    fig = bars(
        "scores",
        ["a", "b", "c"],
        {"ours": [Estimate(None), estimate([5.0, 6.0]), estimate([4.0])]},
        scale=1.0,
        ylim=(0, 10.5),
        paper={"Gemini": [None, None, 6.99], "Human expert": [None, 6.13, 6.40]},
    )
    labels = legend_labels(fig)
    assert {"ours", "Gemini (paper)", "Human expert (paper)", "n/a: no data"} <= set(labels)
    check_figure(fig, "legend")


def test_reference_lines_close_together_are_labelled_apart() -> None:
    refs = {f"paper model {i}: {62 + 1.5 * i:g}%": (62 + 1.5 * i) / 100 for i in range(9)}
    fig = bars("refs", ["run"], {"all pairs": [estimate([1.0, 0.0, 1.0])]}, references=refs)
    check_figure(fig, "references")  # nine labels between 62% and 74%, none on another
    assert sum(1 for t in fig.figure.axes[0].texts if t.get_text().startswith("paper model")) == 9


def test_accuracy_axes_start_at_zero() -> None:
    fig = scatter("len", {"m": [(1000.0, 0.0), (2000.0, 0.5)]}, "tokens", "accuracy (%)")
    assert fig.figure.axes[0].get_ylim()[0] == 0.0
    fig = bars("acc", ["a"], {"m": [estimate([0.0, 0.0])]})
    assert fig.figure.axes[0].get_ylim()[0] == 0.0


@pytest.mark.slow  # the three benchmarks' whole reports (HTML, every figure, every table) over their logs
@pytest.mark.parametrize("bench", ["longsocial", "sibench", "perso"])
def test_report_figures_are_publication_sized_and_readable(logs: dict[str, list[str]], bench: str) -> None:
    from socialbench.benchmarks import get_benchmark

    document = get_benchmark(bench).document
    assert document is not None
    doc = document(logs[bench], True)
    figures = [p for p in doc.parts() if not isinstance(p, Table)]
    assert figures
    for part in figures:
        check_figure(part.figure, part.name)  # type: ignore[attr-defined]
        svg = _svg(part.figure)  # type: ignore[attr-defined]
        assert "n/an/a" not in svg.replace(" ", "")
    if bench == "sibench":  # every paper row of Table 1 is named in the legend
        from socialbench.benchmarks.sibench.paper import TABLE1

        table1 = next(p for p in figures if p.name == "sibench-table1")
        labels = legend_labels(table1.figure)  # type: ignore[attr-defined]
        assert all(any(name in label for label in labels) for name in TABLE1), labels
        assert "mockllm/model" in labels


@pytest.mark.latex  # poppler renders the PDF figures
def test_pdf_figures_fit_a_page_width_and_no_text_runs_off(reports: dict[str, Path], tmp_path: Path) -> None:
    import shutil

    import matplotlib.image

    if shutil.which("pdftoppm") is None or shutil.which("pdfinfo") is None:
        pytest.skip("poppler-utils (pdftoppm, pdfinfo) is not installed (`make test` installs it)")
    checked = 0
    for bench, folder in reports.items():
        for pdf in sorted((folder / "figures").glob("*.pdf")):
            info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True).stdout
            width_pt, height_pt = map(float, re.search(r"Page size:\s+([\d.]+) x ([\d.]+) pts", info).groups())  # type: ignore[union-attr]
            assert width_pt <= 7.0 * 72 + 1 and height_pt <= 9 * 72, (bench, pdf.name, width_pt, height_pt)
            assert width_pt >= 3.3 * 72 - 1, (bench, pdf.name, width_pt)  # drawn at its size, not cropped
            png = tmp_path / f"{bench}-{pdf.stem}"
            subprocess.run(["pdftoppm", "-r", "100", "-png", "-singlefile", str(pdf), str(png)], check=True)
            image = matplotlib.image.imread(str(png) + ".png")[..., :3]
            assert abs(image.shape[1] - width_pt / 72 * 100) <= 2, (bench, pdf.name, image.shape)
            edges = [image[0], image[-1], image[:, 0], image[:, -1]]
            assert all(float(e.min()) > 0.98 for e in edges), (bench, pdf.name, "something touches the edge")
            checked += 1
    assert checked >= 10


LATEX_DOCUMENT = (
    "\\documentclass[twocolumn]{article}\n\\usepackage{booktabs}\n\\usepackage{graphicx}\n\\begin{document}\n"
    "%s\n\\end{document}\n"
)
"""A two-column paper (10 pt article: 229.5 pt columns, 469 pt text): the page our users' tables go into."""


@pytest.mark.latex
def test_every_latex_table_compiles_with_pdflatex(reports: dict[str, Path], tmp_path: Path) -> None:
    import shutil

    if shutil.which("pdflatex") is None:
        pytest.skip("pdflatex is not installed (`make test` installs texlive-latex-base and -recommended)")
    tables = [tex for folder in reports.values() for tex in sorted((folder / "tables").glob("*.tex"))]
    assert len(tables) >= 10
    for tex in tables:
        body = tex.read_text()
        assert "False" not in body and "True" not in body, tex.name
        source = tmp_path / f"{tex.parent.parent.name}-{tex.stem}.tex"
        measured = body.replace(r"\ifdim\wd0>", r"\typeout{WIDTH \the\wd0\space LINE \the\linewidth}\ifdim\wd0>")
        source.write_text(LATEX_DOCUMENT % measured)
        done = subprocess.run(
            ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", source.name],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, (tex.name, done.stdout[-1500:])
        assert "Unicode character" not in done.stdout, tex.name
        # issue 38: it fits its column (or both, as table*) without an overfull line, and is not shrunk below 70%
        # (10 pt text no smaller than 7 pt)
        assert "Overfull \\hbox" not in done.stdout, (tex.name, done.stdout[-1500:])
        # issue 52: a table taller than a page is split into floats that each fit (perso-paper was too large by
        # 1,762 pt)
        assert "Float too large" not in done.stdout, (tex.name, done.stdout[-1500:])
        assert "is shrunk below" not in done.stdout, tex.name
        measured_parts = re.findall(r"WIDTH ([\d.]+)pt ?LINE ([\d.]+)pt", done.stdout)
        assert measured_parts and len(measured_parts) == body.count(r"\ifdim\wd0>"), tex.name
        for width, line in measured_parts:
            assert float(line) / float(width) >= 0.7, (tex.name, width, line)
        caption = re.search(r"\\caption\{(.*)\}", body)
        assert caption and not re.match(r"(Table|Fig)", caption.group(1)), tex.name  # no "Table 1: Table 13"
        assert "U+00A7" not in body, tex.name  # § is \S
        # numbers right-aligned: the column spec has an r for each number column
        spec = re.search(r"\\begin\{tabular\}\{([lr]+)\}", body)
        assert spec and "r" in spec.group(1), (tex.name, body[:300])


def test_latex_symbols_and_alignment(tmp_path: Path) -> None:
    from socialbench.shared.reporting import latex_table

    table = Table(
        "t", "Δ vs Full, ρ ≥ 0.5 – café", ["setting", "Δ (pp)", "ρ", "ok"],
        [["full", Estimate(-1.25, -3.5, 1.0, 12), 0.123456, True], ["bm25", None, None, False]],
    )  # fmt: skip
    tex = latex_table(table)
    assert r"$\Delta$" in tex and r"$\rho$" in tex and r"$\geq$" in tex and "yes" in tex and "no" in tex
    assert "{lrrl}" in tex and "0.1 " in tex
    # a real minus; the interval on a second, smaller line under its mean (the means line up on the decimal)
    assert r"$-$1.2\\\relax {\scriptsize [$-$3.5, 1.0]}" in tex
    paper = Table("t13", "Table 13: accuracy per family, § 4.2", ["a"], [["x"]])
    assert r"\caption{accuracy per family, \S{} 4.2 (paper Table 13)}" in latex_table(paper)


def test_csv_keeps_full_precision_and_estimates_as_four_columns(tmp_path: Path) -> None:
    doc = Document(
        "x",
        "X",
        {"socialbench": "0", "generated": "now", "models": [], "runs": []},
        [
            Section(
                "s", [Table("t", "T", ["run", "accuracy %"], [["a", Estimate(200 / 3, 50.0, 80.0, 6)], ["b", None]])]
            )
        ],
    )
    write_tables(doc, tmp_path)
    rows = list(csv.reader((tmp_path / "t.csv").open()))
    assert rows[0] == ["run", "accuracy %", "accuracy % CI low", "accuracy % CI high", "accuracy % n"]
    assert rows[1] == ["a", repr(200 / 3), "50.0", "80.0", "6"] and rows[2] == ["b", "", "", "", ""]


@pytest.mark.parametrize("viewport", [1280, 390])
def test_report_pages_have_no_horizontal_scroll(reports: dict[str, Path], browser: Any, viewport: int) -> None:
    """At a desktop's 1,280 px and a phone's 390 px (issue 38: the page scrolled sideways at 390 px, and the
    provenance of ten logs came before the contents)."""
    for bench, folder in reports.items():
        page = browser.new_page(viewport={"width": viewport, "height": 900})
        page.goto((folder / "report.html").as_uri())
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= viewport, (bench, width)
        # issue 52: the headline table opens the page (on the first screen, at either width), then the summary and
        # the contents; the record of every run is at the end
        order = page.evaluate(
            "['#headline', '.summary', 'nav', '#provenance-section']"
            ".map(s => document.querySelector(s).getBoundingClientRect().top)"
        )
        assert order == sorted(order) and order[0] < 450, (bench, order)
        if viewport == 390:
            page.close()
            continue
        too_wide = page.evaluate(
            "[...document.querySelectorAll('.wide')].filter(d => d.scrollWidth > d.clientWidth + 1)"
            ".map(d => d.parentElement.id)"
        )
        assert too_wide == [], (bench, too_wide)  # no table needs its own scroll bar either
        html = (folder / "report.html").read_text()
        assert "{'" not in html, bench  # settings as key: value lines, not a Python dict
        # a number of one run (the headline's rows pool several: they link to the list of their runs)
        links = page.locator("a[title='the samples behind this number'][href^='#samples-']")
        if links.count():  # a number's link opens its run's samples, collapsed until then
            target = links.first.get_attribute("href")
            assert target is not None and page.locator(target).get_attribute("open") is None
            links.first.click()
            page.wait_for_function(f"document.querySelector('{target}').open")
        page.close()


@pytest.mark.slow  # the three benchmarks' whole reports (HTML, every figure, every table) over their logs
def test_report_stdout_is_only_the_report(reports: dict[str, Path]) -> None:
    for bench, folder in reports.items():
        stdout = (folder / "stdout.txt").read_text()
        assert stdout.strip(), bench
        assert "Loading" not in stdout and "it/s" not in stdout and "\r" not in stdout, (bench, stdout[:500])


def test_a_plain_number_in_a_column_of_estimates_is_written_to_the_csv(tmp_path: Path) -> None:
    """The paper table mixes intervals and single numbers (72.4 for the human readers): the CSV keeps both."""
    table = Table("mixed", "m", ["what", "%"], [["a", Estimate(44.7, 43.0, 46.5)], ["b", 72.4], ["c", None]])
    doc = Document(
        "x", "X", {"socialbench": "0", "generated": "now", "models": [], "runs": []}, [Section("s", [table])]
    )
    write_tables(doc, tmp_path)
    rows = list(csv.reader((tmp_path / "mixed.csv").open()))
    assert rows[1][:4] == ["a", "44.7", "43.0", "46.5"] and rows[2][:2] == ["b", "72.4"] and rows[3][1] == ""


def test_a_row_over_several_runs_links_to_the_list_of_them() -> None:
    """Issue 38: SI-Bench's Table 1 pools a model's single-reply runs (CoT and direct) in one row: its numbers link
    to a list of those runs under the table, each opening its samples; a row of one run links straight to it; a
    run whose samples are not on the page is not linked."""
    from socialbench.shared.figures import Estimate
    from socialbench.shared.reporting import _table_html

    table = Table(
        "t1",
        "scores",
        ["model", "score"],
        [["m1", Estimate(5.0, 4.0, 6.0, 10)], ["m2", Estimate(6.0, 5.0, 7.0, 10)], ["m3", 1.0]],
        row_logs=[["cot.eval", "direct.eval"], ["paper.eval"], "gone.eval"],
    )
    samples = {"cot.eval": ("samples-0", "m1 · mode=cot"), "direct.eval": ("samples-1", "m1 · mode=direct"),
               "paper.eval": ("samples-2", "m2")}  # fmt: skip
    page = _table_html(table, samples)
    rows = re.findall(r"<tr>(.*?)</tr>", page)[1:]
    assert 'href="#table-t1-row-0"' in rows[0] and 'href="#samples-2"' in rows[1] and "href" not in rows[2]
    (pooled,) = re.findall(r'<li id="table-t1-row-0">(.*?)</li>', page)
    assert re.findall(r'href="#(samples-\d)">([^<]*)</a>', pooled) == [
        ("samples-0", "m1 · mode=cot"),
        ("samples-1", "m1 · mode=direct"),
    ]
    # groups as rows and a column per model (SI-Bench's situations): a number links to its column's runs
    by_group = Table(
        "t2",
        "per situation",
        ["situation", "m1", "m2", "n judged"],
        [["work", 5.0, 6.0, 3], ["family", 4.0, 7.0, 2]],
        column_logs=[None, ["cot.eval", "direct.eval"], "paper.eval", None],
    )
    page = _table_html(by_group, samples)
    for row in re.findall(r"<tr>(.*?)</tr>", page)[1:]:
        assert re.findall(r'href="#([^"]+)"', row) == ["table-t2-column-1", "samples-2"]  # n judged: no link
    assert '<li id="table-t2-column-1">m1: the samples of 2 runs:' in page


def test_an_accuracy_interval_is_an_interval_at_small_n_and_at_100_percent() -> None:
    """Issue 38: the percentile bootstrap gave "100.0 [100.0, 100.0] n=4". A 0/1 accuracy gets the Wilson score
    interval, computed here by hand: centre (p + z^2/2n) / (1 + z^2/n), half-width z sqrt(p(1-p)/n + z^2/4n^2) /
    (1 + z^2/n); other means keep the bootstrap."""
    from socialbench.shared.statistics import bootstrap_ci, proportion_ci

    def wilson(k: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
        p = k / n
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
        return centre - half, centre + half

    for k, n in ((4, 4), (1, 1), (0, 3), (500, 1000), (7, 20)):
        low, high = proportion_ci([1.0] * k + [0.0] * (n - k))
        assert (low, high) == pytest.approx(wilson(k, n), abs=1e-9), (k, n)
    assert proportion_ci([1.0, 1.0, 1.0, 1.0])[0] == pytest.approx(0.5101, abs=1e-4)  # 4 of 4: [51.0, 100.0]
    assert proportion_ci([1.0, 0.5, 0.0, 1.0]) == bootstrap_ci([1.0, 0.5, 0.0, 1.0])  # half credit: the bootstrap


@pytest.mark.parametrize("count", [1, 4, 15, 24])
def test_figures_with_many_series_keep_their_plot_and_tell_every_series_apart(count: int) -> None:
    """Issue 38: a 14-entry legend took the height and left a ~30 px plot, and colours repeated after 10 series
    ("alpha · full" and "beta · gold-scope" both blue). A grid of many series: every figure kind keeps its plot
    area, and no two legend entries look alike."""
    from socialbench.shared.figures import Estimate, bars, heatmap, scatter, stacked_shares

    names = [f"model-{i // 5} · setting-{i % 5} with a long label" for i in range(count)]
    groups = ["C1", "C2", "C3", "C4"]
    cells = [Estimate(0.5, 0.3, 0.7, 4), Estimate(None), Estimate(1.0, 0.4, 1.0, 1), Estimate(0.62, 0.59, 0.65, 1000)]
    series = {n: cells for n in names}  # cells of n = 4, none, 1 and 1,000
    grouped = bars("many series", groups, series, paper={"Paper": [0.5, None, 0.6, 0.7]})
    check_figure(grouped, f"bars-{count}")
    # past nine series (the palette) the bars are small multiples: every series in exactly one panel's legend,
    # the paper's numbers in every panel, and each panel's bars in colours of their own
    panels = [ax for ax in grouped.figure.axes if ax.get_legend() is not None] or grouped.figure.axes
    assert len(panels) == (1 if count <= 9 else math.ceil(count / 9)), len(panels)
    assert sorted(label for label in legend_labels(grouped) if label.startswith("model-")) == sorted(names)
    assert legend_labels(grouped).count("Paper") == len(panels)
    if len(panels) > 1:
        assert all(len(ax.patches) <= 9 * 4 + 4 for ax in panels)  # ≤ 9 bars per group, n/a stubs, no more
    points = {n: [(float(i), 0.5)] for i, n in enumerate(names)}
    spread = scatter("many series", points, "x", "y")
    check_figure(spread, f"scatter-{count}")
    # issue 52: the panels of one figure never show one look for two series (two panels' first series were both
    # dark blue), and a 15-series scatter is small multiples too, each panel's legend beside it
    for figure in (grouped, spread):
        legends = [*figure.figure.legends, *(ax.get_legend() for ax in figure.figure.axes if ax.get_legend())]
        looks = [_look(h) for legend in legends for h, t in zip(legend.legend_handles, legend.get_texts(), strict=True)
                 if t.get_text().startswith("model-")]  # fmt: skip
        assert len(looks) == count and len(set(looks)) == count
    assert len([ax for ax in spread.figure.axes if ax.get_legend()]) == (0 if count <= 9 else math.ceil(count / 9))
    shares = {n: [1 / count] * 4 for n in names}
    check_figure(stacked_shares("many shares", groups, shares), f"shares-{count}")
    # settings with their marks as rows of one model's column (the labels once took the width: no plot at all)
    rows = [f"{n} [fell back to Full on 1/1] [retrieve calls cut off or empty on 1/1]" for n in names]
    cells = {(r, "m"): Estimate(0.5, 0.3, 0.7, 4) for r in rows}
    check_figure(heatmap("one model", rows, ["m"], cells), f"heatmap-{count}")


def test_zero_bars_are_drawn_accuracy_ticks_stop_at_100_and_one_digit_counts_stay_upright() -> None:
    """Issue 38: a run whose every answer was invalid drew nothing but "n=12"; accuracy axes ticked to 120%; a vertical
    "8" read as "∞"."""
    from matplotlib.lines import Line2D

    from socialbench.shared.figures import PALETTE, Estimate, bars

    zero = bars("all invalid", ["behavioral"], {"model": [Estimate(0.0, 0.0, 0.3, 12)]})
    (ax,) = zero.figure.axes
    drawn = [line for line in ax.get_lines() if isinstance(line, Line2D) and list(line.get_ydata()) == [0, 0]]
    assert drawn and drawn[0].get_color() == PALETTE[0] and drawn[0].get_linewidth() > 2
    # issue 52: a 0% bar was invisible: the axes clipped half of its line and the spine covered the rest
    assert not drawn[0].get_clip_on() and drawn[0].get_zorder() > ax.spines["bottom"].get_zorder()
    full = bars("all right", ["a", "b"], {"m": [Estimate(1.0, 0.6, 1.0, 8), Estimate(1.0, 0.6, 1.0, 8)]})
    assert max(full.figure.axes[0].get_yticks()) == 100 and full.figure.axes[0].get_ylim()[1] > 100
    many = {f"s{i}": [Estimate(0.5, 0.2, 0.8, 8)] * 6 for i in range(5)}
    narrow = bars("narrow bars", [f"g{i}" for i in range(6)], many)
    counts = [t for t in narrow.figure.axes[0].texts if t.get_text() == "8"]
    assert counts and all(t.get_rotation() == 0 for t in counts)


@pytest.mark.parametrize("series", [4, 8, 15])
def test_neighbouring_counts_never_run_together(series: int) -> None:
    """Issue 52: the n labels of neighbouring bars ran together ("66", "666" read "66666"). Whatever a figure's width
    and its number of series, two labels side by side leave a space between them, or the n go to the caption."""
    from socialbench.shared.figures import COLUMN_WIDTH, TEXT_WIDTH, Estimate, bars

    for width in (COLUMN_WIDTH, TEXT_WIDTH):
        values = {f"s{i}": [Estimate(0.5, 0.4, 0.6, 66 if i % 2 else 666)] * 3 for i in range(series)}
        drawn = bars("counts", ["a", "b", "c"], values, width=width).figure
        drawn.canvas.draw()
        renderer = drawn.canvas.get_renderer()
        gap = drawn.dpi / 72 * 1.5  # 1.5 pt: a space at 7 pt is ~2 pt
        for ax in drawn.axes:
            boxes = [t.get_window_extent(renderer) for t in ax.texts if t.get_text() in ("66", "666", "n=66", "n=666")]
            for a, b in itertools.combinations(boxes, 2):
                if min(a.y1, b.y1) - max(a.y0, b.y0) > 0:  # side by side
                    assert max(b.x0 - a.x1, a.x0 - b.x1) >= gap, (series, width, a, b)


@pytest.mark.slow  # the three benchmarks' whole reports (HTML, every figure, every table) over their logs
def test_perso_behavioral_bars_count_the_pairs_their_interval_resamples(logs: dict[str, list[str]]) -> None:
    """Issue 38: the bars said n=20 (both presentation orders of 10 pairs) while the interval resamples the pairs."""
    from socialbench.benchmarks.perso.figures import document

    doc = document(logs["perso"])
    (figure,) = [p for p in doc.parts() if p.name == "perso-behavioral-accuracy"]
    texts = [t.get_text() for ax in figure.figure.figure.axes for t in ax.texts]  # type: ignore[union-attr]
    assert "pairs=10" in texts and not any(t.startswith("n=") for t in texts)


NOT_FROM_RUNS = {
    "longsocial-paper",  # the paper's printed numbers
    "sibench-paper",
    "sibench-paper-table2",
    "perso-paper",
    "longsocial-recall",  # retrievers over the items: no model's answer is in it
    "longsocial-table16",  # bootstrap draws over items pooled across cells
}
"""The report tables whose numbers are not a run's answers, so they link to no run's samples."""


@pytest.mark.slow  # the three benchmarks' whole reports (HTML, every figure, every table) over their logs
@pytest.mark.parametrize("bench", ["longsocial", "sibench", "perso"])
def test_the_samples_behind_the_numbers_are_in_the_page_and_a_csv(reports: dict[str, Path], bench: str) -> None:
    """Issue 38: a reader could not get from a number to the items and transcripts behind it. Every counted run's
    samples are listed (gold, answer, score, status) with the log and sample id that open the transcript."""
    import csv

    from inspect_ai.log import read_eval_log

    folder = reports[bench]
    with (folder / "tables" / f"{bench}-samples.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    counted = [r for r in csv.DictReader((folder / "tables" / f"{bench}-runs.csv").open()) if r["counted"] == "yes"]
    for run in counted:
        mine = [r for r in rows if r["log"] == run["log"]]
        log = read_eval_log(run["log"])
        assert {(r["sample id"], int(r["epoch"])) for r in mine} == {(str(s.id), s.epoch) for s in log.samples or []}
        if bench == "longsocial":  # the gold letter and the answer read, as the scorer saw them
            by_id = {str(s.id): s for s in log.samples or []}
            assert all(r["gold"] == by_id[r["sample id"]].target for r in mine)
    page = (folder / "report.html").read_text()
    assert 'id="samples"' in page and page.count('<details id="samples-') == len(counted)
    # every table computed from runs links its numbers to them; the tables without a link are named here
    sections = re.findall(r'<section class="table" id="table-([^"]+)"(.*?)</section>', page)
    numbers = {name for name, body in sections if re.search(r"<td class=num>(?!–</td>)", body)}
    unlinked = {name for name, body in sections if "the samples behind this number" not in body} & numbers
    assert unlinked <= NOT_FROM_RUNS, (bench, sorted(unlinked - NOT_FROM_RUNS))
    # each number of a table whose rows are runs links to its run's samples: the grid's (LongSocialBench) and the
    # behavioral and cognitive tables' (PerSo) rows, every link to a list that is on the page
    targets = re.findall(r'<a href="#(samples-\d+)" title="the samples behind this number">', page)
    assert set(targets) <= {f"samples-{n}" for n in range(len(counted))}
    if bench != "sibench":
        assert set(targets) == {f"samples-{n}" for n in range(len(counted))}, (bench, sorted(set(targets)))
    else:  # Table 1's numbers open the run they come from: the paper-protocol run, not the ablation or the others
        table1 = page[page.index('id="table-sibench-table1"') :]
        table1 = table1[: table1.index("</section>")]
        (linked,) = set(re.findall(r'<a href="#samples-(\d+)" title="the samples behind', table1))
        header = read_eval_log(counted[int(linked)]["log"], header_only=True).eval
        assert header.task_args.get("mode", "paper") == "paper" and not header.task_args.get("ablate")
    if bench == "longsocial":
        runs = [r["log"] for r in counted]
        grid = page[page.index('id="table-longsocial-grid"') :]
        grid = grid[: grid.index("</table>")]
        for row in re.findall(r"<tr><td>(.*?)</tr>", grid):
            linked = set(re.findall(r'href="#samples-(\d+)"', row))
            assert len(linked) == 1, row  # a row's numbers all open the same run's samples
            (setting, model) = [re.sub(r"<[^>]+>", "", c) for c in re.findall(r"<td>(.*?)</td>", "<td>" + row)][:2]
            header = read_eval_log(runs[int(linked.pop())], header_only=True).eval
            assert header.model == model and str(header.task_args.get("workflow", "full")) in setting, row


def test_the_perso_headline_pairs_a_models_two_tasks_and_drops_no_run() -> None:
    """The PerSo headline joins a model's behavioral and cognitive runs in one row; runs whose labels do not tell
    them apart (two reasoning efforts of one thinking model) get a row each, none dropped, with their own numbers."""
    from socialbench.benchmarks.perso.figures import headline

    def run(log: str, accuracy: float, thinking: bool = False) -> dict[str, Any]:
        line = {"accuracy": accuracy, "ci95": [accuracy - 0.1, accuracy + 0.1], "n": 20, "pairs": 10}
        return {"model": "m", "thinking": thinking, "log": log, "all": line,
                **{d: line for d in ("belief", "emotion", "intent")}}  # fmt: skip

    joined = headline([run("b.eval", 0.6)], [run("c.eval", 0.3)])
    assert [r[0] for r in joined.rows] == ["m"] and joined.row_logs == [["b.eval", "c.eval"]]
    assert joined.rows[0][1].value == pytest.approx(60.0) and joined.rows[0][1].n == 10  # n = pairs
    assert joined.rows[0][2].value == pytest.approx(30.0) and joined.rows[0][2].n == 20
    apart = headline([run("low.eval", 0.5, True), run("high.eval", 0.7, True)], [run("c.eval", 0.3, True)])
    assert [r[0] for r in apart.rows] == ["m (thinking)"] * 3
    assert sorted(r[1].value for r in apart.rows if r[1] is not None) == pytest.approx([50.0, 70.0])
