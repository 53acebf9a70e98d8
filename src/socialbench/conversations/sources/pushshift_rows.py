"""What both engines of `pushshift` share: the thread selection, the classification of a dump line, the rows an
engine hands back (`ROW_FIELDS`) and their assembly into threads. `pushshift` (DuckDB) and `pushshift_spark` (Spark)
import from here, and neither from the other's module but for `pushshift` choosing the engine."""

from __future__ import annotations

import html
import json
from collections.abc import Iterator, Sequence
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ...core.errors import InputError
from ...core.jsonl import parse_json
from ..model import IntegrityPolicy, Node, Thread
from ._common import REPAIRS_KEY, ImportReport, json_problem, record_repair, require
from .reddit import _DELETED, _comment_node, _post_node, _strip_prefix, post_title

_MAX_EPOCH = 253_402_300_799  # 9999-12-31T23:59:59Z, the last second Python's datetime can hold


class DumpSelection(BaseModel):
    """Which threads of a dump to keep. Record filters (subreddit, thread) drop records as they are read; thread
    filters are computed per thread inside the engine, so a thread that fails them is never assembled."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    subreddits: tuple[str, ...] = ()
    """Subreddit names (case-insensitive)."""
    thread_ids: tuple[str, ...] = ()
    """Thread (submission) ids, with or without ``t3_``."""
    since: date | None = None
    """Threads started on or after this day (UTC): the submission's time, or the first comment's without it."""
    until: date | None = None
    """Threads started on or before this day (UTC)."""
    min_comments: int | None = Field(default=None, ge=0)
    max_comments: int | None = Field(default=None, ge=0)
    min_participants: int | None = Field(default=None, ge=0)
    """Distinct named authors (the submitter included; deleted accounts not counted)."""
    min_depth: int | None = Field(default=None, ge=0)
    """Deepest reply chain from the submission (a top-level comment is depth 1), over comments that reach it."""
    max_depth: int | None = Field(default=None, ge=0)
    min_tokens: int | None = Field(default=None, ge=0)
    """cl100k tokens of the thread's texts (title, self text and comment bodies; no rendering overhead)."""
    max_tokens: int | None = Field(default=None, ge=0)

    @property
    def wants_tokens(self) -> bool:
        return self.min_tokens is not None or self.max_tokens is not None

    @property
    def wants_depth(self) -> bool:
        return self.min_depth is not None or self.max_depth is not None

    @property
    def per_thread(self) -> bool:
        limits = (self.since, self.until, self.min_comments, self.max_comments, self.min_participants)
        return self.wants_tokens or self.wants_depth or any(v is not None for v in limits)

    def started_bounds(self) -> tuple[int | None, int | None]:
        """``since`` / ``until`` as epoch seconds: [start of since, start of the day after until)."""

        def epoch(day: date) -> int:
            return int(datetime(day.year, day.month, day.day, tzinfo=UTC).timestamp())

        return (
            epoch(self.since) if self.since else None,
            epoch(self.until + timedelta(days=1)) if self.until else None,
        )


def classify(path: Path, lineno: int, text: str) -> tuple[str, bool, dict[str, Any]]:
    """``(thread id, is a submission, record)`` of one line, or an InputError naming the line and the problem."""
    try:
        raw = parse_json(text)
    except json.JSONDecodeError as exc:
        raise InputError(path, json_problem(exc, text, "line"), line=lineno) from None
    except ValueError as exc:  # nested beyond MAX_JSON_DEPTH
        raise InputError(path, str(exc), line=lineno) from None
    rid = require(raw, "id", str, path, line=lineno)
    if "link_id" not in raw and ("title" in raw or "selftext" in raw):
        return _strip_prefix(rid), True, raw  # t3_abc and abc are one thread
    thread = _strip_prefix(require(raw, "link_id", str, path, line=lineno, record=rid))
    require(raw, "parent_id", str, path, line=lineno, record=rid)
    if "body" in raw and not isinstance(raw["body"], str):
        raise InputError(path, "field 'body' should be str", line=lineno, record=rid)
    return thread, False, raw


def record_stats(raw: dict[str, Any], is_post: bool, tokens: bool) -> dict[str, Any]:
    """The per-record values the thread filters use, as Python reads them (for records DuckDB could not)."""
    created = raw.get("created_utc")
    try:
        seconds = (
            int(float(created)) if isinstance(created, int | float | str) and not isinstance(created, bool) else None
        )
    except (ValueError, OverflowError):  # not a number, NaN, infinite
        seconds = None
    if seconds is not None and not -(2**63) <= seconds < 2**63:  # as DuckDB's BIGINT
        seconds = None
    author = raw.get("author") if isinstance(raw.get("author"), str) else None
    parent = raw.get("parent_id")
    text = _record_text(raw, is_post)
    return {
        "parent": _strip_prefix(parent) if isinstance(parent, str) else None,
        "author": author,
        "created": seconds,
        "tokens": _token_count([text])[0] if tokens else None,
    }


def _record_text(raw: dict[str, Any], is_post: bool) -> str:
    keys = ("title", "selftext") if is_post else ("body",)
    return "\n\n".join(v for k in keys if isinstance(v := raw.get(k), str) and v)


def _token_count(texts: Sequence[str | None]) -> list[int]:
    from ..tokens import encoding

    counted = encoding().encode_ordinary_batch([t or "" for t in texts])
    return [len(t) for t in counted]


ROW_FIELDS: tuple[str, ...] = ("thread", "post", "file", "lineno", "line", "fast", "id", "parent", "author")
ROW_FIELDS += ("body", "score", "created", "subreddit", "distinguished")


def assemble(
    files: Sequence[Path],
    rows: Iterator[dict[str, list[Any]]],
    *,
    skip_bad: bool,
    report: ImportReport,
    policy: IntegrityPolicy,
) -> Iterator[Thread]:
    """Threads from column batches of kept records sorted by (thread, submission first, file, line)."""
    current: str | None = None
    post: dict[str, Any] | None = None
    post_at: tuple[Path, int] = (Path("."), 0)
    nodes: list[Node] = []
    first_subreddit: Any = None
    repairs: dict[str, int] = {}

    def root_node() -> Node | None:
        """The submission's node, or None when it is bad and skipped (the thread then gets a placeholder)."""
        assert post is not None
        try:
            return _post_node(post, post_at[0], {"line": post_at[1]})
        except (InputError, ValidationError) as exc:
            located = (
                InputError.from_validation(post_at[0], exc, line=post_at[1], record=str(post.get("id")))
                if isinstance(exc, ValidationError)
                else InputError(post_at[0], exc.message, line=post_at[1], record=exc.record)
            )
            if not skip_bad:
                raise located from None
            report.skip(located)
            return None

    def finish() -> Thread:
        assert current is not None
        root = root_node() if post is not None else None
        submission = post if root is not None else None
        if root is None:
            root = Node(id=current, deleted=True, meta={"placeholder": True, "reason": "submission not in the inputs"})
        subreddit = submission.get("subreddit") if submission is not None else first_subreddit
        return Thread.build(
            [root, *nodes],
            id=f"reddit:{current}",
            platform="reddit",
            title=post_title(submission) if submission else None,
            root_id=current,
            meta={"source": "pushshift", "subreddit": subreddit} | ({REPAIRS_KEY: repairs} if repairs else {}),
            policy=policy,
        )

    for batch in rows:
        columns = [batch[name] for name in ROW_FIELDS]
        for thread, is_post, file, lineno, line, fast, *values in zip(*columns, strict=True):
            if thread != current:
                if current is not None:
                    yield finish()
                current, post, nodes, first_subreddit, repairs = thread, None, [], None, {}
            path = files[file]
            if is_post:
                if post is None:  # a repeated submission keeps its first copy
                    post, post_at = parse_json(line), (path, lineno)
                elif _differs(parse_json(line), post):
                    record_repair(
                        repairs,
                        "submissions given twice with different content (the first kept)",
                        f"{path}:{lineno}: submission {thread} differs from the copy at {post_at[0]}:{post_at[1]}; "
                        "the first kept",
                    )
                continue
            if fast:
                node = fast_comment_node(*values)
                subreddit = values[-2]
            else:
                try:
                    raw = parse_json(line)
                    node = _comment_node(raw, path, {"line": lineno})
                except InputError as exc:
                    located = InputError(path, exc.message, line=lineno, record=exc.record)
                    if not skip_bad:
                        raise located from None
                    report.skip(located)
                    continue
                except ValidationError as exc:  # a value of the right JSON type that is still not valid
                    located = InputError.from_validation(path, exc, line=lineno, record=raw.get("id"))
                    if not skip_bad:
                        raise located from None
                    report.skip(located)
                    continue
                subreddit = raw.get("subreddit")
            if not nodes:
                first_subreddit = subreddit
            nodes.append(node)
    if current is not None:
        yield finish()


def _differs(one: dict[str, Any], other: dict[str, Any]) -> bool:
    """Two copies of a submission that a reader would tell apart (title, text, author; not score or counts)."""
    return any(one.get(k) != other.get(k) for k in ("title", "selftext", "author"))


def fast_comment_node(
    cid: str,
    parent: str,
    author: str | None,
    body: str | None,
    score: int | None,
    created: int | None,
    subreddit: str | None,
    distinguished: str | None,
) -> Node:
    """`reddit._comment_node` for a record whose fields the engine has already checked and typed (strings that are
    valid Unicode, an integer score, whole epoch seconds within datetime's range, no ``edited`` value to keep):
    the same node, without re-validating what is known to be valid."""
    text = html.unescape(body) if body and "&" in body else (body or "")
    meta = {}
    if subreddit is not None:
        meta["subreddit"] = subreddit
    if distinguished is not None:
        meta["distinguished"] = distinguished
    return Node.trusted(
        id=cid,
        parent_id=parent,
        author=None if author in _DELETED else author,
        created=None if created is None else datetime.fromtimestamp(created, tz=UTC),
        text="" if text in _DELETED else text,
        score=score,
        deleted=text == "[deleted]" or author == "[deleted]",
        removed=text == "[removed]",
        meta=meta,
    )


def _keeps(selection: DumpSelection, thread: str, raw: dict[str, Any]) -> bool:
    """`_record_filter` for a record Python read."""
    subs = {s.lower() for s in selection.subreddits}
    if subs and str(raw.get("subreddit", "")).lower() not in subs:
        return False
    return not selection.thread_ids or thread in {_strip_prefix(t) for t in selection.thread_ids}
