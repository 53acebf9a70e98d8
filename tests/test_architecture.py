"""The shape of the code: layers point down, benchmarks are independent plug-ins, and the CLI knows none of them."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from socialbench.benchmarks import get_benchmark, registered
from socialbench.shared.benchmark import parameters, parse_arguments, task_name

ROOT = Path(__file__).resolve().parents[1]
LINT_IMPORTS = str(Path(sys.executable).parent / "lint-imports")


def lint_imports(root: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(root / "src")}
    return subprocess.run(
        [LINT_IMPORTS, "--config", str(root / "pyproject.toml"), "--no-cache"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_tree_keeps_its_import_contracts() -> None:
    result = lint_imports(ROOT)
    assert result.returncode == 0, result.stdout
    assert "Contracts: 3 kept, 0 broken." in result.stdout


@pytest.mark.parametrize(
    ("module", "line", "broken"),
    [
        ("core/errors.py", "from socialbench.benchmarks.sibench import rubric", "socialbench.core.errors -> "),
        ("conversations/model.py", "from socialbench.shared import statistics", "socialbench.conversations.model ->"),
        ("shared/judging.py", "from socialbench.benchmarks.sibench import rubric", "socialbench.shared.judging ->"),
        ("benchmarks/longsocial/items.py", "from ..sibench import rubric", "Benchmarks do not import each other"),
        ("benchmarks/longsocial/summary.py", "from .task import COMPARABILITY", "Reports import no task module"),
        ("benchmarks/perso/report.py", "from .task import perso", "Reports import no task module"),
    ],
)
def test_a_wrong_import_breaks_a_contract(tmp_path: Path, module: str, line: str, broken: str) -> None:
    shutil.copytree(ROOT / "src" / "socialbench", tmp_path / "src" / "socialbench")
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    target = tmp_path / "src" / "socialbench" / module
    target.write_text(target.read_text() + f"\n{line}  # noqa\n")
    result = lint_imports(tmp_path)
    assert result.returncode == 1, result.stdout
    assert "BROKEN" in result.stdout and broken in result.stdout


def test_benchmarks_register_themselves_and_document_every_parameter() -> None:
    benchmarks = registered()
    assert {"longsocial", "sibench"} <= set(benchmarks)
    for bench in benchmarks.values():
        assert bench.tasks and bench.title and bench.paper
        for fn in bench.tasks:
            undocumented = [p.name for p in parameters(fn) if not p.doc]
            assert undocumented == [], f"{bench.name}/{task_name(fn)}: no docstring for {undocumented}"
    with pytest.raises(ValueError, match="unknown benchmark 'x'; available: "):
        get_benchmark("x")


def test_task_arguments_are_converted_to_their_annotated_types() -> None:
    fn = get_benchmark("longsocial").task()
    args = parse_arguments(fn, ["max_context=8192", "seed=-1", "answer_mode=logprobs", "items=none", "capabilities=C1"])
    assert args == {"max_context": 8192, "seed": -1, "answer_mode": "logprobs", "items": None, "capabilities": "C1"}
    assert parse_arguments(get_benchmark("sibench").task(), ["penalize_length=true"]) == {"penalize_length": True}
    with pytest.raises(ValueError, match="-T seed='x': Input should be a valid integer"):
        parse_arguments(fn, ["seed=x"])


PLUGIN = '''
    """A benchmark from another distribution: nothing in socialbench names it."""
    from inspect_ai import Task, task
    from inspect_ai.dataset import MemoryDataset, Sample
    from inspect_ai.scorer import match
    from inspect_ai.solver import generate

    from socialbench.shared.benchmark import Benchmark


    @task
    def echo(n: int = 2) -> Task:
        """Say a number back.

        Args:
            n: how many samples.
        """
        return Task(dataset=MemoryDataset([Sample(input=str(i), target=str(i)) for i in range(n)]),
                    solver=generate(), scorer=match())


    def summarize(log, console):
        console.print(f"echo summary: {len(log.samples or [])} samples, status {log.status}")


    def document(logs, compare_paper=False):
        from socialbench.shared.reporting import Document, Section, Table, provenance

        table = Table("echo-logs", f"echo report over {len(logs)} logs", ["logs"], [[len(logs)]])
        return Document("echo", "Echo report", provenance(logs), [Section("Logs", [table])], data={"logs": len(logs)})


    BENCHMARK = Benchmark(
        name="echo", title="Echo", paper="none", tasks=[echo], summarize=summarize, document=document
    )
'''


@pytest.mark.subprocess  # a plug-in is found through its entry point by a fresh process
def test_a_new_benchmark_plugs_in_without_touching_the_cli(tmp_path: Path) -> None:
    site = tmp_path / "site"
    (site / "sbecho").mkdir(parents=True)
    (site / "sbecho" / "__init__.py").write_text(textwrap.dedent(PLUGIN))
    meta = site / "sbecho-0.1.dist-info"
    meta.mkdir()
    (meta / "METADATA").write_text("Metadata-Version: 2.1\nName: sbecho\nVersion: 0.1\n")
    (meta / "entry_points.txt").write_text("[socialbench.benchmarks]\necho = sbecho\n")
    env = {**os.environ, "PYTHONPATH": str(site)}
    cli = [sys.executable, "-m", "socialbench.cli"]
    listed = subprocess.run([*cli, "list"], env=env, capture_output=True, text=True, timeout=300)
    assert listed.returncode == 0, listed.stderr
    assert "echo  Echo" in listed.stdout and "how many samples" in listed.stdout
    ran = subprocess.run(
        [*cli, "run", "echo", "-T", "n=3", "--model", "mockllm/model", "--log-dir", str(tmp_path / "logs")],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert ran.returncode == 0, ran.stderr[-2000:]
    assert "echo summary: 3 samples, status success" in ran.stdout
    reported = subprocess.run(
        [*cli, "report", "echo", str(tmp_path / "logs")], env=env, capture_output=True, text=True, timeout=300
    )
    assert "echo report over 1 logs" in reported.stdout, reported.stderr


def import_cycles(package: str) -> list[tuple[str, str]]:
    """Direct imports ``a -> b`` (at module level or inside a function) where ``b`` also reaches ``a``."""
    import grimp  # import-linter's graph builder

    graph = grimp.build_graph(package, cache_dir=None)
    return sorted(
        (module, imported)
        for module in graph.modules
        for imported in graph.find_modules_directly_imported_by(module)
        if graph.chain_exists(importer=imported, imported=module)
    )


def test_no_module_imports_a_module_that_imports_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """issue 48: release.py <-> studies.py and pushshift.py <-> pushshift_spark.py were circles (one side importing
    inside a function); none is left, and the check finds one where there is one."""
    assert import_cycles("socialbench") == []
    package = tmp_path / "circle"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from . import b\n")
    (package / "b.py").write_text("def late():\n    from . import a\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert import_cycles("circle") == [("circle.a", "circle.b"), ("circle.b", "circle.a")]
