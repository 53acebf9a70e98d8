"""inspect_ai entry point: makes `socialbench/longsocial` and `--model socialbench/...` known to inspect."""

# ruff: noqa: F401
from .benchmarks.longsocial.task import longsocial
from .benchmarks.sibench.task import sibench
from .conversations.tokens import ensure_offline_tiktoken
from .models.llama_cpp import embedded_llama

# inspect counts tokens with tiktoken, which would download its vocabulary: seed it from bpe-openai first.
ensure_offline_tiktoken()
