"""No command writes over one of its inputs, whatever path reaches it (the same string, ``dir/../x``, a symbolic
or a hard link): it refuses with one line and exit 2, and the input is byte for byte as it was."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from inspect_ai import eval
from inspect_ai.model import get_model

from conftest import socialbench
from socialbench.benchmarks.perso import perso
from socialbench.core.errors import InputError
from socialbench.core.jsonl import atomic_writer, protecting


def run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return socialbench(*args)


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def aliases(path: Path, tmp_path: Path) -> list[Path]:
    """Other paths that reach ``path``: itself, through ``sub/..``, a symbolic link and a hard link."""
    (path.parent / "sub").mkdir(exist_ok=True)
    link = tmp_path / f"link-{path.name}"
    link.symlink_to(path)
    hard = tmp_path / f"hard-{path.name}"
    os.link(path, hard)
    return [path, path.parent / "sub" / ".." / path.name, link, hard]


def test_import_never_writes_over_its_input(data: Path, tmp_path: Path) -> None:
    source = tmp_path / "thread.json"
    shutil.copyfile(data / "hackernews" / "algolia_item_18475438.json", source)
    before = digest(source)
    for output in aliases(source, tmp_path):
        result = run("import", "hn-algolia", source, "-o", output)
        assert result.returncode == 2, (output, result.stderr)
        lines = [line for line in result.stderr.splitlines() if line.strip()]
        assert len(lines) == 1 and "is one of this command's inputs" in lines[0], result.stderr
        assert digest(source) == before
    inside = run("import", "hn-algolia", source, "-o", source / "out.jsonl")  # a file used as a folder
    assert inside.returncode == 2 and "is a file, not a folder" in inside.stderr and "Traceback" not in inside.stderr
    assert digest(source) == before
    assert run("import", "hn-algolia", source, "-o", tmp_path / "episodes.jsonl").returncode == 0


def test_report_never_writes_over_a_log(tmp_path: Path) -> None:
    (log,) = eval(
        perso(task="cognitive", dimension="belief"),
        model=get_model("mockllm/model"),
        log_dir=str(tmp_path / "logs"),
        display="none",
        limit=2,
    )
    path = Path(str(log.location))
    before = digest(path)
    for target in aliases(path, tmp_path):
        result = run("report", "perso", path, "--html", target)
        assert result.returncode == 2 and "is one of this command's inputs" in result.stderr, result.stderr
        assert digest(path) == before
    folder = run("report", "perso", path.parent, "--html", path.parent / "report.html")  # beside the logs: fine
    assert folder.returncode == 0, folder.stderr
    again = run("report", "perso", path.parent, "--html", path.parent / "report.html")  # not a log: rewritten
    assert again.returncode == 0, again.stderr
    assert digest(path) == before


def test_one_check_in_the_shared_writer(tmp_path: Path) -> None:
    source = tmp_path / "in.jsonl"
    source.write_text("{}\n")
    with protecting([tmp_path]), pytest.raises(InputError, match="inputs"), atomic_writer(source) as handle:
        handle.write("x")
    assert source.read_text() == "{}\n"
    with atomic_writer(tmp_path / "other.jsonl") as handle:  # outside `protecting`, any path may be written
        handle.write("y")


def test_import_never_writes_over_an_input_given_as_an_option(data: Path, tmp_path: Path) -> None:
    thread, more = tmp_path / "thread.json", tmp_path / "more.json"
    shutil.copyfile(data / "reddit" / "thread_1cebxh.json", thread)
    shutil.copyfile(data / "reddit" / "morechildren_1cebxh.json", more)
    before = digest(more)
    for output in aliases(more, tmp_path):
        result = run("import", "reddit-json", thread, "--morechildren", more, "-o", output)
        assert result.returncode == 2 and "is one of this command's inputs" in result.stderr, result.stderr
        assert digest(more) == before


def test_analyze_never_writes_over_its_input(tmp_path: Path) -> None:
    log = tmp_path / "generation.eval"
    log.write_bytes(b"not read: the output is refused before anything is read")
    before = digest(log)
    for target in aliases(log, tmp_path):
        result = run("analyze", "perso", "export-items", "-A", f"log={log}", "-A", f"out={target}")
        assert result.returncode == 2 and "is one of this command's inputs" in result.stderr, result.stderr
        assert digest(log) == before


def test_study_create_never_writes_into_a_folder_holding_its_input(tmp_path: Path) -> None:
    from socialbench.benchmarks.longsocial.task import sample_pack

    folder = tmp_path / "study"
    folder.mkdir()
    items = folder / "key.jsonl"  # the name of a file `study create` writes
    shutil.copyfile(sample_pack() / "items.jsonl", items)
    before = digest(items)
    for given in (items, tmp_path / "study" / "sub" / ".." / "key.jsonl"):
        (folder / "sub").mkdir(exist_ok=True)
        result = run("study", "create", "longsocial-readers", "-o", folder, "--annotators", "a,b", "--items", given)
        assert result.returncode == 2 and f"holds the input {given}" in result.stderr, result.stderr
        assert digest(items) == before and not (folder / "study.json").exists()
    done = run("study", "create", "longsocial-readers", "-o", tmp_path / "new", "--annotators", "a,b", "--items", items)
    assert done.returncode == 0, done.stderr
    assert digest(items) == before
