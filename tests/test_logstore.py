"""Issue 49: logs store each discussion once, every report number stays the same, and the exact prompt any sample
was sent comes back byte for byte (checked against what an OpenAI-compatible server on 127.0.0.1 received)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import zipfile
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval
from inspect_ai.log import read_eval_log, read_eval_log_sample_summaries
from inspect_ai.model import get_model

from conftest import socialbench
from socialbench.benchmarks.longsocial import longsocial
from socialbench.benchmarks.longsocial.task import sample_pack
from socialbench.shared.logstore import KEEP_PROMPTS, NOTE, compact, sample_prompts


def _items(tmp_path: Path, n: int = 4) -> str:
    """The first ``n`` items of the sample pack's first episode."""
    rows = [json.loads(line) for line in (sample_pack() / "items.jsonl").read_text().splitlines()]
    kept = [r for r in rows if r["episode_id"] == rows[0]["episode_id"]][:n]
    path = tmp_path / "items.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in kept))
    return str(path)


def _all_strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _all_strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _all_strings(v)]
    return []


def _members(log: str) -> dict[str, str]:
    with zipfile.ZipFile(log) as archive:
        return {n: archive.read(n).decode() for n in archive.namelist() if n.startswith("samples/")}


@pytest.mark.parametrize("workflow", ["full", "bm25-k20", "rag-bm25-k20-a1", "llm-retriever"])
def test_the_recovered_prompt_is_what_the_server_received(
    workflow: str, openai_server: ThreadingHTTPServer, tmp_path: Path
) -> None:
    host, port = openai_server.server_address[:2]
    model = get_model("openai/gpt-4o", base_url=f"http://{host!s}:{port}/v1", api_key="sk-test", responses_api=False)
    (log,) = eval(
        longsocial(items=_items(tmp_path), workflow=workflow),
        model=model,
        log_dir=str(tmp_path / "logs"),
        display="none",
        max_retries=0,
    )
    assert log.status == "success", log.error
    received = sorted(
        json.dumps(body["messages"], sort_keys=True)
        for path, body in openai_server.requests  # type: ignore[attr-defined]
        if path.endswith("/chat/completions")
    )
    location = str(log.location)
    recovered = []
    for summary in read_eval_log_sample_summaries(location):
        for call in sample_prompts(location, str(summary.id), summary.epoch):
            recovered.append(json.dumps(call, sort_keys=True))
    assert sorted(recovered) == received  # every call of every sample, byte for byte
    if workflow in ("full", "llm-retriever"):  # the whole discussion (the retriever's call): held by one sample
        assert sum(bool(NOTE.search(t)) for t in _members(location).values()) == 3
    if workflow == "full":  # one discussion, four items: stored in one sample, a note in the three others
        members = _members(location)
        discussion = json.loads(received[0])[0]["content"][:400]
        copies = sum(1 for text in members.values() for s in _all_strings(json.loads(text)) if s.startswith(discussion))
        assert copies == 2  # in the sample that holds it: its messages and the attachment its model call refers to
        # the CLI prints the answer's prompt exactly
        sample = str(read_eval_log_sample_summaries(location)[-1].id)
        printed = socialbench("prompt", location, sample)
        assert printed.returncode == 0, printed.stderr
        (message,) = sample_prompts(location, sample)[-1]
        assert printed.stdout == message["content"] and NOTE.search(members[f"samples/{sample}_epoch_1.json"])


def _report_json(log: str) -> dict[str, Any]:
    """The report's JSON, the log's own path replaced (the two logs compared live in two folders)."""
    done = socialbench("report", "longsocial", log, "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.replace(json.dumps(log)[1:-1], "LOG"))  # type: ignore[no-any-return]


def test_every_report_number_is_the_same_before_and_after(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEEP_PROMPTS, "1")  # as inspect wrote it
    (log,) = eval(
        longsocial(items=_items(tmp_path)), model=get_model("mockllm/model"), log_dir=str(tmp_path / "a"),
        display="none",
    )  # fmt: skip
    whole = str(log.location)
    assert not any(NOTE.search(t) for t in _members(whole).values())
    copy = tmp_path / "b" / Path(whole).name
    copy.parent.mkdir()
    shutil.copy(whole, copy)
    done = compact(copy)
    assert done is not None and done.samples == 4 and done.blocks == 1
    assert done.replaced == 2 * 3  # in the messages and the attachment of the 3 samples that do not hold it
    assert done.bytes_after < done.bytes_before / 2
    before, after = _report_json(whole), _report_json(str(copy))
    assert before == after
    # inspect reads it as any log: its own reader, `inspect log dump`
    assert len(read_eval_log(str(copy)).samples or []) == 4
    dumped = subprocess.run([str(Path(sys.executable).parent / "inspect"), "log", "dump", str(copy)],
                            capture_output=True, text=True)  # fmt: skip
    assert dumped.returncode == 0 and json.loads(dumped.stdout)["status"] == "success"
    for summary in read_eval_log_sample_summaries(whole):
        assert sample_prompts(whole, str(summary.id)) == sample_prompts(str(copy), str(summary.id))
    assert compact(copy) is None  # already compact: left as it is


def _rewrite(source: Path, target: Path, edit: Any) -> None:
    with zipfile.ZipFile(source) as src, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            data = edit(info.filename, src.read(info.filename))
            if data is not None:
                dst.writestr(info.filename, data)


def test_a_missing_or_changed_discussion_is_refused_in_one_line(tmp_path: Path) -> None:
    (log,) = eval(
        longsocial(items=_items(tmp_path, 3)), model=get_model("mockllm/model"), log_dir=str(tmp_path / "a"),
        display="none",
    )  # fmt: skip
    location = Path(str(log.location))
    members = _members(str(location))
    owner = next(n for n, t in members.items() if not NOTE.search(t))
    reader = next(n for n, t in members.items() if NOTE.search(t))
    reader_id = reader.removeprefix("samples/").removesuffix("_epoch_1.json")

    def changed(name: str, data: bytes) -> bytes:
        if name != owner:
            return data
        return data.replace(b"DISCUSSION", b"D1SCUSSION")  # one byte in each copy the owner holds

    for name, edit, why in (
        ("changed.eval", changed, "missing or changed"),
        ("missing.eval", lambda n, d: None if n == owner else d, "is missing"),
    ):
        broken = tmp_path / name
        _rewrite(location, broken, edit)
        done = socialbench("prompt", str(broken), reader_id)
        assert done.returncode == 2 and done.stdout == ""
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and str(broken) in lines[0] and why in lines[0], done.stderr


@pytest.mark.subprocess  # inspect view as a server
def test_inspect_view_serves_a_compacted_log_with_its_notes(tmp_path: Path) -> None:
    """`inspect view` (its own server, on 127.0.0.1) lists and serves a compacted log: every sample, the note where
    the discussion was, and the sample that holds it whole."""
    import time
    import urllib.parse
    import urllib.request

    from conftest import free_port, stop_process

    (log,) = eval(
        longsocial(items=_items(tmp_path)), model=get_model("mockllm/model"), log_dir=str(tmp_path / "logs"),
        display="none",
    )  # fmt: skip
    port = free_port()
    view = subprocess.Popen(
        [str(Path(sys.executable).parent / "inspect"), "view", "--log-dir", str(tmp_path / "logs"), "--port",
         str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        url = f"http://127.0.0.1:{port}/api/logs/{urllib.parse.quote(str(log.location), safe='')}"
        deadline = time.monotonic() + 120  # only a server that never starts reaches this
        body = None
        while body is None and time.monotonic() < deadline and view.poll() is None:
            try:
                with urllib.request.urlopen(url, timeout=30) as answer:
                    body = json.loads(answer.read())
            except OSError:
                time.sleep(0.5)
        assert body is not None, "inspect view did not serve the log"
    finally:
        stop_process(view, timeout=60)
    assert body["status"] == "success" and len(body["samples"]) == 4

    def shown(text: str, attachments: dict[str, str]) -> str:  # the viewer's resolveSample: refs to their content
        return attachments[text.removeprefix("attachment://")] if text.startswith("attachment://") else text

    texts = [
        shown(m["content"], s["attachments"]) for s in body["samples"] for m in s["messages"] if m["role"] == "user"
    ]
    assert sum(bool(NOTE.match(t)) for t in texts) == 3
    assert sum(t.startswith("You will read a complete online discussion") for t in texts) == 1
