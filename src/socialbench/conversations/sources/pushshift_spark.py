"""The Spark engine for Pushshift / Arctic Shift dumps: the DuckDB engine's steps for archives beyond one machine.

Each input file is one Spark task (a zstd stream cannot be split), read by the executor through the same reader the
DuckDB engine uses: Python decompresses it and checks each line with `pushshift.classify`, so error messages and
what counts as a record are the same. Spark applies the record filters, computes the thread statistics for the
thread filters (comments, participants, start time, tokens, depth), sorts the kept records by thread and streams
them to the driver, which builds the threads with `pushshift.assemble`, exactly as the DuckDB engine does.

On a cluster, give ``--spark-master`` (``spark://host:7077``, ``yarn``, ``k8s://...``) and paths every executor can
open (a shared file system); see docs/import.md. Spark and Java are needed only here: ``pip install
'socialbench[spark]'``.
"""

from __future__ import annotations

import itertools
import json
import os
import shutil
import sys
import tempfile
import warnings
from collections.abc import Iterator, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from ...core.errors import InputError
from ...core.jsonl import decode
from ..model import IntegrityPolicy
from ._common import ImportReport, numbered_lines
from .pushshift_rows import ROW_FIELDS, DumpSelection, _keeps, assemble, classify, record_stats
from .reddit import _strip_prefix

_ERRORS_KEPT = 20  # as ImportReport keeps


def _parse_file(index: int, name: str, tokens: bool) -> Iterator[tuple[Any, ...]]:
    """Rows for one file: ``(file, lineno, error, thread, post, line, id, parent, author, created, subreddit,
    tokens)``; a bad line has its located message in ``error`` and nothing else."""
    path = Path(name)
    lineno = 0
    failed = (None,) * 9
    try:
        for lineno, raw in numbered_lines(path):
            if not raw.strip():
                continue
            try:
                thread, is_post, record = classify(path, lineno, decode(path, raw, line=lineno))
            except InputError as exc:
                yield (index, lineno, _carried(exc), *failed)
                continue
            stats = record_stats(record, is_post, tokens)
            subreddit = record.get("subreddit")
            yield (
                index,
                lineno,
                None,
                thread,
                is_post,
                raw.decode("utf-8-sig"),
                _strip_prefix(record["id"]),
                stats["parent"],
                stats["author"],
                stats["created"],
                subreddit if isinstance(subreddit, str) else None,
                stats["tokens"],
            )
    except InputError as exc:  # the file itself (truncated stream, an over-long line): after its good lines
        yield (index, lineno + 1, _carried(exc), *failed)


def _carried(exc: InputError) -> str:
    return json.dumps([exc.path, exc.message, exc.line, exc.record])


def _depth(comments: Iterator[tuple[str, str]] | list[tuple[str, str]], thread: str) -> int:
    """Deepest level reached from the submission, level by level over (id, parent) pairs: the DuckDB engine's
    recursive query (UNION semantics: an id reached at a level counts once there), capped at the comment count."""
    children: dict[str, list[str]] = {}
    count = 0
    for cid, parent in comments:
        children.setdefault(parent, []).append(cid)
        count += 1
    level, depth = {thread}, 0
    while depth < count:
        level = {c for p in level for c in children.get(p, ())}
        if not level:
            break
        depth += 1
    return depth


def session(master: str | None, where: str) -> Any:
    """The Spark session (created once per process); a missing pyspark or Java is a one-line error."""
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        raise InputError(where, "--engine spark needs Apache Spark: pip install 'socialbench[spark]'") from None
    warnings.filterwarnings("ignore", message="PySpark does not yet fully support pandas", category=FutureWarning)
    builder = SparkSession.builder.appName("socialbench-import").config("spark.ui.enabled", "false")
    builder = builder.config("spark.ui.showConsoleProgress", "false")  # socialbench prints its own summary
    if master is None or master.startswith("local"):
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)  # executors run this interpreter, with socialbench
        quiet = resources.files(__package__) / "spark-log4j2.properties"  # errors only, not Spark's start-up chatter
        builder = builder.config("spark.driver.extraJavaOptions", f"-Dlog4j2.configurationFile=file:{quiet}")
    try:
        spark = builder.master(master or "local[*]").getOrCreate()
    except Exception as exc:  # pyspark raises its own error types when the JVM cannot start
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:200]
        raise InputError(
            where, f"cannot start Spark (master {master or 'local[*]'}; is Java 17+ installed?): {first}"
        ) from None
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def _kept(
    spark: Any, files: Sequence[Path], selection: DumpSelection, skip_bad: bool, report: ImportReport
) -> tuple[Any, Any]:
    """Every line read and checked once (persisted), errors reported as the DuckDB engine reports them: the
    DataFrame of the records that pass the filters, and the persisted one the caller unpersists when done."""
    from pyspark import StorageLevel
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    schema = T.StructType(
        [
            T.StructField("file", T.IntegerType()),
            T.StructField("lineno", T.LongType()),
            T.StructField("error", T.StringType()),
            T.StructField("thread", T.StringType()),
            T.StructField("post", T.BooleanType()),
            T.StructField("line", T.StringType()),
            T.StructField("id", T.StringType()),
            T.StructField("parent", T.StringType()),
            T.StructField("author", T.StringType()),
            T.StructField("created", T.LongType()),
            T.StructField("subreddit", T.StringType()),
            T.StructField("tokens", T.LongType()),
        ]
    )
    tokens = selection.wants_tokens
    tasks = spark.sparkContext.parallelize([(i, str(p)) for i, p in enumerate(files)], numSlices=len(files))
    rows = spark.createDataFrame(tasks.flatMap(lambda task: _parse_file(task[0], task[1], tokens)), schema)
    rows = rows.persist(StorageLevel.MEMORY_AND_DISK)  # read once: counted, checked, then grouped
    try:
        report.records += rows.count()
        bad = rows.where(F.col("error").isNotNull())
        first = bad.orderBy("file", "lineno").limit(_ERRORS_KEPT).collect()
        if first:
            if not skip_bad:
                raise _error(first[0]["error"])
            total = bad.count()
            for row in first:
                report.skip(_error(row["error"]))
            report.skipped += total - len(first)
    except BaseException:
        rows.unpersist()
        raise
    kept = rows.where(F.col("error").isNull())
    if selection.subreddits or selection.thread_ids:
        keep = selection  # plain values for the executors

        def keeps(thread: str, subreddit: str | None) -> bool:
            return _keeps(keep, thread, {"subreddit": subreddit} if subreddit is not None else {})

        kept = kept.where(F.udf(lambda t, s: keeps(t, s), T.BooleanType())("thread", "subreddit"))
    if selection.per_thread:
        kept = kept.join(_chosen(kept, selection), "thread", "left_semi")
    return kept, rows


_ORDER = ("thread", "post", "file", "lineno")


def _sort_columns() -> list[Any]:
    from pyspark.sql import functions as F

    return [F.col("thread"), F.col("post").desc(), F.col("file"), F.col("lineno")]


def _batches(rows: Iterator[Any]) -> Iterator[dict[str, list[Any]]]:
    """Spark rows (thread, post, file, lineno, line) in thread order as `pushshift.assemble`'s column batches;
    every record is re-read from its line by Python."""
    batch: dict[str, list[Any]] = {name: [] for name in (*_ORDER, "line")}
    for row in rows:
        for name in batch:
            batch[name].append(row[name])
        if len(batch["thread"]) >= 20_000:
            yield _padded(batch)
            batch = {name: [] for name in batch}
    if batch["thread"]:
        yield _padded(batch)


def spark_rows(
    files: Sequence[Path],
    selection: DumpSelection,
    skip_bad: bool,
    report: ImportReport,
    *,
    master: str | None = None,
) -> Iterator[dict[str, list[Any]]]:
    """Sorted column batches of the kept records, streamed to this process (the driver)."""
    spark = session(master, ", ".join(map(str, files)))
    kept, persisted = _kept(spark, files, selection, skip_bad, report)
    try:
        ordered = kept.orderBy(*_sort_columns()).select(*_ORDER, "line")
        yield from _batches(ordered.toLocalIterator())
    finally:
        persisted.unpersist()


def write_partitioned(
    files: Sequence[Path],
    out: Path,
    partitions: int,
    selection: DumpSelection,
    skip_bad: bool,
    report: ImportReport,
    *,
    master: str | None = None,
    policy: IntegrityPolicy = "repair",
) -> tuple[int, int]:
    """Threads built and written by the executors: ``out/part-00000.jsonl`` ..., each an episodes file, ranges
    of thread ids in order (their concatenation is the single file the other engines write). The parts are
    written into a staging folder beside ``out`` that replaces ``out`` only when every part succeeded; on a
    cluster ``out`` must be on a file system every executor can write. Returns (episodes, part files)."""
    where = ", ".join(map(str, files))
    spark = session(master, where)
    kept, persisted = _kept(spark, files, selection, skip_bad, report)
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        ranged = kept.repartitionByRange(partitions, "thread").sortWithinPartitions(*_sort_columns())
        names = [str(f) for f in files]
        work = ranged.select(*_ORDER, "line").rdd.mapPartitionsWithIndex(
            lambda index, rows: [_write_part(index, rows, names, str(staging), skip_bad, policy)]
        )
        results = sorted(work.collect())
        for _index, _count, fatal, _skipped, _errors in results:
            if fatal is not None:
                raise _error(fatal)
        for _index, _count, _fatal, skipped, errors in results:
            for message in errors:
                report.skip_message(message)
            report.skipped += skipped - len(errors)
        backup = out.with_name(f".{out.name}.old") if out.exists() else None
        if backup is not None:
            out.rename(backup)
        staging.rename(out)
        if backup is not None:
            shutil.rmtree(backup)
        return sum(r[1] for r in results), sum(1 for r in results if r[1])
    finally:
        persisted.unpersist()
        shutil.rmtree(staging, ignore_errors=True)


def _write_part(
    index: int, rows: Iterator[Any], files: list[str], staging: str, skip_bad: bool, policy: IntegrityPolicy
) -> tuple[int, int, str | None, int, list[str]]:
    """One partition's threads, built and written on the executor: (index, episodes, fatal error, skipped,
    first errors); errors travel back as values so the driver raises them as the other engines do."""
    from ..store import write_episodes

    report = ImportReport()
    target = Path(staging) / f"part-{index:05d}.jsonl"
    try:
        threads = assemble([Path(f) for f in files], _batches(rows), skip_bad=skip_bad, report=report, policy=policy)
        first = next(threads, None)
        count = write_episodes(target, itertools.chain([first], threads)) if first is not None else 0
    except InputError as exc:
        return index, 0, _carried(exc), 0, []
    return index, count, None, report.skipped, report.errors


def _padded(batch: dict[str, list[Any]]) -> dict[str, list[Any]]:
    """All of `ROW_FIELDS`: the typed columns the DuckDB engine fills are empty here, ``fast`` false."""
    n = len(batch["thread"])
    return {name: batch.get(name) or ([False] * n if name == "fast" else [None] * n) for name in ROW_FIELDS}


def _error(carried: str) -> InputError:
    """An executor's InputError, rebuilt on the driver."""
    path, message, line, record = json.loads(carried)
    return InputError(path, message, line=line, record=record)


def _chosen(kept: Any, selection: DumpSelection) -> Any:
    """The threads passing the thread filters, with the DuckDB engine's definitions (`pushshift._thread_filter_sql`)."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    named = F.col("author").isNotNull() & ~F.col("author").isin("[deleted]", "[removed]")
    stats = kept.groupBy("thread").agg(
        F.count(F.when(~F.col("post"), 1)).alias("comments"),
        F.countDistinct(F.when(named, F.col("author"))).alias("participants"),
        F.coalesce(F.min(F.when(F.col("post"), F.col("created"))), F.min("created")).alias("started"),
        F.coalesce(F.sum("tokens"), F.lit(0)).alias("tokens"),
    )
    if selection.wants_depth:
        pairs = kept.where(~F.col("post")).select("thread", "id", "parent").rdd
        depths = pairs.map(lambda r: (r["thread"], (r["id"], r["parent"]))).groupByKey()
        depth_rows = depths.map(lambda kv: (kv[0], _depth(list(kv[1]), kv[0])))
        depth_schema = T.StructType([T.StructField("thread", T.StringType()), T.StructField("depth", T.LongType())])
        stats = stats.join(kept.sparkSession.createDataFrame(depth_rows, depth_schema), "thread", "left")
        stats = stats.withColumn("depth", F.coalesce(F.col("depth"), F.lit(0)))
    since, until = selection.started_bounds()
    condition = F.lit(True)
    for value, column, at_least in (
        (selection.min_comments, "comments", True),
        (selection.max_comments, "comments", False),
        (selection.min_participants, "participants", True),
        (selection.min_tokens, "tokens", True),
        (selection.max_tokens, "tokens", False),
        (selection.min_depth, "depth", True),
        (selection.max_depth, "depth", False),
        (since, "started", True),
    ):
        if value is not None:
            condition = condition & (F.col(column) >= value if at_least else F.col(column) <= value)
    if until is not None:
        condition = condition & (F.col("started") < until)
    return stats.where(condition).select("thread")
