"""LongSocialBench's published headline numbers, typed in once from the paper's tables (our copy is the
tables-and-captions text we develop against), each with its source. Shown only with ``--compare-paper``,
labelled as the paper's."""

from __future__ import annotations

FAMILIES = {  # Table 14: family mean accuracy % over the 18 x 29 grid, cell-level 95% CI
    "Chain-of-thought": (44.7, 43.0, 46.5),
    "Full-context": (43.9, 41.3, 46.9),
    "RAG k=50": (42.7, 42.1, 43.2),
    "RAG k=20": (42.3, 41.8, 42.8),
    "LLM-as-retriever": (42.1, 39.1, 45.4),
    "Structure-aware retrieval": (41.1, 39.6, 42.6),
}
FAMILIES_SOURCE = "Table 14"
HUMAN = (72.4, "Table 15: five readers, stratified 150-item sample")
GOLD_SCOPE = {"Full": 43.9, "Gold-Scope": 55.0}  # Table 4, mean of 18 models
RECALL = {"bm25-k20": 0.201, "e5-k20": 0.203, "bm25-k50": 0.308, "e5-k50": 0.310}  # Table 18, E5 = intfloat E5
RECALL_SOURCE = "Table 18"
