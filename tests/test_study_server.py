"""The study server never fails silently: signals stop Potato with it, a port in use or a Potato that exits early is
one line and a non-zero exit, the URL is printed only once Potato answers; `study score` lists every annotator."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import free_port, socialbench

SOCIALBENCH = str(Path(sys.executable).parent / "socialbench")


def _listening(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


def _potatoes(server: Path) -> list[int]:
    """Processes whose working folder is the study's server folder (Potato runs there)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if Path(os.readlink(entry / "cwd")) == server.resolve():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


@pytest.fixture
def study(tmp_path: Path) -> Path:
    folder = tmp_path / "study"
    created = socialbench(
        "study", "create", "longsocial-readers", "-o", folder, "--annotators", "a,b,c", "-S", "limit=2"
    )
    assert created.returncode == 0, created.stderr
    return folder


def _ignoring_sigint() -> None:
    """As a shell starts a background job (`cmd &`, `nohup`): SIGINT ignored, which the child inherits."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@pytest.mark.potato
@pytest.mark.subprocess
@pytest.mark.parametrize("inherited", ["default", "sigint-ignored"])
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_a_signal_to_serve_stops_potato(study: Path, sig: signal.Signals, inherited: str) -> None:
    pytest.importorskip("potato", reason="the studies extra is not installed")
    port = free_port()
    serve = subprocess.Popen(
        [SOCIALBENCH, "study", "serve", study, "--port", str(port)],
        stdout=subprocess.PIPE,
        text=True,
        preexec_fn=_ignoring_sigint if inherited == "sigint-ignored" else None,
    )
    try:
        assert serve.stdout is not None
        first = serve.stdout.readline()  # printed only once this study's page answers
        assert first.startswith("serving") and f":{port}/" in first, first
        assert _listening(port) and _potatoes(study / "server")
        serve.send_signal(sig)
        serve.wait(timeout=60)
        assert serve.returncode == 128 + sig  # stopped by a signal: never a clean exit 0
        deadline = time.monotonic() + 30  # the child is waited for by serve; the port is free once it is gone
        while (_potatoes(study / "server") or _listening(port)) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not _potatoes(study / "server") and not _listening(port)
    finally:  # a failing check never leaves the server (or its Potato) running after the test
        if serve.poll() is None:
            serve.kill()
            serve.wait()
        for pid in _potatoes(study / "server"):
            os.kill(pid, signal.SIGKILL)


@pytest.mark.potato
@pytest.mark.subprocess
def test_a_port_in_use_is_one_line_and_a_failure(study: Path) -> None:
    pytest.importorskip("potato", reason="the studies extra is not installed")
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        done = subprocess.run(
            [SOCIALBENCH, "study", "serve", study, "--port", str(port)], capture_output=True, text=True, timeout=120
        )
    assert done.returncode == 1 and "serving" not in done.stdout
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and f"port {port} on 127.0.0.1 is in use" in lines[0], done.stderr
    assert not _potatoes(study / "server")


@pytest.mark.potato
@pytest.mark.subprocess
def test_a_potato_that_exits_early_is_one_line_with_its_reason(study: Path) -> None:
    pytest.importorskip("potato", reason="the studies extra is not installed")
    config = study / "server" / "config.yaml"
    settings = json.loads(config.read_text())
    settings["data_files"] = ["data/missing.jsonl"]  # Potato refuses to start without its data
    config.write_text(json.dumps(settings))
    done = subprocess.run(
        [SOCIALBENCH, "study", "serve", study, "--port", str(free_port())], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 1 and "serving" not in done.stdout
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "Potato exited with code" in lines[0] and "potato.out" in lines[0], done.stderr
    assert not _potatoes(study / "server")


def test_score_lists_annotators_without_answers_in_strict_json(study: Path) -> None:
    done = socialbench("study", "score", study, "--json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout, parse_constant=lambda c: pytest.fail(f"not strict JSON: {c}"))
    assert result["no_answers"] == ["a", "b", "c"]
    assert result["readers"] == {a: {"accuracy": None, "correct": 0, "n": 0} for a in "abc"}
    assert result["median_seconds"] is None
    table = socialbench("study", "score", study)
    assert table.returncode == 0 and table.stdout.count("no answers yet") == 3, table.stdout
