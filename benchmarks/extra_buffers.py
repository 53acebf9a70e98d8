"""Prefill speed of the embedded model with llama.cpp's extra buffer types (weight repacking) on and off.

On CPUs without AMX, socialbench keeps the extra buffers on (`socialbench.models.loading`); on AMX CPUs it turns
them off because the AMX kernel crashes. This script measures what that choice costs or saves on this machine:
prefill tokens/s of a fresh (uncached) prompt and decode tokens/s, medians of several runs, with and without,
and their ratios.

    python benchmarks/extra_buffers.py [--tokens 1100] [--runs 5] [--rounds 3] [--threads N]
"""

from __future__ import annotations

import argparse
import statistics
import time

from socialbench.core.machine import usable_cpus
from socialbench.models.llama_cpp import bundled_model_path
from socialbench.models.loading import build_features, cpu_flags, load_llama, load_policy


def rates(extra_bufts: bool, tokens: int, runs: int, threads: int) -> tuple[list[float], list[float]]:
    """Prefill tokens/s of ``tokens`` fresh tokens, and decode tokens/s (32 tokens fed one at a time, as in
    generation), ``runs`` times each after one warm-up run."""
    llm = load_llama(
        bundled_model_path("gemma-3-270m"),
        load_policy(extra_bufts=extra_bufts),
        n_ctx=4096,
        n_threads=threads,
        n_threads_batch=threads,
        logits_all=False,
        verbose=False,
    )
    text = " ".join(f"The neighbour number {i} said the fence was theirs." for i in range(tokens))
    ids = llm.tokenize(text.encode(), add_bos=True)[:tokens]
    prefill, decode = [], []
    for _ in range(runs + 1):  # the first run warms up (page faults, thread pool)
        llm.reset()  # type: ignore[no-untyped-call]
        start = time.perf_counter()
        llm.eval(ids)
        prefill.append(len(ids) / (time.perf_counter() - start))
        start = time.perf_counter()
        for token in ids[:32]:
            llm.eval([token])
        decode.append(32 / (time.perf_counter() - start))
    llm.close()
    return prefill[1:], decode[1:]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tokens", type=int, default=1100)
    parser.add_argument("--runs", type=int, default=5, help="timed prefills per load")
    parser.add_argument("--rounds", type=int, default=3, help="alternating on/off loads")
    parser.add_argument("--threads", type=int, default=usable_cpus())
    args = parser.parse_args()
    flags = cpu_flags()
    simd = sorted(f for f in flags if f.startswith(("avx", "amx")))
    print(f"CPU flags: {' '.join(simd) or '(none reported)'}")
    print(f"llama.cpp build: {build_features().strip()}")
    print(f"policy here: {load_policy().reason}")
    # alternate the two loads so that drift of the machine (other load, frequency) hits both alike
    measured: dict[bool, tuple[list[float], list[float]]] = {True: ([], []), False: ([], [])}
    # on a machine where the AMX path is possible, extra buffers cannot be turned on: measure "off" only
    choices = (True, False) if load_policy().use_extra_bufts else (False,)
    for _ in range(args.rounds):
        for extra in choices:
            prefill, decode = rates(extra, args.tokens, args.runs, args.threads)
            measured[extra][0].extend(prefill)
            measured[extra][1].extend(decode)
    if len(choices) == 1:
        rate_p, rate_d = (statistics.median(measured[False][n]) for n in (0, 1))
        print(f"extra buffers off: prefill {rate_p:.1f} tok/s, decode {rate_d:.1f} tok/s")
        return
    for n, phase in enumerate(("prefill", "decode")):
        on, off = statistics.median(measured[True][n]), statistics.median(measured[False][n])
        for label, value, runs in (("on ", on, measured[True][n]), ("off", off, measured[False][n])):
            print(f"{phase:7} extra buffers {label}: {value:7.1f} tok/s  (runs: {', '.join(f'{r:.0f}' for r in runs)})")
        print(f"{phase:7} on / off: x{on / off:.2f}")


if __name__ == "__main__":
    main()
