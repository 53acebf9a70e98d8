"""Prefill speed of long prompts on the embedded model, with and without llama.cpp's flash attention.

Attention cost grows with the prompt, so prefill tokens/s falls as episodes get longer; llama.cpp's CPU flash
attention (on by default in the embedded provider) limits the fall. Prompts are prefixes of the bundled Hacker
News episode's rendering (13.6K Gemma tokens in all), each prefilled from an empty cache.

    python benchmarks/long_prefill.py           # flash attention off / on
    python benchmarks/long_prefill.py --knobs   # other llama.cpp settings, flash attention on
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from socialbench.benchmarks.longsocial.task import load_episodes, sample_pack
from socialbench.conversations.render import render_thread
from socialbench.models.llama_cpp import DEFAULT_N_CTX, bundled_model_path
from socialbench.models.loading import load_llama

KNOBS: list[dict[str, Any]] = [
    {},  # the embedded provider's settings: n_batch = n_ubatch = 512, f16 KV cache
    {"n_batch": 2048, "n_ubatch": 2048},
    {"n_batch": 1024, "n_ubatch": 256},
    {"type_k": 8, "type_v": 8},  # q8_0 KV cache
]


def knobs(text: str) -> None:
    """Whether any other llama.cpp setting prefills faster than the defaults on this machine."""
    for extra in KNOBS:
        llm = load_llama(
            bundled_model_path("gemma-3-270m"), n_ctx=DEFAULT_N_CTX, flash_attn=True, verbose=False, **extra
        )
        ids = llm.tokenize(text.encode(), add_bos=True)
        rates = []
        for length in (2000, len(ids)):
            llm.reset()  # type: ignore[no-untyped-call]
            start = time.perf_counter()
            llm.eval(ids[:length])
            rates.append(f"{length} tokens {length / (time.perf_counter() - start):.0f} tok/s")
        llm.close()
        print(f"{extra or 'defaults'}: {', '.join(rates)}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--knobs", action="store_true", help="compare other llama.cpp settings")
    text = render_thread(load_episodes(sample_pack() / "episodes.jsonl")["hn:18475438"])
    if parser.parse_args().knobs:
        knobs(text)
        return
    rates: dict[bool, list[float]] = {}
    lengths: list[int] = []
    for flash in (False, True):
        llm = load_llama(bundled_model_path("gemma-3-270m"), n_ctx=DEFAULT_N_CTX, flash_attn=flash, verbose=False)
        ids = llm.tokenize(text.encode(), add_bos=True)
        lengths = [2000, 8000, len(ids)]
        rates[flash] = []
        for length in lengths:
            llm.reset()  # type: ignore[no-untyped-call]
            start = time.perf_counter()
            llm.eval(ids[:length])
            rates[flash].append(length / (time.perf_counter() - start))
        llm.close()
    for n, length in enumerate(lengths):
        off, on = rates[False][n], rates[True][n]
        print(f"{length:6d} tokens: flash attention off {off:6.1f} tok/s, on {on:6.1f} tok/s, on / off x{on / off:.2f}")


if __name__ == "__main__":
    main()
