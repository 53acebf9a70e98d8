"""The one error type for bad input, everywhere in socialbench: it names the file, the line or record, and what
is wrong, in one line. The CLI prints it and exits 2 (``--debug`` shows the traceback)."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from pathlib import Path

from pydantic import ValidationError


def did_you_mean(name: str, choices: Iterable[str]) -> str:
    """``"did you mean 'x'? "`` for the closest of ``choices`` to a mistyped ``name`` (difflib's ratio >= 0.6), else
    ``""``: the start of an error's hint, before the list of what is valid."""
    close = difflib.get_close_matches(name, list(choices), n=1)
    return f"did you mean {close[0]!r}? " if close else ""


class InputError(ValueError):
    """Bad input: names the file, the line or record, and what is wrong."""

    def __init__(self, path: str | Path, message: str, *, line: int | None = None, record: str | None = None):
        self.path = str(path)
        self.line = line
        self.record = record
        self.message = message
        where = self.path
        if line is not None:
            where += f":{line}"
        if record is not None:
            where += f" (record {record})"
        super().__init__(f"{where}: {message}")

    @classmethod
    def from_validation(
        cls, path: str | Path, exc: ValidationError, *, line: int | None = None, record: str | None = None
    ) -> InputError:
        """pydantic's multi-line report as one located line: the first problem, its field and how many more."""
        errors = exc.errors()
        first = errors[0]
        field = ".".join(str(p) for p in first["loc"]) or "record"
        more = f" (and {len(errors) - 1} more problem{'s' * (len(errors) > 2)})" if len(errors) > 1 else ""
        return cls(path, f"field {field}: {first['msg']}{more}", line=line, record=record)
