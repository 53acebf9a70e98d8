"""A run killed with SIGKILL resumes with one documented command and ends with every sample exactly once; the
report over the log folder counts each sample once, whatever logs the kill left behind."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from inspect_ai.log import read_eval_log

from conftest import stop_process

pytestmark = pytest.mark.subprocess  # kill -9 of a real run, then the same command again


class _Slow(BaseHTTPRequestHandler):
    """An OpenAI-compatible chat endpoint that takes 0.3 s per answer and counts its answers, so a run can be
    killed after a known number of them (not after a wall-clock time, which depends on the machine)."""

    answered = 0
    counted = threading.Condition()

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        time.sleep(0.3)
        body = json.dumps(
            {
                "id": "x",
                "object": "chat.completion",
                "created": 0,
                "model": "slow",
                "choices": [{"index": 0, "message": {"role": "assistant", "content": "A"}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
            }
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        with _Slow.counted:
            _Slow.answered += 1
            _Slow.counted.notify_all()

    def log_message(self, *args: object) -> None:
        pass


def _kill_and_resume(folder: Path, workflow: str, items: int, kill_after: int) -> None:
    """`socialbench run ... --resume` against the slow server, killed with SIGKILL after ``kill_after`` answers,
    then the same command again, which must succeed."""
    _Slow.answered = 0
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Slow)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    env = {**os.environ, "SLOW_BASE_URL": f"http://127.0.0.1:{server.server_port}/v1", "SLOW_API_KEY": "none"}
    command = [str(Path(sys.executable).parent / "socialbench"), "run", "longsocial", "-T", f"workflow={workflow}"]
    command += ["--model", "openai-api/slow/m", "--limit", str(items), "--max-connections", "1", "--resume"]
    command += ["--log-dir", str(folder), "--display", "none"]
    first = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 600  # only a hung run reaches this
        with _Slow.counted:
            while _Slow.answered < kill_after and first.poll() is None and time.monotonic() < deadline:
                _Slow.counted.wait(0.5)
        assert first.poll() is None, "the run ended before it could be killed"
        first.send_signal(signal.SIGKILL)
        first.wait()
        resumed = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)  # the same command
        assert resumed.returncode == 0, resumed.stderr[-2000:]
    finally:
        stop_process(first)
        server.shutdown()


def test_a_run_resumes_in_a_folder_that_holds_other_runs(tmp_path: Path) -> None:
    """Issue 53: `--resume` into the default logs/ folder, which holds earlier runs, was refused by inspect ("must
    run eval_set in a fresh log directory"). The earlier run's log is left as it was."""
    from inspect_ai import eval

    from socialbench.benchmarks.longsocial.task import longsocial

    (earlier,) = eval(longsocial(workflow="full", limit=2), model="mockllm/model", log_dir=str(tmp_path),
                      display="none")  # fmt: skip
    before = Path(str(earlier.location)).read_bytes()
    _kill_and_resume(tmp_path, "question-only", 6, 2)
    assert Path(str(earlier.location)).read_bytes() == before
    resumed = [read_eval_log(str(p)) for p in sorted(tmp_path.glob("*.eval")) if Path(p) != Path(str(earlier.location))]
    complete = [log for log in resumed if log.status == "success"]
    assert len(complete) == 1 and len({s.id for s in complete[0].samples or []}) == 6


@pytest.mark.parametrize("kill_after", [1, 8])
def test_killed_run_resumes_to_every_sample_exactly_once(tmp_path: Path, kill_after: int) -> None:
    """Killed after 1 and after 8 of its 12 answers (the kill lands while later requests are under way)."""
    _kill_and_resume(tmp_path, "question-only", 12, kill_after)
    logs = sorted(tmp_path.glob("*.eval"))
    complete = [read_eval_log(str(p)) for p in logs if read_eval_log(str(p), header_only=True).status == "success"]
    assert len(complete) == 1
    ids = [s.id for s in complete[0].samples or []]
    assert len(ids) == 12 and len(set(ids)) == 12  # none lost, none duplicated
    report = subprocess.run(
        [str(Path(sys.executable).parent / "socialbench"), "report", "longsocial", str(tmp_path), "--json"],
        capture_output=True,
        text=True,
    )
    assert report.returncode == 0, report.stderr[-2000:]
    (cell,) = json.loads(report.stdout)["grid"]
    assert cell["items"] == 12  # the killed log and the resumed one count once


def test_a_resumed_whole_discussion_run_stores_each_discussion_once_and_every_prompt_comes_back(
    tmp_path: Path,
) -> None:
    """issue 49: the run killed after 3 answers wrote whole prompts; the resumed run copies its samples into a new
    log, which is compacted in turn: every sample exactly once, each discussion held by one sample, and every
    sample's prompt recovered whole."""
    from inspect_ai.log import read_eval_log_sample_summaries

    from socialbench.shared.logstore import NOTE, sample_prompts

    _kill_and_resume(tmp_path, "full", 8, 3)
    (log,) = [str(p) for p in tmp_path.glob("*.eval") if read_eval_log(str(p), header_only=True).status == "success"]
    summaries = read_eval_log_sample_summaries(log)
    assert len({s.id for s in summaries}) == len(summaries) == 8
    prompts = [sample_prompts(log, str(s.id))[-1][0]["content"] for s in summaries]
    assert all(p.startswith("You will read a complete online discussion") and not NOTE.search(p) for p in prompts)
    held = read_eval_log(log, resolve_attachments=True)
    noted = [s for s in held.samples or [] if any(NOTE.search(m.text) for m in s.messages)]
    episodes = {str(s.id).rsplit(":", 1)[0] for s in held.samples or []}
    assert len(noted) == 8 - len(episodes)  # one sample per episode holds its discussion, the others a note
