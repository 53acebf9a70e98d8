"""Provider prompt caches that can hit: recorded against a local server on 127.0.0.1 that speaks Anthropic's Messages
API, the whole-discussion settings send the discussion as its own block with the cache mark, byte-identical across
the items of an episode, and the item after it; settings whose items share no discussion send no cache mark at all
(no cache writes billed). The split never changes the text a model reads."""

from __future__ import annotations

import json
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

from inspect_ai import eval
from inspect_ai.model import ChatMessageUser, get_model

from socialbench.benchmarks.longsocial import longsocial
from socialbench.benchmarks.longsocial.task import sample_pack
from socialbench.models.llama_cpp import messages_to_text
from socialbench.shared.caching import cached_prefix


def _one_episode(tmp_path: Path, n: int = 3) -> str:
    rows = [json.loads(line) for line in (sample_pack() / "items.jsonl").read_text().splitlines()]
    first = rows[0]["episode_id"]
    path = tmp_path / "items.jsonl"
    kept = [r for r in rows if r["episode_id"] == first][:n]
    path.write_text("".join(json.dumps(r) + "\n" for r in kept))
    return str(path)


def _run(server: ThreadingHTTPServer, tmp_path: Path, workflow: str) -> list[dict[str, Any]]:
    host, port = server.server_address[:2]
    model = get_model("anthropic/claude-3-5-haiku-latest", base_url=f"http://{host!s}:{port}", api_key="sk-test")
    (log,) = eval(
        longsocial(items=_one_episode(tmp_path), workflow=workflow),
        model=model,
        log_dir=str(tmp_path / "logs"),
        display="none",
        max_retries=0,
    )
    assert log.status == "success", log.error
    return [body for path, body in server.requests if path.endswith("/messages")]  # type: ignore[attr-defined]


def test_the_discussion_is_one_cached_block_shared_by_the_episodes_items(
    anthropic_server: ThreadingHTTPServer, tmp_path: Path
) -> None:
    requests = _run(anthropic_server, tmp_path, "full")
    assert len(requests) == 3
    blocks = [r["messages"][0]["content"] for r in requests]
    assert all(isinstance(b, list) and len(b) == 2 for b in blocks), blocks[0]
    shared = {b[0]["text"] for b in blocks}
    assert len(shared) == 1  # byte-identical across the items of the episode
    assert all(b[0].get("cache_control", {}).get("type") == "ephemeral" for b in blocks)
    assert all("cache_control" not in b[1] for b in blocks)  # no automatic mark after the question
    assert len({b[1]["text"] for b in blocks}) == 3 and all(b[1]["text"].startswith("Question: ") for b in blocks)
    assert (shared.pop()).startswith("You will read")


def test_settings_that_share_no_discussion_send_no_cache_mark(
    anthropic_server: ThreadingHTTPServer, tmp_path: Path
) -> None:
    requests = _run(anthropic_server, tmp_path, "bm25-k20")
    assert requests and "cache_control" not in json.dumps(requests)


def test_the_split_prompt_reads_as_the_unsplit_one() -> None:
    prompt = "Intro\n\nDISCUSSION\nc1 ...\nQuestion: Who?\nA. x\nB. y\n\nAnswer:"
    parts = cached_prefix(prompt, "Question: Who?")
    assert isinstance(parts, list) and parts[0].cache_breakpoint and not parts[1].cache_breakpoint
    assert "".join(p.text for p in parts) == prompt  # type: ignore[union-attr]
    assert messages_to_text([ChatMessageUser(content=parts)]) == messages_to_text([ChatMessageUser(content=prompt)])
    assert cached_prefix(prompt, "Question: Which?") == prompt  # not found: one block


def test_llm_retriever_caches_the_discussion_for_its_retrieval_calls_and_never_for_its_answers(
    anthropic_server: ThreadingHTTPServer, tmp_path: Path
) -> None:
    """Issue 39: every retrieval call was one bare string with the automatic mark (each wrote ~10.5K tokens, none
    read) and answer calls over each item's own posts wrote entries nothing could read. Now the retrieval call sends
    the instructions and the discussion as one cached block, byte-identical across the episode's items, with the
    item after it; the answer call sends no mark."""
    requests = _run(anthropic_server, tmp_path, "llm-retriever")
    retrieve = [r for r in requests if "Do not answer the question yet" in json.dumps(r)]
    answers = [r for r in requests if r not in retrieve]
    assert len(retrieve) == 3 and len(answers) == 3
    blocks = [r["messages"][0]["content"] for r in retrieve]
    assert all(isinstance(b, list) and len(b) == 2 for b in blocks), blocks[0]
    assert len({b[0]["text"] for b in blocks}) == 1  # the shared block, byte-identical
    assert all(b[0].get("cache_control", {}).get("type") == "ephemeral" and "cache_control" not in b[1] for b in blocks)
    assert all(b[1]["text"].startswith("Question: ") for b in blocks)
    assert "cache_control" not in json.dumps(answers)


def test_rag_answers_read_the_block_their_notes_call_wrote(
    anthropic_server: ThreadingHTTPServer, tmp_path: Path
) -> None:
    """Issue 39: RAG's notes call and answer call both open with the instructions and the retrieved posts, yet both
    went unmarked (1.70x its ideal on the simulated Anthropic cache, `benchmarks/cache_bill.py`). Now the notes
    call marks that start as its own block and the answer call sends the same block, byte-identical, marked, so it
    reads the entry; the item's own parts follow unmarked."""
    requests = _run(anthropic_server, tmp_path, "rag-bm25-k20-a1")
    notes = [r for r in requests if "Do not answer the question yet" in json.dumps(r)]
    answers = [r for r in requests if r not in notes]
    assert len(notes) == 3 and len(answers) == 3
    for note, answer in zip(notes, answers, strict=True):
        written, read = note["messages"][0]["content"], answer["messages"][0]["content"]
        assert isinstance(written, list) and isinstance(read, list) and len(written) == len(read) == 2
        assert written[0]["text"] == read[0]["text"] and written[0]["text"].startswith("You will read posts selected")
        assert all(b[0].get("cache_control", {}).get("type") == "ephemeral" for b in (written, read))
        assert all("cache_control" not in b[1] for b in (written, read))
        assert written[1]["text"].startswith("Question: ")
        assert read[1]["text"].startswith(("Notes on the retrieved posts:", "Question: "))
    assert len({n["messages"][0]["content"][0]["text"] for n in notes}) == 3  # each item's own posts
