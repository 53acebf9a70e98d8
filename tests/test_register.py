"""The inspect_evals register listing (issue 64): `scripts/register_listing.py` writes one eval.yaml per benchmark
task, each validated here by a verbatim copy of inspect_evals' own schema (tests/vendor, inspect_evals 0.26.0)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
COMMIT = "0123456789abcdef0123456789abcdef01234567"


def _module(path: Path, name: str):  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # pydantic resolves the schema's postponed annotations through sys.modules
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def schema():  # type: ignore[no-untyped-def]
    return _module(ROOT / "tests" / "vendor" / "inspect_evals_metadata.py", "inspect_evals_metadata")


@pytest.fixture(scope="module")
def listing(tmp_path_factory: pytest.TempPathFactory, data: Path) -> list[Path]:
    script = _module(ROOT / "scripts" / "register_listing.py", "register_listing")
    return list(script.write(tmp_path_factory.mktemp("register"), "https://github.com/example/socialbench", COMMIT))


def test_every_entry_validates_as_inspect_evals_loads_it(listing: list[Path], schema) -> None:  # type: ignore[no-untyped-def]
    assert sorted(p.parent.name for p in listing) == [
        "socialbench-longsocial",
        "socialbench-perso",
        "socialbench-sibench",
    ]
    for path in listing:
        entry = schema._metadata_from_entry(schema._load_single_eval_yaml(path))
        assert type(entry).__name__ == "ExternalEvalMetadata", path  # a `source` makes it an external entry
        (task,) = entry.tasks  # the register takes one task per entry
        assert entry.source.repository_commit == COMMIT and entry.source.maintainers == ["example"]
        code = (ROOT / str(task.task_path)).read_text(encoding="utf-8")
        assert f"@task\ndef {task.name}(" in code  # the named @task is in the named file
        assert task.dataset_samples and task.dataset_samples > 0
    samples = {p.parent.name: yaml.safe_load(p.read_text())["tasks"][0]["dataset_samples"] for p in listing}
    assert samples == {"socialbench-longsocial": 36, "socialbench-sibench": 312, "socialbench-perso": 400}


def test_the_schema_refuses_what_the_register_refuses(listing: list[Path], schema, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """The copied validator can fail: a `version` key (the task's version lives in its logs) and a task without a
    path are refused."""
    good = yaml.safe_load(listing[0].read_text())
    for bad in ({**good, "version": "1-A"}, {**good, "tasks": [{"name": good["tasks"][0]["name"]}]}):
        path = tmp_path / "bad" / "eval.yaml"
        path.parent.mkdir(exist_ok=True)
        path.write_text(yaml.safe_dump(bad))
        with pytest.raises(Exception, match=r"Extra inputs are not permitted|task_path"):
            schema._metadata_from_entry(schema._load_single_eval_yaml(path))


def test_the_script_refuses_a_branch_for_a_commit() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "register_listing.py"), "--repository-url", "https://github.com/a/b",
         "--commit", "main", "--out", "/nonexistent"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 1 and "40-character commit" in done.stderr
