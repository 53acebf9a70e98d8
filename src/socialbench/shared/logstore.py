"""Logs that store each shared prompt block (a discussion, a rubric) once, and the exact prompt of any sample back.

A LongSocialBench prompt is the episode's whole discussion followed by one item's question: inspect logs every
sample's prompt in full, twice (its messages, and the attachment its model call refers to), and no two samples share
anything, so a discussion asked about by ~16 items is stored ~31 times in a log (issue 49). Here:

- while a sample runs, `register_block` records in the sample's store the digest and length of each shared block
  its prompts begin with (`shared.caching.layout` / `layout_at` call it: the part a provider's prompt cache shares);
- when a task's log is finished, `compact` (an inspect ``on_task_end`` hook, registered when the first block is, so
  ``inspect eval`` and ``socialbench run`` alike) rewrites it: the first sample holding a block keeps it whole (its
  *owner*), and in every other sample each string that begins with the block keeps only a one-line note naming the
  block's digest, length and owner, then the rest of the string (the item's own text). Scores, metadata, events and
  everything else are copied as they were, so every report number is unchanged; the rewrite goes to a temporary
  file renamed over the log, so an interrupted one leaves the log as it was;
- `sample_prompts` (``socialbench prompt LOG SAMPLE``) puts the blocks back, each checked against its digest, and
  gives the exact prompt of every model call of the sample; a block that is missing or does not match its digest
  is refused in one line naming the log.

``inspect view`` shows the note in place of the discussion (it says where the discussion is and how to print it);
``inspect log`` and ``--resume`` read these logs as any other (a resumed run copies the finished samples, owners
included, into its new log, which is compacted in turn).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
import tempfile
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from inspect_ai.hooks import Hooks, TaskEnd, hooks

from ..core.errors import InputError

BLOCKS = "socialbench_blocks"
"""Sample store key: ``[[sha256, characters], ...]`` of the shared blocks the sample's prompts begin with."""
MIN_BLOCK = 2_000
"""Blocks shorter than this (characters) are left in place: a note would save little."""
NOTE = re.compile(
    r"⟦socialbench: (?P<chars>\d+) characters stored once in this log, in sample (?P<owner>.+?) \(epoch "
    r"(?P<epoch>\d+)\); print the whole prompt with `socialbench prompt LOG SAMPLE` · sha256=(?P<sha>[0-9a-f]{64})⟧"
)


def note(sha: str, chars: int, owner: str, epoch: int) -> str:
    """The text that stands for a block in a compacted sample (what ``inspect view`` shows in its place)."""
    return (
        f"⟦socialbench: {chars} characters stored once in this log, in sample {owner} (epoch {epoch}); print the "
        f"whole prompt with `socialbench prompt LOG SAMPLE` · sha256={sha}⟧"
    )


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def register_block(text: str) -> None:
    """Record in the running sample's store that its prompts begin with ``text`` (a shared block). Outside a
    sample (a cost plan) nothing is recorded."""
    if len(text) < MIN_BLOCK:
        return
    from inspect_ai.util import store

    try:
        current = store()
    except Exception:  # no sample is running (inspect raises its own error type): nothing to record
        return
    _ensure_hook()
    entry = [digest(text), len(text)]
    blocks: list[list[Any]] = list(current.get(BLOCKS, []))
    if entry not in blocks:
        current.set(BLOCKS, [*blocks, entry])


@dataclass
class Compacted:
    """What `compact` did to one log."""

    samples: int = 0
    blocks: int = 0
    replaced: int = 0
    """Strings that now hold a note in place of their block."""
    bytes_before: int = 0
    bytes_after: int = 0


def _strings(sample: dict[str, Any]) -> Iterator[tuple[dict[str, Any] | list[Any], str | int]]:
    """Where a sample's prompts sit: its attachments and its messages' text (a string or text parts)."""
    attachments = sample.get("attachments") or {}
    for key, value in attachments.items():
        if isinstance(value, str):
            yield attachments, key
    for message in sample.get("messages") or []:
        content = message.get("content")
        if isinstance(content, str):
            yield message, "content"
        elif isinstance(content, list):
            for part in content:
                if isinstance(part, dict) and isinstance(part.get("text"), str):
                    yield part, "text"


def _zip_kwargs() -> dict[str, Any]:
    # inspect writes .eval members with zstandard and patches zipfile to read and write them (Python < 3.14)
    from .inspect_private import zip_kwargs

    return zip_kwargs()


def compact(path: str | Path) -> Compacted | None:
    """Rewrite a finished ``.eval`` log so that each registered block is stored once (see the module docstring);
    None when there is nothing to do (not an ``.eval`` file, no registered block, or already compact)."""
    path = Path(str(path).removeprefix("file://"))
    if path.suffix != ".eval" or not path.is_file():
        return None
    kwargs = _zip_kwargs()
    done = Compacted(bytes_before=path.stat().st_size)
    owners: dict[str, tuple[str, int]] = {}
    with zipfile.ZipFile(path) as source:
        infos = {info.filename: info for info in source.infolist()}  # the last member of a name wins, as inspect's
        samples = [n for n in infos if n.startswith("samples/") and n.endswith(".json")]
        rewritten: dict[str, bytes] = {}
        for name in samples:
            record = json.loads(source.read(infos[name]))
            done.samples += 1
            blocks = sorted(
                {(str(s), int(n)) for s, n in ((record.get("store") or {}).get(BLOCKS) or [])}, key=lambda b: -b[1]
            )
            if not blocks or record.get("error"):  # a failed sample is run again on --resume, not copied: left whole
                continue
            here = (str(record["id"]), int(record.get("epoch") or 1))
            changed = False
            for holder, key in list(_strings(record)):
                text = holder[key]  # type: ignore[index]
                for sha, chars in blocks:
                    if len(text) < chars or digest(text[:chars]) != sha:
                        continue
                    owner = owners.setdefault(sha, here)
                    if owner != here:
                        holder[key] = note(sha, chars, *owner) + text[chars:]  # type: ignore[index]
                        done.replaced += 1
                        changed = True
                    break
            if changed:
                rewritten[name] = json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        if not rewritten:
            return None
        done.blocks = len(owners)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        os.close(handle)
        try:
            with zipfile.ZipFile(temporary, "w", **kwargs) as target:
                for name, info in infos.items():
                    data = rewritten.get(name)
                    if data is None:
                        data = source.read(info)
                    target.writestr(_info_like(info), data)
            os.chmod(temporary, stat.S_IMODE(path.stat().st_mode))  # the log's own permissions, not mkstemp's 0600
            os.replace(temporary, path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
    done.bytes_after = path.stat().st_size
    return done


def _info_like(info: zipfile.ZipInfo) -> zipfile.ZipInfo:
    """A member header with the original name, date and compression."""
    copy = zipfile.ZipInfo(info.filename, date_time=info.date_time)
    copy.compress_type = info.compress_type
    copy.external_attr = info.external_attr
    return copy


def is_socialbench_log(log: Any) -> bool:
    """A log of one of socialbench's tasks (they record ``socialbench_version`` in the task metadata)."""
    meta = getattr(getattr(log, "eval", None), "metadata", None) or {}
    return "socialbench_version" in meta


KEEP_PROMPTS = "SOCIALBENCH_FULL_PROMPTS"
"""Environment switch: ``1`` leaves logs as inspect wrote them (every prompt whole in every sample)."""


class CompactLogs(Hooks):
    """Compacts every finished socialbench log (`compact`); other tasks' logs are left alone."""

    def enabled(self) -> bool:
        return os.environ.get(KEEP_PROMPTS, "") not in ("1", "true", "yes")

    async def on_task_end(self, data: TaskEnd) -> None:
        log = data.log
        if not is_socialbench_log(log) or not str(log.location).endswith(".eval"):
            return
        if str(log.location).startswith(("s3://", "gs://", "az://")):  # compacted where it is read, not remotely
            return
        import anyio

        await anyio.to_thread.run_sync(compact, str(log.location))


_HOOKED: list[bool] = []


def _ensure_hook() -> None:
    """Register `CompactLogs` with inspect the first time a sample registers a block: registered at import, inspect
    would announce it on stdout whenever any command first builds a model (a report's ``--json`` included)."""
    if not _HOOKED:
        hooks(name="socialbench_compact_logs", description="socialbench: store each shared prompt block once per log")(
            CompactLogs
        )
        _HOOKED.append(True)


# ---- reading a compacted log ------------------------------------------------------------------------------------
@dataclass
class _Blocks:
    log: str
    found: dict[str, str] = field(default_factory=dict)

    def block(self, sha: str, chars: int, owner: str, epoch: int, reader: str) -> str:
        if sha in self.found:
            return self.found[sha]
        from inspect_ai.log import read_eval_log_sample

        where = f"the discussion block sha256:{sha[:12]} that sample {reader} refers to"
        try:
            sample = read_eval_log_sample(self.log, owner, epoch, resolve_attachments=True)
        except Exception:  # inspect raises IndexError / KeyError / its own errors for a sample that is not there
            raise InputError(self.log, f"{where} is missing: no sample {owner} (epoch {epoch}) in the log") from None
        for text in _texts(sample):
            if len(text) >= chars and not NOTE.match(text) and digest(text[:chars]) == sha:
                self.found[sha] = text[:chars]
                return self.found[sha]
        raise InputError(
            self.log, f"{where} is missing or changed: sample {owner} (epoch {epoch}) holds no text with that digest"
        )

    def expand(self, text: str, reader: str) -> str:
        match = NOTE.match(text)
        if match is None:
            return text
        chars, sha = int(match["chars"]), match["sha"]
        block = self.block(sha, chars, match["owner"], int(match["epoch"]), reader)
        return block + text[match.end() :]


def _texts(sample: Any) -> Iterator[str]:
    from inspect_ai.event import ModelEvent

    for message in sample.messages or []:
        yield from _message_texts(message)
    for event in sample.events or []:
        if isinstance(event, ModelEvent):
            for message in event.input:
                yield from _message_texts(message)


def _message_texts(message: Any) -> Iterator[str]:
    if isinstance(message.content, str):
        yield message.content
    else:
        for part in message.content:
            if getattr(part, "type", None) == "text":
                yield part.text


def restored(log: str, text: str, sample_id: str = "?") -> str:
    """``text`` (a prompt or message of a sample of ``log``) with a stored-once block put back, checked against its
    digest; text without a note is returned as it is."""
    return _Blocks(str(log).removeprefix("file://")).expand(text, sample_id)


def sample_prompts(log: str, sample_id: str, epoch: int = 1) -> list[list[dict[str, Any]]]:
    """The exact prompt of each model call of one sample, in call order: per call its messages as
    ``{"role": ..., "content": text or [text parts]}``, every stored-once block put back and checked against its
    digest."""
    from inspect_ai.event import ModelEvent
    from inspect_ai.log import read_eval_log_sample
    from inspect_ai.model import ContentText

    try:
        sample = read_eval_log_sample(log, sample_id, epoch, resolve_attachments=True)
    except Exception:  # inspect's readers raise several types for a missing sample or a damaged log
        raise InputError(log, f"no sample {sample_id} (epoch {epoch}) in the log") from None
    blocks = _Blocks(log)
    calls = []
    for event in sample.events or []:
        if not isinstance(event, ModelEvent):
            continue
        messages = []
        for message in event.input:
            if isinstance(message.content, str):
                content: Any = blocks.expand(message.content, sample_id)
            else:
                content = [
                    blocks.expand(part.text, sample_id) if isinstance(part, ContentText) else part.model_dump()
                    for part in message.content
                ]
            messages.append({"role": message.role, "content": content})
        calls.append(messages)
    return calls
