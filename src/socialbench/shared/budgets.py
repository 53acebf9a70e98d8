"""Answer budgets and context windows from inspect's model data.

Reasoning models (GPT-5, Claude with thinking, Gemini 2.5 Pro: the papers' headline models) spend reasoning tokens
against the same output budget as the answer: a 32-token budget for a one-letter answer ends them before any
letter while the whole prompt is billed. inspect's model database knows which models reason, their output limits
and their context windows (`inspect_ai.model.get_model_info`); a model asked to reason through the generate config
(``reasoning_effort`` above minimal, or ``reasoning_tokens``) reasons too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from inspect_ai.model import GenerateConfig, Model

REASONING_BUDGET = 16_000
"""Output budget for a reasoning model's answer call: room for its reasoning before the answer (capped by the
model's own output limit). Reasoning tokens are billed only as used; `-T max_tokens` overrides it."""


def _info(model: Model | str) -> Any:
    try:
        from inspect_ai.model import get_model_info

        return get_model_info(model)
    except Exception:  # an unknown provider or name: no model data
        return None


def asks_for_reasoning(config: GenerateConfig | None) -> bool:
    """Does a generate config ask the model to reason (an effort above minimal, or a reasoning token budget)?"""
    if config is None:
        return False
    return bool(config.reasoning_tokens) or config.reasoning_effort not in (None, "none", "minimal")


def reasons(model: Model | str) -> bool:
    """Is this a reasoning model (inspect's model data), or is it asked to reason (its generate config)?"""
    info = _info(model)
    return bool(getattr(info, "reasoning", None)) or asks_for_reasoning(getattr(model, "config", None))


@dataclass(frozen=True)
class Budget:
    tokens: int
    why: str


def answer_budget(model: Model | str, default: int, given: int | None = None) -> Budget:
    """The output budget of an answer call: ``given`` (``-T max_tokens``) if set; for a reasoning model
    `REASONING_BUDGET` (at least ``default``, at most the model's output limit); else ``default``."""
    if given:
        return Budget(given, "-T max_tokens")
    if reasons(model):
        limit = getattr(_info(model), "output_tokens", None) or REASONING_BUDGET
        return Budget(min(max(default, REASONING_BUDGET), limit), "reasoning model: room for its reasoning")
    return Budget(default, "the setting's answer budget")


def known_context(model: Model) -> int | None:
    """The model's context window from inspect's model data (None for an unknown model or server)."""
    value = getattr(_info(model), "context_length", None)
    return int(value) if value else None
