"""Private inspect names (issue 64): read in one module, each resolved by the installed inspect, each with a fallback
that is used only when inspect has moved it."""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace

import pytest

from socialbench.shared import inspect_private
from socialbench.shared.inspect_private import PRIVATE, private

SRC = Path(inspect_private.__file__).parents[1]
PRIVATE_IMPORT = re.compile(r"^\s*(from\s+inspect_ai(\.\w+)*\._\w+|from\s+inspect_ai(\.\w+)*\s+import\s+_\w+)", re.M)


@pytest.mark.parametrize("name", sorted(PRIVATE))
def test_the_installed_inspect_has_every_private_name(name: str) -> None:
    """Fails when an inspect upgrade renames or moves one: the fallback would otherwise be used unsaid."""
    module, attribute = PRIVATE[name]
    assert private(name) is not None, f"inspect_ai no longer has {module}.{attribute}: decide its replacement"
    assert name not in inspect_private.MISSING


def test_no_other_module_imports_a_private_inspect_name() -> None:
    offenders = [
        f"{path.relative_to(SRC)}:{text[: match.start()].count(chr(10)) + 1}"
        for path in sorted(SRC.rglob("*.py"))
        if path.name != "inspect_private.py"
        for text in [path.read_text(encoding="utf-8")]
        for match in PRIVATE_IMPORT.finditer(text)
    ]
    assert offenders == []


def test_the_scan_sees_a_private_import() -> None:
    assert PRIVATE_IMPORT.search("    from inspect_ai.model._model import active_model\n")
    assert PRIVATE_IMPORT.search("from inspect_ai.model import _secret\n")
    assert not PRIVATE_IMPORT.search("from inspect_ai.model import GenerateConfig, get_model\n")


def test_each_fallback_when_inspect_moved_the_name(monkeypatch: pytest.MonkeyPatch) -> None:
    moved = {name: ("inspect_ai.no_such_module", attribute) for name, (_, attribute) in PRIVATE.items()}
    monkeypatch.setattr(inspect_private, "PRIVATE", moved)
    monkeypatch.setattr(inspect_private, "MISSING", set())
    assert inspect_private.active_generate_config().max_connections is None  # inspect's defaults
    assert inspect_private.active_model() is None
    assert inspect_private.cache_write_ttl() is None  # priced at the five-minute rate
    assert inspect_private.deserializing_context() is None
    assert inspect_private.zip_kwargs() == {}
    assert inspect_private.provider_names() == []
    assert inspect_private.batch_connections() == 10_000
    samples = [SimpleNamespace(epoch=2, id="a"), SimpleNamespace(epoch=1, id="b"), SimpleNamespace(epoch=1, id="a")]
    inspect_private.sort_samples(samples)
    assert [(s.epoch, s.id) for s in samples] == [(1, "a"), (1, "b"), (2, "a")]
    assert set(PRIVATE) - {"providers"} == inspect_private.MISSING  # provider_names stops before importing it


def test_the_real_names_answer_as_inspect_does() -> None:
    from inspect_ai._util.constants import DEFAULT_MAX_CONNECTIONS_BATCH  # the test may name inspect's privates

    assert inspect_private.batch_connections() == DEFAULT_MAX_CONNECTIONS_BATCH
    assert "anthropic" in inspect_private.provider_names() and "openai" in inspect_private.provider_names()
    assert inspect_private.cache_write_ttl() is None  # outside a call
