"""LongSocialBench evaluation settings (paper Table 12) as a registry of workflows.

A workflow turns (episode, item) into what the model is asked, at solve time:
1. `Workflow.select` chooses the posts the model sees (all of them for Full; retrieved ones for retrieval
   settings; it may call the model, e.g. an LLM-as-retriever), in thread order;
2. `Workflow.prompt` renders those posts and the question into the prompt text.
Because the prompt is a function of the selected posts, the generic `fit_context` solver can shorten any
workflow's prompt to the model's window (by keeping a thread-order prefix of the selected posts).

A workflow declares what it needs (`needs`): ``reasoning`` (free text before the final letter, so it cannot be
answered from one token's log-probabilities), ``retriever``, ``model-calls`` (extra calls before answering),
``gold-scope`` (the item's annotated scope, an oracle setting). Adding a setting = one subclass + `register`.
"""

from __future__ import annotations

from abc import ABC
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from inspect_ai.model import Model

from ...conversations.model import Node, Thread
from ...conversations.render import render_thread
from .prompts import full_prompt


@dataclass(frozen=True)
class Question:
    """What the model is asked about an episode: the stem and the four options in their shown order."""

    stem: str
    options: Sequence[str]
    metadata: dict[str, Any]


class Workflow(ABC):
    name: ClassVar[str]
    title: ClassVar[str]
    reference: ClassVar[str]
    """Where the paper defines it."""
    needs: ClassVar[frozenset[str]] = frozenset()

    async def select(self, thread: Thread, question: Question, model: Model) -> list[Node]:
        """The posts the model sees, in thread order. Default: the complete discussion."""
        return list(thread.traverse("thread"))

    def prompt(self, thread: Thread, nodes: Sequence[Node], question: Question) -> str:
        raise NotImplementedError

    @property
    def reasoning(self) -> bool:
        return "reasoning" in self.needs


class Full(Workflow):
    name = "full"
    title = "Full context"
    reference = "Table 12, Full"

    def prompt(self, thread: Thread, nodes: Sequence[Node], question: Question) -> str:
        return full_prompt(render_thread(thread, nodes=list(nodes)), question.stem, question.options)


WORKFLOWS: dict[str, Workflow] = {}


def register(workflow: Workflow) -> Workflow:
    if workflow.name in WORKFLOWS:
        raise ValueError(f"workflow {workflow.name!r} is already registered")
    WORKFLOWS[workflow.name] = workflow
    return workflow


def get_workflow(name: str) -> Workflow:
    try:
        return WORKFLOWS[name]
    except KeyError:
        raise ValueError(f"unknown workflow {name!r}; registered: {', '.join(WORKFLOWS)}") from None


register(Full())
