"""inspect_ai entry point: makes every benchmark's tasks (``inspect eval socialbench/longsocial``) and the
embedded model (``--model socialbench/gemma-3-270m``) known to inspect."""

from .benchmarks import registered
from .conversations.tokens import ensure_offline_tiktoken
from .models.llama_cpp import embedded_llama

# inspect counts tokens with tiktoken, which would download its vocabulary: seed it from bpe-openai first.
ensure_offline_tiktoken()
registered()  # importing a benchmark registers its @task functions with inspect

__all__ = ["embedded_llama"]
