"""Pushshift / Arctic Shift dumps (newline-delimited Reddit records: plain, .zst with the dumps' 2 GiB window, .gz
or .bz2) regrouped into complete threads by an engine, with episode selection applied inside the engine.

Engines:

- ``duckdb`` (default, one machine). Python decompresses and cuts the stream into blocks of lines (Arrow string
  arrays built over the decompressed bytes, no copy per line); DuckDB parses the JSON, checks every record, applies
  the filters, stores what is kept in an on-disk database under a fixed memory limit (it spills to disk; memory
  stays flat whatever the dump's size), groups by thread and returns the threads in thread-id order.
- ``spark`` (many machines): the same steps on Apache Spark, see `socialbench.conversations.sources.pushshift_spark`.

Python stays the authority on what a record means. Lines DuckDB does not find plainly well-formed (invalid JSON,
wrong field types, a repeated key, a lone surrogate, a blank line) are handed to the same Python checks the other
importers use, which either name the file, line and problem (or skip it with ``skip_bad``) or accept the record.
Records of the common shape (a comment whose fields all have their usual types) are built from DuckDB's columns;
every other record is re-read from its line by `reddit._comment_node`. A test checks that both ways build
identical nodes, and that both engines write identical threads.
"""

from __future__ import annotations

import os
import queue
import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

if TYPE_CHECKING:
    import pyarrow as pa

from ...core.errors import InputError
from ...core.jsonl import decode
from ...core.machine import usable_cpus
from ..model import IntegrityPolicy, Thread
from ._common import ImportReport, line_blocks
from .importer import ImportContext, Importer
from .pushshift_rows import (
    _MAX_EPOCH,
    ROW_FIELDS,
    DumpSelection,
    _keeps,
    _token_count,
    assemble,
    classify,
    record_stats,
)
from .reddit import _strip_prefix

Engine = Literal["duckdb", "spark"]
ENGINES: tuple[Engine, ...] = ("duckdb", "spark")

DEFAULT_MEMORY = "512MB"
"""DuckDB's memory limit for one import (environment: SOCIALBENCH_DUCKDB_MEMORY); beyond it, it spills to disk."""


def read_pushshift(
    *paths: str | Path,
    subreddits: Iterable[str] | None = None,
    thread_ids: Iterable[str] | None = None,
    selection: DumpSelection | None = None,
    engine: Engine = "duckdb",
    skip_bad: bool = False,
    report: ImportReport | None = None,
    on_bytes: Callable[[int], None] | None = None,
    policy: IntegrityPolicy = "repair",
    spark_master: str | None = None,
) -> Iterator[Thread]:
    """Threads rebuilt from Pushshift / Arctic Shift dumps (comment files, and submission files if given), in
    thread-id order. A thread whose submission is not among the inputs gets a placeholder root. With ``skip_bad``
    a bad line is counted in ``report`` and skipped instead of stopping the import. ``subreddits`` and
    ``thread_ids`` are shorthands for the same fields of ``selection``."""
    selection = selected(selection, subreddits, thread_ids)
    report = report if report is not None else ImportReport()
    files = dump_files(paths)
    if engine == "duckdb":
        rows = _duckdb_rows(files, selection, skip_bad, report, on_bytes)
    elif engine == "spark":
        from .pushshift_spark import spark_rows

        rows = spark_rows(files, selection, skip_bad, report, master=spark_master)
    else:
        raise InputError(", ".join(map(str, files)), f"unknown engine {engine!r}; known: {', '.join(ENGINES)}")
    yield from assemble(files, rows, skip_bad=skip_bad, report=report, policy=policy)


def selected(
    selection: DumpSelection | None, subreddits: Iterable[str] | None, thread_ids: Iterable[str] | None
) -> DumpSelection:
    """``selection`` with the ``--subreddit`` / ``--thread`` shorthands folded in."""
    extra = {k: tuple(v) for k, v in (("subreddits", subreddits), ("thread_ids", thread_ids)) if v}
    selection = selection or DumpSelection()
    return selection.model_copy(update=extra) if extra else selection


def dump_files(paths: Iterable[str | Path]) -> list[Path]:
    """The dump files, each checked to be a readable path to a file (not a folder)."""
    files = [Path(p) for p in paths]
    for f in files:
        if not f.exists():
            raise InputError(f, "file not found")
        if f.is_dir():
            raise InputError(f, "is a folder, expected a dump file")
    return files


# ---- what a record is (the authority both engines defer to) -------------------------------------------------


# ---- assembly (shared by the engines) -------------------------------------------------------------------------


# ---- the DuckDB engine --------------------------------------------------------------------------------------------
_PATHS = ["id", "link_id", "parent_id", "body", "title", "selftext", "author", "score", "created_utc", "subreddit"]
_PATHS += ["distinguished", "edited"]
_T = {name: i + 1 for i, name in enumerate(_PATHS)}  # DuckDB lists are 1-based
_JSON_PATHS = [f"$.{name}" for name in _PATHS]


def _ty(name: str) -> str:
    return f"ty[{_T[name]}]"


def _val(name: str) -> str:
    return f"v[{_T[name]}]"


def _strip(expr: str) -> str:
    """SQL for `reddit._strip_prefix`: ``t1_abc`` -> ``abc``."""
    return (
        f"CASE WHEN starts_with({expr}, 't') AND contains({expr}, '_') "
        f"THEN substr({expr}, strpos({expr}, '_') + 1) ELSE {expr} END"
    )


def _type_in(name: str, *types: str, missing: bool = False) -> str:
    """SQL: the field's JSON type is one of ``types`` (``NULL`` is JSON null), or, with ``missing``, it is absent."""
    allowed = ", ".join(f"'{t}'" for t in types)
    return f"({_ty(name)} IS NULL OR {_ty(name)} IN ({allowed}))" if missing else f"{_ty(name)} IN ({allowed})"


_INTEGER = ("BIGINT", "UBIGINT")  # DuckDB types a non-negative JSON integer as UBIGINT
_COMMENT_OK = " AND ".join(
    [_type_in("link_id", "VARCHAR"), _type_in("parent_id", "VARCHAR"), _type_in("body", "VARCHAR", missing=True)]
)
# the usual shape, whose columns build the node directly (see `fast_comment_node`)
_COMMENT_FAST = " AND ".join(
    [
        _type_in("author", "NULL", "VARCHAR", missing=True),
        f"({_type_in('score', 'NULL', missing=True)} OR "
        f"({_type_in('score', *_INTEGER)} AND TRY_CAST({_val('score')} AS BIGINT) IS NOT NULL))",
        _type_in("subreddit", "NULL", "VARCHAR", missing=True),
        _type_in("distinguished", "NULL", "VARCHAR", missing=True),
        f"({_type_in('edited', 'NULL', missing=True)} OR "
        f"({_type_in('edited', 'BOOLEAN')} AND {_val('edited')} = 'false'))",
        # whole epoch seconds (an integer, a float such as the API's 1366213409.0, or digits as text) within
        # datetime's range
        f"({_ty('created_utc')} IS NULL OR (({_type_in('created_utc', *_INTEGER, 'DOUBLE')} OR "
        f"({_type_in('created_utc', 'VARCHAR')} AND regexp_full_match({_val('created_utc')}, '[0-9]{{1,12}}')))"
        f" AND TRY_CAST({_val('created_utc')} AS DOUBLE) BETWEEN 0 AND {_MAX_EPOCH}"
        f" AND TRY_CAST({_val('created_utc')} AS DOUBLE) = trunc(TRY_CAST({_val('created_utc')} AS DOUBLE))))",
    ]
)

# One pass over a block of lines: each line is checked as `classify` would, and comments of the common shape get
# typed columns. `ok` lines are plainly well-formed; all others go to Python (`classify`), line by line.
_CHECK = f"""
WITH typed AS (
    -- try(): a line that is not JSON gives NULLs (and goes to Python), not an error
    SELECT file, lineno, line,
        try(json_type(line, {_JSON_PATHS!r})) AS ty,
        try(json_extract_string(line, {_JSON_PATHS!r})) AS v,
        try(json_keys(line)) AS keys
    FROM batch
), checked AS (
    SELECT *,
        ty IS NOT NULL AND len(keys) = len(list_distinct(keys)) AND {_ty("id")} = 'VARCHAR' AS has_id,
        {_ty("link_id")} IS NULL AND ({_ty("title")} IS NOT NULL OR {_ty("selftext")} IS NOT NULL) AS post
    FROM typed
)
SELECT file, lineno, line, post,
    coalesce(has_id AND (post OR ({_COMMENT_OK})), false) AS ok,
    coalesce(has_id AND NOT post AND {_COMMENT_OK} AND {_COMMENT_FAST}, false) AS fast,
    CASE WHEN post THEN {_strip(_val("id"))} ELSE {_strip(_val("link_id"))} END AS thread,
    {_strip(_val("id"))} AS id,
    {_strip(_val("parent_id"))} AS parent,
    CASE WHEN {_type_in("author", "VARCHAR")} THEN {_val("author")} END AS author,
    {_val("body")} AS body,
    TRY_CAST({_val("score")} AS BIGINT) AS score,
    TRY_CAST(trunc(TRY_CAST({_val("created_utc")} AS DOUBLE)) AS BIGINT) AS created,  -- as Python's int()
    {_val("subreddit")} AS subreddit,
    {_val("distinguished")} AS distinguished,
    __TEXT__ AS text
FROM checked
"""

# the text whose tokens the token filters count (computed only when they are used)
_TEXT = f"""CASE WHEN post
    THEN concat_ws(chr(10) || chr(10),
        CASE WHEN {_type_in("title", "VARCHAR")} THEN nullif({_val("title")}, '') END,
        CASE WHEN {_type_in("selftext", "VARCHAR")} THEN nullif({_val("selftext")}, '') END)
    ELSE {_val("body")} END"""

_RECS = """
CREATE TABLE recs (
    thread VARCHAR, post BOOLEAN, file INTEGER, lineno BIGINT, line VARCHAR, fast BOOLEAN,
    id VARCHAR, parent VARCHAR, author VARCHAR, body VARCHAR, score BIGINT, created BIGINT,
    subreddit VARCHAR, distinguished VARCHAR, tokens BIGINT, ok BOOLEAN
)
"""


def _record_filter(selection: DumpSelection) -> tuple[str, list[Any]]:
    clauses, params = ["ok"], []
    if selection.subreddits:
        clauses.append("list_contains(?, lower(subreddit))")
        params.append([s.lower() for s in selection.subreddits])
    if selection.thread_ids:
        clauses.append("list_contains(?, thread)")
        params.append([_strip_prefix(t) for t in selection.thread_ids])
    return " AND ".join(clauses), params


def _duckdb_rows(
    files: Sequence[Path],
    selection: DumpSelection,
    skip_bad: bool,
    report: ImportReport,
    on_bytes: Callable[[int], None] | None,
) -> Iterator[dict[str, list[Any]]]:
    import duckdb

    with tempfile.TemporaryDirectory(prefix="socialbench-duckdb-") as tmp:
        # an in-memory database under a memory limit spills to temp_directory: memory stays flat as dumps grow
        con = duckdb.connect(
            config={
                "temp_directory": tmp,
                "memory_limit": os.environ.get("SOCIALBENCH_DUCKDB_MEMORY", DEFAULT_MEMORY),
                "threads": usable_cpus(),
                "preserve_insertion_order": False,
            },
        )
        try:
            con.execute(_RECS)
            if selection.wants_tokens:
                con.create_function("cl100k", _arrow_token_counts, ["VARCHAR"], "BIGINT", type="arrow")  # type: ignore[call-overload]
            tokens = "cl100k(text)" if selection.wants_tokens else "NULL"
            keep, params = _record_filter(selection)
            # every line is stored once: kept records with their columns (the line itself only when the record is
            # re-read by Python), lines Python must look at (not ok) with their text
            checked = _CHECK.replace("__TEXT__", _TEXT if selection.wants_tokens else "NULL")
            columns = "thread, post, file, lineno, CASE WHEN fast THEN NULL ELSE line END, fast, id, parent, author, "
            columns += f"body, score, created, subreddit, distinguished, {tokens}, ok"
            if params:  # MATERIALIZED: otherwise the filter re-evaluates the JSON checks, three times slower
                insert = f"INSERT INTO recs WITH c AS MATERIALIZED ({checked}) SELECT {columns} FROM c "
                insert += f"WHERE NOT ok OR ({keep})"
            else:
                insert = f"INSERT INTO recs SELECT {columns} FROM ({checked})"
            for index, path in enumerate(files):
                for block, first_line in _prefetched(_blocks(path, on_bytes)):
                    _ingest(con, path, index, block, first_line, insert, params, selection, skip_bad, report)
            yield from _grouped(con, selection)
        finally:
            con.close()


def _blocks(path: Path, on_bytes: Callable[[int], None] | None) -> Iterator[tuple[bytes, int]]:
    """Blocks of whole lines of about 8 MB, each with the number of its first line."""
    lineno, pending, size = 1, [], 0
    for block in line_blocks(path):
        if on_bytes is not None:
            on_bytes(len(block))
        pending.append(block)
        size += len(block)
        if size >= 32 << 20:
            joined = b"".join(pending)
            yield joined, lineno
            lineno += joined.count(b"\n")
            pending, size = [], 0
    if pending:
        yield b"".join(pending), lineno


def _prefetched(blocks: Iterator[tuple[bytes, int]]) -> Iterator[tuple[bytes, int]]:
    """``blocks`` produced one step ahead in a thread: decompression (which releases the GIL) runs while DuckDB
    checks the previous block on the other core. The producer's exception (an InputError) is re-raised here."""
    ahead: queue.Queue[tuple[bytes, int] | BaseException | None] = queue.Queue(maxsize=1)
    stop = threading.Event()

    def offer(item: tuple[bytes, int] | BaseException | None) -> bool:
        while not stop.is_set():  # the consumer may stop early (an error, a closed generator)
            try:
                ahead.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def produce() -> None:
        try:
            for item in blocks:
                if not offer(item):
                    return
            offer(None)
        except BaseException as exc:  # handed to the consumer, which raises it
            offer(exc)

    worker = threading.Thread(target=produce, name="socialbench-decompress", daemon=True)
    worker.start()
    try:
        while (item := ahead.get()) is not None:
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        stop.set()
        worker.join()


def _line_array(block: bytes) -> pa.Array:
    """The block's lines as an Arrow string array over the block's own bytes (each value keeps its newline)."""
    import numpy as np
    import pyarrow as pa

    data = np.frombuffer(block, dtype=np.uint8)
    ends = np.flatnonzero(data == 10) + 1
    if not len(ends) or ends[-1] != len(block):  # a last line without a newline
        ends = np.append(ends, len(block))
    offsets = np.concatenate(([0], ends)).astype(np.int64)
    return pa.LargeStringArray.from_buffers(len(ends), pa.py_buffer(offsets), pa.py_buffer(block))


def _ingest(
    con: Any,
    path: Path,
    index: int,
    block: bytes,
    first_line: int,
    insert: str,
    params: list[Any],
    selection: DumpSelection,
    skip_bad: bool,
    report: ImportReport,
) -> None:
    import numpy as np
    import pyarrow as pa

    lines = _line_array(block)
    try:
        lines.validate(full=True)  # UTF-8
        utf8 = True
    except pa.ArrowInvalid:
        utf8 = False
    count = len(lines)
    numbers = pa.array(np.arange(first_line, first_line + count, dtype=np.int64))
    batch = pa.table({"file": pa.array(np.full(count, index, dtype=np.int32)), "lineno": numbers, "line": lines})
    batch = pa.Table.from_batches(
        batch.to_batches(max_chunksize=8192)
    )  # several batches: DuckDB scans them in parallel
    rescued: list[dict[str, Any]] = []
    if utf8:
        con.register("batch", batch)
        con.execute(insert, params)
        con.unregister("batch")
        suspects = con.execute(
            "SELECT lineno, line FROM recs WHERE NOT ok AND file = ? AND lineno >= ? ORDER BY lineno",
            [index, first_line],
        ).fetchall()
        report.records += count
        suspect_lines = ((n, text.encode()) for n, text in suspects)
    else:  # some bytes are not UTF-8: every line of this block is read by Python, in order
        report.records += count
        suspect_lines = ((first_line + i, raw) for i, raw in enumerate(block.split(b"\n")[:count]))
    for lineno, raw in suspect_lines:
        if not raw.strip():
            report.records -= 1
            continue
        try:
            thread, is_post, record = classify(path, lineno, decode(path, raw, line=lineno))
        except InputError as exc:
            if not skip_bad:
                raise
            report.skip(exc)
            continue
        if _keeps(selection, thread, record):
            rescued.append(
                {"thread": thread, "post": is_post, "file": index, "lineno": lineno, "line": raw.decode("utf-8-sig")}
                | {"fast": False, "id": record["id"], "body": None, "score": None, "subreddit": None}
                | {"distinguished": None, "ok": True}
                | record_stats(record, is_post, selection.wants_tokens)
            )
    if rescued:
        con.register("rescued", pa.Table.from_pylist(rescued))
        con.execute("INSERT INTO recs BY NAME SELECT * FROM rescued")
        con.unregister("rescued")


def _arrow_token_counts(texts: Any) -> Any:
    """cl100k counts of an Arrow string array (DuckDB's ``cl100k``, typed at registration; DuckDB reads these
    annotations when the function is registered, before pyarrow is imported here: hence ``Any``)."""
    import pyarrow as pa

    return pa.array(_token_count(texts.to_pylist()), type=pa.int64())


def _grouped(con: Any, selection: DumpSelection) -> Iterator[dict[str, list[Any]]]:
    where = "WHERE ok"
    if selection.per_thread:
        con.execute(_thread_filter_sql(selection))
        where += " AND thread IN (SELECT thread FROM chosen)"
    query = f"SELECT {', '.join(ROW_FIELDS)} FROM recs {where} ORDER BY thread, post DESC, file, lineno"
    reader = con.sql(query).to_arrow_reader(20_000)
    for batch in reader:
        yield {name: batch.column(name).to_pylist() for name in ROW_FIELDS}


def _thread_filter_sql(selection: DumpSelection) -> str:
    since, until = selection.started_bounds()
    conditions = []
    for value, sql in (
        (selection.min_comments, "comments >= {}"),
        (selection.max_comments, "comments <= {}"),
        (selection.min_participants, "participants >= {}"),
        (selection.min_tokens, "tokens >= {}"),
        (selection.max_tokens, "tokens <= {}"),
        (selection.min_depth, "depth >= {}"),
        (selection.max_depth, "depth <= {}"),
        (since, "started >= {}"),
        (until, "started < {}"),
    ):
        if value is not None:
            conditions.append(sql.format(int(value)))
    depth = ""
    depth_join = ""
    if selection.wants_depth:
        # levels reached from the submission; UNION (not UNION ALL) so a repeated id cannot multiply the walk
        depth = """, walk(thread, id, depth) AS (
            SELECT thread, id, 1 FROM recs WHERE ok AND NOT post AND parent = thread
            UNION
            SELECT r.thread, r.id, w.depth + 1 FROM recs r JOIN walk w ON r.thread = w.thread AND r.parent = w.id
            WHERE r.ok AND NOT r.post
        ), depths AS (SELECT thread, max(depth) AS depth FROM walk GROUP BY thread)"""
        depth_join = "LEFT JOIN depths USING (thread)"
    recursive = "RECURSIVE " if depth else ""
    return f"""
    CREATE OR REPLACE TEMP TABLE chosen AS
    WITH {recursive}stats AS (
        SELECT thread,
            count(*) FILTER (WHERE NOT post) AS comments,
            count(DISTINCT author) FILTER (WHERE author IS NOT NULL AND author NOT IN ('[deleted]', '[removed]'))
                AS participants,
            coalesce(min(created) FILTER (WHERE post), min(created)) AS started,
            coalesce(sum(tokens), 0) AS tokens
        FROM recs WHERE ok GROUP BY thread
    ){depth}
    SELECT thread FROM (SELECT stats.*, {"coalesce(depth, 0)" if depth else "0"} AS depth FROM stats {depth_join})
    WHERE {" AND ".join(conditions)}
    """


# ---- the importer's declaration ---------------------------------------------------------------------------------
_SELECT_KEYS = tuple(k for k in DumpSelection.model_fields if k not in ("subreddits", "thread_ids"))


class PushshiftOptions(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    subreddit: tuple[str, ...] = Field((), description="keep only these subreddits.")
    thread: tuple[str, ...] = Field((), description="keep only these thread ids.")
    skip_bad: bool = Field(False, description="skip bad records (counted) instead of stopping.")
    engine: Engine = Field(
        "duckdb", description="DuckDB on this machine, or Apache Spark (pip install 'socialbench[spark]')."
    )
    spark_master: str | None = Field(None, description="--engine spark: the cluster (default local[*]).")
    partitions: int | None = Field(
        None,
        ge=1,
        description="--engine spark: the executors build and write the threads, as OUTPUT/part-00000.jsonl ... "
        "(a folder every command reads like one episodes file).",
    )
    select: tuple[str, ...] = Field(
        (),
        description="thread selection inside the engine, e.g. since=2013-01-01 until=2013-12-31 min_comments=50 "
        "max_comments=2000 min_participants=10 min_depth=4 max_depth=50 min_tokens=2000 max_tokens=120000.",
        json_schema_extra={"metavar": "KEY=VALUE"},
    )

    @model_validator(mode="after")
    def _combinations(self) -> PushshiftOptions:
        if self.partitions and self.engine != "spark":
            raise ValueError("--partitions applies to --engine spark")
        if self.spark_master and self.engine != "spark":
            raise ValueError("--spark-master applies to --engine spark")
        self.selection()  # a bad --select is refused before anything is read
        return self

    def selection(self) -> DumpSelection:
        """--select, --subreddit and --thread as one `DumpSelection`."""
        values: dict[str, str] = {}
        for pair in self.select:
            key, sep, value = pair.partition("=")
            if not sep or key not in _SELECT_KEYS:
                raise ValueError(f"--select {pair!r}: expected KEY=VALUE with KEY one of {', '.join(_SELECT_KEYS)}")
            values[key] = value
        try:
            chosen = DumpSelection.model_validate(values)
        except ValidationError as exc:
            first = exc.errors()[0]
            raise ValueError(f"--select {first['loc'][0]}: {first['msg']}") from None
        return selected(chosen, self.subreddit, self.thread)

    @property
    def filtered(self) -> bool:
        return bool(self.subreddit or self.thread or self.select)


def _read(paths: Sequence[str], options: PushshiftOptions, context: ImportContext) -> Iterator[Thread]:
    return read_pushshift(
        *paths,
        selection=options.selection(),
        engine=options.engine,
        skip_bad=options.skip_bad,
        report=context.report,
        on_bytes=context.on_bytes,
        spark_master=options.spark_master,
    )


def _partitioned(paths: Sequence[str], out: Path, options: PushshiftOptions, report: ImportReport) -> tuple[int, int]:
    from .pushshift_spark import write_partitioned

    return write_partitioned(
        dump_files(paths),
        out,
        options.partitions or 1,
        options.selection(),
        options.skip_bad,
        report,
        master=options.spark_master,
    )


IMPORTER = Importer(
    "pushshift",
    "Pushshift / Arctic Shift dumps (RC_/RS_ JSON lines, plain, .zst, .gz or .bz2) regrouped into threads.",
    _read,
    options=PushshiftOptions,
    folder_output=lambda o: bool(o.partitions),
    partitioned=_partitioned,
    counts_bytes=True,
)
