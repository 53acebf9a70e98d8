"""Pushshift / Arctic Shift dumps: both engines (DuckDB, Spark in local mode) on dumps built here from the real Reddit
answers in ../shared/data, their agreement with a plain-Python reference, thread selection inside the engine,
and the inputs that used to exhaust memory."""

from __future__ import annotations

import collections
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest
import zstandard

from conftest import socialbench, stop_process
from socialbench.conversations.model import Thread
from socialbench.conversations.sources import DumpSelection, ImportReport, InputError, read_pushshift, read_thread_json
from socialbench.conversations.sources._common import MAX_LINE_BYTES, numbered_lines
from socialbench.conversations.sources.pushshift import Engine
from socialbench.conversations.sources.pushshift_rows import ROW_FIELDS, _record_text, assemble, classify
from socialbench.conversations.tokens import count_tokens

# its module fixtures are built once: all its tests on one xdist worker
pytestmark = pytest.mark.xdist_group("test_dumps")

ENGINES = ["duckdb", pytest.param("spark", marks=pytest.mark.spark)]


@pytest.fixture(scope="module", autouse=True)
def _stop_spark() -> Iterator[None]:
    yield
    if "pyspark" in sys.modules:
        from pyspark.sql import SparkSession

        active = SparkSession.getActiveSession()
        if active is not None:
            active.stop()
        # and its JVM: pyspark keeps the gateway process for the life of the interpreter (the importer reuses one
        # session per process), which would outlive these tests (the suite fails on a process left running)
        from pyspark import SparkContext

        gateway = SparkContext._gateway
        if gateway is not None:
            gateway.shutdown()
            proc = getattr(gateway, "proc", None)
            if proc is not None:
                stop_process(proc)
            SparkContext._gateway = None
            SparkContext._jvm = None


def _java_17_or_skip() -> None:
    """Spark 4 needs Java 17 or later: skip, naming what was found, where the machine has none or an older one."""
    if shutil.which("java") is None:
        pytest.skip("Spark needs Java 17+; no `java` on PATH")
    done = subprocess.run(["java", "-version"], capture_output=True, text=True, timeout=120)
    found = re.search(r'version "(\d+)(?:\.(\d+))?', done.stderr + done.stdout)
    major = int(found.group(1)) if found else 0
    if major == 1 and found and found.group(2):  # "1.8.0_392" is Java 8
        major = int(found.group(2))
    if major < 17:
        pytest.skip(f"Spark needs Java 17+; `java -version` says {(done.stderr or done.stdout).splitlines()[:1]}")


@pytest.fixture(params=ENGINES)
def engine(request: pytest.FixtureRequest) -> Engine:
    if request.param == "spark":
        pytest.importorskip("pyspark", reason="the spark extra is not installed")
        _java_17_or_skip()
    return cast(Engine, request.param)


# ---- dumps built from the real API answers ---------------------------------------------------------------------
def raw_records(data: Path) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Every submission and comment (the API's full records) of the two real Reddit threads, in time order as a
    dump has them."""
    posts, comments = [], []

    def walk(things: list[Any]) -> None:
        for thing in things:
            if isinstance(thing, dict) and thing.get("kind") == "t1":
                record = dict(thing["data"])
                replies = record.pop("replies", None)
                comments.append(record)
                if isinstance(replies, dict):
                    walk(replies["data"]["children"])

    files = [data / "reddit/thread_1cebxh.json", data / "reddit/morechildren_1cebxh.json"]
    files += sorted((data / "reddit/n49rw").glob("*.json"))
    for f in files:
        doc = json.loads(f.read_text())
        if isinstance(doc, list):
            post = doc[0]["data"]["children"][0]["data"]
            if all(p["id"] != post["id"] for p in posts):
                posts.append(post)
            walk(doc[1]["data"]["children"])
        else:
            walk(doc["json"]["data"]["things"])
    unique = {c["id"]: c for c in comments}
    ordered = sorted(unique.values(), key=lambda c: (c["created_utc"], c["id"]))
    return posts, ordered


def edge_records() -> list[str]:
    """Hand-made lines of unusual but valid shapes (each must be read the same way by every path)."""
    base = {"link_id": "t3_edge", "parent_id": "t3_edge", "author": "a", "subreddit": "Edge"}

    def line(**fields: Any) -> str:
        return json.dumps(base | fields)

    return [
        json.dumps({"id": "edge", "title": "Edge &amp; cases", "selftext": "", "author": "op", "created_utc": 1e9}),
        line(id="e1", body="fish &amp; chips &lt;3", created_utc=1_000_000_001, score=5),
        line(id="e2", body="[deleted]", author="[deleted]", created_utc="1000000002", score=-3),
        line(id="e3", body="[removed]", author=None, created_utc=1_000_000_003.5),
        line(id="e4", body="scored as text", score="7", created_utc=1_000_000_004),
        line(id="e5", body="edited", edited=1_000_000_100, distinguished="moderator", created_utc=1_000_000_005),
        line(id="e6", body="edited flag", edited=True, created_utc=1_000_000_006),
        line(id="e7", body="no time"),
        line(id="e8", body="score float", score=2.0, subreddit=None, created_utc=1_000_000_008),
        line(id="e9", parent_id="t1_e1", body="emoji \ud83d\ude00 and NUL \u0000 and é", created_utc=1_000_000_009),
        '{"id": "e10", "link_id": "t3_edge", "parent_id": "t3_edge", "body": "escaped \\ud83d\\ude00 \\u00e9"}',
        '{"id": "e11", "link_id": "t3_edge", "parent_id": "t3_edge", "body": "first", "body": "last wins"}',
        line(id="e12", body="huge score", score=2**64 + 1, created_utc=1_000_000_012),
        line(id="e13", body="bare ids", link_id="edge", parent_id="e1", created_utc=1_000_000_013),
        line(id="e14", body="", score=None, author="", created_utc="  1000000014 "),
        line(id="e15", body="a moderator's note", distinguished="moderator", edited=False, created_utc=1_000_000_015),
        "",
        "   ",
    ]


def write_dump(path: Path, lines: list[str], crlf: bool = False) -> Path:
    text = ("\r\n" if crlf else "\n").join(lines) + "\n"
    data = text.encode()
    if path.suffix == ".zst":
        data = zstandard.ZstdCompressor().compress(data)
    elif path.suffix == ".gz":
        data = gzip.compress(data)
    path.write_bytes(data)
    return path


@pytest.fixture(scope="module")
def dumps(data: Path, tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Comments split over a .zst and a .gz file (CRLF endings in one), submissions in a plain file."""
    folder = tmp_path_factory.mktemp("dumps")
    posts, comments = raw_records(data)
    half = len(comments) // 2
    lines = [json.dumps(c) for c in comments]
    return [
        write_dump(folder / "RC_a.zst", lines[:half] + edge_records()[1:]),
        write_dump(folder / "RC_b.gz", lines[half:], crlf=True),
        write_dump(folder / "RS.jsonl", [json.dumps(p) for p in posts] + edge_records()[:1]),
    ]


def reference(paths: list[Path], skip_bad: bool = False, report: ImportReport | None = None) -> list[Thread]:
    """The dumps read by plain Python (every record through `classify` and the validating node builder), sorted
    and assembled without any engine."""
    report = report if report is not None else ImportReport()
    rows = []
    for index, path in enumerate(paths):
        for lineno, raw in numbered_lines(path):
            if not raw.strip():
                continue
            report.records += 1
            try:
                thread, post, _ = classify(path, lineno, raw.decode("utf-8-sig"))
            except InputError as exc:
                if not skip_bad:
                    raise
                report.skip(exc)
                continue
            rows.append((thread, not post, index, lineno, raw.decode("utf-8-sig")))
    rows.sort()
    batch: dict[str, list[Any]] = {name: [None] * len(rows) for name in ROW_FIELDS}
    batch["thread"] = [r[0] for r in rows]
    batch["post"] = [not r[1] for r in rows]
    batch["file"] = [r[2] for r in rows]
    batch["lineno"] = [r[3] for r in rows]
    batch["line"] = [r[4] for r in rows]
    batch["fast"] = [False] * len(rows)
    return list(assemble(paths, iter([batch]), skip_bad=skip_bad, report=report, policy="repair"))


def edges(thread: Thread) -> set[tuple[str, str | None]]:
    return {(n.id, n.parent_id) for n in thread.nodes}


def dumped(threads: list[Thread]) -> list[dict[str, Any]]:
    return [t.model_dump(mode="json") for t in threads]


# ---- agreement ------------------------------------------------------------------------------------------------
def test_engine_equals_the_python_reference(dumps: list[Path], engine: Engine) -> None:
    expected = reference(dumps)
    threads = list(read_pushshift(*dumps, engine=engine))
    assert [t.id for t in threads] == ["reddit:1cebxh", "reddit:edge", "reddit:hbo4a7", "reddit:n49rw"]
    assert dumped(threads) == dumped(expected)
    assert threads[2].root.meta.get("placeholder") is True  # its comments came without their submission
    n49rw = threads[3]
    assert len(n49rw) == 1 + 1428 and n49rw.title and not n49rw.root.meta.get("placeholder")
    edge = {n.id: n for n in threads[1].nodes}
    assert edge["edge"].text == "Edge & cases"  # the submission file was read
    assert edge["e1"].text == "fish & chips <3" and edge["e2"].deleted and edge["e3"].removed
    assert edge["e4"].score == 7 and edge["e8"].score == 2 and edge["e12"].score == 2**64 + 1
    assert edge["e5"].meta == {"subreddit": "Edge", "edited": 1_000_000_100, "distinguished": "moderator"}
    assert edge["e11"].text == "last wins"  # a repeated key: the last value, as Python's json reads it
    assert edge["e9"].text == "emoji 😀 and NUL \x00 and é" and edge["e10"].text == "escaped 😀 é"
    assert edge["e13"].parent_id == "e1" and edge["e14"].created is not None
    assert edge["e15"].meta == {"subreddit": "Edge", "distinguished": "moderator"}


def test_duckdb_builds_common_records_from_columns(dumps: list[Path]) -> None:
    """The DuckDB engine's shortcut (nodes built from typed columns) is taken for the real records and yields the
    nodes the validating builder yields (the previous test compares them all)."""
    import duckdb

    from socialbench.conversations.sources import pushshift

    seen: list[bool] = []
    original = pushshift._grouped

    def spy(con: duckdb.DuckDBPyConnection, selection: DumpSelection) -> Iterator[dict[str, list[Any]]]:
        for batch in original(con, selection):
            seen.extend(batch["fast"])
            yield batch

    pushshift._grouped = spy  # type: ignore[assignment]
    try:
        list(read_pushshift(*dumps))
    finally:
        pushshift._grouped = original
    assert sum(seen) > 0.9 * len(seen)  # nearly every record takes the shortcut...
    assert not all(seen)  # ...and the unusual ones do not


def test_bad_lines_agree(dumps: list[Path], tmp_path: Path, engine: Engine) -> None:
    good = zstandard.ZstdDecompressor().decompress(dumps[0].read_bytes(), max_output_size=1 << 28)
    broken = ['{"id": "zz", "link_id": "t3_1ceb', "not json", '{"id": 5}', "[1, 2]"]
    broken += ['{"id": "x1", "link_id": "t3_q", "parent_id": "t3_q", "body": "bad \\udcff surrogate"}']
    broken += ['{"id": "x2", "link_id": "t3_q", "parent_id": "t3_q", "created_utc": "soon"}']
    bad = write_dump(tmp_path / "RC_bad.zst", [*good.decode().splitlines()[:40], *broken])
    with pytest.raises(InputError, match=r"RC_bad\.zst:41: truncated JSON line"):
        list(read_pushshift(bad, engine=engine))
    got, want = ImportReport(), ImportReport()
    threads = list(read_pushshift(bad, engine=engine, skip_bad=True, report=got))
    assert dumped(threads) == dumped(reference([bad], skip_bad=True, report=want))
    assert (got.records, got.skipped, got.errors) == (want.records, want.skipped, want.errors)
    assert got.skipped == 6 and got.records == 46
    assert any("RC_bad.zst:44" in e and "expected a JSON object" in e for e in got.errors)
    assert any("RC_bad.zst:46" in e and "created_utc" in e for e in got.errors)


def test_non_utf8_and_truncated(dumps: list[Path], tmp_path: Path, engine: Engine) -> None:
    good = json.dumps({"id": "a", "link_id": "t3_q", "parent_id": "t3_q", "body": "fine"}).encode()
    mixed = tmp_path / "RC.jsonl"
    mixed.write_bytes(good + b"\n" + b'{"id": "\xff\xfe"}\n' + good.replace(b'"a"', b'"b"') + b"\n")
    with pytest.raises(InputError, match=r"RC\.jsonl:2: not UTF-8"):
        list(read_pushshift(mixed, engine=engine))
    report = ImportReport()
    [thread] = read_pushshift(mixed, engine=engine, skip_bad=True, report=report)
    assert {n.id for n in thread.nodes} == {"q", "a", "b"} and report.skipped == 1
    cut = tmp_path / "RC_cut.zst"
    whole = dumps[0].read_bytes()
    cut.write_bytes(whole[: len(whole) // 2])
    with pytest.raises(InputError, match=r"RC_cut\.zst.*truncated zstd stream"):
        list(read_pushshift(cut, engine=engine))


# ---- selection inside the engine --------------------------------------------------------------------------------
def test_selection(dumps: list[Path], engine: Engine) -> None:
    everything = {t.id: t for t in reference(dumps)}

    def chosen(**limits: Any) -> set[str]:
        selection = DumpSelection(**limits)
        return {t.id for t in read_pushshift(*dumps, selection=selection, engine=engine)}

    comments = {k: len(t) - 1 for k, t in everything.items()}
    assert chosen(min_comments=100) == {k for k, n in comments.items() if n >= 100}
    assert chosen(max_comments=100) == {k for k, n in comments.items() if n <= 100}
    assert chosen(min_comments=100, max_comments=1000) == {k for k, n in comments.items() if 100 <= n <= 1000}
    started = {k: t.root.created or min(n.created for n in t.nodes if n.created) for k, t in everything.items()}
    day = started["reddit:n49rw"].date()
    assert chosen(since=day, until=day) == {k for k, s in started.items() if s.date() == day}
    assert chosen(until=day) == {k for k, s in started.items() if s.date() <= day}
    people = {k: len({n.author for n in t.nodes if n.author is not None}) for k, t in everything.items()}
    assert chosen(min_participants=50) == {k for k, n in people.items() if n >= 50}
    depth = {k: t.max_depth() for k, t in everything.items()}
    assert len(set(depth.values())) >= 3  # the threads differ, so each bound below splits them
    middle = sorted(depth.values())[1]
    assert chosen(min_depth=middle) == {k for k, d in depth.items() if d >= middle}
    assert chosen(max_depth=middle) == {k for k, d in depth.items() if d <= middle}
    tokens: dict[str, int] = collections.Counter()
    for path in dumps:
        for lineno, raw in numbered_lines(path):
            if raw.strip():
                thread, post, record = classify(path, lineno, raw.decode())
                tokens[f"reddit:{thread}"] += count_tokens(_record_text(record, post))
    middle_tokens = sorted(tokens.values())[1]
    assert chosen(min_tokens=middle_tokens) == {k for k, n in tokens.items() if n >= middle_tokens}
    assert chosen(max_tokens=middle_tokens - 1) == {k for k, n in tokens.items() if n < middle_tokens}
    assert chosen(subreddits=("EDGE",)) == {"reddit:edge"}
    assert chosen(thread_ids=("t3_n49rw", "1cebxh"), min_comments=1000) == {"reddit:n49rw"}


def test_selection_is_validated() -> None:
    with pytest.raises(ValueError, match="greater than or equal to 0"):
        DumpSelection(min_comments=-1)
    with pytest.raises(ValueError, match="valid date"):
        DumpSelection.model_validate({"since": "last year"})


# ---- memory and size limits --------------------------------------------------------------------------------------
def test_a_decompression_bomb_without_newlines_stops_early(tmp_path: Path) -> None:
    """1 GiB of NUL bytes in a 32 KB .zst (it used to be gathered into one 'line': 2.1 GB of memory)."""
    bomb = tmp_path / "RC_bomb.zst"
    compressor = zstandard.ZstdCompressor(level=19)
    with bomb.open("wb") as out, compressor.stream_writer(out) as writer:
        zeros = bytes(1 << 20)
        for _ in range(1024):
            writer.write(zeros)
    assert bomb.stat().st_size < 64 * 1024
    # peak memory of the child's own address space (VmHWM): getrusage's ru_maxrss would include the forking
    # parent's, this test process's, which is large by now
    script = (
        "import re\n"
        "from pathlib import Path\n"
        "from socialbench.conversations.sources import InputError, read_pushshift\n"
        "try:\n"
        f"    list(read_pushshift({str(bomb)!r}))\n"
        "except InputError as exc:\n"
        "    print(exc)\n"
        "print(int(re.search(r'VmHWM:\\s+(\\d+)', Path('/proc/self/status').read_text()).group(1)) // 1024)\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    message, peak_mb = out.strip().splitlines()
    assert (
        message == f"{bomb}:1: line longer than {MAX_LINE_BYTES // 2**20} MiB without a newline: not a JSON-lines file?"
    )
    assert int(peak_mb) < 600, f"peak memory {peak_mb} MB"


def test_cli_import_with_selection(dumps: list[Path], tmp_path: Path) -> None:
    out = tmp_path / "episodes.jsonl"
    cmd = ["import", "pushshift", *map(str, dumps), "-o", str(out)]
    done = socialbench(*cmd, "--select", "min_comments=1000")
    assert done.returncode == 0, done.stderr
    assert "wrote 1 episodes" in done.stderr
    assert [json.loads(line)["id"] for line in out.read_text().splitlines()] == ["reddit:n49rw"]
    before = out.read_bytes()
    bad = socialbench(*cmd, "--select", "min_comment=3")
    assert bad.returncode == 2 and "min_comment=3" in bad.stderr and "min_comments" in bad.stderr
    none = socialbench(*cmd, "--select", "min_comments=100000")
    assert none.returncode == 2 and "no episodes found" in none.stderr and "matching the filters" in none.stderr
    assert out.read_bytes() == before
    wrong = socialbench("import", "cmv", str(dumps[2]), "-o", str(out), "--engine", "spark")
    assert wrong.returncode == 2 and "pushshift format only" in wrong.stderr


# ---- the importer's original tests, on both engines -------------------------------------------------------------
def pushshift_records(data: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    doc = json.loads((data / "reddit/thread_1cebxh.json").read_text())
    post = doc[0]["data"]["children"][0]["data"]
    comments: list[dict[str, Any]] = []

    def walk(things: list[dict[str, Any]]) -> None:
        for t in things:
            if t["kind"] != "t1":
                continue
            d = t["data"]
            comments.append(
                {k: d[k] for k in ("id", "link_id", "parent_id", "author", "body", "score", "subreddit")}
                | {"created_utc": str(int(d["created_utc"]))}
            )
            if d["replies"]:
                walk(d["replies"]["data"]["children"])

    walk(doc[1]["data"]["children"])
    comments.sort(key=lambda c: int(c["created_utc"]))  # dumps are in time order, threads interleaved
    submission = {k: post[k] for k in ("id", "title", "selftext", "author", "created_utc", "score", "subreddit")}
    return submission, comments


def write_zst(path: Path, records: list[dict[str, Any]], extra_lines: list[str] = ()) -> Path:  # type: ignore[assignment]
    lines = [json.dumps(r) for r in records] + list(extra_lines)
    path.write_bytes(zstandard.ZstdCompressor().compress(("\n".join(lines) + "\n").encode()))
    return path


def test_pushshift_zst_rebuilds_the_thread(data: Path, tmp_path: Path, engine: Engine) -> None:
    submission, comments = pushshift_records(data)
    other = [
        dict(c, id=f"x{i}", link_id="t3_other", parent_id="t3_other", subreddit="AskReddit")
        for i, c in enumerate(comments[:5])
    ]
    mixed = sorted(comments + other, key=lambda c: int(c["created_utc"]))
    rc = write_zst(tmp_path / "RC_2013-04.zst", mixed)
    rs = tmp_path / "RS_2013-04.jsonl"
    rs.write_text(json.dumps(submission) + "\n")
    reference = next(read_thread_json(data / "reddit/thread_1cebxh.json"))

    threads = {t.id: t for t in read_pushshift(rc, rs, engine=engine)}
    assert set(threads) == {"reddit:1cebxh", "reddit:other"}
    rebuilt = threads["reddit:1cebxh"]
    assert edges(rebuilt) == edges(reference) and rebuilt.title == reference.title
    assert threads["reddit:other"].root.meta.get("placeholder") is True  # submission not given
    assert len(threads["reddit:other"]) == 6

    only = list(read_pushshift(rc, subreddits=["askreddit"], engine=engine))
    assert [t.id for t in only] == ["reddit:other"]
    assert [t.id for t in read_pushshift(rc, thread_ids=["t3_1cebxh"], engine=engine)] == ["reddit:1cebxh"]


def test_pushshift_bad_lines(data: Path, tmp_path: Path, engine: Engine) -> None:
    _, comments = pushshift_records(data)
    bad = write_zst(tmp_path / "RC_bad.zst", comments[:10], ['{"id": "zz", "link_id": "t3_1ceb', "not json"])
    with pytest.raises(InputError, match=r"RC_bad\.zst:11: truncated JSON line"):
        list(read_pushshift(bad, engine=engine))
    report = ImportReport()
    threads = list(read_pushshift(bad, skip_bad=True, report=report, engine=engine))
    assert report.skipped == 2 and report.records == 12 and "RC_bad.zst:12" in report.errors[1]
    assert len(threads) == 1
    missing = write_zst(tmp_path / "RC_missing.zst", [{k: v for k, v in comments[0].items() if k != "link_id"}])
    with pytest.raises(InputError, match=r"RC_missing\.zst:1 \(record \w+\): missing field 'link_id'"):
        list(read_pushshift(missing, engine=engine))
    wrong = write_zst(tmp_path / "RC_type.zst", [dict(comments[0], body=17)])
    with pytest.raises(InputError, match=r"RC_type\.zst:1.*'body' should be str"):
        list(read_pushshift(wrong, engine=engine))


def test_pushshift_truncated_zst(data: Path, tmp_path: Path, engine: Engine) -> None:
    _, comments = pushshift_records(data)
    whole = write_zst(tmp_path / "RC_whole.zst", comments)
    cut = tmp_path / "RC_cut.zst"
    cut.write_bytes(whole.read_bytes()[: whole.stat().st_size // 2])
    with pytest.raises(InputError, match=r"RC_cut\.zst"):
        list(read_pushshift(cut, engine=engine))


def test_pushshift_non_utf8(data: Path, tmp_path: Path, engine: Engine) -> None:
    _, comments = pushshift_records(data)
    path = tmp_path / "RC.jsonl"
    path.write_bytes(json.dumps(comments[0]).encode() + b"\n" + b'{"id": "\xff\xfe"}\n')
    with pytest.raises(InputError, match=r"RC\.jsonl:2: not UTF-8"):
        list(read_pushshift(path, engine=engine))


def test_spark_without_java_is_one_clear_line(dumps: list[Path], tmp_path: Path) -> None:
    pytest.importorskip("pyspark", reason="the spark extra is not installed")
    env = {**os.environ, "JAVA_HOME": str(tmp_path / "no-java"), "PATH": str(Path(sys.executable).parent)}
    out = tmp_path / "episodes.jsonl"
    cmd = [sys.executable, "-m", "socialbench.cli", "import", "pushshift", str(dumps[2]), "-o", str(out)]
    done = subprocess.run([*cmd, "--engine", "spark"], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 2, done.stderr
    assert "cannot start Spark" in done.stderr and "Traceback" not in done.stderr
    assert not out.exists()


@pytest.mark.spark
def test_spark_partitioned_output_is_the_single_file_cut_in_ranges(dumps: list[Path], tmp_path: Path) -> None:
    pytest.importorskip("pyspark", reason="the spark extra is not installed")
    _java_17_or_skip()
    from socialbench.conversations.sources import PushshiftOptions, import_partitioned
    from socialbench.conversations.store import read_episodes, write_episodes

    many = [
        json.dumps({"id": f"c{t}{i}", "link_id": f"t3_s{t:03d}", "parent_id": f"t3_s{t:03d}", "body": "x"})
        for t in range(60)
        for i in range(3)
    ]
    dumps = [*dumps, write_dump(tmp_path / "RC_many.jsonl", many)]
    out = tmp_path / "parts"
    out.mkdir()
    (out / "part-00000.jsonl").write_text("an earlier import's file\n")
    report = ImportReport()
    written, parts = import_partitioned(dumps, out, PushshiftOptions(engine="spark", partitions=3), report)
    files = sorted(p.name for p in out.iterdir())
    assert written == 64 and parts == len(files) >= 2 and files[0] == "part-00000.jsonl"
    expected = reference(dumps)
    assert dumped(list(read_episodes(out))) == dumped(expected)  # type: ignore[arg-type]
    single = tmp_path / "single.jsonl"
    write_episodes(single, read_pushshift(*dumps))  # the DuckDB engine's one file
    assert b"".join(p.read_bytes() for p in sorted(out.glob("part-*.jsonl"))) == single.read_bytes()
    assert report.records == sum(1 for p in dumps for _, line in numbered_lines(p) if line.strip())
    # a bad line stops it and the previous output stays as it was
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    bad = write_dump(tmp_path / "RC_bad.jsonl", ['{"id": "x", "link_id": "t3_q", "parent_id": "t3_q"}', "{oops"])
    with pytest.raises(InputError, match=r"RC_bad\.jsonl:2: truncated JSON line"):
        import_partitioned([*dumps, bad], out, PushshiftOptions(engine="spark", partitions=3), ImportReport())
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    # a record that only fails when its thread is built (on an executor): same error, output unchanged
    late = write_dump(
        tmp_path / "RC_late.jsonl", ['{"id": "y", "link_id": "t3_s001", "parent_id": "t3_s001", "created_utc": "soon"}']
    )
    with pytest.raises(InputError, match=r"RC_late\.jsonl:1 \(record y\): field 'created_utc' is not a timestamp"):
        import_partitioned([*dumps, late], out, PushshiftOptions(engine="spark", partitions=3), ImportReport())
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".parts")] == []  # no staging left behind
    skipped = ImportReport()
    import_partitioned([*dumps, bad], out, PushshiftOptions(engine="spark", partitions=2, skip_bad=True), skipped)
    assert skipped.skipped == 1 and "RC_bad.jsonl:2" in skipped.errors[0]
    assert {e.id for e in read_episodes(out)} == {t.id for t in expected} | {"reddit:q"}


def test_a_bad_submission_is_located_or_replaced_by_a_placeholder(
    dumps: list[Path], tmp_path: Path, engine: Engine
) -> None:
    rs = write_dump(
        tmp_path / "RS_bad.jsonl",
        ["", json.dumps({"id": "edge", "title": "T", "selftext": "", "created_utc": "soon", "subreddit": "Edge"})],
    )
    with pytest.raises(InputError, match=r"RS_bad\.jsonl:2 \(record edge\): field created"):
        list(read_pushshift(dumps[0], rs, engine=engine))
    report = ImportReport()
    threads = {t.id: t for t in read_pushshift(dumps[0], rs, engine=engine, skip_bad=True, report=report)}
    assert report.skipped == 1 and "RS_bad.jsonl:2" in report.errors[0]
    assert threads["reddit:edge"].root.meta.get("placeholder") is True and threads["reddit:edge"].title is None
