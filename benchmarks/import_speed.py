"""Pushshift import: the DuckDB engine vs. a naive load-everything-then-group loader vs. the old SQLite spool.

Builds synthetic Pushshift-style comment dumps (.zst; comments of many threads interleaved in time order, as
in the monthly RC_ files), then, each in a fresh process, imports them with `read_pushshift` (DuckDB), the
naive loader and the spool, and prints throughput (uncompressed MB/s), peak resident memory and the ratios.
Two dump sizes show whether peak memory grows with the dump.

    python benchmarks/import_speed.py                 # 256 MB and 1024 MB dumps (uncompressed)
    python benchmarks/import_speed.py --sizes 64 256  # quicker
    python benchmarks/import_speed.py --phases 1024   # where the DuckDB engine's time goes
"""

from __future__ import annotations

import argparse
import json
import random
import re
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import zstandard

WORDS = [
    "the",
    "of",
    "and",
    "to",
    "a",
    "in",
    "is",
    "that",
    "it",
    "for",
    "on",
    "with",
    "as",
    "was",
    "but",
    "be",
    "this",
    "have",
    "not",
    "are",
    "they",
    "you",
    "at",
    "by",
    "thread",
    "reply",
    "argument",
    "evidence",
    "source",
    "claim",
    "point",
    "view",
    "change",
    "think",
    "people",
    "because",
]


def build_dump(path: Path, size_mb: int, seed: int = 0) -> int:
    """Write ~size_mb of uncompressed JSON lines; returns the uncompressed byte count."""
    rng = random.Random(seed)
    target = size_mb * 1024 * 1024
    written, cid = 0, 0
    live: list[tuple[str, list[str]]] = []  # threads receiving comments, each with its comment ids
    cctx = zstandard.ZstdCompressor(level=3, threads=2)
    with path.open("wb") as raw, cctx.stream_writer(raw) as out:
        t = 1_500_000_000
        while written < target:
            if not live or rng.random() < 0.01:  # a new thread starts
                live.append((f"{len(live) + cid:x}t", []))
                if len(live) > 2000:  # old threads go quiet
                    live.pop(0)
            link, ids = live[rng.randrange(len(live))]
            parent = f"t1_{rng.choice(ids)}" if ids and rng.random() < 0.7 else f"t3_{link}"
            cid += 1
            ids.append(f"c{cid:x}")
            t += rng.randint(0, 3)
            body = " ".join(rng.choices(WORDS, k=rng.randint(10, 120)))
            line = (
                json.dumps(
                    {
                        "id": f"c{cid:x}",
                        "link_id": f"t3_{link}",
                        "parent_id": parent,
                        "author": f"user{rng.randrange(50_000)}",
                        "body": body,
                        "score": rng.randint(-5, 50),
                        "created_utc": t,
                        "subreddit": "bench",
                    }
                ).encode()
                + b"\n"
            )
            out.write(line)
            written += len(line)
    return written


def duckdb_engine(path: str) -> tuple[int, int]:
    from socialbench.conversations.sources import read_pushshift

    threads = comments = 0
    for thread in read_pushshift(path):
        threads += 1
        comments += len(thread) - 1
    return threads, comments


def spool(path: str) -> tuple[int, int]:
    """The importer before DuckDB (kept here as the baseline): every record spooled to SQLite, then regrouped."""
    from socialbench.conversations.model import Node, Thread
    from socialbench.conversations.sources._common import GroupSpool, iter_json_lines
    from socialbench.conversations.sources.reddit import _comment_node, _strip_prefix

    threads = comments = 0
    with GroupSpool() as groups:
        for lineno, line in iter_json_lines(Path(path)):
            raw = line.load()
            groups.add(f"{_strip_prefix(raw['link_id'])}\x00" + "1", json.dumps([path, lineno, raw]).encode())
        for key, payloads in groups.groups():
            thread = key.split("\x00")[0]
            nodes = [_comment_node(r, Path(p), {"line": n}) for p, n, r in map(json.loads, payloads)]
            built = Thread.build([Node(id=thread, deleted=True), *nodes], id=thread, platform="reddit", root_id=thread)
            threads += 1
            comments += len(built) - 1
    return threads, comments


def naive(path: str) -> tuple[int, int]:
    """What a quick script does: decompress everything, parse every line, group in a dict, then build."""
    import io

    from socialbench.conversations.model import Node, Thread

    with open(path, "rb") as raw:
        reader = io.TextIOWrapper(zstandard.ZstdDecompressor(max_window_size=2**31).stream_reader(raw))
        records = [json.loads(line) for line in reader]
    grouped: dict[str, list[dict[str, object]]] = defaultdict(list)
    for r in records:
        grouped[str(r["link_id"])[3:]].append(r)
    comments = 0
    for link, rows in grouped.items():
        nodes = [Node(id=link)] + [
            Node(
                id=str(r["id"]),
                parent_id=str(r["parent_id"])[3:],
                author=str(r["author"]),
                text=str(r["body"]),
                created=r["created_utc"],
            )
            for r in rows
        ]
        comments += len(Thread.build(nodes, id=link, platform="reddit", root_id=link)) - 1
    return len(grouped), comments


def phases(path: str) -> tuple[int, int]:
    """The DuckDB engine with its phases timed: reading and checking (ingest), sorting, building threads."""
    from socialbench.conversations.sources import pushshift

    spent = {"ingest": 0.0, "sort": 0.0, "fetch": 0.0}
    ingest, grouped = pushshift._ingest, pushshift._grouped

    def timed_ingest(*args, **kwargs):  # type: ignore[no-untyped-def]
        start = time.perf_counter()
        ingest(*args, **kwargs)
        spent["ingest"] += time.perf_counter() - start

    def timed_grouped(*args):  # type: ignore[no-untyped-def]
        start, first = time.perf_counter(), True
        for batch in grouped(*args):
            spent["sort" if first else "fetch"] += time.perf_counter() - start
            first = False
            yield batch
            start = time.perf_counter()

    pushshift._ingest, pushshift._grouped = timed_ingest, timed_grouped
    start = time.perf_counter()
    threads, comments = duckdb_engine(path)
    total = time.perf_counter() - start
    rest = total - sum(spent.values())
    print(
        f"phases: {total:.1f} s = ingest (decompress, check, store) {spent['ingest']:.1f} s + sort "
        f"{spent['sort']:.1f} s + fetch {spent['fetch']:.1f} s + building threads {rest:.1f} s",
        file=sys.stderr,
    )
    return threads, comments


MODES = {"duckdb": duckdb_engine, "naive": naive, "spool": spool}


def child(mode: str, path: str) -> None:
    start = time.perf_counter()
    threads, comments = (phases if mode == "phases" else MODES[mode])(path)
    seconds = time.perf_counter() - start
    # VmHWM: the peak of this process's own memory (getrusage's ru_maxrss would include the parent's at fork)
    peak_mb = int(re.search(r"VmHWM:\s+(\d+)", Path("/proc/self/status").read_text()).group(1)) / 1024  # type: ignore[union-attr]
    print(json.dumps({"threads": threads, "comments": comments, "seconds": seconds, "peak_mb": peak_mb}))


def measure(mode: str, path: Path) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, __file__, "--child", mode, str(path)], capture_output=True, text=True, check=True
    )
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[256, 1024], help="dump sizes in MB (uncompressed)")
    parser.add_argument("--phases", type=int, metavar="MB", help="time the DuckDB engine's phases on one dump size")
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(*args.child)
        return
    if args.phases:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / f"RC_bench_{args.phases}.zst"
            build_dump(path, args.phases)
            child("phases", str(path))
        return
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for size in args.sizes:
            path = Path(tmp) / f"RC_bench_{size}.zst"
            uncompressed = build_dump(path, size)
            mb = uncompressed / 2**20
            for mode in MODES:
                r = measure(mode, path)
                r["mb_per_s"] = mb / r["seconds"]
                rows.append((size, mode, r))
                print(
                    f"{size:>6} MB dump ({path.stat().st_size / 2**20:.0f} MB .zst) {mode:>7}: "
                    f"{r['threads']:.0f} threads, {r['comments']:.0f} comments, "
                    f"{mb / r['seconds']:.1f} MB/s, "
                    f"peak RSS {r['peak_mb']:.0f} MB",
                    flush=True,
                )
    small, large = args.sizes[0], args.sizes[-1]
    peak = {(s, m): r["peak_mb"] for s, m, r in rows}
    speed = {(s, m): r["mb_per_s"] for s, m, r in rows}
    growth = {mode: peak[large, mode] / peak[small, mode] for mode in MODES}
    print(
        f"\npeak memory growth {small} MB -> {large} MB dump: " + ", ".join(f"{m} x{g:.2f}" for m, g in growth.items())
    )
    for size in args.sizes:
        print(
            f"throughput at {size} MB: duckdb / naive x{speed[size, 'duckdb'] / speed[size, 'naive']:.2f}, "
            f"duckdb / spool x{speed[size, 'duckdb'] / speed[size, 'spool']:.2f}"
        )
    print(f"naive / duckdb peak memory at {large} MB: x{peak[large, 'naive'] / peak[large, 'duckdb']:.1f}")


if __name__ == "__main__":
    main()
