"""Issue 59: one document per report command. Every table is declared once and the terminal, the CSV, the LaTeX,
the HTML and ``--json`` render that one declaration: the same title, columns and values everywhere. Known answers
come from scripted models over the sample pack: a constant letter scores the share of gold answers that are that
letter; a grader that calls every open answer right scores 100%."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval
from rich.console import Console

from conftest import socialbench
from messy_folder import constant, scripted
from socialbench.benchmarks.longsocial.figures import document
from socialbench.shared.reporting import MISSING, Table, differs_line, print_headline, print_tables

pytestmark = pytest.mark.xdist_group("test_one_document")

LIMIT = 12


def _gold() -> list[str]:
    """The first ``LIMIT`` items' gold letters, in dataset order (what ``-T limit`` asks)."""
    from socialbench.benchmarks.longsocial.task import longsocial

    task = longsocial(limit=LIMIT)
    return [str(sample.target) for sample in task.dataset]


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Full and open answer of one model on the first 12 items: Full answers a constant "B"; the open-answer
    grader calls every answer right."""
    from socialbench.benchmarks.longsocial.task import longsocial

    logs = tmp_path_factory.mktemp("one-document") / "logs"
    out: dict[str, Any] = {"folder": logs}
    for name, workflow, roles in (
        ("full", "full", None),
        ("open", "open-answer", {"grader": scripted(lambda m: json.dumps({"correct": True, "rationale": "ok"}))}),
    ):
        (log,) = eval(
            longsocial(workflow=workflow, limit=LIMIT),
            model=constant("B"),
            model_roles=roles,
            log_dir=str(logs),
            display="none",
        )
        assert log.status == "success"
        out[name] = str(log.location)
    return out


def test_table_4_is_the_share_of_gold_b_against_every_open_answer_right(folder: dict[str, Any]) -> None:
    """Full scores the share of gold B; open answer scores 100%; the drop is their difference, on every item."""
    gold = _gold()
    share_b = 100 * gold.count("B") / len(gold)
    assert 0 < share_b < 100  # the known answer tells a right pairing from a wrong one
    doc = document([folder["full"], folder["open"]])
    table = next(p for p in doc.parts() if isinstance(p, Table) and p.name == "longsocial-table4")
    ((model, full, opened, items, drop),) = table.rows
    assert model.startswith("mockllm/model")
    assert (round(full, 9), opened, items) == (round(share_b, 9), 100.0, LIMIT)
    assert abs(drop.value - (share_b - 100)) < 1e-9 and drop.n == LIMIT and drop.low < drop.value < drop.high
    (row,) = doc.data["open_vs_choice"]["models"]  # --json: the same numbers
    assert row["items"] == LIMIT and abs(100 * row["drop"] - drop.value) < 1e-9


def test_every_table_reads_the_same_in_the_terminal_csv_and_json(folder: dict[str, Any], tmp_path: Path) -> None:
    """Each table of the document is in the terminal with its title and every cell as `Table.cell` writes it, in
    the CSV with its columns, and the terminal ends on the answer: the headline, then what differs between runs."""
    logs = [folder["full"], folder["open"]]
    doc = document(logs)
    buffer = io.StringIO()
    console = Console(file=buffer, width=100, color_system=None)
    print_tables(doc, console)
    print_headline(doc, console)
    text = buffer.getvalue()
    flat = " ".join(text.split())
    tables = [p for s in doc.sections for p in s.parts if isinstance(p, Table)]
    assert {t.name for t in tables} >= {"longsocial-grid", "longsocial-table4", "longsocial-table13"}
    for table in tables:
        assert " ".join(table.title.split()) in flat, table.name
        for row in table.rows:
            for value in row:
                cell = table.cell(value)
                if cell != MISSING:
                    assert " ".join(cell.split()) in flat, (table.name, cell)
    assert all(len(line) <= 100 for line in text.splitlines())
    assert doc.headline is not None and flat.endswith(" ".join(differs_line(doc.provenance).split()))
    assert flat.index(" ".join(doc.headline.title.split())) > flat.index(" ".join(tables[-1].title.split()))
    done = socialbench("report", "longsocial", *logs, "--tables", tmp_path / "tables")
    assert done.returncode == 0, done.stderr
    for table in tables:
        with (tmp_path / "tables" / f"{table.name}.csv").open() as handle:
            header = next(csv.reader(handle))
        assert header == table.csv_columns(), table.name
    as_json = json.loads(socialbench("report", "longsocial", *logs, "--json").stdout)
    assert as_json["open_vs_choice"] == json.loads(json.dumps(doc.data["open_vs_choice"]))


def test_an_exact_interval_is_marked_in_every_rendering(folder: dict[str, Any], tmp_path: Path) -> None:
    """A constant answer on one capability: the CoT-free Full run's per-capability cells have exact intervals
    where every item scored alike; the ‡ is in the cell and its meaning in the table's note, in LaTeX too."""
    doc = document([folder["full"]])
    marked = [t for t in doc.parts() if isinstance(t, Table) and any("‡" in t.cell(v) for row in t.rows for v in row)]
    assert marked, "a constant model over 12 items has a capability where every answer is alike"
    for table in marked:
        assert "‡ exact binomial" in table.caption_note
    from socialbench.shared.reporting import latex_table

    assert r"\ddag{}" in latex_table(marked[0])


def test_each_sample_behind_the_numbers_shows_its_question_options_gold_and_output(
    folder: dict[str, Any], tmp_path: Path
) -> None:
    """Issue 62's per-instance view: every sample of the CSV (and the HTML's list) carries what was asked, its
    options in the order shown, the gold letter, the answer read and the model's own words, exactly."""
    from socialbench.benchmarks.longsocial.task import longsocial

    done = socialbench(
        "report", "longsocial", folder["full"], "--tables", tmp_path / "t", "--html", tmp_path / "r.html"
    )
    assert done.returncode == 0, done.stderr
    with (tmp_path / "t" / "longsocial-samples.csv").open() as handle:
        rows = {r["sample id"]: r for r in csv.DictReader(handle)}
    samples = list(longsocial(limit=LIMIT).dataset)
    assert sorted(rows) == sorted(str(s.id) for s in samples)
    for sample in samples:
        row = rows[str(sample.id)]
        assert row["question"] == sample.input and row["gold"] == sample.target
        assert row["options"] == "; ".join(f"{'ABCD'[k]}. {c}" for k, c in enumerate(sample.choices or []))
        assert (row["answer"], row["output"]) == ("B", "Answer: B")
        assert float(row["score"]) == (1.0 if sample.target == "B" else 0.0)
    page = (tmp_path / "r.html").read_text()
    assert "socialbench prompt LOG SAMPLE_ID" in page and "Answer: B" in page


def test_a_retriever_this_installation_cannot_run_leaves_table_18_out_with_the_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Table 18 reruns the settings' retrievers; on a machine without the similarity extra the report still stands
    (every other table, exit 0) and names what it left out and why, in the terminal and the --json."""
    from socialbench.benchmarks.longsocial import figures
    from socialbench.benchmarks.longsocial.task import longsocial

    (log,) = eval(longsocial(workflow="bm25-k20", limit=4), model=constant("B"), log_dir=str(tmp_path), display="none")

    def missing(*args: Any, **kwargs: Any) -> Any:
        raise ValueError("embeddings need the packages of the `similarity` extra")

    monkeypatch.setattr(figures, "evidence_recall", missing)
    done = socialbench("report", "longsocial", str(log.location))
    assert done.returncode == 0, done.stderr
    assert "Table 18 leaves out" in done.stderr and "similarity` extra" in done.stderr
    assert "Grid (Table 14 cells)" in done.stdout
    data = json.loads(socialbench("report", "longsocial", str(log.location), "--json").stdout)
    assert data["table18"]["rows"] == [] and "similarity` extra" in data["table18"]["left_out"][0]
