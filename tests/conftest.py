from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import traceback
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"

# The suite must not depend on the shell it is started from (tests and the commands they start inherit this).
for _name in ("FORCE_COLOR", "TTY_COMPATIBLE", "CLICOLOR_FORCE", "INSPECT_LOG_FORMAT", "INSPECT_EVAL_MODEL"):
    os.environ.pop(_name, None)  # colour codes in piped output, another log format, another default model
os.environ["PYSPARK_PYTHON"] = sys.executable  # Spark's executors run this interpreter, which has socialbench
for _name in ("NO_PROXY", "no_proxy"):  # every server of the tests is on loopback: never through a proxy
    os.environ[_name] = ",".join(x for x in (os.environ.get(_name), "127.0.0.1", "localhost") if x)

# SI-Bench's dialogues and PerSo's sources are not shipped (no licence to redistribute them): the suite fetches the
# real files from ../shared/data through `socialbench fetch`'s own code (checked against the pinned sha256) into a
# data folder of its own, which every test and every command it starts reads (SOCIALBENCH_DATA).
if DATA.is_dir():
    from socialbench.benchmarks.perso.data import EXCHANGES as _EXCHANGES
    from socialbench.benchmarks.perso.data import PAIRS as _PAIRS
    from socialbench.benchmarks.sibench.dataset import SOURCE as _SIBENCH
    from socialbench.shared.datasets import fetch as _fetch

    os.environ["SOCIALBENCH_DATA"] = str(Path(tempfile.gettempdir()) / f"socialbench-test-data-{os.getuid()}")
    for _remote in (_SIBENCH, _PAIRS, _EXCHANGES):  # PerSo's threads are built from the last two on first use
        _fetch(_remote, str(DATA))

# CPUs the CPU-dependent tests are run as, on every machine (cpuinfo files are written from these sets, never
# derived from this machine's flags, so the outcome does not depend on the CPU the suite runs on).
AVX2_ONLY = frozenset({"fpu", "sse", "sse2", "ssse3", "sse4_1", "sse4_2", "avx", "avx2", "fma", "f16c"})
AVX512 = AVX2_ONLY | {"avx512f", "avx512dq", "avx512bw", "avx512vl", "avx512_vnni"}
AMX_WITHOUT_BF16 = AVX512 | {"amx_tile", "amx_int8"}
SAPPHIRE_RAPIDS = AVX512 | {"avx512_bf16", "amx_bf16", "amx_tile", "amx_int8"}
CPUS = {"avx2-only": AVX2_ONLY, "avx512": AVX512, "amx-without-bf16": AMX_WITHOUT_BF16, "amx": SAPPHIRE_RAPIDS}


def cpuinfo_file(folder: Path, flags: frozenset[str], cpus: int = 2) -> Path:
    """A /proc/cpuinfo of ``cpus`` processors with exactly these flags."""
    block = "processor\t: {i}\nvendor_id\t: GenuineIntel\nflags\t\t: {flags}\n\n"
    path = folder / "cpuinfo"
    path.write_text("".join(block.format(i=i, flags=" ".join(sorted(flags))) for i in range(cpus)))
    return path


@pytest.fixture(scope="session")
def data() -> Path:
    """The real data files (../shared/data). Tests that need them skip, loudly, where they are absent."""
    if not DATA.is_dir():
        pytest.skip(f"real data folder not found at {DATA}")
    return DATA


@pytest.fixture(scope="session")
def situation_counts() -> dict[str, int]:
    """The 12 SI-Bench situations and their dialogue counts in the released file (counted by hand once)."""
    return {
        "Relational Distance - Rejection": 593,
        "Implied meaning - Humor": 356,
        "Implied meaning - Irony/Sarcasm": 251,
        "Equivocation - Vagueness": 248,
        "Relational Test - Counter": 240,
        "Implied meaning - Euphemism": 173,
        "Relational Distance - Push-Pull": 116,
        "Implied meaning - Hint": 99,
        "Relational Test - Commitment": 48,
        "Relational Test - Authenticity": 40,
        "Equivocation - Ambiguity": 36,
        "Relational Test - Value": 21,
    }


CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_FLAGS = [  # headless as root, and quiet on a machine without internet
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@contextmanager
def chromium_browser() -> Iterator[Any]:
    """Debian's chromium driven by Playwright (never `playwright install`); `make test` installs chromium. Start it
    after any inspect eval of the test: Playwright's sync API keeps an event loop of its own while it runs."""
    if not CHROMIUM.exists():
        pytest.skip("Debian's chromium is not installed at /usr/bin/chromium (`make test` installs it)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_FLAGS)
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture
def browser() -> Iterator[Any]:
    with chromium_browser() as launched:
        yield launched


def anthropic_events(message: dict[str, Any]) -> bytes:
    """An Anthropic Messages API reply as the server-sent events of a streamed response (inspect streams requests
    with extended thinking or large budgets): message_start, each text block, message_delta, message_stop."""
    events: list[tuple[str, dict[str, Any]]] = [
        ("message_start", {"type": "message_start", "message": {**message, "content": [], "stop_reason": None}})
    ]
    for index, block in enumerate(message["content"]):
        delta = {"type": "text_delta", "text": block["text"]}
        start = {**block, "text": ""}
        events += [
            ("content_block_start", {"type": "content_block_start", "index": index, "content_block": start}),
            ("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}),
            ("content_block_stop", {"type": "content_block_stop", "index": index}),
        ]  # fmt: skip
    ending = {"stop_reason": message["stop_reason"], "stop_sequence": None}
    usage = {"output_tokens": message["usage"]["output_tokens"]}
    events += [
        ("message_delta", {"type": "message_delta", "delta": ending, "usage": usage}),
        ("message_stop", {"type": "message_stop"}),
    ]
    return "".join(f"event: {name}\ndata: {json.dumps(data)}\n\n" for name, data in events).encode()


@contextmanager
def recording_server(reply: Any) -> Iterator[Any]:
    """A local HTTP server on 127.0.0.1 that speaks a hosted API just enough for our tests: every POST body is
    recorded as ``(path, json body)`` in ``server.requests`` and answered with ``reply(body, server)`` as JSON (an
    Anthropic message asked for as a stream: as its server-sent events)."""
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            self.server.requests.append((self.path, body))  # type: ignore[attr-defined]
            answer = reply(body, self.server)
            streamed = body.get("stream") is True and answer.get("type") == "message"
            data = anthropic_events(answer) if streamed else json.dumps(answer).encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream" if streamed else "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:  # llama-server's /props when the test gives the server some, else 404
            props = getattr(self.server, "props", None)
            if self.path != "/props" or props is None:
                self.send_error(404)
                return
            data = json.dumps(props).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.requests = []  # type: ignore[attr-defined]
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield httpd
    finally:
        httpd.shutdown()
        httpd.server_close()


def completion_saying(body: dict[str, Any], text: str) -> dict[str, Any]:
    """OpenAI's chat completions API (and vLLM's, llama.cpp's): one answer, ``text``."""
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 0,
        "model": body.get("model", "m"),
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 3, "total_tokens": 13},
    }


def chat_completion(body: dict[str, Any], _server: Any) -> dict[str, Any]:
    """OpenAI's chat completions API: one short answer."""
    return completion_saying(body, "Final answer: A")


def anthropic_message(body: dict[str, Any], server: Any) -> dict[str, Any]:
    """Anthropic's Messages API: one short message (streamed as events when the request asks)."""
    return {
        "id": f"msg_{len(server.requests)}",
        "type": "message",
        "role": "assistant",
        "model": body.get("model"),
        "content": [{"type": "text", "text": "Final answer: A"}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 3},
    }


@pytest.fixture
def openai_server() -> Iterator[Any]:
    with recording_server(chat_completion) as httpd:
        yield httpd


@pytest.fixture
def anthropic_server() -> Iterator[Any]:
    with recording_server(anthropic_message) as httpd:
        yield httpd


def one_item(folder: Path) -> str:
    """An items file holding the sample pack's first item."""
    from socialbench.benchmarks.longsocial.task import sample_pack

    row = (sample_pack() / "items.jsonl").read_text().splitlines()[0]
    path = folder / "items.jsonl"
    path.write_text(row + "\n")
    return str(path)


def socialbench(
    *args: str | Path, env: Mapping[str, str] | None = None, input: str | None = None
) -> subprocess.CompletedProcess[str]:
    """The `socialbench` command run in this process through click's CliRunner, as a finished process: its exit
    code, stdout and stderr are the command's own (an uncaught exception is exit 1 with its traceback on stderr, as
    a real process prints it). ``env`` is the whole environment the command sees, as ``subprocess.run(env=...)``
    takes it. The fast tier uses this; the `subprocess` tier starts the real installed command
    (tests/test_commands.py), so the two paths are each tested."""
    from click.testing import CliRunner

    from socialbench.cli import main

    argv = [str(a) for a in args]
    changes: dict[str, str | None] = {}
    if env is not None:
        changes = {name: None for name in os.environ if name not in env}
        changes.update({name: value for name, value in env.items() if os.environ.get(name) != value})
    handlers = {sig: signal.getsignal(sig) for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)}
    try:
        result = CliRunner().invoke(
            main, argv, env=changes, input=input, catch_exceptions=True, prog_name="socialbench"
        )
    finally:  # the command installs its own signal handlers; pytest's come back
        for sig, handler in handlers.items():
            signal.signal(sig, handler)
    stderr = result.stderr
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        stderr += "".join(traceback.format_exception(result.exception))
    code = result.exit_code if isinstance(result.exit_code, int) else 1
    return subprocess.CompletedProcess(["socialbench", *argv], code, result.stdout, stderr)


def stop_process(process: subprocess.Popen[Any], timeout: float = 30) -> None:
    """End a process a test started, whatever state the test left it in: SIGTERM, then SIGKILL after ``timeout``."""
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# ---- driving Potato 2.12's annotation page in a browser ----------------------------------------------------------
def potato_login(page: Any, base: str, user: str, password: str) -> None:
    page.goto(base + "/")
    page.fill("#login-email", user)
    page.fill("#login-pass", password)
    page.click("#login-content button[type=submit]")
    page.wait_for_function(
        "() => document.querySelector('#instance_id') || document.body?.innerText.includes('Thank You')",
        timeout=20000,
    )


def potato_page(page: Any) -> str | None:
    """The page id Potato serves (``ITEM_TOKEN``), None once the annotator is done."""
    loc = page.locator("#instance_id")
    return loc.get_attribute("value") if loc.count() else None


def study_item(page_id: str) -> str:
    """The study's item id of a served page id (the study's page token removed)."""
    return re.sub(r"_[0-9a-f]{6}$", "", page_id)


def potato_item(page: Any) -> str | None:
    """The study item on the page (None once the annotator is done)."""
    shown = potato_page(page)
    return None if shown is None else study_item(shown)


def potato_answer(page: Any, questions: dict[str, dict[str, Any]], plan: dict[str, Any]) -> None:
    """Fill in the page: question name -> value (text typed, radio clicked)."""
    for name, value in plan.items():
        if questions[name]["kind"] == "text":
            page.fill(f'[name="{name}:::text_box"]', value)  # a multi-line box (textarea)
        else:
            page.check(f'input[type=radio][schema="{name}"][value="{value}"]')


def potato_next(page: Any) -> None:
    """Save the page and wait until the next one (or the end) is shown."""
    item = potato_page(page)
    page.click("#next-btn")
    field = "document.querySelector('#instance_id')"
    moved = f"() => document.body && (!{field} || {field}.value !== {json.dumps(item)})"
    page.wait_for_function(moved, timeout=20000)


# ---- nothing the suite started outlives it ---------------------------------------------------------------------
# Every test that starts a process (a server, a CLI run, a browser) must end it, even when it fails. At the end of
# the run each pytest process (each xdist worker, or the one process) lists what it still has running and fails the
# run, naming each one (and killing it, so a failed run leaves nothing behind either). The process is made a child
# subreaper (Linux prctl), so a grandchild orphaned by a dead parent (a Potato whose `study serve` was killed) is
# re-parented here instead of to init, and is found too.
_PR_SET_CHILD_SUBREAPER = 36


def _become_subreaper() -> None:
    if sys.platform != "linux":
        return
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def _left_running() -> list[str]:
    """This process's descendants still running once the grace period is over (killed, then named)."""
    import time

    import psutil

    me = psutil.Process()
    deadline = time.monotonic() + 10  # a process told to stop a moment ago may still be exiting
    while True:
        alive = []
        for child in me.children(recursive=True):
            try:
                if child.status() == psutil.STATUS_ZOMBIE:  # exited, not yet waited for: reap it
                    os.waitpid(child.pid, os.WNOHANG)
                    continue
                alive.append(child)
            except (psutil.NoSuchProcess, ChildProcessError):
                continue
        if not alive or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    named = []
    for child in alive:
        try:
            named.append(f"pid {child.pid}: {' '.join(child.cmdline())[:200]}")
            child.kill()
        except psutil.NoSuchProcess:
            continue
    return named


def pytest_configure(config: pytest.Config) -> None:
    _become_subreaper()
    config.stash[_LEFT] = []


_LEFT = pytest.StashKey[list[str]]()


@pytest.hookimpl(optionalhook=True)  # pytest-xdist's hook
def pytest_testnodedown(node: Any, error: Any) -> None:  # xdist's controller: what a worker found left running
    node.config.stash[_LEFT].extend(getattr(node, "workeroutput", {}).get("left_running", []))


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    config = session.config
    worker = hasattr(config, "workerinput")
    controller = not worker and getattr(config.option, "numprocesses", None)
    left = config.stash[_LEFT] if controller else _left_running()
    if worker:
        config.workeroutput["left_running"] = left  # type: ignore[attr-defined]
        return
    if left:
        reporter = config.pluginmanager.get_plugin("terminalreporter")
        lines = [f"{len(left)} process(es) started by the suite were still running at its end (now killed):", *left]
        if reporter is not None:
            reporter.write_line("\n".join(lines), red=True)
        else:
            print("\n".join(lines), file=sys.stderr)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


@pytest.hookimpl(tryfirst=True)  # before the -m filter of pyproject's addopts reads the marks
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """A test that takes the `browser` fixture is in the browser tier, marked or not."""
    for item in items:
        if "browser" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.browser)


def pytest_collection_finish(session: pytest.Session) -> None:
    """Everything imported by now (inspect, pandas, matplotlib, the tests) lives as long as the run: moved out of the
    collector's reach (`gc.freeze`), so each full collection does not walk those objects again, and collections run
    less often (CPU only; no test depends on either)."""
    import gc

    gc.collect()
    gc.freeze()
    gc.set_threshold(50_000, 20, 20)  # a young generation sized for inspect's event objects: fewer passes


def _skip_without_shared_data(exc: Exception) -> None:
    """Without ../shared/data the SI-Bench and PerSo sources cannot be fetched for the suite: a test (or fixture)
    that needs them is skipped, loudly, as the `data` fixture skips (their error is the one a user would see)."""
    if not DATA.is_dir() and "socialbench does not ship them" in str(exc):
        pytest.skip(f"real data folder not found at {DATA} (needed for: {str(exc).split(': the ')[-1][:60]})")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Any:
    try:
        return (yield)
    except Exception as exc:
        _skip_without_shared_data(exc)
        raise


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Any:
    try:
        return (yield)
    except Exception as exc:
        _skip_without_shared_data(exc)
        raise
