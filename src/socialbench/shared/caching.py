"""Provider prompt caches (Anthropic's cache marks, OpenAI's and vLLM's prefix caches) pay off only when the part of
a prompt that items share is byte-identical and marked as such. `cached_prefix` splits a prompt into that shared
block, carrying inspect's explicit cache boundary (``ContentText(cache_breakpoint=True)``: on Anthropic it replaces
the automatic mark at the end of the prompt, which would write a cache entry per item and never read one), and the
item's own block after it.

The split never changes the text: the two blocks concatenated are the prompt. It is sent only to providers that
honour the mark (`honours_cache_marks`: Anthropic). Everywhere else the prompt stays one string: OpenAI's and
vLLM's prefix caches need no mark (the shared prefix is already byte-identical), and some OpenAI-compatible servers
(llama-cpp-python's) read only part of a prompt given as several text parts.

A cache is read only by a request that arrives after the request that wrote it has been answered. Under
concurrency inspect would send an episode's items together, so each would write its own entry. The send order is
the scheduler's, never the dataset's (which items a run asks is the same at any concurrency): `GroupWindow`
(the `in_windows` solver, the task's first step) lets the samples of as many prefix groups (episodes) as there are
connections in at a time, and `PrefixGate` holds an admitted group's other requests until its first has been
answered. With one connection (the embedded model) nothing is held back: items run in the dataset's order, episode
by episode, which is what llama.cpp's own prefix cache needs. A llama.cpp ``llama-server`` with several slots
(`slot_count`) caches per slot: there a group's requests go one at a time, and the window is as wide as the slots.
A held sample holds one of inspect's sample slots, so `socialbench run` asks for `sample_slots` of them.

Items that see posts chosen without the model (retrieval) share starts of different lengths: `trie_marks` plans
where each marks them and the order to send them in, `trie_cuts` where each is cut into blocks (every start of
the trie it begins with, so that two prompts sharing a start cut it alike), `split_at` cuts the prompt there, and
`PrefixGate.turn_at` holds a request until the earlier one writing the longest start it reads has been answered.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import json
import os
import re
import urllib.request
from collections.abc import AsyncIterator, Callable, Hashable, Mapping, Sequence
from contextlib import asynccontextmanager
from typing import Any, Literal

import anyio
from inspect_ai.model import Content, ContentText, GenerateConfig, Model, get_model
from inspect_ai.solver import Generate, Solver, TaskState, solver

from .inspect_private import active_generate_config
from .logstore import register_block

Turn = Literal["first", "after first", "alone"]

MIN_CACHED_TOKENS = 1024
"""The shortest prompt start Anthropic's and OpenAI's prompt caches store (tokens)."""

MARKING_PROVIDERS = frozenset({"anthropic"})
"""Providers whose prompt cache needs (and honours) an explicit mark on the shared block."""


def honours_cache_marks(model: Model) -> bool:
    return str(model).split("/", 1)[0] in MARKING_PROVIDERS


def cached_prefix(prompt: str, item_start: str) -> str | list[Content]:
    """``prompt`` as [shared prefix (cache boundary), item part], split where the item's own text ``item_start``
    last begins (after the shared part); the prompt unchanged when it is not found or either part would be empty."""
    at = prompt.rfind(item_start)
    if at <= 0:
        return prompt
    return [ContentText(text=prompt[:at], cache_breakpoint=True), ContentText(text=prompt[at:])]


def layout(model: Model, prompt: str, item_start: str) -> str | list[Content]:
    """The prompt as the model should receive it: two blocks with the cache mark where the provider honours it,
    else one string (the same text). The shared block is registered with the sample, so its log stores it once
    (`shared.logstore`)."""
    if (shared := shared_part(prompt, item_start)) is not None:
        register_block(shared)
    return cached_prefix(prompt, item_start) if honours_cache_marks(model) else prompt


def split_at(prompt: str, marks: Sequence[int], cuts: Sequence[int] = ()) -> str | list[Content]:
    """``prompt`` as blocks that end at each mark (character offsets; each such block carries the cache boundary)
    and at each cut (a block boundary without a mark: `trie_cuts`), then the rest; unchanged without marks inside
    it. The blocks concatenated are the prompt."""
    marked = {m for m in marks if 0 < m < len(prompt)}
    if not marked:
        return prompt
    ends = sorted(marked | {c for c in cuts if 0 < c < len(prompt)})
    starts = [0, *ends[:-1]]
    blocks: list[Content] = [
        ContentText(text=prompt[a:b], cache_breakpoint=b in marked) for a, b in zip(starts, ends, strict=True)
    ]
    return [*blocks, ContentText(text=prompt[ends[-1] :])]


def joined(content: str | Sequence[Content]) -> str:
    """The text `split_at` cut, whole again (inspect's ``ChatMessage.text`` puts a line break between parts)."""
    return content if isinstance(content, str) else "".join(c.text for c in content if isinstance(c, ContentText))


def layout_at(model: Model, prompt: str, marks: Sequence[int], cuts: Sequence[int] = ()) -> str | list[Content]:
    """`split_at` where the provider honours marks, else the prompt as one string; the starts at the marks are
    registered with the sample, so its log stores each once (`shared.logstore`)."""
    for mark in marks:
        if 0 < mark < len(prompt):
            register_block(prompt[:mark])
    return split_at(prompt, marks, cuts) if honours_cache_marks(model) else prompt


MAX_MARKS = 4
"""Anthropic honours at most four cache marks per request."""


def _shared_starts(heads: Mapping[str, str], order: Sequence[str], long_enough: Callable[[str], bool]) -> list[int]:
    """For each neighbour pair of ``order`` (the heads sorted), the length of the start they share, to the end of
    the last whole line both have; 0 where that start is not ``long_enough`` to be cached."""
    shared: list[int] = []
    for a, b in itertools.pairwise(order):
        x, y = heads[a], heads[b]
        n = len(os.path.commonprefix([x, y]))  # noqa: RUF071 -- character by character is what is meant
        if n < min(len(x), len(y)):  # they part mid-line: the last whole line both have
            n = x.rfind("\n", 0, n) + 1
        shared.append(n if n and long_enough(x[:n]) else 0)
    return shared


def trie_marks(
    heads: Mapping[str, str], long_enough: Callable[[str], bool], limit: int = MAX_MARKS - 1
) -> list[tuple[str, list[int]]]:
    """Where each prompt start (``heads``: key -> the text before the item's own part, e.g. the instructions and
    the posts an item retrieved) should carry a cache mark, and the order to send them in, so that every start two
    or more heads share is written once and read by the others -- the least a prefix cache can bill them.

    Sorted, the heads form a trie walked depth first: each shares with its neighbour the longest start it shares
    with any other. A head marks what it shares with the one before (to read it) and each shared start that it is
    the first to reach (to write it: where the next heads part from it, shallowest last); a start counts only when
    ``long_enough`` (providers cache 1,024 tokens or more) and ends at a line break (a post's end). At most
    ``limit`` marks a head (one is left for a mark of the caller's, within Anthropic's four): the read and the
    writes worth most (length x heads under it). Returns (key, marks) in sending order."""
    order = sorted(heads, key=lambda k: heads[k])
    shared = _shared_starts(heads, order, long_enough)
    planned = []
    for i, key in enumerate(order):
        read = shared[i - 1] if i else 0
        writes: dict[int, int] = {}  # shared start -> how many later heads read it
        low = len(heads[key])
        for n in shared[i:]:
            low = min(low, n)
            if low <= read:
                break
            writes[low] = writes.get(low, 0) + 1
        kept = sorted(writes, key=lambda n: n * writes[n], reverse=True)[: max(0, limit - (1 if read else 0))]
        planned.append((key, sorted({read, *kept} - {0})))
    return planned


def trie_cuts(heads: Mapping[str, str], long_enough: Callable[[str], bool]) -> dict[str, list[int]]:
    """Where each head is cut into blocks: at every start of the trie (`trie_marks`) it begins with, marked or
    not. A cache that keys its entries on the chain of blocks up to the marked one (the stricter reading of
    Anthropic's "identical up to and including the marked block") reads an entry only if the reader cut that start
    into the same blocks as its writer: with the cuts a function of the text alone (every trie start a head begins
    with), any two heads that share a start cut it alike, however differently they are marked. Marks stay within
    the limit; blocks are not limited."""
    order = sorted(heads, key=lambda k: heads[k])
    starts = {heads[a][:n] for a, n in zip(order[:-1], _shared_starts(heads, order, long_enough), strict=True) if n}
    return {key: sorted(len(s) for s in starts if head.startswith(s)) for key, head in heads.items()}


KEYED_PROVIDERS = frozenset({"openai"})
"""Providers whose prompt cache routes a request by ``prompt_cache_key`` with the prompt's first ~256 tokens."""


def cache_key(model: Model, group: str) -> dict[str, Any]:
    """Generate arguments that send ``group``'s requests (an episode: the requests that share a prompt start) with
    their own ``prompt_cache_key``, where the provider takes one (OpenAI). OpenAI routes a request to a cache
    machine by a hash of the prompt's first ~256 tokens and this key; above about 15 requests a minute for one
    combination, requests overflow to machines without the entry (OpenAI's prompt-caching guide). Every
    LongSocialBench prompt starts with the same instructions, so without a key a whole grid would hash alike.
    The key is a digest of the group's name (stable across runs and settings: Full and CoT of one episode share
    it, as they share its discussion). Nothing is added where the user set a key of their own (``-M
    prompt_cache_key=...`` or ``extra_body``), nor in batch mode over chat completions, whose batch lines would
    carry ``extra_body`` as a field of the request (the Responses API takes the key as its own field)."""
    own_key = isinstance(getattr(model.api, "prompt_cache_key", None), str)
    if str(model).split("/", 1)[0] not in KEYED_PROVIDERS or own_key:
        return {}
    config = model.config.merge(active_generate_config())
    extra = dict(config.extra_body or {})
    if "prompt_cache_key" in extra:
        return {}
    if config.batch and not getattr(model.api, "responses_api", True):
        return {}
    extra["prompt_cache_key"] = "socialbench-" + hashlib.sha256(group.encode()).hexdigest()[:20]
    return {"extra_body": extra}


def shared_part(prompt: str, item_start: str) -> str | None:
    """The part of ``prompt`` before the item's own text (where ``item_start`` last begins), or None."""
    at = prompt.rfind(item_start)
    return prompt[:at] if at > 0 else None


def connections(model: Model, eval_config: GenerateConfig | None = None) -> int:
    """How many requests inspect may have in flight to this model: ``--max-connections`` (the eval's or the
    model's) if given, else inspect's ceiling in batch mode, else the provider's default (1 for the embedded
    model). ``eval_config`` is the eval's generate config; inside an eval it is the active one (outside, the
    active one is whatever an earlier eval in this process left, so a caller before the eval passes its own)."""
    eval_config = active_generate_config() if eval_config is None else eval_config
    config = model.config.merge(eval_config)  # composed as inspect does: the eval's config wins
    if config.max_connections:
        return config.max_connections
    if config.batch:  # inspect's ceiling in batch mode: every request ready goes into the provider's batch
        from .inspect_private import batch_connections

        return batch_connections()
    return model.api.max_connections()


SLOT_PROVIDERS = frozenset({"openai-api", "openai", "vllm", "llama-cpp-python", "sglang"})
"""Providers that may front a llama.cpp ``llama-server`` (OpenAI-compatible, reached by a base URL)."""


@functools.cache
def _server_slots(base_url: str) -> int:
    root = re.sub(r"/v1/?$", "", base_url.rstrip("/"))
    try:
        with urllib.request.urlopen(root + "/props", timeout=2) as response:
            props = json.loads(response.read())
    except (OSError, ValueError):  # not there, not JSON, refused, timed out: not a slot server
        return 0
    slots = props.get("total_slots") if isinstance(props, dict) else None
    return slots if isinstance(slots, int) and slots > 0 else 0


def slot_count(model: Model) -> int:
    """The slots of the llama.cpp ``llama-server`` behind ``model`` (its ``/props`` gives ``total_slots``); 0 for
    any other server. Each slot keeps its own prompt cache and the server gives a request the idle slot whose cache
    is most like its prompt, so a prefix group's requests sent together land on different slots and each prefills
    the shared part. Asked once per server (2 s timeout), only for OpenAI-compatible providers with a base URL of
    their own (never api.openai.com)."""
    base_url = getattr(model.api, "base_url", None)
    if str(model).split("/", 1)[0] not in SLOT_PROVIDERS or not base_url or "api.openai.com" in base_url:
        return 0
    return _server_slots(str(base_url))


def window(model: Model) -> int:
    """How many prefix groups (episodes) may be in flight at once: the connections, or, on a llama.cpp
    ``llama-server`` with several slots (`slot_count`), the fewer of its slots and the connections."""
    n = connections(model)
    slots = slot_count(model) if n > 1 else 0
    return min(n, slots) if slots > 1 else n


SAMPLES_PER_CONNECTION = 32
"""inspect sample slots per connection that `socialbench run` asks for when ``--max-samples`` is not given. A sample
held back by `GroupWindow` or `PrefixGate` holds one of inspect's sample slots (``max_samples``, by default the
connections), so with inspect's default an episode's held items would fill them and the connections would wait;
32 per connection keeps a window of episodes' items (the paper's are about 16 per discussion) present. A waiting
sample has not built its prompt yet (the window is the task's first step), so the slots cost little memory."""


def sample_slots(models: Sequence[Model], eval_config: GenerateConfig) -> int | None:
    """The ``max_samples`` that lets the scheduler keep every connection of these models busy:
    `SAMPLES_PER_CONNECTION` per connection of the model with the most; None (inspect's default) where every model
    has one connection (the embedded model: one sample at a time keeps the dataset's order, which its one prefix
    cache needs). Asked before the eval starts, so ``eval_config`` is the generate config the eval will be given."""
    most = max((connections(m, eval_config) for m in models), default=1)
    return most * SAMPLES_PER_CONNECTION if most > 1 else None


class GroupWindow:
    """Admits the samples of at most `window` prefix groups (episodes) at a time, in the order they arrive; a sample
    of a group already admitted is admitted at once. A group leaves the window when its last admitted sample is done,
    and the next waiting group takes its place.

    With `PrefixGate` (an admitted group's first request alone, its others once that one is answered) this is the
    whole send order, so the dataset keeps its own order and which items ``--limit`` asks never depends on the
    connections. With `window` groups in flight every connection has work while no group's items wait long after its
    first (provider caches expire after minutes); on a llama-server with slots each admitted group's requests go one
    at a time to the slot that holds it. A sample cancelled while it waits leaves the queue."""

    def __init__(self) -> None:
        self._admitted: dict[Hashable, int] = {}
        self._waiting: list[tuple[Hashable, anyio.Event]] = []
        self._widths: dict[str, int] = {}

    def _admit(self, width: int) -> None:
        still = []
        for group, event in self._waiting:
            if group in self._admitted or len(self._admitted) < width:
                self._admitted[group] = self._admitted.get(group, 0) + 1
                event.set()
            else:
                still.append((group, event))
        self._waiting = still

    def _release(self, group: Hashable, width: int) -> None:
        self._admitted[group] -= 1
        if not self._admitted[group]:
            del self._admitted[group]
        self._admit(width)

    @asynccontextmanager
    async def admitted(self, model: Model, group: Hashable) -> AsyncIterator[None]:
        # The width is read without leaving the event loop (a llama-server's /props is asked once per server, in
        # `slot_count`), and a sample whose group may go now goes on without awaiting: samples leave the window in
        # the order they arrive, which a `Planned` layout's turns rely on (an await here let them overtake).
        if (width := self._widths.get(str(model))) is None:
            width = self._widths[str(model)] = window(model)
        key = (str(model), group)
        if key in self._admitted or (not self._waiting and len(self._admitted) < width):
            self._admitted[key] = self._admitted.get(key, 0) + 1
        else:
            event = anyio.Event()
            self._waiting.append((key, event))
            try:
                await event.wait()
            except BaseException:  # cancelled while waiting (or as it was admitted): the queue forgets it
                if event.is_set():
                    self._release(key, width)
                else:
                    self._waiting.remove((key, event))
                raise
        try:
            yield
        finally:
            self._release(key, width)


@solver
def in_windows(inner: Solver, group_key: str | None = None, item_start: str = "") -> Solver:
    """Run ``inner`` (the task's solver chain) for a sample once `GroupWindow` admits its prefix group: the sample
    metadata's ``group_key`` (LongSocialBench: the episode), else the part of the input before ``item_start``
    (PerSo: the post, or the post and reply, that the group's prompts share)."""
    groups = GroupWindow()

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        group = state.metadata[group_key] if group_key else shared_part(state.input_text, item_start)
        async with groups.admitted(get_model(), group):
            return await inner(state, generate)

    return solve


class PrefixGate:
    """Holds back the requests of a prefix group (prompts sharing the same text before the item's own part, for
    the same model) until the group's first request has been answered, so that they read the cache it wrote.
    Whichever item of a group arrives first goes first, so the gate holds under any concurrency, sample order
    and ``--resume`` (items already done in an earlier run are simply not among the arrivals). A first request
    that fails releases its group too. One gate per task: its groups live as long as the task."""

    def __init__(self) -> None:
        self._answered: dict[tuple[str, str], anyio.Event] = {}
        self._serial: dict[tuple[str, str], anyio.Lock] = {}

    @asynccontextmanager
    async def turn(self, model: Model, prompt: str, item_start: str) -> AsyncIterator[Turn]:
        shared = shared_part(prompt, item_start)
        if shared is None or connections(model) <= 1:
            yield "alone"
            return
        key = (str(model), hashlib.sha256(shared.encode()).hexdigest())
        if await anyio.to_thread.run_sync(slot_count, model) > 1:
            # a llama-server: its slots cache apart, so a group's requests go one at a time (each lands on the
            # slot the one before it filled) while other groups use the other slots
            first = key not in self._serial
            async with self._serial.setdefault(key, anyio.Lock()):
                yield "first" if first else "after first"
            return
        answered = self._answered.get(key)
        if answered is None:
            answered = self._answered[key] = anyio.Event()
            try:
                yield "first"
            finally:
                answered.set()
        else:
            await answered.wait()
            yield "after first"

    @asynccontextmanager
    async def turn_at(self, model: Model, prompt: str, marks: Sequence[int]) -> AsyncIterator[Turn]:
        """`turn` for a prompt with several marked starts (`trie_marks`): a request waits for the request that
        arrived before it with the longest of its starts, until answered (it then reads that entry), and holds back
        later requests with the longer starts it will write. A cache writes only past what a request read, so it
        does not claim the shorter starts it reads past: a later request that needs one writes it. Requests wait
        only on earlier arrivals, so nothing waits on an item that never comes."""
        keys = [
            (str(model), hashlib.sha256(prompt[:m].encode()).hexdigest())
            for m in sorted(set(marks))
            if 0 < m <= len(prompt)
        ]
        if not keys or connections(model) <= 1:
            yield "alone"
            return
        known = [n for n, k in enumerate(keys) if k in self._answered]
        earlier = self._answered[keys[known[-1]]] if known else None
        mine = [self._answered.setdefault(k, anyio.Event()) for k in keys[known[-1] + 1 if known else 0 :]]
        try:
            if earlier is not None:
                await earlier.wait()
            yield "first" if earlier is None else "after first"
        finally:
            for answered in mine:
                answered.set()
