"""Cognitive items (PerSo §3.2.2): versioned JSONL with provenance, validated on load, linted for cheap flaws."""

from __future__ import annotations

import re
import statistics
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from ...conversations.model import Thread
from ...core.errors import InputError
from ...core.jsonl import read_models, write_jsonl
from .data import DIMENSIONS, data_dir

ITEM_SCHEMA = 1
Dimension = Literal["belief", "emotion", "intent"]


class Provenance(BaseModel):
    model_config = ConfigDict(extra="forbid")

    author: str
    """Who or what wrote the item: a generator model id, or the people who wrote it by hand."""
    method: Literal["generated", "hand-written"]
    prompt_version: str | None = None
    generator_model: str | None = None
    seed: int | None = None
    created: str | None = None
    log: str | None = None
    """The inspect log holding the generation calls."""
    revisions: list[str] = Field(default_factory=list)
    """What was changed after the item was written, and why (dated), oldest first."""


class CognitiveItem(BaseModel):
    """A 4-option forecast of the OP's belief, emotion or intent after one persuader's response."""

    model_config = ConfigDict(extra="forbid")

    schema_version: Literal[1] = 1
    id: str
    thread_id: str
    reply_id: str
    """The persuader's root reply the model reads."""
    op_reply_id: str
    """The OP's answer that holds the gold state (withheld from the model)."""
    dimension: Dimension
    question: str
    options: list[str] = Field(min_length=4, max_length=4)
    gold: int = Field(ge=0, le=3)
    """Index of the correct option in ``options`` (the evaluation shuffles them, seeded)."""
    provenance: Provenance
    lint: list[str] = Field(default_factory=list)

    @field_validator("options")
    @classmethod
    def _non_empty(cls, options: list[str]) -> list[str]:
        if any(not o.strip() for o in options):
            raise ValueError("an option is empty")
        return options

    @model_validator(mode="after")
    def _distinct(self) -> CognitiveItem:
        if len({_norm(o) for o in self.options}) < 4:
            raise ValueError("two options are the same")
        return self


def default_items() -> Path:
    return data_dir() / "cognitive_items.jsonl"


def load_items(path: str | Path | None = None, dimension: str | None = None) -> list[CognitiveItem]:
    target = Path(path) if path else default_items()
    items = [item for _, item in read_models(target, CognitiveItem, "cognitive items file")]
    if not items:
        raise InputError(target, "no items in the file: nothing to run, lint or score")
    seen: set[str] = set()
    for item in items:
        if item.id in seen:
            raise InputError(target, f"item id {item.id!r} appears twice", record=item.id)
        seen.add(item.id)
    if dimension is not None:
        if dimension not in DIMENSIONS:
            raise ValueError(f"dimension must be one of {', '.join(DIMENSIONS)}, got {dimension!r}")
        items = [i for i in items if i.dimension == dimension]
    return items


def check_items(items: list[CognitiveItem], threads: dict[str, Thread], path: str | Path) -> None:
    """Every item must point at a thread, a persuader reply and an OP reply that exist."""
    for item in items:
        thread = threads.get(item.thread_id)
        if thread is None:
            raise InputError(path, f"thread {item.thread_id!r} is not in the threads file", record=item.id)
        for node_id in (item.reply_id, item.op_reply_id):
            if node_id not in thread:
                raise InputError(path, f"post {node_id!r} is not in thread {item.thread_id}", record=item.id)


def write_items(path: str | Path, items: list[CognitiveItem]) -> int:
    return write_jsonl(path, items)


def _norm(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))


def _ngrams(text: str, n: int) -> set[tuple[str, ...]]:
    tokens = _norm(text).split()
    return {tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1)}


COPY_NGRAM = 6
LENGTH_OUTLIER = 2.0


def lint(options: list[str], gold: int, op_reply: str) -> list[str]:
    """Flaws a cheap check can catch (flagged, never silently dropped): duplicate options; a gold answer that
    copies six or more consecutive words of the OP's reply (solvable by string matching if the reply leaks, and a
    sign the generator quoted instead of abstracting); options 2x longer or shorter than the median option (the
    odd one out is a length shortcut)."""
    flags = []
    normed = [_norm(o) for o in options]
    if len(set(normed)) < len(normed):
        flags.append("duplicate options")
    if _ngrams(options[gold], COPY_NGRAM) & _ngrams(op_reply, COPY_NGRAM):
        flags.append(f"gold copies {COPY_NGRAM}+ consecutive words of the OP's reply")
    lengths = [max(1, len(o.split())) for o in options]
    median = statistics.median(lengths)
    for i, n in enumerate(lengths):
        if n > LENGTH_OUTLIER * median or n * LENGTH_OUTLIER < median:
            flags.append(
                f"option {'ABCD'[i]}{' (gold)' if i == gold else ''} is a length outlier "
                f"({n} vs median {median:g} words)"
            )
    return flags
