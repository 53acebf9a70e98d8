"""PerSo's published numbers, typed in once from our copy of the paper (a section summary), with their source.
Shown only with ``socialbench report perso --compare-paper``, always labelled as the paper's."""

from __future__ import annotations

BEHAVIORAL = {
    "Qwen-3.5-397B": (76.0, "§4.2"),
    "Sonnet-4.6": (71.5, "§4.2"),
    "DeepSeek-V3.2": (69.0, "§4.2"),
    "DeepSeek-V3.1": (67.5, "§4.2"),
    "DeepSeek-V4-Pro": (62.0, "§4.2"),
    "best human participant": (75.0, "§4.2"),
}
BASELINES = {
    "length heuristic": (65.5, "Table 9"),
    "surface-feature classifier (best)": (68.0, "Table 9"),
}
FIRST_CHOICE_BAND = (45.0, 58.0, "Fig. 2: 12 of 15 models")
COGNITIVE: dict[str, tuple[dict[str, float | None], str]] = {
    # model: {dimension: accuracy %}, None where our copy does not give the number
    "Qwen-3.5-397B": ({"belief": 80.5, "emotion": 41.0, "intent": None}, "§4.4"),
    "Sonnet-4.6": ({"belief": None, "emotion": 59.0, "intent": None}, "§4.3"),
    "Gemma-3-4B": ({"belief": None, "emotion": 20.5, "intent": None}, "§4.3"),
    "DeepSeek-V4-Pro": ({"belief": 80.0, "emotion": 39.75, "intent": 75.0}, "§A.3"),
    "SBERT baseline": ({"belief": 21.0, "emotion": 23.25, "intent": 11.75}, "Table 9"),
}
AGREEMENT_KAPPA = {"belief": 0.911, "emotion": 0.623, "intent": 0.709}
"""Table 4: answer-selection agreement of the verification study."""
