"""Publishable reports: one self-contained HTML file, figures as SVG and PDF, tables as CSV and LaTeX (booktabs).

A benchmark builds a `Document` from its logs (sections of `Table`s and `Figure`s, plus what produced it); this
module writes it. The HTML embeds every figure as inline SVG and its CSS in a <style> element: no network, no
script, opens in any browser. Tables are written as CSV and as booktabs LaTeX that fits a two-column paper
(`latex_table`).
"""

from __future__ import annotations

import csv
import html
import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from ..core.jsonl import atomic_writer
from .benchmark import read_log
from .figures import Drawing, Estimate, notes
from .runs import read_alongside
from .statistics import EXACT_NOTE

MISSING = "–"


@dataclass
class Table:
    """Rows of raw values: numbers (never pre-formatted strings), None for missing, and `Estimate`s (a mean with
    its 95% CI and n). CSV writes them at full precision, an `Estimate` as four columns (value, CI low, CI high,
    n); HTML and LaTeX round every number of the table to ``decimals`` places and show an `Estimate` as
    ``value [low, high]`` (its n in the CSV, and in an ``n`` column where the table has one, or in the cell with
    ``show_n``)."""

    name: str
    """File stem and HTML anchor (letters, digits, dashes)."""
    title: str
    columns: list[str]
    rows: list[list[Any]]
    note: str = ""
    decimals: int = 1
    show_n: bool = False
    """Write each `Estimate`'s n in its cell (``value [low, high] n=N``), for tables without an n column."""
    row_logs: list[str | list[str] | None] = field(default_factory=list)
    """The log(s) behind each row: in HTML its numbers link to that run's samples, or, for a row that pools several
    runs, to the list of them under the table."""
    column_logs: list[str | list[str] | None] = field(default_factory=list)
    """The log(s) behind each column, for a table whose columns are runs (groups as rows, a column per model): its
    numbers link as a row's do. A row's logs win where both are given."""

    @property
    def caption_note(self) -> str:
        """The note every rendering prints with the table (HTML, LaTeX caption, terminal): its own note, and what ‡
        means where an interval in it is an exact fallback."""
        exact = any(isinstance(v, Estimate) and v.exact and not v.missing for row in self.rows for v in row)
        return " ".join(x for x in (self.note, f"{EXACT_NOTE}." if exact else "") if x)

    def cell(self, value: Any) -> str:
        text = format_value(value, self.decimals)
        if self.show_n and isinstance(value, Estimate) and not value.missing and value.n:
            text += f" n={value.n}"
        return text

    def numeric(self, column: int) -> bool:
        """A column of numbers (right-aligned): every present value is a number or an `Estimate`."""
        present = [r[column] for r in self.rows if format_value(r[column]) != MISSING]
        return bool(present) and all(isinstance(v, int | float | Estimate) and not isinstance(v, bool) for v in present)

    def csv_columns(self) -> list[str]:
        out = []
        for i, name in enumerate(self.columns):
            if any(isinstance(r[i], Estimate) for r in self.rows):
                out += [name, f"{name} CI low", f"{name} CI high", f"{name} n"]
            else:
                out.append(name)
        return out

    def csv_rows(self) -> list[list[Any]]:
        wide = [any(isinstance(r[i], Estimate) for r in self.rows) for i in range(len(self.columns))]
        out = []
        for row in self.rows:
            line: list[Any] = []
            for value, is_wide in zip(row, wide, strict=True):
                if is_wide and isinstance(value, Estimate):
                    line += [None if value.missing else value.value, value.low, value.high, value.n or None]
                elif is_wide:  # a plain number in a column of estimates is its value, without an interval
                    number = isinstance(value, int | float) and not isinstance(value, bool)
                    line += [value if number else None, None, None, None]
                else:
                    line.append(value)
            out.append(["" if format_value(v) == MISSING else _csv_value(v) for v in line])
        return out


@dataclass
class Figure:
    name: str
    title: str
    figure: Drawing
    note: str = ""

    def caption(self) -> str:
        """The title, the part's own note and what the figure could not show itself (`figures.notes`)."""
        extra = " ".join(x for x in (self.note, notes(self.figure)) if x)
        return self.title + (f" — {extra}" if extra else "")


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
    headline: Table | None = None
    """The table a reader meets first (each model's main numbers with intervals and n), before the contents."""
    left_out: list[str] = field(default_factory=list)
    """Runs a part of the report could not use, each with its reason (also in that part's note): `socialbench
    report` prints them, so a run missing from a figure is never missing unsaid."""
    data: dict[str, Any] = field(default_factory=dict)
    """The numbers behind the tables as records (``socialbench report --json``): computed once with the tables, so
    the JSON, the terminal and the files are one computation."""
    notes: list[str] = field(default_factory=list)
    """What a reader must know that no table holds (a table that could not be made and what it needs): the terminal
    prints them after the tables, the HTML under the contents."""

    def parts(self) -> list[Table | Figure]:
        parts = [*([self.headline] if self.headline is not None else []), *(p for s in self.sections for p in s.parts)]
        kinds = [(type(p).__name__, p.name) for p in parts]
        duplicates = {name for kind, name in kinds if kinds.count((kind, name)) > 1}
        if duplicates:
            raise ValueError(f"report parts named twice: {sorted(duplicates)}")
        return parts


def format_value(value: Any, decimals: int = 2) -> str:
    """None / NaN -> "–" (never 0); floats with ``decimals`` places; an `Estimate` as ``value [low, high]``;
    True / False as yes / no; the rest as text."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return MISSING
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, Estimate):
        if value.missing:
            return MISSING
        text = f"{value.value:.{decimals}f}"
        if value.low is not None and value.high is not None:
            text += f" [{value.low:.{decimals}f}, {value.high:.{decimals}f}]" + ("‡" if value.exact else "")
        return text
    if isinstance(value, float):
        return f"{value:.{decimals}f}"
    return str(value)


def _csv_value(value: Any) -> Any:
    """CSV keeps numbers at full precision (``repr``), booleans as true / false."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    return value


def settings_text(task_args: dict[str, Any] | None) -> list[str]:
    """A run's task arguments as readable ``key: value`` lines (unset ones left out)."""
    lines = []
    for key, value in sorted((task_args or {}).items()):
        if value is None or value == "" or value == [] or value == {}:
            continue
        if isinstance(value, list | tuple):
            value = ", ".join(str(v) for v in value)
        lines.append(f"{key}: {value}")
    return lines


def provenance(logs: Sequence[str]) -> dict[str, Any]:
    """What produced a report, read from the log headers: version, models, the runs counted (each with its label:
    what tells it apart from the others), their settings, sample counts, log files and dates, and every log left out
    with the reason (`shared.runs`). Everything in a report is recomputed from these logs."""
    from .budgets import describe_calls, logged_calls
    from .runs import run_set
    from .runs import version as socialbench_version

    chosen = run_set(logs)
    runs = []
    for info in chosen.runs:
        header = read_log(info.path, header_only=True)
        runs.append(
            {
                "log": info.path,
                "task": header.eval.task,
                "model": header.eval.model,
                "roles": {"under test": header.eval.model}
                | {role: config.model for role, config in (header.eval.model_roles or {}).items()},
                "label": info.label,
                "columns": info.columns(),
                "identity": info.identity_columns(),
                "done": info.done,
                "planned": info.planned,
                "task_args": header.eval.task_args,
                "samples": header.results.total_samples if header.results else 0,
                "created": header.eval.created,
                "status": header.status,
                "failed_calls": describe_calls(logged_calls(info.path)),
            }
        )
    return {
        "socialbench": socialbench_version(),
        "generated": datetime.now(UTC).isoformat(timespec="seconds"),
        "models": sorted({r["model"] for r in runs}),
        "runs": runs,
        "left_out": [x.as_dict() for x in chosen.left_out],
        "asked_apart": chosen.asked_apart(),
    }


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9-]+", "-", name).strip("-")


def anchor(part: Table | Figure) -> str:
    """The HTML id of a part: ``figure-NAME`` / ``table-NAME`` (a figure and its table may share a name)."""
    return f"{'table' if isinstance(part, Table) else 'figure'}-{_slug(part.name)}"


def _svg(figure: Drawing) -> str:
    text = figure.render("svg").decode()
    return text[text.index("<svg") :]  # drop the XML prolog and DOCTYPE: inline SVG in HTML5


_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;
color:#222;line-height:1.45}
h1{font-size:1.6em}h2{border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:2em}h3{font-size:1.05em}
.wide{max-width:100%;overflow-x:auto}
table{border-collapse:collapse;margin:.5em 0 1.5em;font-size:.9em}th,td{padding:.25em .6em;text-align:left}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}td.num span,td.num small{white-space:nowrap}
td.num small{color:#555}
thead th{border-top:2px solid #222;border-bottom:1px solid #222;vertical-align:bottom}
tbody tr:last-child td{border-bottom:2px solid #222}.note{color:#555;font-size:.9em}
figure{margin:1em 0 2em}figure svg{max-width:100%;height:auto}figcaption{color:#555;font-size:.9em}
.provenance td,.provenance th{text-align:left;vertical-align:top}.provenance td{overflow-wrap:break-word}
.provenance td.path{overflow-wrap:anywhere}
.summary{background:#f6f6f6;padding:.6em 1em;border-left:3px solid #888}.summary li{margin:.15em 0}
.warn{color:#8a3b00}details>summary{cursor:pointer;font-weight:600;margin:1em 0 .5em;overflow-wrap:anywhere}
.summary li,code{overflow-wrap:anywhere}
nav ol{columns:2;column-gap:2em;list-style-position:inside;padding-left:0}nav li{break-inside:avoid;
padding-left:1.6em;text-indent:-1.6em}.nb{white-space:nowrap}.differs{font-size:1.05em}
.fig{max-width:100%;overflow-x:auto}.phone{display:none}
@media (max-width:600px){body{margin:1em auto;padding:0 .6em}nav ol{columns:1}
table{font-size:.8em}th,td{padding:.2em .35em}h1{font-size:1.3em}
.fig svg{max-width:none}.phone{display:block;color:#555;font-size:.85em;margin:.2em 0}}
"""


def _table_html(table: Table, samples: Mapping[str, tuple[str, str]] | None = None) -> str:
    """The table; where a row's or a column's runs are known (`Table.row_logs`, `Table.column_logs`) and their
    samples are on the page (``samples``: log -> its anchor and run label), each of its numbers links to them: to the
    run's samples for a row of one run, to a list of the row's runs under the table for a row that pools several
    (SI-Bench: a row per model)."""
    numeric = [table.numeric(i) for i in range(len(table.columns))]
    head = "".join(
        f"<th{' class=num' if num else ''}>{html.escape(c)}</th>" for c, num in zip(table.columns, numeric, strict=True)
    )

    def cell(value: Any, num: bool, target: str | None) -> str:
        text = _cell_html(table, value)
        if target and num and format_value(value) != MISSING:
            text = f'<a href="#{target}" title="the samples behind this number">{text}</a>'
        return f"<td{' class=num' if num else ''}>{text}</td>"

    pooled: list[str] = []  # rows or columns over several runs: the list a cell of theirs links to

    def target(logs: str | list[str] | None, key: str, name: Any) -> str | None:
        runs = [
            found for log in ([logs] if isinstance(logs, str) else logs or []) if (found := (samples or {}).get(log))
        ]
        if len(runs) <= 1:
            return runs[0][0] if runs else None
        links = "; ".join(f'<a href="#{t}">{html.escape(label)}</a>' for t, label in runs)
        pooled.append(
            f'<li id="{anchor(table)}-{key}">{html.escape(format_value(name))}: the samples of {len(runs)} runs: '
            f"{links}</li>"
        )
        return f"{anchor(table)}-{key}"

    by_row = [
        target(logs, f"row-{i}", row[0])
        for i, (row, logs) in enumerate(zip(table.rows, table.row_logs or [None] * len(table.rows), strict=True))
    ]
    by_column = [
        target(logs, f"column-{j}", name)
        for j, (name, logs) in enumerate(
            zip(table.columns, table.column_logs or [None] * len(table.columns), strict=True)
        )
    ]
    body = "".join(
        "<tr>"
        + "".join(
            cell(v, num, row_target or column_target)
            for v, num, column_target in zip(row, numeric, by_column, strict=True)
        )
        + "</tr>"
        for row, row_target in zip(table.rows, by_row, strict=True)
    )
    note = f'<p class="note">{html.escape(table.caption_note)}</p>' if table.caption_note else ""
    if pooled:
        note += f'<ul class="note">{"".join(pooled)}</ul>'
    return (
        f'<section class="table" id="{anchor(table)}" data-part="table"><h3>{html.escape(table.title)}</h3>'
        f'<div class="wide"><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>{note}</section>'
    )


_HYPHENATED = re.compile(r"(?<![\w./-])[A-Za-z0-9_.]+(?:-[A-Za-z0-9_.]+)+(?![\w./-])")
"""A name with hyphens inside (a setting's, ``bm25-k20``, ``rag-e5-k50-a2``): kept on one line (`_cell_html`)
when it is short (`_UNBROKEN`); a longer one (a log's file name) may still break."""
_UNBROKEN = 24


def _cell_html(table: Table, value: Any) -> str:
    """A cell; an `Estimate` as its value and, smaller and free to wrap onto a second line, its CI. A hyphenated
    word of text (``bm25-k20``, ``rag-e5-k50-a2``) is never broken at its hyphen: a narrow page scrolls the table
    (`.wide`) rather than print ``bm25-`` / ``k20``."""
    text = table.cell(value)
    if isinstance(value, Estimate) and " [" in text:
        head, _, ci = text.partition(" [")
        return f"<span>{html.escape(head)}</span> <small>[{html.escape(ci)}</small>"
    return _HYPHENATED.sub(
        lambda m: f'<span class="nb">{m.group(0)}</span>' if len(m.group(0)) <= _UNBROKEN else m.group(0),
        html.escape(text),
    )


def _figure_html(figure: Figure) -> str:
    """The figure at the width it was drawn for, shrunk to the page; on a phone at that width in a box that scrolls
    sideways (shrunk to 371 px no text of a figure drawn for a paper's two columns can be read), saying so."""
    return (
        f'<figure id="{anchor(figure)}" data-part="figure"><div class="fig">{_svg(figure.figure)}</div>'
        '<p class="phone">Drawn for a page: scroll the figure sideways to read it at its size; its numbers are in '
        "the table of this section.</p>"
        f"<figcaption>{html.escape(figure.caption())}</figcaption></figure>"
    )


def render_html(doc: Document) -> str:
    toc = "".join(f'<li><a href="#{anchor(p)}">{html.escape(p.title)}</a></li>' for p in doc.parts())
    prov = doc.provenance
    runs = "".join(
        "<tr>"
        + "".join(f"<td>{html.escape(str(v))}</td>" for v in (r["task"], r.get("label", r["model"])))
        + "<td>"
        + "<br>".join(html.escape(f"{role}: {m}") for role, m in (r.get("roles") or {}).items())
        + "</td>"
        + f"<td class=path>{'<br>'.join(html.escape(line) for line in settings_text(r['task_args']))}</td>"
        + "".join(f"<td>{html.escape(str(v))}</td>" for v in (r["samples"], r["created"], r["status"]))
        + f"<td class=path>{html.escape(str(r['log']))}</td>"
        + "</tr>"
        for r in prov["runs"]
    )
    header = (
        f'<table class="provenance" id="provenance"><tbody>'
        f"<tr><th>socialbench</th><td>{html.escape(prov['socialbench'])}</td></tr>"
        f"<tr><th>generated</th><td>{html.escape(prov['generated'])}</td></tr>"
        f"<tr><th>models</th><td>{html.escape(', '.join(prov['models']))}</td></tr></tbody></table>"
        '<table class="provenance"><thead><tr><th>task</th><th>run (model · what differs)</th><th>models (role)</th>'
        "<th>settings</th><th>samples</th><th>run date</th><th>status</th><th>log</th></tr></thead>"
        f"<tbody>{runs}</tbody></table>"
    )
    if failed := [(r, line) for r in prov["runs"] for line in r.get("failed_calls") or []]:
        rows = "".join(f"<tr><td>{html.escape(r['label'])}</td><td>{html.escape(line)}</td></tr>" for r, line in failed)
        header += (
            '<h3 id="failed-calls">Model calls cut off or empty</h3><table class="provenance"><thead><tr><th>run</th>'
            f"<th>calls (docs/models.md)</th></tr></thead><tbody>{rows}</tbody></table>"
        )
    if prov.get("left_out"):
        left = "".join(
            f"<tr><td>{html.escape(x['log'])}</td><td>{html.escape(x['reason'])}</td></tr>" for x in prov["left_out"]
        )
        header += (
            '<h3 id="left-out">Logs left out</h3><table class="provenance"><thead><tr><th>log</th><th>why</th></tr>'
            f"</thead><tbody>{left}</tbody></table>"
        )
    sample_rows = sample_table(doc)
    samples = _sample_anchors(doc, sample_rows)
    sections = "".join(
        f"<h2>{html.escape(s.title)}</h2>"
        + "".join(_table_html(p, samples) if isinstance(p, Table) else _figure_html(p) for p in s.parts)
        for s in doc.sections
    )
    headline = (
        f'<h2 id="headline">At a glance</h2>{_table_html(doc.headline, samples)}' if doc.headline is not None else ""
    )
    # a reader sees the answer first (the headline table: each model's main numbers, and what differs between the
    # runs), what the report covers next, its numbers after, and the full record of every run at the end
    # (collapsed: with ten logs it is taller than a screen); what went wrong is named at the top, with a link
    return (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width,initial-scale=1">'
        f"<title>{html.escape(doc.title)}</title><style>{_CSS}</style></head><body><h1>{html.escape(doc.title)}</h1>"
        f'<p class="differs">{html.escape(differs_line(prov))}</p>{headline}'
        f"{_summary_html(doc, bool(failed))}{_notes_html(doc)}<h2>Contents</h2><nav><ol>{toc}</ol></nav>{sections}"
        f"{_samples_html(doc, sample_rows)}"
        f'<h2 id="provenance-section">What produced this report</h2>'
        f'<details id="provenance-details"{" open" if failed or prov.get("left_out") else ""}>'
        f"<summary>Every run and log (socialbench version, settings, dates, status)</summary>"
        f"{header}</details>"
        f"{_OPEN_TARGET}</body></html>"
    )


SAMPLE_COLUMNS = (
    "run", "log", "sample id", "epoch", "question", "options", "gold", "answer", "output", "score", "status"
)  # fmt: skip
"""Per sample behind the numbers: what was asked (the sample's input; the prompt around it is `socialbench prompt LOG
SAMPLE_ID`), its options, the gold answer, the answer the scorer read, what the model wrote (or the judge's
verdict: the scorer's explanation, at most 500 characters), the score and its status."""
HTML_SAMPLES = 5000
"""Up to this many samples over all runs are listed in the HTML itself; past it the page points to the CSV."""
HTML_TEXT = 300
"""Characters of a sample's question or output shown in the HTML list (the CSV has them whole)."""


def _input_text(value: Any) -> str:
    """A sample's input as text: a string, or its chat messages' texts (role-named when there are several)."""
    if isinstance(value, str):
        return value
    messages = list(value or [])
    texts = [(getattr(m, "role", ""), getattr(m, "text", "") or "") for m in messages]
    if len(texts) == 1:
        return texts[0][1]
    return "\n".join(f"{role}: {text}" for role, text in texts)


@read_alongside
def _sample_rows(log: Any) -> list[list[Any]]:
    """Per sample of a log (`SAMPLE_COLUMNS` after the run and log): id, epoch, question, options, gold (the target),
    the answer the scorer read, the model's output or the judge's verdict, the score, the status."""
    out = []
    for sample in log.samples or []:
        score = next(iter((sample.scores or {}).values()), None)
        value = None if score is None else score.value
        target = sample.target if isinstance(sample.target, str) else json.dumps(sample.target, ensure_ascii=False)
        options = "; ".join(f"{chr(65 + k)}. {c}" for k, c in enumerate(sample.choices or [])) or None
        out.append(
            [
                str(sample.id),
                sample.epoch,
                _input_text(sample.input),
                options,
                target,
                None if score is None else score.answer,
                None if score is None else score.explanation,
                value if isinstance(value, int | float | str) or value is None else json.dumps(value),
                None if score is None else (score.metadata or {}).get("status"),
            ]
        )
    return out


def sample_table(doc: Document) -> list[list[Any]]:
    """Every sample behind the report's numbers, one row each (`SAMPLE_COLUMNS`): the run's label and log, and
    the sample id to open its transcript with `inspect view`; read once per log content (`runs.extracted`)."""
    from .runs import extracted

    return [[r.get("label", r["model"]), r["log"], *row] for r in doc.provenance["runs"] for row in
            extracted(r["log"], _sample_rows, persist=True)]  # fmt: skip


def _sample_anchors(doc: Document, rows: Sequence[Sequence[Any]]) -> dict[str, tuple[str, str]]:
    """Each counted run's log -> the id of its samples on the page and the run's label (none when the page cannot
    list them)."""
    if len(rows) > HTML_SAMPLES:
        return {}
    runs = doc.provenance["runs"]
    return {str(r["log"]): (f"samples-{n}", str(r.get("label", r["model"]))) for n, r in enumerate(runs)}


_OPEN_TARGET = (
    "<script>function openTarget(){const t=document.getElementById(location.hash.slice(1));"
    "if(t&&t.tagName==='DETAILS'){t.open=true;t.scrollIntoView();}}"
    "addEventListener('hashchange',openTarget);addEventListener('DOMContentLoaded',openTarget);</script>"
)
"""A link to a run's samples opens its collapsed table (a `<details>` does not open by itself when targeted)."""


def _samples_html(doc: Document, rows: Sequence[Sequence[Any]]) -> str:
    """Per run, a collapsed table of its samples (the items, gold, answers and scores behind every cell), with the
    log and sample id that open the transcript in `inspect view`."""
    if len(rows) > HTML_SAMPLES:
        return (
            f'<h2 id="samples">Samples</h2><p>{len(rows):,} samples: too many for this page; every one is in '
            f"<code>{html.escape(_slug(doc.benchmark))}-samples.csv</code> (<code>--tables DIR</code>).</p>"
        )
    out = ['<h2 id="samples">Samples behind the numbers</h2><p class="note">Open a transcript with '
           "<code>inspect view --log-dir DIR</code> and the log and sample id below; print the exact prompt a sample "
           "was sent with <code>socialbench prompt LOG SAMPLE_ID</code>. Questions and outputs longer than "
           f"{HTML_TEXT} characters are cut here (…); <code>--tables DIR</code> writes them whole.</p>"]  # fmt: skip

    def shown(value: Any) -> str:
        text = format_value(value)
        return text if len(text) <= HTML_TEXT else text[:HTML_TEXT] + "…"

    for n, run in enumerate(doc.provenance["runs"]):
        mine = [row for row in rows if row[1] == run["log"]]
        body = "".join("<tr>" + "".join(f"<td>{html.escape(shown(v))}</td>" for v in row[2:]) + "</tr>" for row in mine)
        head = "".join(f"<th>{html.escape(c)}</th>" for c in SAMPLE_COLUMNS[2:])
        out.append(
            f'<details id="samples-{n}"><summary>{html.escape(run.get("label", run["model"]))}: {len(mine)} '
            f'sample(s), {html.escape(Path(run["log"]).name)}</summary><div class="wide"><table>'
            f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div></details>"
        )
    return "".join(out)


def differs_line(prov: Mapping[str, Any]) -> str:
    """One line on what differs between the report's runs (each field that varies, with its number of values) and
    what they share."""
    runs = prov["runs"]
    if not runs:
        return "No run is counted."
    values: dict[str, set[str]] = {"model": {str(r["model"]) for r in runs}}
    for r in runs:
        for name, value in (r.get("columns") or {}).items():
            values.setdefault(name, set()).add(str(value))
    varying = [f"{name} ({len(v)})" for name, v in values.items() if len(v) > 1]
    apart = "".join(" " + note for note in prov.get("asked_apart") or [])
    if len(runs) == 1:
        return f"One run: {runs[0].get('label') or runs[0]['model']}."
    if not varying:
        return f"{len(runs)} runs that differ in nothing but their logs." + apart
    return (
        f"{len(runs)} runs, differing in {', '.join(varying)}; every other part of a run's identity (items, task "
        "arguments, generate config, code version) is the same in all of them." + apart
    )


def _notes_html(doc: Document) -> str:
    return "".join(f'<p class="note">{html.escape(note)}</p>' for note in doc.notes)


def _summary_html(doc: Document, failed: bool) -> str:
    """The report at a glance: the models, the runs counted, and what a reader must know before the numbers."""
    prov = doc.provenance
    runs, left = prov["runs"], prov.get("left_out") or []
    items = [
        f"{len(runs)} run(s) counted, of {len(prov['models'])} model(s): {html.escape(', '.join(prov['models']))}",
        f"socialbench {html.escape(prov['socialbench'])}, generated {html.escape(prov['generated'])}",
    ]
    if left:
        items.append(f'<span class="warn">{len(left)} log(s) left out</span> (<a href="#left-out">why</a>)')
    if failed:
        items.append('<span class="warn">model calls cut off or empty in some runs</span> (<a href="#failed-calls">'
                     "which</a>)")  # fmt: skip
    items.append('<a href="#samples">the samples behind the numbers</a>; <a href="#provenance-section">every run and '
                 "log</a>")  # fmt: skip
    return '<ul class="summary">' + "".join(f"<li>{i}</li>" for i in items) + "</ul>"


def print_table(table: Table, console: Any) -> None:
    """One table in the terminal, as every other rendering has it: its title, columns, values (`Table.cell`) and
    note. A table that fits the terminal's width is a grid (numbers right-aligned); a wider one is printed a block
    per row, so no run label is folded into a narrow column or cut: the row's text cells as its heading, then its
    values as ``column value`` pairs (a value the row does not have is left out of its line, never shown as 0)."""
    from rich.cells import cell_len
    from rich.markup import escape

    from .terminal import Table as TerminalTable

    if not table.rows:  # a table kept for what its note says (every run left out of it, and why)
        console.print(escape(f"{table.title}: no row."), highlight=False, style="italic")
        if table.caption_note:
            console.print(escape(table.caption_note), highlight=False)
        return
    numeric = [table.numeric(i) for i in range(len(table.columns))]
    texts = [[table.cell(value) for value in row] for row in table.rows]
    # the grid's width with no cell folded: each column's widest line, its padding and its rule
    natural = 1 + sum(
        3 + max(cell_len(line) for text in [name, *(row[i] for row in texts)] for line in text.splitlines() or [""])
        for i, name in enumerate(table.columns)
    )
    console.print(escape(table.title), highlight=False, style="italic")  # the width of the screen, not the grid's
    if natural <= console.width:
        grid = TerminalTable()
        for name, number in zip(table.columns, numeric, strict=True):
            grid.add_column(name, justify="right" if number else "left")
        for row in texts:
            grid.add_row(*row)
        console.print(grid)
    else:
        # a column holding any number (an estimate, a count, yes / no) is a value; the others name the row
        valued = [
            any(isinstance(r[i], int | float | Estimate) and format_value(r[i]) != MISSING for r in table.rows)
            for i in range(len(table.columns))
        ]
        for row in texts:
            heading = " · ".join(t for t, v in zip(row, valued, strict=True) if not v and t != MISSING)
            values = [
                f"{name} {t}" for name, t, v in zip(table.columns, row, valued, strict=True) if v and t != MISSING
            ]
            console.print(escape(f"• {heading or '(no label)'}"), highlight=False, style="bold")
            console.print(escape("    " + "; ".join(values) if values else "    (no value)"), highlight=False)
    if table.caption_note:
        console.print(escape(table.caption_note), highlight=False)


def print_tables(doc: Document, console: Any) -> None:
    """The document in the terminal: every table of every section, declared once for all renderings, then the
    document's notes. The headline is left to `print_headline`, which a command prints last, so the answer is on
    the last screen."""
    from rich.markup import escape

    for section in doc.sections:
        for part in section.parts:
            if isinstance(part, Table):
                print_table(part, console)
    for note in doc.notes:
        console.print(escape(note), highlight=False)


def print_headline(doc: Document, console: Any) -> None:
    """The answer, last: what differs between the runs, then the headline table (each model's main numbers with
    their intervals and n)."""
    from rich.markup import escape

    if doc.headline is not None and doc.headline.rows:
        print_table(doc.headline, console)
    console.print(escape(differs_line(doc.provenance)), highlight=False)


def write_html(doc: Document, path: str | Path) -> Path:
    target = Path(path)
    with atomic_writer(target) as handle:
        handle.write(render_html(doc))
    return target


FORMATS: tuple[Literal["svg", "pdf"], ...] = ("svg", "pdf")


def write_figures(doc: Document, folder: str | Path) -> list[Path]:
    """Each figure as ``NAME.svg`` and ``NAME.pdf``, at the size it was drawn (one or two columns wide)."""
    out = []
    for part in doc.parts():
        if isinstance(part, Figure):
            for fmt in FORMATS:
                target = Path(folder) / f"{_slug(part.name)}.{fmt}"
                with atomic_writer(target, binary=True) as handle:
                    handle.write(part.figure.render(fmt))
                out.append(target)
    return out


_LATEX_SPECIAL = {c: f"\\{c}" for c in "&%$#_{}"} | {
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "\\": r"\textbackslash{}",
}
LATEX_SYMBOLS = {
    "Δ": r"$\Delta$",
    "∆": r"$\Delta$",
    "ρ": r"$\rho$",
    "κ": r"$\kappa$",
    "α": r"$\alpha$",
    "≥": r"$\geq$",
    "≤": r"$\leq$",
    "±": r"$\pm$",
    "×": r"$\times$",
    "↔": r"$\leftrightarrow$",
    "→": r"$\rightarrow$",
    "·": r"$\cdot$",
    "‡": r"\ddag{}",
    "†": r"\dag{}",
    "–": "--",
    "—": "---",
    "’": "'",
    "‘": "`",
    "“": "``",
    "”": "''",
    "…": r"\ldots{}",
    "\u00a0": "~",
    "§": r"\S{}",
    "−": "$-$",
    "≈": r"$\approx$",
    "≠": r"$\neq$",
    "∞": r"$\infty$",
    "°": r"\ensuremath{^\circ}",
    "•": r"\textbullet{}",
    "✓": "yes",
    "✗": "no",
}
"""Characters pdflatex does not set from UTF-8 input by itself, as the commands it knows (math mode where the
symbol is a math symbol). Any other non-ASCII character is written as its code point (``U+4E2D``), so that a table
always compiles; the tables use the datasets' English labels, so this is rare."""


_LATEX_LETTERS = frozenset(chr(i) for i in range(0xC0, 0x100)) - set("ÐÞðþ×÷")
"""Accented Latin-1 letters: LaTeX's default UTF-8 input sets them (as accents) in any font encoding."""


def latex_text(text: str) -> str:
    """Escape ``text`` for LaTeX: the special characters, then the symbols of `LATEX_SYMBOLS`."""
    out = []
    for c in text:
        if c in _LATEX_SPECIAL:
            out.append(_LATEX_SPECIAL[c])
        elif c in LATEX_SYMBOLS:
            out.append(LATEX_SYMBOLS[c])
        elif ord(c) > 127 and c not in _LATEX_LETTERS:
            out.append(rf"\texttt{{U+{ord(c):04X}}}")
        else:
            out.append(c)
    return "".join(out)


_PAPER_REF = re.compile(r"^((?:Table|Tables|Fig\.|Figure|Figs\.)\s+[\w.]+(?:\s*[-–/]\s*[\w.]+)?)\s*[:.]\s+(.+)$", re.S)
_MINUS = re.compile(r"(?<![\w.])-(?=\d)")
_COLUMN_WIDTH_PT = 229
r"""\columnwidth of a two-column article (10 pt: 229.5 pt): a table whose estimated width is more goes to ``table*``."""


def latex_caption(title: str, note: str = "") -> str:
    """A caption LaTeX numbers itself: the paper's own table or figure number, when the title starts with it, moves
    to the end ("Table 13: accuracy per family" -> "accuracy per family (paper Table 13)"), so a paper does not
    print "Table 1: Table 13: ..."."""
    found = _PAPER_REF.match(title)
    text = f"{found.group(2)} (paper {found.group(1)})" if found else title
    return text + (f". {note}" if note else "")


def _lines(text: str, width: int) -> list[str]:
    """``text`` in lines of at most ``width`` characters, broken at spaces; a longer word (a provider's model name,
    ``google/gemini-2.5-flash-lite-preview-09-2025``) is broken after a "/" or a "-" where it must, never inside a
    run of letters."""
    pieces: list[tuple[str, str]] = []  # (piece, what joins it to the piece before: a space, or nothing)
    for word in text.split(" "):
        glue = " "
        while len(word) > width and (cut := max(word.rfind("/", 0, width), word.rfind("-", 0, width))) > 0:
            pieces.append((word[: cut + 1], glue))
            word, glue = word[cut + 1 :], ""
        pieces.append((word, glue))
    lines: list[str] = []
    for piece, glue in pieces:
        if lines and len(lines[-1]) + len(glue) + len(piece) <= width:
            lines[-1] += glue + piece
        else:
            lines.append(piece)
    return [line for line in lines if line] or [""]


def _stack(lines: Sequence[str], align: str, where: str = "t") -> str:
    """Lines set one above the other in a cell (a nested tabular: no package needed)."""
    if len(lines) == 1:
        return lines[0]
    # "\\" reads a "[" after it as its optional space: a line that starts with one ("[fell back to Full ...]")
    # would not compile; \relax ends the line break's arguments
    return rf"\begin{{tabular}}[{where}]{{@{{}}{align}@{{}}}}" + r"\\\relax ".join(lines) + r"\end{tabular}"


_TEXT_WIDTH_PT = 469.0
r"""	extwidth of a two-column 10 pt article: the line of a ``table*``."""
_PART_HEIGHT_PT = 420
r"""The most rows of a table one float holds (estimated; its caption, header and rules take the rest of the
page's 	extheight, 592 pt on letter paper, 595 pt on A4: no float may be taller)."""
_LINE_PT, _SMALL_LINE_PT, _ROW_PT = 12.0, 8.5, 2.0
r"""Estimated heights: a line of 10 pt text, a line of ``\scriptsize`` (an interval), the space between rows."""
MIN_SCALE = 0.7
"""A table is never shrunk below this share of its natural size (10 pt text no smaller than 7 pt)."""


@dataclass(frozen=True)
class LatexFit:
    """How a table will sit on a two-column page (estimated before any TeX runs: `_CHAR_PT` a character)."""

    name: str
    width_pt: float
    parts: int
    both_columns: bool

    @property
    def scale(self) -> float:
        line = _TEXT_WIDTH_PT if self.both_columns else float(_COLUMN_WIDTH_PT)
        return min(1.0, line / self.width_pt) if self.width_pt else 1.0

    def warning(self) -> str | None:
        if self.scale >= MIN_SCALE:
            return None
        return (
            f"{self.name}.tex: about {self.width_pt:.0f} pt wide, so it would be shrunk to ~{self.scale:.0%} of its "
            f"size, under {MIN_SCALE:.0%} (text smaller than 7 pt); set it in landscape (\\begin{{sidewaystable*}}) "
            "or drop columns from the CSV, or report fewer runs at once"
        )


_TEXT_WRAP = 16
"""characters: a text cell's lines (a setting's or a model's name wraps; a 12-column grid stays over 70%)."""
_CHAR_PT, _SMALL_CHAR_PT = 4.6, 3.4
"""Estimated width of a character at 10 pt and at ``\\scriptsize`` (Computer Modern: digits 5 pt, letters ~4.5)."""


def _latex_cells(table: Table) -> tuple[list[bool], list[list[str]], list[list[list[str]]], list[float]]:
    """The table's cells as TeX lines: whether each column is numeric, the header's lines, each row's cells' lines,
    and each column's estimated width (pt)."""
    numeric = [table.numeric(i) for i in range(len(table.columns))]
    header_lines = [_lines(c, 8 if n else 16) for c, n in zip(table.columns, numeric, strict=True)]
    body: list[list[list[str]]] = []
    for row in table.rows:
        cells = []
        for value, number in zip(row, numeric, strict=True):
            text = table.cell(value)
            if number and " [" in text:  # "4.63 [4.10, 5.00] n=12": the mean, then its interval below
                mean, _, rest = text.partition(" [")
                cells.append([mean, "[" + rest])
            else:
                cells.append(_lines(text, 10**6 if number else _TEXT_WRAP))
        body.append(cells)
    widths = [
        max(
            [len(line) * _CHAR_PT for line in header_lines[i]]
            + [_line_pt(line, k) for row in body for k, line in enumerate(row[i])]
        )
        for i in range(len(table.columns))
    ]
    return numeric, header_lines, body, widths


def _line_pt(line: str, k: int) -> float:
    """Estimated width of a cell's ``k``-th line: an interval under its mean is set in ``\\scriptsize``."""
    return len(line) * (_SMALL_CHAR_PT if k == 1 and line.startswith("[") else _CHAR_PT)


def _row_height(cells: list[list[str]]) -> float:
    return _ROW_PT + max(
        (_LINE_PT + (_SMALL_LINE_PT if len(c) == 2 and c[1].startswith("[") else _LINE_PT * (len(c) - 1)))
        for c in cells
    )


def _parts(body: list[list[list[str]]], scale: float = 1.0) -> list[list[list[list[str]]]]:
    """The rows in runs that each fit one float (`_PART_HEIGHT_PT` once shrunk by ``scale``); one run when they
    all do."""
    parts: list[list[list[list[str]]]] = [[]]
    height = 0.0
    for row in body:
        h = _row_height(row) * scale
        if parts[-1] and height + h > _PART_HEIGHT_PT:
            parts.append([])
            height = 0.0
        parts[-1].append(row)
        height += h
    return parts


def latex_fit(table: Table) -> LatexFit:
    """Where `latex_table` will put ``table`` and at what scale (estimated), for a warning before any TeX runs."""
    _, _, body, widths = _latex_cells(table)
    return _fitted(table, body, widths)[0]


def _fitted(
    table: Table, body: list[list[list[str]]], widths: list[float]
) -> tuple[LatexFit, list[list[list[list[str]]]]]:
    """The table's fit and its rows split into the floats that hold them (`_parts`)."""
    width = sum(w + 8 for w in widths)  # 8 pt of column separation
    fit = LatexFit(_slug(table.name), width, 1, width > _COLUMN_WIDTH_PT)
    parts = _parts(body, fit.scale)
    return replace(fit, parts=len(parts)), parts


def latex_table(table: Table) -> str:
    """A booktabs table that pdflatex compiles as written (``booktabs`` and ``graphicx``, both in every TeX
    distribution) and that fits the column of a two-column paper: text columns left-aligned and wrapped (a long
    model name broken after a "/" or "-"), number columns right-aligned with every number rounded to the table's
    decimals, so the means line up on the decimal point, with an interval on a second, smaller line under its mean;
    real minus signs; headers wrapped; a table wider than one column set across both (``table*``), and scaled down
    to the line only where it is still wider. A table taller than a page is split into floats that each fit one
    (its header repeated, the later ones captioned "continued" under the same number; ``longtable`` cannot be used
    in two columns). Where a part is shrunk below `MIN_SCALE` TeX says so (``\typeout``), naming the table. Each
    cell is typeset from the same text as the HTML table."""
    numeric, header_lines, body, widths = _latex_cells(table)
    fit, parts = _fitted(table, body, widths)

    def tex(line: str, number: bool) -> str:
        out = latex_text(line)
        return _MINUS.sub("$-$", out) if number else out

    def cell(lines: list[str], number: bool) -> str:
        if number and len(lines) == 2 and lines[1].startswith("["):  # the interval, smaller
            return _stack([tex(lines[0], True), r"{\scriptsize " + tex(lines[1], True) + "}"], "r")
        return _stack([tex(line, number) for line in lines], "r" if number else "l")

    spec = "".join("r" if n else "l" for n in numeric)
    head = " & ".join(
        _stack([latex_text(line) for line in lines], "r" if n else "l", "b")
        for lines, n in zip(header_lines, numeric, strict=True)
    )
    environment = "table*" if fit.both_columns else "table"
    caption = latex_text(latex_caption(table.title, table.caption_note))
    short = latex_text(latex_caption(table.title))
    out: list[str] = []
    for k, rows in enumerate(parts):
        if k == 0:
            captioned = [rf"\caption{{{caption}}}", rf"\label{{tab:{_slug(table.name)}}}"]
        else:  # the same number as the first part
            captioned = [r"\addtocounter{table}{-1}", rf"\caption{{{short} (continued, part {k + 1} of {len(parts)})}}"]
        out += [
            rf"\begin{{{environment}}}[tbp]",
            r"\centering",
            *captioned,
            r"\setbox0=\hbox{\setlength{\tabcolsep}{4pt}%",
            rf"\begin{{tabular}}{{{spec}}}",
            r"\toprule",
            head + r" \\",
            r"\midrule",
            *(" & ".join(cell(c, n) for c, n in zip(row, numeric, strict=True)) + r" \\" for row in rows),
            r"\bottomrule",
            r"\end{tabular}}%",
            rf"\ifdim{MIN_SCALE}\wd0>\linewidth\typeout{{socialbench: table {_slug(table.name)} is shrunk below "
            rf"{MIN_SCALE * 100:.0f} percent of its size to fit the line: set it in landscape or drop columns}}\fi",
            r"\ifdim\wd0>\linewidth\resizebox{\linewidth}{!}{\box0}\else\box0\fi",
            rf"\end{{{environment}}}",
            "",
        ]
    return "\n".join(out)


def _write_parquet(path: Path, columns: list[str], rows: list[list[Any]]) -> Path:
    """The samples table as Parquet (pyarrow): a column of numbers stays numeric, any other is text (a score column
    of letters and numbers alike); written to a temporary file renamed into place."""
    import pandas as pd

    frame = pd.DataFrame(rows, columns=columns)
    for column in frame.columns:
        values = frame[column]
        numeric = pd.to_numeric(values, errors="coerce")
        if numeric.notna().sum() == values.notna().sum() and values.map(lambda v: not isinstance(v, bool)).all():
            frame[column] = numeric
        else:
            frame[column] = values.map(lambda v: None if v is None else str(v)).astype("string")
    with atomic_writer(path, binary=True) as handle:
        frame.to_parquet(handle, index=False)
    return path


def latex_warnings(doc: Document) -> list[str]:
    """One line per table that will not fit a two-column page at a readable size, naming it and what to do."""
    return [w for part in doc.parts() if isinstance(part, Table) and (w := latex_fit(part).warning())]


def write_tables(doc: Document, folder: str | Path) -> list[Path]:
    """Each table as ``NAME.csv`` (raw values, full precision; an `Estimate` as four columns) and ``NAME.tex``
    (`latex_table`); every sample behind the numbers as ``BENCH-samples.csv`` and ``BENCH-samples.parquet`` (one
    column per field that varies among the runs); the runs counted and left out as ``BENCH-runs.csv``."""
    out = []
    for part in doc.parts():
        if not isinstance(part, Table):
            continue
        stem = Path(folder) / _slug(part.name)
        with atomic_writer(stem.with_suffix(".csv")) as handle:
            writer = csv.writer(handle)
            writer.writerow(part.csv_columns())
            writer.writerows(part.csv_rows())
        with atomic_writer(stem.with_suffix(".tex")) as handle:
            handle.write(latex_table(part))
        out += [stem.with_suffix(".csv"), stem.with_suffix(".tex")]
    # one column per field that varies among the runs (seed, limit, grader, setting, ...), after the model: a file
    # filtered on a column needs no label parsed
    axes = list(dict.fromkeys(name for r in doc.provenance["runs"] for name in r.get("columns", {})))
    model_of = {r["log"]: r["model"] for r in doc.provenance["runs"]}
    columns_of = {r["log"]: r.get("columns", {}) for r in doc.provenance["runs"]}

    def described(log: str) -> list[Any]:
        return [model_of.get(log, ""), *(columns_of.get(log, {}).get(a, "") for a in axes)]

    samples = Path(folder) / f"{_slug(doc.benchmark)}-samples.csv"  # every sample behind the numbers
    columns = [*SAMPLE_COLUMNS, "model", *axes]
    rows = [[*row, *described(row[1])] for row in sample_table(doc)]
    with atomic_writer(samples) as handle:
        writer = csv.writer(handle)
        writer.writerow(columns)
        writer.writerows([["" if v is None else _csv_value(v) for v in row] for row in rows])
    out.append(samples)
    out.append(_write_parquet(samples.with_suffix(".parquet"), columns, rows))
    # the runs table: which logs the tables count (one row each, every identity field its own column: task, model,
    # roles, task arguments, input digests, generate config, samples asked and their digest, code version), and
    # which logs they do not, with the reason
    runs = Path(folder) / f"{_slug(doc.benchmark)}-runs.csv"
    fields = list(dict.fromkeys(n for r in doc.provenance["runs"] for n in r.get("identity", {}) if n != "model"))
    with atomic_writer(runs) as handle:
        writer = csv.writer(handle)
        head = ["log", "counted", "run", "status", "samples", "created", "why left out", "model calls cut off or empty"]
        writer.writerow([*head, "model", *axes, "samples done", "samples planned", *(f"identity: {f}" for f in fields)])
        for r in doc.provenance["runs"]:
            failed = "; ".join(r.get("failed_calls") or []) or None
            row = [r["log"], "yes", r.get("label", r["model"]), r["status"], r["samples"], r["created"], "", failed]
            identity = r.get("identity", {})
            writer.writerow(
                row + described(r["log"]) + [r.get("done"), r.get("planned"), *(identity.get(f, "") for f in fields)]
            )
        for x in doc.provenance.get("left_out", []):
            writer.writerow([x["log"], "no", "", "", "", "", x["reason"], ""] + [""] * (3 + len(axes) + len(fields)))
    return [*out, runs]
