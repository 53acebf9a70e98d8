"""Data socialbench may not ship (issue 64): SI-Bench's dialogues are fetched once from a pinned URL into the data
folder, checked by sha256, from a real HTTP server on 127.0.0.1 here; a wrong file is refused in one line and
nothing is written; without the file a run says how to get it; the wheel holds no copy."""

from __future__ import annotations

import functools
import http.server
import shutil
import threading
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from conftest import socialbench
from socialbench.benchmarks.sibench import BENCHMARK
from socialbench.benchmarks.sibench.dataset import SOURCE, load_dialogues
from socialbench.core.errors import InputError
from socialbench.shared.datasets import fetch, locate


@pytest.fixture
def served(tmp_path: Path, data: Path) -> Iterator[tuple[str, Path]]:
    """An HTTP server on 127.0.0.1 serving the real SI-Bench.json and a damaged copy of it."""
    root = tmp_path / "www"
    root.mkdir()
    shutil.copyfile(data / "sibench" / "SI-Bench.json", root / "SI-Bench.json")
    (root / "damaged.json").write_bytes((root / "SI-Bench.json").read_bytes()[:-10])
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", root
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def empty_data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "data"
    monkeypatch.setenv("SOCIALBENCH_DATA", str(folder))
    return folder


def test_fetched_from_the_pinned_url_checked_and_read(served: tuple[str, Path], empty_data: Path) -> None:
    url, _ = served
    remote = replace(SOURCE, url=f"{url}/SI-Bench.json")  # the pinned URL, served here
    with pytest.raises(InputError, match="socialbench fetch sibench"):
        locate(remote)
    path, had = fetch(remote)
    assert not had and path.is_relative_to(empty_data) and path.stat().st_size == 2_381_427
    assert fetch(remote) == (path, True)  # already there: nothing downloaded again
    assert len(load_dialogues()) == 2221  # the task reads the fetched copy


def test_a_file_that_is_not_the_pinned_one_is_refused_and_nothing_written(
    served: tuple[str, Path], empty_data: Path
) -> None:
    url, _ = served
    with pytest.raises(InputError) as caught:
        fetch(SOURCE, f"{url}/damaged.json")
    message = str(caught.value)
    assert "\n" not in message and "is not the pinned 73596062cc41" in message and "nothing written" in message
    assert not SOURCE.cached().exists()
    assert [p for p in empty_data.rglob("*") if p.is_file()] == []  # no partial download left behind
    with pytest.raises(InputError, match="could not be downloaded"):
        fetch(SOURCE, f"{url}/missing.json")
    assert [p for p in empty_data.rglob("*") if p.is_file()] == []


def test_without_the_file_a_run_says_how_to_get_it(empty_data: Path) -> None:
    done = socialbench("run", "sibench", "--model", "mockllm/model", "--limit", "1")
    assert done.returncode == 2
    line = done.stderr.strip().splitlines()[-1]
    assert "socialbench fetch sibench" in line and "-T dialogues=PATH/SI-Bench.json" in line and "no licence" in line


def test_a_named_copy_is_read_without_fetching(data: Path, empty_data: Path) -> None:
    copy = data / "sibench" / "SI-Bench.json"
    assert len(load_dialogues(copy)) == 2221
    done = socialbench("plan", "sibench", "--model", "openai/gpt-4o", "-T", "n=4", "-T", f"dialogues={copy}")
    assert done.returncode == 0, done.stderr
    assert not SOURCE.cached().exists()


def test_fetch_command_from_a_local_copy_then_again(data: Path, empty_data: Path) -> None:
    copy = str(data / "sibench" / "SI-Bench.json")
    first = socialbench("fetch", "sibench", "--from", copy)
    assert first.returncode == 0 and "fetched into" in first.stdout and "no licence" in first.stdout
    again = socialbench("fetch", "sibench", "--from", copy)
    assert again.returncode == 0 and "already in" in again.stdout
    assert BENCHMARK.remote == [SOURCE]
    nothing = socialbench("fetch", "longsocial")
    assert nothing.returncode == 0 and "nothing to fetch" in nothing.stdout


def test_the_package_ships_no_sibench_data() -> None:
    package = Path(__import__("socialbench").__file__).parent
    assert not list(package.rglob("SI-Bench.json"))


def test_the_sample_pack_attribution_is_in_step_with_its_episodes() -> None:
    from socialbench.benchmarks.longsocial.pack import SAMPLE_SOURCES, attribution_markdown, load_episodes, sample_pack

    episodes = load_episodes(sample_pack() / "episodes.jsonl")
    assert set(episodes) == set(SAMPLE_SOURCES)  # every shipped episode has a source, URL and licence
    written = (sample_pack() / "ATTRIBUTION.md").read_text(encoding="utf-8")
    assert written == attribution_markdown(episodes.values())  # rebuilt by scripts/build_sample_pack.py
    assert "authors (19): American Luke, DVK" in written  # CC BY-SA: each Stack Exchange author named


def test_list_data_names_every_shipped_file_and_its_licence() -> None:
    done = socialbench("list", "--data")
    assert done.returncode == 0
    text = " ".join(done.stdout.split())
    for needle in ("sample_p", "cognitiv", "fetched:", "Gemma Terms of Use", "no licence", "Apache-2.0"):
        assert needle in text
    package = Path(__import__("socialbench").__file__).parent
    shipped = {str(p.relative_to(package / "benchmarks")) for p in package.rglob("*") if p.suffix in DATA_SUFFIXES}
    declared = {n.file for b in __import__("socialbench.benchmarks").benchmarks.registered().values() for n in b.data}
    assert shipped - {"longsocial/sample_pack/ATTRIBUTION.md"} <= declared  # no data file ships undeclared


DATA_SUFFIXES = {".jsonl", ".gz", ".json", ".csv", ".xml", ".bz2", ".md"}


def test_a_folder_member_of_an_archive_is_fetched_file_by_file(
    served: tuple[str, Path], empty_data: Path, data: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PerSo's exchange files: a repository archive (as GitHub serves one) over HTTP, its `original/` member taken,
    only the files the pin names kept, each file's content checked through the folder's digest."""
    import tarfile

    from socialbench.benchmarks.perso.data import EXCHANGES

    url, root = served
    with tarfile.open(root / "repo.tar.gz", "w:gz") as archive:
        archive.add(data / "cmv", arcname="change-my-view-modes-d1fe2b3/original")
    path, had = fetch(EXCHANGES, f"{url}/repo.tar.gz")
    assert not had and path.is_dir() and len(list(path.rglob("*.xml"))) == 201
    assert not (path / "ANNOTATION_README.md").exists()  # outside the pinned files
    damaged = root / "damaged.tar.gz"
    with tarfile.open(damaged, "w:gz") as archive:
        archive.add(data / "cmv" / "positive", arcname="x/original/positive")  # the negative files missing
    other = empty_data / "other"
    monkeypatch.setenv("SOCIALBENCH_DATA", str(other))
    with pytest.raises(InputError, match="is not the pinned"):
        fetch(EXCHANGES, f"{url}/damaged.tar.gz")
    assert not any(p.is_file() for p in other.rglob("*"))  # nothing written


def test_fetch_perso_from_a_folder_of_copies(data: Path, empty_data: Path) -> None:
    done = socialbench("fetch", "perso", "--from", str(data))
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("fetched into") == 2 and "chridey/change-my-view-modes" in done.stdout
    from socialbench.benchmarks.perso.data import default_threads, load_threads

    assert len(load_threads(default_threads())) == 609
