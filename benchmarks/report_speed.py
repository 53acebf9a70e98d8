"""How long `socialbench report longsocial --html --figures --tables` takes over a handful of logs, with a cold
cache (first report on a machine) and a warm one (every later report over the same items file).

The logs are mockllm runs of the sample pack (Full and BM25 top-20, ``--limit`` items each), so the time is the
report's own: reading logs, the analyses, evidence recall (Table 18: every retriever over the logged items) and
drawing and writing every figure and table.

    python benchmarks/report_speed.py [--limit 12]
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--limit", type=int, default=12)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="sb-report-"))
    logs = _logs(root / "logs", args.limit)
    cache = root / "cache"  # cold: nothing cached yet (the user's own cache is left alone)
    cold = _report(logs, root / "cold", cache)
    warm = _report(logs, root / "warm", cache)
    print(f"report over {len(logs)} logs of {args.limit} items: cold cache {cold:.1f} s, warm cache {warm:.1f} s")
    print(f"cold / warm: x{cold / warm:.1f}")


if __name__ == "__main__":
    main()
