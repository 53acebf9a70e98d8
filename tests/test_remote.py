"""The remote path: a real OpenAI-compatible server (llama.cpp's) on 127.0.0.1, evaluated through inspect's
`openai-api` provider, the same path as a vLLM server."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from inspect_ai import eval

from conftest import AMX_WITHOUT_BF16, cpuinfo_file, free_port, stop_process
from socialbench.benchmarks.longsocial.task import longsocial, sample_pack
from socialbench.models.llama_cpp import bundled_model_path
from socialbench.models.loading import CPUINFO_ENV

pytestmark = [pytest.mark.model, pytest.mark.subprocess, pytest.mark.xdist_group("test_remote")]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """A llama.cpp OpenAI-compatible server on 127.0.0.1: (base url, its log file)."""
    port = free_port()
    folder = tmp_path_factory.mktemp("server")
    # the server logs every request; a file (not an unread pipe, which fills and blocks it) takes the log
    log = (folder / "server.log").open("w")
    # run it as on an AMX CPU (a cpuinfo written from a fixed flag set): the guard must hold in the server too
    cpuinfo = cpuinfo_file(folder, AMX_WITHOUT_BF16)
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "socialbench.models.serve",
            "--model",
            str(bundled_model_path("gemma-3-270m")),
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--n_ctx",
            "8192",
            "--model_alias",
            "gemma-3-270m",
        ],
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, CPUINFO_ENV: str(cpuinfo)},
    )
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 300
        while True:
            try:
                with urllib.request.urlopen(f"{url}/models", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"llama.cpp server did not start; see {log.name}") from None
                time.sleep(0.5)
        log.flush()
        # what matters: the model the server loaded carries the guard's choice (read back from llama.cpp)
        loaded = re.findall(r"^socialbench: loaded (.+) with use_extra_bufts=(\w+)", Path(log.name).read_text(), re.M)
        assert loaded == [(str(bundled_model_path("gemma-3-270m")), "False")], Path(log.name).read_text()[-2000:]
        yield url, Path(log.name)
    finally:
        stop_process(proc)
        log.close()


def test_openai_compatible_server(server: tuple[str, Path], tmp_path: Path) -> None:
    url, server_log = server
    rows = [json.loads(x) for x in (sample_pack() / "items.jsonl").read_text().splitlines()]
    small = [r for r in rows if r["episode_id"] == "se:stackexchange:3589"][:2]
    hn = [r for r in rows if r["episode_id"] == "hn:18475438"][:1]
    items = tmp_path / "items.jsonl"
    items.write_text("\n".join(json.dumps(r) for r in small + hn))
    (log,) = eval(
        longsocial(items=str(items), max_context=8192, max_tokens=8),
        model="openai-api/llamacpp/gemma-3-270m",
        model_base_url=url,
        model_args={"api_key": "not-needed"},
        log_dir=str(tmp_path),
        display="none",
    )
    assert log.status == "success", log.error
    samples = {s.id: s for s in log.samples or []}
    assert len(samples) == 3
    statuses = {sid: s.scores["choice_letter"].metadata["status"] for sid, s in samples.items()}  # type: ignore[index,union-attr]
    hn_id = next(sid for sid in samples if sid.startswith("hn:"))
    assert statuses.pop(hn_id) == "overlength"  # 13K-token prompt, 8K context: skipped before any call
    for sid in statuses:
        sample = samples[sid]
        assert sample.output.usage is not None and sample.output.usage.input_tokens > 3000
        assert sample.output.model and statuses[sid] in {"answered", "unparsed"}
        # the server answered these (its completion is what the scorer read), the over-length one never reached it
        assert sample.output.completion == sample.scores["choice_letter"].explanation  # type: ignore[index]
    requests = server_log.read_text().count("POST /v1/chat/completions")
    assert requests == 2


def test_a_dead_server_stops_the_run_after_its_retries(tmp_path: Path) -> None:
    """``--max-retries 1 --timeout 10`` against a port nobody listens on ends the run with the connection error
    (inspect alone would retry for 30 minutes). No wall-clock assertion: the bound is the subprocess timeout, which
    only a run that kept retrying reaches, however busy the machine."""
    port = free_port()  # nothing listens here: as a llama.cpp server that died
    command = [
        str(Path(sys.executable).parent / "socialbench"),
        "run",
        "longsocial",
        "--model",
        "openai-api/dead/model",
    ]
    command += ["-T", "answer_mode=generate", "--limit", "1", "--log-dir", str(tmp_path)]
    command += ["--max-retries", "1", "--timeout", "10", "--display", "none"]
    command += ["--model-base-url", f"http://127.0.0.1:{port}/v1"]
    env = {**os.environ, "DEAD_API_KEY": "none"}
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, env=env)
    assert done.returncode != 0, done.stderr[-1500:]
    assert "connect" in (done.stdout + done.stderr).lower()
