"""Prefill speed of long prompts on the embedded model, with and without llama.cpp's flash attention.

Attention cost grows with the prompt, so prefill tokens/s falls as episodes get longer; llama.cpp's CPU flash
attention (on by default in the embedded provider) limits the fall. Prompts are prefixes of the bundled Hacker
News episode's rendering (13.6K Gemma tokens in all), each prefilled from an empty cache.

    python benchmarks/long_prefill.py
"""

from __future__ import annotations

import time

from socialbench.benchmarks.longsocial.task import load_episodes, sample_pack
from socialbench.conversations.render import render_thread
from socialbench.models.llama_cpp import DEFAULT_N_CTX, bundled_model_path
from socialbench.models.loading import load_llama


def main() -> None:
    text = render_thread(load_episodes(sample_pack() / "episodes.jsonl")["hn:18475438"])
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
