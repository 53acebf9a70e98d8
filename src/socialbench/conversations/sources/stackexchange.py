"""Stack Exchange data dumps: `Posts.xml` + `Comments.xml` (+ `Users.xml` for names), streamed with iterparse.

One Thread per question: question (root) -> answers (``ParentId``) -> comments (``PostId``). Post ids become
``p<Id>`` and comment ids ``c<Id>`` because the dump numbers posts and comments independently.
"""

from __future__ import annotations

import json
import warnings
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, cast

from pydantic import ValidationError

from ...core.errors import InputError
from ..model import IntegrityPolicy, Node, Thread, ThreadIntegrityWarning
from ._common import GroupSpool, ImportReport, html_to_text
from .importer import Importer

MAX_ATTRIBUTE_CHARS = 1_000_000
"""Longest attribute read: a post's HTML body is at most 30,000 characters on Stack Exchange; a longer one is a
damaged or hostile file, refused before its HTML is parsed."""
MAX_ROW_BYTES = 8 * 2**20
"""Most XML read for one ``<row>`` (an attribute at the character limit, escaped, fits)."""


def parse_tags(raw: str | None) -> list[str]:
    """Both dump syntaxes: ``<a><b>`` (older dumps) and ``|a|b|`` (newer dumps)."""
    if not raw:
        return []
    if raw.startswith("<"):
        return [t for t in raw.strip("<>").split("><") if t]
    return [t for t in raw.split("|") if t]


def _rows(path: Path, on_row: Callable[[int], None] | None = None) -> Iterator[dict[str, str]]:
    """Stream the ``<row .../>`` attributes of a dump file with bounded memory and time.

    The file is fed to expat in chunks. expat re-scans an unfinished element on every chunk, so one enormous
    element would take time quadratic in its size (a 200 MB attribute: hours); more than `MAX_ROW_BYTES` without a
    finished row is an error instead."""
    if not path.exists():
        raise InputError(path, "file not found")
    count = 0
    line = 1  # the line being read, for errors found between rows
    parser: ET.XMLPullParser[Any] = ET.XMLPullParser(events=("end",))
    try:
        with path.open("rb") as handle:
            unfinished = 0  # bytes fed since the last finished row
            while chunk := handle.read(1 << 16):
                parser.feed(chunk)
                unfinished += len(chunk)
                for _event, elem in cast(Iterator[tuple[str, ET.Element]], parser.read_events()):
                    if elem.tag == "row":
                        count += 1
                        unfinished = 0
                        _check_sizes(elem, path)
                        yield dict(elem.attrib)
                        elem.clear()
                        if on_row is not None:
                            on_row(count)
                if unfinished > MAX_ROW_BYTES:
                    raise InputError(
                        path,
                        f"more than {MAX_ROW_BYTES // 2**20} MiB without a complete <row> (after {count} rows): "
                        "not a dump file?",
                        line=line + chunk.count(b"\n"),
                    )
                line += chunk.count(b"\n")
            parser.close()
            for _event, elem in cast(Iterator[tuple[str, ET.Element]], parser.read_events()):
                if elem.tag == "row":
                    _check_sizes(elem, path)
                    yield dict(elem.attrib)
    except ET.ParseError as exc:
        line, column = exc.position
        raise InputError(
            path, f"malformed XML ({exc.msg if hasattr(exc, 'msg') else exc}, column {column})", line=line
        ) from None


def _check_sizes(elem: ET.Element, path: Path) -> None:
    for key, value in elem.attrib.items():
        if len(value) > MAX_ATTRIBUTE_CHARS:
            raise InputError(
                path,
                f"attribute {key!r} holds {len(value):,} characters, more than the {MAX_ATTRIBUTE_CHARS:,} read "
                "(Stack Exchange caps a post at 30,000 characters)",
                record=f"Id={elem.get('Id', '?')}",
            )


def _int(row: dict[str, str], key: str, path: Path, record: str, required: bool = True) -> int | None:
    value = row.get(key)
    if value is None:
        if required:
            raise InputError(path, f"missing attribute {key!r}", record=record)
        return None
    try:
        return int(value)
    except ValueError:
        raise InputError(path, f"attribute {key!r} should be an integer, got {value!r}", record=record) from None


def read_stackexchange(
    folder: str | Path,
    *,
    policy: IntegrityPolicy = "repair",
    on_row: Callable[[int], None] | None = None,
    report: ImportReport | None = None,
) -> Iterator[Thread]:
    """Threads of a site's dump folder (the one holding ``Posts.xml`` and ``Comments.xml``).

    Faithful or refused: a post ``Id`` given twice is read once when both rows are identical and refused when
    they differ (ids are the dump's keys); comments on posts absent from ``Posts.xml`` (deleted answers,
    a question not in the dump) cannot be placed and are left out, with a warning and a count in ``report``."""
    folder = Path(folder)
    if not folder.is_dir():
        raise InputError(folder, "expected the dump folder holding Posts.xml and Comments.xml")
    posts_xml, comments_xml, users_xml = folder / "Posts.xml", folder / "Comments.xml", folder / "Users.xml"
    names: dict[str, str] = {}
    if users_xml.exists():
        names = {r["Id"]: r.get("DisplayName", "") for r in _rows(users_xml) if "Id" in r}

    with GroupSpool() as spool:
        question_of: dict[int, int] = {}  # answer id -> question id; ints only, to route comments
        row_hash: dict[int, int] = {}  # post id -> hash of its row, to tell a repeated row from a reused Id
        for row in _rows(posts_xml, on_row):
            pid = _int(row, "Id", posts_xml, "?")
            assert pid is not None
            kind = _int(row, "PostTypeId", posts_xml, f"Id={pid}")
            digest = hash(json.dumps(row, sort_keys=True))
            if pid in row_hash and kind in (1, 2):
                if row_hash[pid] != digest:
                    raise InputError(posts_xml, "two different posts share this Id: refusing", record=f"Id={pid}")
                if report is not None:
                    report.repair("post rows given twice (read once)")
                continue
            row_hash[pid] = digest
            if kind == 1:
                spool.add(f"q{pid:012d}", json.dumps(row).encode())
                question_of[pid] = pid
            elif kind == 2:
                parent = _int(row, "ParentId", posts_xml, f"Id={pid}")
                assert parent is not None
                spool.add(f"q{parent:012d}", json.dumps(row).encode())
                question_of[pid] = parent
            # other post types (tag wikis, moderator nominations, ...) are not discussions
        orphans = 0
        for row in _rows(comments_xml, on_row):
            cid = _int(row, "Id", comments_xml, "?")
            post = _int(row, "PostId", comments_xml, f"Id={cid}")
            if post in question_of:
                spool.add(f"c{question_of[post]:012d}", json.dumps(row).encode())
            else:
                orphans += 1
        if orphans:
            warnings.warn(
                f"{comments_xml}: {orphans} comments on posts not in {posts_xml.name} left out",
                ThreadIntegrityWarning,
                stacklevel=2,
            )
            if report is not None:
                report.repair("comments on posts not in Posts.xml (left out)", orphans)

        site = folder.name if folder.name not in {"", "."} else "stackexchange"
        for key, payloads in spool.groups("q"):
            qid = int(key[1:])
            posts = [json.loads(p) for p in payloads]
            comments = [json.loads(p) for p in spool.get(f"c{qid:012d}")]
            yield _thread(site, qid, posts, comments, names, (posts_xml, comments_xml), policy)


def _author(row: dict[str, str], names: dict[str, str]) -> str | None:
    if row.get("OwnerDisplayName") or row.get("UserDisplayName"):
        return row.get("OwnerDisplayName") or row.get("UserDisplayName")
    uid = row.get("OwnerUserId") or row.get("UserId")
    if uid is None:
        return None
    return names.get(uid) or f"user{uid}"


def _thread(
    site: str,
    qid: int,
    posts: list[dict[str, str]],
    comments: list[dict[str, str]],
    names: dict[str, str],
    paths: tuple[Path, Path],
    policy: IntegrityPolicy,
) -> Thread:
    posts_xml, comments_xml = paths
    question = next((p for p in posts if p.get("PostTypeId") == "1"), None)
    accepted = _int(question, "AcceptedAnswerId", posts_xml, f"Id={qid}", required=False) if question else None
    nodes: list[Node] = []
    meta: dict[str, Any] = {"source": "stackexchange", "site": site}
    for row in posts:
        is_q = row.get("PostTypeId") == "1"
        text = html_to_text(row.get("Body"))
        if is_q and row.get("Title"):
            text = f"{row['Title']}\n\n{text}".strip()
        pid = _int(row, "Id", posts_xml, "?")  # ids as numbers: "0042" and "42" are one post
        record = f"Id={row['Id']}"
        nodes.append(
            _node(
                posts_xml,
                record,
                id=f"p{pid}",
                parent_id=None if is_q else f"p{_int(row, 'ParentId', posts_xml, record)}",
                author=_author(row, names),
                created=row.get("CreationDate"),
                text=text,
                score=_int(row, "Score", posts_xml, record, required=False),
                meta={"post_type": "question" if is_q else "answer", **({"accepted": True} if accepted == pid else {})},
            )
        )
    for row in comments:
        record = f"Id={row['Id']}"
        nodes.append(
            _node(
                comments_xml,
                record,
                id=f"c{_int(row, 'Id', comments_xml, record)}",
                parent_id=f"p{_int(row, 'PostId', comments_xml, record)}",
                author=_author(row, names),
                created=row.get("CreationDate"),
                text=row.get("Text", ""),
                score=_int(row, "Score", comments_xml, record, required=False),
                meta={"post_type": "comment"},
            )
        )
    if question is not None:
        meta["tags"] = parse_tags(question.get("Tags"))
    return Thread.build(
        nodes,
        id=f"se:{site}:{qid}",
        platform="stackexchange",
        title=question.get("Title") if question else None,
        root_id=f"p{qid}",
        meta=meta,
        policy=policy,
    )


def _node(path: Path, record: str, **fields: Any) -> Node:
    """A node whose bad field (a date that is not one) is named with its file and row ``Id``."""
    try:
        return Node(**fields)
    except ValidationError as exc:
        raise InputError.from_validation(path, exc, record=record) from None


IMPORTER = Importer(
    "stackexchange",
    "Stack Exchange data-dump folders (Posts.xml, Comments.xml, Users.xml): one thread per question.",
    lambda paths, _o, context: (t for p in paths for t in read_stackexchange(p, report=context.report)),
)
