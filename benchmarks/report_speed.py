"""How long `socialbench report longsocial --html --figures --tables` takes over a handful of logs, with a cold
cache (first report on a machine) and a warm one (every later report over the same items file).

The logs are mockllm runs of the sample pack (Full and BM25 top-20, ``--limit`` items each), so the time is the
report's own: reading logs, the analyses, evidence recall (Table 18: every retriever over the logged items) and
drawing and writing every figure and table.

    python benchmarks/report_speed.py [--limit 12]

``--grid`` measures the paper grid's shape instead: Table 12's 29 settings x 18 models on the sample pack (522
logs). Each setting runs once on ``mockllm/model`` over the whole pack (36 items); its log is then copied for 17 more
models, each copy's header naming another model (``mockllm/m02`` ...), so the report counts 522 runs. Printed: CPU
(user + system) and peak RSS of a cold report (empty cache) and of a warm one, as `os.wait4` measures the process.

    python benchmarks/report_speed.py --grid [--models 18]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from inspect_ai import eval
from inspect_ai.model import ChatMessage, GenerateConfig, ModelOutput, get_model

from socialbench.benchmarks.longsocial.task import longsocial


def _logs(folder: Path, limit: int) -> list[str]:
    def respond(input: list[ChatMessage], tools: object, tool_choice: object, config: GenerateConfig) -> ModelOutput:
        return ModelOutput.from_content(model="mockllm/model", content="Answer: " + "ABCD"[len(input[-1].text) % 4])

    model = get_model("mockllm/model", custom_outputs=respond, memoize=False)
    runs = eval(
        [longsocial(workflow="full"), longsocial(workflow="bm25-k20")],
        model=model,
        limit=limit,
        log_dir=str(folder),
        display="none",
    )
    return [str(r.location) for r in runs]


def _report(logs: list[str], out: Path, cache: Path) -> float:
    command = [str(Path(sys.executable).parent / "socialbench"), "report", "longsocial", *logs]
    command += ["--html", str(out / "r.html"), "--figures", str(out / "f"), "--tables", str(out / "t")]
    started = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True, env={**os.environ, "SOCIALBENCH_CACHE": str(cache)})
    return time.perf_counter() - started


PAPER_SETTINGS = (
    "full", "cot", "cot-evidence", "cot-temporal", "cot-elimination", "reflect", "bm25-k20", "bm25-k50", "e5-k20",
    "e5-k50", "rag-bm25-k20-a1", "rag-bm25-k20-a2", "rag-e5-k20-a1", "rag-e5-k20-a2", "rag-bm25-k50-a1",
    "rag-bm25-k50-a2", "rag-e5-k50-a1", "rag-e5-k50-a2", "llm-retriever", "struct-ancestors", "struct-neighbors",
    "struct-branches", "gold-scope", "gold-scope-evidence", "option-only", "question-only", "title-only", "shuffled",
    "open-answer",
)  # fmt: skip
"""Table 12's 29 settings (`socialbench list`)."""


def _renamed(source: Path, target: Path, model: str) -> None:
    """A copy of a log whose header (and start journal) names ``model``: another model's run to the report."""
    import json
    import zipfile

    from inspect_ai._util.zipfile import zipfile_compress_kwargs

    with zipfile.ZipFile(source) as src, zipfile.ZipFile(target, "w", **zipfile_compress_kwargs) as dst:
        for info in src.infolist():
            data = src.read(info)
            if info.filename in ("header.json", "_journal/start.json"):
                record = json.loads(data)
                record["eval"]["model"] = model
                data = json.dumps(record).encode()
            dst.writestr(info.filename, data)


def _measured(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """CPU seconds and peak RSS (MB) of one command."""
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    assert process.stderr is not None
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(command[:4])} failed: {process.stderr.read().decode()[-2000:]}")
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def grid(models: int) -> None:
    root = Path(tempfile.mkdtemp(prefix="sb-report-grid-"))
    first = root / "first"
    socialbench = str(Path(sys.executable).parent / "socialbench")
    env = {**os.environ, "SOCIALBENCH_CACHE": str(root / "cache")}
    for setting in PAPER_SETTINGS:
        roles = ["--model-role", "grader=mockllm/model"] if setting == "open-answer" else []
        command = [socialbench, "run", "longsocial", "-T", f"workflow={setting}", "--model", "mockllm/model",
                   "--display", "none", "--log-dir", str(first / setting), *roles]  # fmt: skip
        subprocess.run(command, check=True, capture_output=True, env=env)
    logs = root / "logs"
    logs.mkdir()
    for setting in PAPER_SETTINGS:
        (log,) = (first / setting).glob("*.eval")
        for m in range(1, models + 1):
            _renamed(log, logs / f"{setting}-m{m:02d}.eval", f"mockllm/m{m:02d}")
    count = len(list(logs.glob("*.eval")))
    report = [socialbench, "report", "longsocial", str(logs)]
    env["SOCIALBENCH_CACHE"] = str(root / "report-cache")  # the runs' retrieval caches stay; the report's is empty
    for name in ("cold", "warm"):
        out = root / name
        cpu, rss = _measured([*report, "--html", str(out / "r.html"), "--figures", str(out / "f"), "--tables",
                              str(out / "t")], env)  # fmt: skip
        print(f"report over {count} logs ({len(PAPER_SETTINGS)} settings x {models} models), {name} cache: "
              f"CPU {cpu:.1f} s, peak RSS {rss:.0f} MB", flush=True)  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--limit", type=int, default=12)
    parser.add_argument("--grid", action="store_true", help="the paper grid's shape: 29 settings x --models models")
    parser.add_argument("--models", type=int, default=18)
    args = parser.parse_args()
    if args.grid:
        grid(args.models)
        return
    root = Path(tempfile.mkdtemp(prefix="sb-report-"))
    logs = _logs(root / "logs", args.limit)
    cache = root / "cache"  # cold: nothing cached yet (the user's own cache is left alone)
    cold = _report(logs, root / "cold", cache)
    warm = _report(logs, root / "warm", cache)
    print(f"report over {len(logs)} logs of {args.limit} items: cold cache {cold:.1f} s, warm cache {warm:.1f} s")
    print(f"cold / warm: x{cold / warm:.1f}")


if __name__ == "__main__":
    main()
