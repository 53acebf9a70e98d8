"""Episode-grouped scheduling vs. interleaved, on the embedded model.

Runs the items of one bundled episode (>= 3K tokens, >= 8 items) on the embedded Gemma 3 270M twice: grouped
(all items of the episode back to back, as `longsocial` schedules them) and interleaved (each item preceded by
an item of another episode, as an unordered scheduler would do), and prints the prompt tokens actually
prefilled and the wall time of both, and their ratios.

    python benchmarks/prefix_reuse.py [--episode se:stackexchange:3643] [--items 8]
"""

from __future__ import annotations

import argparse
import asyncio
import time

from inspect_ai.model import ChatMessageUser, GenerateConfig, get_model

from socialbench.benchmarks.longsocial.items import check_items, load_items
from socialbench.benchmarks.longsocial.prompts import full_prompt
from socialbench.benchmarks.longsocial.task import load_episodes, sample_pack
from socialbench.conversations.render import render_thread
from socialbench.models.llama_cpp import EmbeddedLlama


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--episode", default="se:stackexchange:3643")
    parser.add_argument("--other", default="se:stackexchange:3589", help="episode whose items interleave")
    parser.add_argument("--items", type=int, default=8, help="questions over the episode (>= 8)")
    args = parser.parse_args()

    episodes = load_episodes(sample_pack() / "episodes.jsonl")
    items = check_items(load_items(sample_pack() / "items.jsonl"), episodes)
    target = episodes[args.episode]
    other = episodes[args.other]
    discussion, other_discussion = render_thread(target), render_thread(other)
    stems = [i for i in items if i.episode_id == args.episode] or items
    # the pack has 4 items per episode; to reach N questions over one episode, ask each item's question
    # with its options rotated (different prompt suffixes, same episode prefix)
    prompts = []
    for n in range(args.items):
        item = stems[n % len(stems)]
        options = item.options[n // len(stems) :] + item.options[: n // len(stems)]
        prompts.append(full_prompt(discussion, item.stem, options))
    other_prompt = full_prompt(other_discussion, "Which post is the root?", ["c0", "c1", "c2", "c3"])

    model = get_model("socialbench/gemma-3-270m", n_ctx=16384)
    api = model.api
    assert isinstance(api, EmbeddedLlama)
    config = GenerateConfig(max_tokens=1, logprobs=True, top_logprobs=20, temperature=0.0)

    def run(sequence: list[tuple[bool, str]]) -> tuple[int, float]:
        """Prefill tokens and wall time spent on the target episode's calls (flag True) of a sequence."""
        api.llm.reset()  # type: ignore[no-untyped-call]
        tokens_spent, seconds = 0, 0.0
        for is_target, prompt in sequence:
            before, start = api.prefill_tokens, time.perf_counter()
            asyncio.run(model.generate([ChatMessageUser(content=prompt)], config=config))
            if is_target:
                tokens_spent += api.prefill_tokens - before
                seconds += time.perf_counter() - start
        return tokens_spent, seconds

    run([(False, other_prompt)])  # warm-up: page the weights in and size llama.cpp's buffers before timing
    tokens = len(api.tokenize_text(prompts[0]))
    print(f"episode {args.episode}: {tokens} prompt tokens (Gemma tokenizer), {len(prompts)} questions")
    grouped = run([(True, p) for p in prompts])
    interleaved = run([pair for p in prompts for pair in ((False, other_prompt), (True, p))])
    print(f"grouped:     {grouped[0]:>7} prefill tokens, {grouped[1]:7.1f} s")
    print(f"interleaved: {interleaved[0]:>7} prefill tokens, {interleaved[1]:7.1f} s  (target episode's calls only)")
    print(
        f"interleaved / grouped: prefill tokens x{interleaved[0] / grouped[0]:.1f}, "
        f"wall time x{interleaved[1] / grouped[1]:.1f}"
    )


if __name__ == "__main__":
    main()
