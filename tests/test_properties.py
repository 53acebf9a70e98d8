"""Property-based bad input (hypothesis): real files with one structured mutation (a value of the wrong type, a
missing key, huge or non-finite numbers, deep nesting, bad bytes) must import or fail with one located
`InputError` line, never another exception. The budget is bounded (``max_examples`` per loader)."""

from __future__ import annotations

import bz2
import hashlib
import json
import os
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from socialbench.benchmarks.longsocial.items import load_items as load_longsocial_items
from socialbench.benchmarks.longsocial.task import sample_pack
from socialbench.benchmarks.perso.human import load_annotations
from socialbench.benchmarks.perso.items import default_items
from socialbench.benchmarks.perso.items import load_items as load_perso_items
from socialbench.conversations.sources import import_episodes
from socialbench.conversations.store import read_episodes, write_episodes
from socialbench.core.errors import InputError

# its module fixtures are built once: all its tests on one xdist worker
pytestmark = pytest.mark.xdist_group("test_properties")

EXAMPLES = int(os.environ.get("SOCIALBENCH_HYPOTHESIS_EXAMPLES", "40"))
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)
ODD = st.sampled_from([1e20, -1e308, float("inf"), 2**70, "abc", "", [], {}, None, True, "\udcff", "9" * 400])


def _slots(doc: Any) -> list[tuple[Any, Any]]:
    """Every (container, key) pair of a JSON document (iterative: documents may be deep)."""
    out, stack = [], [doc]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            out += [(node, k) for k in node]
            stack += list(node.values())
        elif isinstance(node, list):
            out += [(node, i) for i in range(len(node))]
            stack += node
    return out


@st.composite
def mutation(draw: st.DrawFn, doc: Any) -> Any:
    """One structured change of a copy of ``doc``."""
    doc = json.loads(json.dumps(doc))
    slots = _slots(doc)
    if not slots:
        return draw(JSON)
    container, key = draw(st.sampled_from(slots))
    op = draw(st.sampled_from(["replace", "odd", "delete", "nest"]))
    if op == "delete" and isinstance(container, dict):
        del container[key]
    elif op == "nest":  # written out by _dump: a deep object would overflow hypothesis' own printer
        container[key] = f"{NEST}{draw(st.integers(1, 3000))}"
    else:
        container[key] = draw(ODD if op == "odd" else JSON)
    return doc


def _import_and_write(fmt: str, path: Path) -> None:
    """Import, then write the episodes (what `socialbench import` does): both steps are under the contract."""
    write_episodes(path.parent / "out.jsonl", import_episodes(fmt, [path]))


def _contract(load: Callable[[], Any], *inputs: Path) -> None:
    """``load`` imports or fails with one located line, and every input file is byte for byte as it was."""
    before = _digests(inputs)
    try:
        load()
    except InputError as exc:
        assert "\n" not in str(exc) and str(exc).strip()
    assert _digests(inputs) == before, "an input file was changed"


def _digests(inputs: tuple[Path, ...]) -> dict[Path, str]:
    files = [f for p in inputs for f in ([p] if p.is_file() else sorted(p.rglob("*")))]
    return {f: hashlib.sha256(f.read_bytes()).hexdigest() for f in files if f.is_file()}


NEST = "@@nest:"


def _dump(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=True, allow_nan=True)  # a lone surrogate stays a JSON escape
    return re.sub(rf'"{NEST}(\d+)"', lambda m: "[" * int(m[1]) + "0" + "]" * int(m[1]), text)


def _jsonl_doc(path: Path) -> list[Any]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()[:3]]


# derandomized: the same examples on every CI run (set SOCIALBENCH_HYPOTHESIS_EXAMPLES higher to explore)
FIXED = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize="SOCIALBENCH_HYPOTHESIS_EXPLORE" not in os.environ,
    suppress_health_check=list(HealthCheck),
)


def _data_or_skip(data_root: Path, *parts: str) -> Path:
    path = data_root.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"real data file {path} not found")
    return path


DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def _algolia_doc() -> Any:
    doc = json.loads(_data_or_skip(DATA, "hackernews", "algolia_item_18475438.json").read_text())
    doc["children"] = doc["children"][:3]
    return doc


@FIXED
@given(st.data())
def test_hn_algolia(tmp_path_factory: pytest.TempPathFactory, data: st.DataObject) -> None:
    path = tmp_path_factory.mktemp("hn") / "item.json"
    path.write_text(_dump(data.draw(mutation(_algolia_doc()))))
    _contract(lambda: _import_and_write("hn-algolia", path), path)


@FIXED
@given(st.data())
def test_reddit_json(tmp_path_factory: pytest.TempPathFactory, data: st.DataObject) -> None:
    doc = json.loads(_data_or_skip(DATA, "reddit", "thread_1cebxh.json").read_text())
    doc[1]["data"]["children"] = doc[1]["data"]["children"][:3]
    path = tmp_path_factory.mktemp("reddit") / "thread.json"
    path.write_text(_dump(data.draw(mutation(doc))))
    _contract(lambda: _import_and_write("reddit-json", path), path)


@FIXED
@given(st.data())
def test_sibench(tmp_path_factory: pytest.TempPathFactory, data: st.DataObject) -> None:
    doc = json.loads(_data_or_skip(DATA, "sibench", "SI-Bench.json").read_text())[:3]
    path = tmp_path_factory.mktemp("sibench") / "SI-Bench.json"
    path.write_text(_dump(data.draw(mutation(doc))))
    _contract(lambda: _import_and_write("sibench", path), path)


@FIXED
@given(st.data())
def test_convokit(tmp_path_factory: pytest.TempPathFactory, data: st.DataObject) -> None:
    source = _data_or_skip(DATA, "convokit")
    folder = tmp_path_factory.mktemp("convokit") / "corpus"
    shutil.copytree(source, folder, copy_function=shutil.copyfile)  # writable copies as any user
    lines = (folder / "utterances.jsonl").read_text().splitlines()[:5]
    which = data.draw(st.integers(0, len(lines) - 1))
    lines[which] = _dump(data.draw(mutation(json.loads(lines[which]))))
    (folder / "utterances.jsonl").write_text("\n".join(lines) + "\n")
    _contract(lambda: _import_and_write("convokit", folder), folder)


@FIXED
@given(st.data())
def test_cmv_pairs(tmp_path_factory: pytest.TempPathFactory, data: st.DataObject) -> None:
    with bz2.open(_data_or_skip(DATA, "cmv_pairs", "heldout_pair_data.jsonlist.bz2"), "rt") as handle:
        first = json.loads(handle.readline())
    path = tmp_path_factory.mktemp("pairs") / "pairs.jsonlist"
    path.write_text(_dump(data.draw(mutation(first))) + "\n")
    _contract(lambda: _import_and_write("cmv-pairs", path), path)


@FIXED
@given(st.data())
def test_episodes_file(tmp_path_factory: pytest.TempPathFactory, data: st.DataObject) -> None:
    line = (sample_pack() / "episodes.jsonl").read_text(encoding="utf-8").splitlines()[0]
    path = tmp_path_factory.mktemp("episodes") / "episodes.jsonl"
    path.write_text(_dump(data.draw(mutation(json.loads(line)))) + "\n")
    _contract(lambda: list(read_episodes(path)), path)


@FIXED
@given(st.data())
def test_longsocial_items(tmp_path_factory: pytest.TempPathFactory, data: st.DataObject) -> None:
    rows = _jsonl_doc(sample_pack() / "items.jsonl")
    path = tmp_path_factory.mktemp("items") / "items.jsonl"
    path.write_text("\n".join(_dump(r) for r in data.draw(mutation(rows))) + "\n")
    _contract(lambda: load_longsocial_items(path), path)


@FIXED
@given(st.data())
def test_perso_items_and_annotations(tmp_path_factory: pytest.TempPathFactory, data: st.DataObject) -> None:
    folder = tmp_path_factory.mktemp("perso")
    rows = _jsonl_doc(default_items())
    items = folder / "items.jsonl"
    items.write_text("\n".join(_dump(r) for r in data.draw(mutation(rows))) + "\n")
    _contract(lambda: load_perso_items(items), items)
    note = {"annotator": "A", "study": "verification", "instance": rows[0]["id"], "answer": 1, "ratings": {"gold": 5}}
    annotations = folder / "annotations.jsonl"
    annotations.write_text(_dump(data.draw(mutation(note))) + "\n")
    _contract(lambda: load_annotations(annotations), annotations)


@FIXED
@given(st.binary(min_size=0, max_size=200))
def test_bad_bytes_in_any_jsonl_loader(tmp_path_factory: pytest.TempPathFactory, raw: bytes) -> None:
    path = tmp_path_factory.mktemp("bytes") / "file.jsonl"
    path.write_bytes(raw)
    for load in (lambda: list(read_episodes(path)), lambda: load_perso_items(path), lambda: load_annotations(path)):
        _contract(load, path)


# ---- study score over corrupted saves (issue 37) ------------------------------------------------------------------
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 10**12) | st.floats(allow_nan=True) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)


@pytest.fixture(scope="module")
def cognitive_study(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """A real perso-cognitive study of the shipped items with one annotator, and the save Potato writes when that
    annotator answers every page with its gold."""
    from socialbench.benchmarks.perso.studies import STUDIES as PERSO_STUDIES
    from socialbench.shared import studies

    folder = tmp_path_factory.mktemp("study") / "s"
    studies.create(PERSO_STUDIES["perso-cognitive"].build(), folder, ["a"], seed=0, benchmark="perso")
    token = studies.load(folder)["pages"]
    state = {
        "user_id": "a",
        "instance_id_to_label_to_value": {  # a page per post and reply: one answer per dimension
            f"{item}_{token}": [
                [{"schema": f"answer_{d}", "name": "ABCD"[e["gold"]]}, "ABCD"[e["gold"]]] for d, e in k["items"].items()
            ]
            for item, k in studies.key(folder).items()
        },
        "instance_id_to_behavioral_data": {},
    }
    return folder, state


def _corrupt(state: Any, path: list[Any], value: Any) -> Any:
    """``state`` with the node at ``path`` (indices into dicts' keys and lists) replaced by ``value``."""
    if not path or not isinstance(state, dict | list) or not state:
        return value
    step, rest = path[0], path[1:]
    if isinstance(state, dict):
        key = list(state)[step % len(state)]
        return {**state, key: _corrupt(state[key], rest, value)}
    copy = list(state)
    copy[step % len(copy)] = _corrupt(copy[step % len(copy)], rest, value)
    return copy


@settings(max_examples=80, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    edits=st.lists(st.tuples(st.lists(st.integers(0, 40), max_size=5), _JSON), min_size=1, max_size=3),
    cut=st.none() | st.integers(0, 4000),
)
def test_study_score_over_corrupted_saves_refuses_in_one_line_or_scores_only_what_was_shown(
    cognitive_study: tuple[Path, dict[str, Any]], edits: list[tuple[list[int], Any]], cut: int | None
) -> None:
    """Issue 37: random corruptions of a real save (values of any type anywhere, truncated bytes) never give a
    traceback, and a score is computed only from pages the study showed, with answers among the options it showed."""
    import io

    from rich.console import Console

    from socialbench.benchmarks.perso.studies import STUDIES as PERSO_STUDIES
    from socialbench.shared import studies

    folder, good = cognitive_study
    state: Any = good
    for path, value in edits:
        state = _corrupt(state, path, value)
    text = json.dumps(state, allow_nan=True)
    saved = folder / "server" / "annotation_output" / "a" / "user_state.json"
    saved.parent.mkdir(parents=True, exist_ok=True)
    saved.write_text(text if cut is None else text[:cut])
    try:
        rows = studies.answers(folder)
        PERSO_STUDIES["perso-cognitive"].score(str(folder), Console(file=io.StringIO()), as_json=True)
    except InputError as exc:
        assert "\n" not in str(exc) and str(saved) in str(exc)
        return
    shown = studies.key(folder)
    for row in rows:
        assert row.item in shown and row.annotator == "a"
        assert set(row.values) <= {"answer_belief", "answer_emotion", "answer_intent"}
        assert all(v in ("A", "B", "C", "D") for v in row.values.values())
