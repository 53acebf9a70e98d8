"""LongSocialBench at the paper's scale on one machine: lint, runs and reports over 1,462 items on 94 long threads.

Builds a paper-scale pack in a temporary folder, deterministically, from the real threads of the bundled sample
pack (imported from ../shared/data; no new data): 94 episodes, each one sample thread with copies of the others
grafted under its root (after its own posts, so its items' post ids stay valid) until it reaches a length drawn
from 40K-136K cl100k tokens (median ~80K, as Table 6's ~73K), and 1,462 items: each sample item copied onto every
episode built on its thread (new ids; the same stems). Then, on ``mockllm/model`` (it answers at once: every
second is socialbench's own), each step runs as its own process and prints wall time, CPU (user + system), peak
RSS (the process and its children) and log size, at the full item count and at a quarter of it (the growth ratio):

- ``lint``: `socialbench analyze longsocial lint` over the items;
- ``run full`` / ``run bm25-k20``: one setting;
- ``grid``: full + bm25-k20 + question-only in one `socialbench run` (its memory against one setting's);
- ``report cold`` / ``report warm``: `socialbench report longsocial --html --figures --tables` over the logs, with
  an empty cache, then again;
- ``logs`` (not in the default steps): the grid under four seeds (12 runs), and a cold report over the 3 runs of
  one seed and over all 12 (the report's growth with the number of runs);
- ``logsize`` (not in the default steps): one run of each setting in ``--settings`` (default: one of every family
  the paper grid has), the bytes of its log (each discussion stored once, `socialbench.shared.logstore`) and what the
  same log would weigh as inspect writes it (``SOCIALBENCH_FULL_PROMPTS=1``, for the settings in ``--whole``); then a
  cold ``report`` over the Full log against ``inspect_ai.analysis.samples_df`` over the same log (CPU), and the
  paper grid's projected log size (each family's measured bytes x its settings in Table 12 x 18 models).

What the CPU figures include: the whole command, model calls and all. ``mockllm/model`` answers at once, but inspect
still counts each prompt's tokens for it (py-spy put 37% of a Full run's CPU inside mockllm's own token counting), so a
run's CPU here is an upper bound on socialbench's own; a report's CPU is socialbench's (and inspect's log readers').

    python benchmarks/scale.py [--items 1462] [--episodes 94] [--quarter/--no-quarter] [--steps lint,run,grid,report]
    python benchmarks/scale.py --no-quarter --steps logsize [--settings full,bm25-k20] [--whole full]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from socialbench.benchmarks.longsocial.task import load_episodes, sample_pack
from socialbench.conversations.render import render_thread
from socialbench.conversations.tokens import count_tokens

SOCIALBENCH = str(Path(sys.executable).parent / "socialbench")
LENGTHS = (40_000, 136_000)


def _time(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value.replace("Z", "+00:00")) if value else None


def _times(nodes: list[dict[str, Any]]) -> list[datetime]:
    return [t for n in nodes if (t := _time(n.get("created"))) is not None]


def build_pack(folder: Path, episodes: int, items: int, seed: int = 0) -> tuple[Path, Path, list[int]]:
    """The pack's episodes and items files, and each episode's cl100k length."""
    lines = (sample_pack() / "episodes.jsonl").read_text().splitlines()
    donors = [json.loads(line) for line in lines if line.strip()]
    sizes = {t.id: count_tokens(render_thread(t)) for t in load_episodes(sample_pack() / "episodes.jsonl").values()}
    rng = random.Random(seed)
    built, lengths, bases = [], [], []
    for k in range(episodes):
        base = donors[k % len(donors)]
        target = rng.uniform(*LENGTHS)
        episode = json.loads(json.dumps(base))
        episode["id"] = f"{base['id']}~{k}"
        root = episode["root_id"]
        last = max(_times(episode["nodes"]), default=None)
        clock = (last or datetime(2020, 1, 1)) + timedelta(days=1)
        tokens, g = sizes[base["id"]], 0
        while tokens < target:
            donor = donors[(k + 1 + g) % len(donors)]
            start = min(_times(donor["nodes"]), default=clock)
            for node in donor["nodes"]:
                copy = dict(node)
                copy["id"] = f"g{g}-{node['id']}"
                copy["parent_id"] = root if node["parent_id"] is None else f"g{g}-{node['parent_id']}"
                when = _time(node.get("created")) or start
                copy["created"] = (clock + (when - start)).isoformat().replace("+00:00", "Z")
                episode["nodes"].append(copy)
            clock += timedelta(days=400)
            tokens += sizes[donor["id"]]
            g += 1
        built.append(episode)
        lengths.append(tokens)
        bases.append(base["id"])
    source = [json.loads(line) for line in (sample_pack() / "items.jsonl").read_text().splitlines() if line.strip()]
    by_base: dict[str, list[dict[str, Any]]] = {}
    for item in source:
        by_base.setdefault(item["episode_id"], []).append(item)
    written: list[dict[str, Any]] = []
    copy_round = 0
    while len(written) < items:
        for k, base_id in enumerate(bases):
            for item in by_base.get(base_id, []):
                if len(written) < items:
                    new = dict(item, id=f"{item['id']}~{k}~{copy_round}", episode_id=f"{base_id}~{k}")
                    written.append(new)
        copy_round += 1
    folder.mkdir(parents=True, exist_ok=True)
    episodes_path, items_path = folder / "episodes.jsonl", folder / "items.jsonl"
    episodes_path.write_text("".join(json.dumps(e) + "\n" for e in built))
    items_path.write_text("".join(json.dumps(i) + "\n" for i in written))
    return episodes_path, items_path, lengths


def measure(command: list[str], env: dict[str, str]) -> dict[str, Any]:
    """Wall, CPU and peak RSS of one command (`os.wait4`: that process and the children it waited for)."""
    started = time.perf_counter()
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert process.stderr is not None
    _, status, usage = os.wait4(process.pid, 0)
    err = process.stderr.read().decode(errors="replace")
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):  # lint exits 1 on findings; a run or report must not fail
        raise SystemExit(f"{' '.join(command[:4])} failed ({code}): {err[-2000:]}")
    return {
        "wall": time.perf_counter() - started,
        "cpu": usage.ru_utime + usage.ru_stime,
        "rss_mb": usage.ru_maxrss / 1024,
    }


PAPER_GRID = {
    "full": 1,
    "cot": 4,  # cot, cot-evidence, cot-temporal, cot-elimination: the same discussion, another instruction
    "reflect": 1,
    "bm25-k20": 2,  # bm25-k20 and e5-k20: 20 posts each
    "bm25-k50": 2,  # bm25-k50 and e5-k50
    "rag-bm25-k20-a1": 4,  # the RAG settings of k=20 (bm25 / e5, one or two anchors)
    "rag-bm25-k50-a1": 4,
    "llm-retriever": 1,
    "struct-ancestors": 3,  # ancestors, neighbours, branches
    "gold-scope": 2,  # gold scope, gold scope + evidence
    "shuffled": 1,  # the whole discussion, shuffled
    "question-only": 3,  # question-, option- and title-only: no discussion
    "open-answer": 1,
}
"""Settings measured for the paper grid's projection, each standing for this many of Table 12's 29 settings (the
count of its family or kind in `socialbench list`)."""


SETTINGS: list[str] = []
WHOLE: set[str] = set()


def log_sizes(
    folder: Path, pack: list[str], env: dict[str, str], settings: list[str], whole: set[str]
) -> dict[str, dict[str, Any]]:
    """Per setting: its log's bytes as socialbench leaves it and (for ``whole``) as inspect writes it."""
    mock = ["--model", "mockllm/model", "--display", "none"]
    out: dict[str, dict[str, Any]] = {}
    for setting in settings:
        row: dict[str, Any] = {}
        for kind in ("stored once", "as inspect writes it"):
            if kind != "stored once" and setting not in whole:
                continue
            logs = folder / f"size-{setting}-{kind.split()[0]}"
            extra = ["--model-role", "grader=mockllm/model"] if setting == "open-answer" else []
            run_env = {**env, "SOCIALBENCH_FULL_PROMPTS": "1"} if kind != "stored once" else env
            result = measure(
                [SOCIALBENCH, "run", "longsocial", *pack, "-T", f"workflow={setting}", *mock, *extra, "--log-dir",
                 str(logs)],
                run_env,
            )  # fmt: skip
            (log,) = logs.glob("*.eval")
            row[kind] = {"bytes": log.stat().st_size, "cpu": result["cpu"], "log": str(log)}
        out[setting] = row
        sizes = ", ".join(f"{k} {v['bytes'] / 1e6:.1f} MB (run CPU {v['cpu']:.0f} s)" for k, v in row.items())
        print(f"  {setting:<18} {sizes}", flush=True)
    return out


def report_against_samples_df(log: str, env: dict[str, str], cache: Path) -> None:
    """CPU of a cold `socialbench report` over one log against `samples_df` over the same log (the issue's bar)."""
    frame = [sys.executable, "-c", f"from inspect_ai.analysis import samples_df; samples_df([{log!r}])"]
    base = measure(frame, env)
    report = measure([SOCIALBENCH, "report", "longsocial", log], {**env, "SOCIALBENCH_CACHE": str(cache)})
    print(
        f"  samples_df CPU {base['cpu']:.1f} s; cold report CPU {report['cpu']:.1f} s "
        f"(x{report['cpu'] / base['cpu']:.2f}); peak RSS {report['rss_mb']:.0f} MB",
        flush=True,
    )


def steps(folder: Path, items: int, episodes: int, chosen: set[str]) -> dict[str, dict[str, Any]]:
    episodes_path, items_path, lengths = build_pack(folder, episodes, items)
    lengths.sort()
    print(
        f"pack: {items:,} items over {episodes} episodes of {lengths[0]:,}-{lengths[-1]:,} cl100k tokens "
        f"(median {lengths[len(lengths) // 2]:,})",
        flush=True,
    )
    env = {**os.environ, "SOCIALBENCH_CACHE": str(folder / "cache")}
    pack = ["-T", f"items={items_path}", "-T", f"episodes={episodes_path}"]
    mock = ["--model", "mockllm/model", "--display", "none"]
    out: dict[str, dict[str, Any]] = {}

    def logged(name: str, command: list[str], logs: Path | None = None) -> None:
        result = measure(command, env)
        if logs is not None:
            result["log_mb"] = sum(p.stat().st_size for p in logs.glob("*.eval")) / 1e6
        out[name] = result
        extra = f", logs {result['log_mb']:.1f} MB" if "log_mb" in result else ""
        print(
            f"  {name:<14} wall {result['wall']:7.1f} s  CPU {result['cpu']:7.1f} s  peak RSS "
            f"{result['rss_mb']:7.0f} MB{extra}",
            flush=True,
        )

    if "lint" in chosen:
        logged(
            "lint",
            [
                SOCIALBENCH,
                "analyze",
                "longsocial",
                "lint",
                "-A",
                f"items={items_path}",
                "-A",
                f"episodes={episodes_path}",
            ],
        )
    runs = folder / "runs"
    if "run" in chosen:
        for setting in ("full", "bm25-k20"):
            logs = folder / f"run-{setting}"
            logged(
                f"run {setting}",
                [SOCIALBENCH, "run", "longsocial", *pack, "-T", f"workflow={setting}", *mock, "--log-dir", str(logs)],
                logs,
            )
            for log in logs.glob("*.eval"):
                runs.mkdir(exist_ok=True)
                shutil.copy2(log, runs / log.name)
    if "grid" in chosen:
        logs = folder / "grid"
        grid = ["-T", "workflow=full", "-T", "workflow=bm25-k20", "-T", "workflow=question-only"]
        logged("grid (3)", [SOCIALBENCH, "run", "longsocial", *pack, *grid, *mock, "--log-dir", str(logs)], logs)
        for log in logs.glob("*.eval"):
            runs.mkdir(exist_ok=True)
            shutil.copy2(log, runs / log.name)
    if "logs" in chosen:  # the report over 4x the runs: the same grid under three more seeds, each report cold
        from inspect_ai.log import read_eval_log

        grid = ["-T", "workflow=full", "-T", "workflow=bm25-k20", "-T", "workflow=question-only"]
        seeds = folder / "seeds"
        for seed in range(4):
            command = [SOCIALBENCH, "run", "longsocial", *pack, *grid, "-T", f"seed={seed}", *mock]
            measure([*command, "--log-dir", str(seeds)], env)
        seeded = sorted(seeds.glob("*.eval"))
        first = folder / "seed0"
        first.mkdir()
        for log in seeded:
            if read_eval_log(str(log), header_only=True).eval.task_args.get("seed") == 0:
                shutil.copy2(log, first / log.name)
        for where in (first, seeds):
            name = f"report {len(list(where.glob('*.eval')))} runs"
            env["SOCIALBENCH_CACHE"] = str(folder / f"cache-{where.name}")
            logged(
                name, [SOCIALBENCH, "report", "longsocial", str(where), "--html", str(folder / f"{where.name}.html")]
            )
    if "logsize" in chosen:
        sizes = log_sizes(folder, pack, env, SETTINGS, WHOLE)
        if "full" in sizes:
            report_against_samples_df(sizes["full"]["stored once"]["log"], env, folder / "cache-size")
        if set(PAPER_GRID) <= set(sizes):
            total = sum(sizes[s]["stored once"]["bytes"] * n for s, n in PAPER_GRID.items()) * 18
            whole = [s for s in PAPER_GRID if "as inspect writes it" in sizes[s]]
            print(f"  the paper grid (29 settings x 18 models), projected: {total / 1e9:.2f} GB of logs", flush=True)
            if len(whole) == len(PAPER_GRID):
                before = sum(sizes[s]["as inspect writes it"]["bytes"] * n for s, n in PAPER_GRID.items()) * 18
                print(f"  ... as inspect writes them: {before / 1e9:.2f} GB", flush=True)
    if "report" in chosen and runs.exists():
        report = [SOCIALBENCH, "report", "longsocial", str(runs)]
        for name in ("report cold", "report warm"):
            target = folder / name.replace(" ", "-")
            logged(
                name,
                [
                    *report,
                    "--html",
                    str(target / "r.html"),
                    "--figures",
                    str(target / "f"),
                    "--tables",
                    str(target / "t"),
                ],
            )
        print(f"  (report over {len(list(runs.glob('*.eval')))} logs)")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", type=int, default=1462)
    parser.add_argument("--episodes", type=int, default=94)
    parser.add_argument("--quarter", action=argparse.BooleanOptionalAction, default=True)
    parser.add_argument("--steps", default="lint,run,grid,report")
    parser.add_argument("--settings", default=",".join(PAPER_GRID), help="logsize: the settings to run")
    parser.add_argument("--whole", default="full", help="logsize: settings also measured as inspect writes them")
    args = parser.parse_args()
    SETTINGS[:] = [s for s in args.settings.split(",") if s]
    WHOLE.update(s for s in args.whole.split(",") if s)
    chosen = set(args.steps.split(","))
    root = Path(tempfile.mkdtemp(prefix="sb-scale-"))
    try:
        print(f"full scale ({args.items:,} items):", flush=True)
        full = steps(root / "full", args.items, args.episodes, chosen)
        if args.quarter:
            print(f"a quarter ({args.items // 4:,} items):", flush=True)
            quarter = steps(root / "quarter", args.items // 4, args.episodes, chosen)
            print("growth, full / quarter:")
            for name, value in full.items():
                q = quarter.get(name)
                if q:
                    print(
                        f"  {name:<14} wall x{value['wall'] / q['wall']:.2f}  CPU x{value['cpu'] / q['cpu']:.2f}  "
                        f"RSS x{value['rss_mb'] / q['rss_mb']:.2f}"
                    )
        if "grid (3)" in full and "run full" in full:
            print(
                "grid of 3 settings / one setting, peak RSS: "
                f"x{full['grid (3)']['rss_mb'] / full['run full']['rss_mb']:.2f}"
            )
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
