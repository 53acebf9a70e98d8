"""Publishable reports: one self-contained HTML file, figures as SVG and PDF, tables as CSV and LaTeX (booktabs).

A benchmark builds a `Document` from its logs (sections of `Table`s and `Figure`s, plus what produced it); this
module writes it. The HTML embeds every figure as inline SVG and its CSS in a <style> element: no network, no
script, opens in any browser. Tables are written through pandas (CSV, and ``Styler.to_latex`` for booktabs).
"""

from __future__ import annotations

import csv
import html
import io
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from matplotlib.figure import Figure as MplFigure

from ..core.jsonl import atomic_writer

MISSING = "–"


@dataclass
class Table:
    name: str
    """File stem and HTML anchor (letters, digits, dashes)."""
    title: str
    columns: list[str]
    rows: list[list[Any]]
    note: str = ""

    def cell(self, value: Any) -> str:
        return format_value(value)


@dataclass
class Figure:
    name: str
    title: str
    figure: MplFigure
    note: str = ""


@dataclass
class Section:
    title: str
    parts: list[Table | Figure] = field(default_factory=list)


@dataclass
class Document:
    benchmark: str
    title: str
    provenance: dict[str, Any]
    sections: list[Section] = field(default_factory=list)

    def parts(self) -> list[Table | Figure]:
        parts = [p for s in self.sections for p in s.parts]
        kinds = [(type(p).__name__, p.name) for p in parts]
        duplicates = {name for kind, name in kinds if kinds.count((kind, name)) > 1}
        if duplicates:
            raise ValueError(f"report parts named twice: {sorted(duplicates)}")
        return parts


def format_value(value: Any) -> str:
    """None / NaN -> "–" (never 0); floats with two decimals; the rest as text."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return MISSING
    if isinstance(value, float):
        return f"{value:.2f}"
    return str(value)


def provenance(logs: Sequence[str]) -> dict[str, Any]:
    """What produced a report, read from the log headers: version, models, task settings, sample counts, log
    files and the dates of the runs. Everything in a report is recomputed from these logs."""
    from inspect_ai.log import read_eval_log

    runs = []
    for path in logs:
        header = read_eval_log(path, header_only=True)
        runs.append(
            {
                "log": str(path),
                "task": header.eval.task,
                "model": header.eval.model,
                "task_args": header.eval.task_args,
                "samples": header.results.total_samples if header.results else 0,
                "created": header.eval.created,
                "status": header.status,
            }
        )
    try:
        package = version("socialbench")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree without install
        package = "unknown"
    return {
        "socialbench": package,
        "generated": datetime.now(UTC).isoformat(timespec="seconds"),
        "models": sorted({r["model"] for r in runs}),
        "runs": runs,
    }


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9-]+", "-", name).strip("-")


def anchor(part: Table | Figure) -> str:
    """The HTML id of a part: ``figure-NAME`` / ``table-NAME`` (a figure and its table may share a name)."""
    return f"{'table' if isinstance(part, Table) else 'figure'}-{_slug(part.name)}"


def _svg(figure: MplFigure) -> str:
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg", bbox_inches="tight")
    text = buffer.getvalue()
    return text[text.index("<svg") :]  # drop the XML prolog and DOCTYPE: inline SVG in HTML5


_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;
color:#222;line-height:1.45}
h1{font-size:1.6em}h2{border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:2em}h3{font-size:1.05em}
table{border-collapse:collapse;margin:.5em 0 1.5em;font-size:.9em}th,td{padding:.25em .6em;text-align:right}
th:first-child,td:first-child{text-align:left}thead th{border-top:2px solid #222;border-bottom:1px solid #222}
tbody tr:last-child td{border-bottom:2px solid #222}.note{color:#555;font-size:.9em}
figure{margin:1em 0 2em}figure svg{max-width:100%;height:auto}figcaption{color:#555;font-size:.9em}
.provenance td,.provenance th{text-align:left;vertical-align:top}nav ol{columns:2}
"""


def _table_html(table: Table) -> str:
    head = "".join(f"<th>{html.escape(c)}</th>" for c in table.columns)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(table.cell(v))}</td>" for v in row) + "</tr>" for row in table.rows
    )
    note = f'<p class="note">{html.escape(table.note)}</p>' if table.note else ""
    return (
        f'<section class="table" id="{anchor(table)}" data-part="table"><h3>{html.escape(table.title)}</h3>'
        f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>{note}</section>"
    )


def _figure_html(figure: Figure) -> str:
    caption = html.escape(figure.title + (f" — {figure.note}" if figure.note else ""))
    return (
        f'<figure id="{anchor(figure)}" data-part="figure">{_svg(figure.figure)}'
        f"<figcaption>{caption}</figcaption></figure>"
    )


def render_html(doc: Document) -> str:
    toc = "".join(f'<li><a href="#{anchor(p)}">{html.escape(p.title)}</a></li>' for p in doc.parts())
    prov = doc.provenance
    runs = "".join(
        "<tr>"
        + "".join(
            f"<td>{html.escape(str(v))}</td>"
            for v in (r["task"], r["model"], r["task_args"], r["samples"], r["created"], r["status"], r["log"])
        )
        + "</tr>"
        for r in prov["runs"]
    )
    header = (
        f'<table class="provenance" id="provenance"><tbody>'
        f"<tr><th>socialbench</th><td>{html.escape(prov['socialbench'])}</td></tr>"
        f"<tr><th>generated</th><td>{html.escape(prov['generated'])}</td></tr>"
        f"<tr><th>models</th><td>{html.escape(', '.join(prov['models']))}</td></tr></tbody></table>"
        '<table class="provenance"><thead><tr><th>task</th><th>model</th><th>settings</th><th>samples</th>'
        f"<th>run date</th><th>status</th><th>log</th></tr></thead><tbody>{runs}</tbody></table>"
    )
    sections = "".join(
        f"<h2>{html.escape(s.title)}</h2>"
        + "".join(_table_html(p) if isinstance(p, Table) else _figure_html(p) for p in s.parts)
        for s in doc.sections
    )
    return (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{html.escape(doc.title)}</title>'
        f"<style>{_CSS}</style></head><body><h1>{html.escape(doc.title)}</h1>"
        f"<h2>What produced this report</h2>{header}<h2>Contents</h2><nav><ol>{toc}</ol></nav>{sections}"
        "</body></html>"
    )


def write_html(doc: Document, path: str | Path) -> Path:
    target = Path(path)
    with atomic_writer(target) as handle:
        handle.write(render_html(doc))
    return target


def write_figures(doc: Document, folder: str | Path) -> list[Path]:
    """Each figure as ``NAME.svg`` and ``NAME.pdf``."""
    out = []
    for part in doc.parts():
        if isinstance(part, Figure):
            for fmt in ("svg", "pdf"):
                target = Path(folder) / f"{_slug(part.name)}.{fmt}"
                with atomic_writer(target, binary=True) as handle:
                    part.figure.savefig(handle, format=fmt, bbox_inches="tight")
                out.append(target)
    return out


_LATEX_SPECIAL = {c: f"\\{c}" for c in "&%$#_{}"} | {
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "\\": r"\textbackslash{}",
}


def _latex_text(text: str) -> str:
    # pandas escapes cells and headers (format(escape="latex")) but not the caption it is given
    return "".join(_LATEX_SPECIAL.get(c, c) for c in text)


def write_tables(doc: Document, folder: str | Path) -> list[Path]:
    """Each table as ``NAME.csv`` and ``NAME.tex`` (booktabs, through pandas' Styler)."""
    import pandas as pd

    out = []
    for part in doc.parts():
        if not isinstance(part, Table):
            continue
        stem = Path(folder) / _slug(part.name)
        with atomic_writer(stem.with_suffix(".csv")) as handle:
            writer = csv.writer(handle)
            writer.writerow(part.columns)
            writer.writerows([["" if format_value(v) == MISSING else v for v in row] for row in part.rows])
        frame = pd.DataFrame([[part.cell(v) for v in row] for row in part.rows], columns=part.columns)
        styler = frame.style.hide(axis="index").format(escape="latex").format_index(escape="latex", axis=1)
        latex = styler.to_latex(
            hrules=True, caption=_latex_text(part.title), label=f"tab:{_slug(part.name)}", position_float="centering"
        )
        with atomic_writer(stem.with_suffix(".tex")) as handle:
            handle.write(latex)
        out += [stem.with_suffix(".csv"), stem.with_suffix(".tex")]
    return out
