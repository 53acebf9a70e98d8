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
    "surface-feature classifier (lowest)": (62.5, "Table 9"),
}
FIRST_CHOICE_BAND = (45.0, 58.0, "Fig. 2: 12 of 15 models")
COGNITIVE: dict[str, tuple[dict[str, float | None], str]] = {
    # model: {dimension: accuracy %}, None where our copy does not give the number
    "Qwen-3.5-397B": ({"belief": 80.5, "emotion": 41.0, "intent": None}, "§4.4"),
    "Qwen-3.5-397B (thinking)": ({"belief": 79.0, "emotion": 48.75, "intent": None}, "§4.4"),
    "Qwen-3.5-35B": ({"belief": 71.75, "emotion": 35.75, "intent": None}, "§4.4"),
    "Qwen-3.5-35B (thinking)": ({"belief": 69.75, "emotion": 41.25, "intent": None}, "§4.4"),
    "Qwen-3.5-4B": ({"belief": 66.0, "emotion": None, "intent": None}, "§4.4"),
    "Qwen-3.5-4B (thinking)": ({"belief": 63.5, "emotion": None, "intent": None}, "§4.4"),
    "Sonnet-4.6": ({"belief": None, "emotion": 59.0, "intent": 80.5}, "§4.3, intent derived"),
    "Gemma-3-4B": ({"belief": None, "emotion": 20.5, "intent": None}, "§4.3"),
    "Gemma-3-12B": ({"belief": None, "emotion": 23.25, "intent": None}, "§4.3"),
    "DeepSeek-V4-Pro": ({"belief": 80.0, "emotion": 39.75, "intent": 75.0}, "§A.3"),
    "best human participant": ({"belief": None, "emotion": 65.0, "intent": 85.0}, "§4.3, derived"),
    "SBERT baseline": ({"belief": 21.0, "emotion": 23.25, "intent": 11.75}, "Table 9"),
}
FIGURE_COGNITIVE = ("Qwen-3.5-397B", "Sonnet-4.6", "Gemma-3-4B", "DeepSeek-V4-Pro", "SBERT baseline")
"""The paper rows drawn as markers in the cognitive figure (one marker shape each); the table lists all rows."""
SOURCES = {
    "Qwen-3.5-397B": "§4.2 p.6: 'Qwen-3.5-397B leads the behavioral task at 76%'; §4.4 p.8: 'Enabling thinking "
    "improves emotion accuracy for ... 397B (41.0% to 48.75%)', 'Belief accuracy falls from ... 80.5% to 79.0% "
    "for 397B'",
    "Qwen-3.5-397B (thinking)": "§4.4 p.8: '397B (41.0% to 48.75%)'; '80.5% to 79.0% for 397B'",
    "Qwen-3.5-35B": "§4.4 p.8: 'emotion accuracy for 35B (35.75% to 41.25%)'; belief '71.75% to 69.75% for 35B'",
    "Qwen-3.5-35B (thinking)": "§4.4 p.8: 'emotion accuracy for 35B (35.75% to 41.25%)'; belief '71.75% to 69.75%'",
    "Qwen-3.5-4B": "§4.4 p.8: 'Belief accuracy falls from 66.0% to 63.5% for 4B'",
    "Qwen-3.5-4B (thinking)": "§4.4 p.8: 'Belief accuracy falls from 66.0% to 63.5% for 4B'",
    "Sonnet-4.6": "§4.2 p.6: 'Sonnet-4.6, at 71.5%'; §4.3 p.7: 'Sonnet-4.6 scores 59% on emotion'; intent 80.5, "
    "derived: 'intent scores clustered from 60% to 80.5%' and 'Sonnet-4.6 leads all three cognitive dimensions'",
    "Gemma-3-4B": "§4.3 p.7: 'Gemma-3-4B and Gemma-3-12B scored 20.5% and 23.25%, respectively' (emotion)",
    "Gemma-3-12B": "§4.3 p.7: 'Gemma-3-4B and Gemma-3-12B scored 20.5% and 23.25%, respectively' (emotion)",
    "DeepSeek-V4-Pro": "§4.2 p.6: 'DeepSeek V4-Pro scores 62%'; §A.3 p.13: 'highest on belief at 80.0%, emotion at "
    "39.75%, and intent at 75.0%'",
    "DeepSeek-V3.1": "§4.2 p.6: 'below V3.1 at 67.5% and V3.2 at 69%'",
    "DeepSeek-V3.2": "§4.2 p.6: 'below V3.1 at 67.5% and V3.2 at 69%'",
    "best human participant": "§4.2 p.7: 'the best human participant's 75% on the behavioral task'; §4.3 pp.7-8: "
    "'the best human participant remains ahead by ... 6 on emotion, and 4.5 on intent' (of Sonnet-4.6's 59% and "
    "80.5%: 65.0 and 85.0, derived; belief is not derivable: Sonnet-4.6's belief score is not stated)",
    "SBERT baseline": "§A.7 p.19: 'SBERT scores 21.00%, 23.25%, and 11.75% on belief, emotion, and intent'",
    "length heuristic": "§A.7 p.19: 'near the 65.5% length heuristic'",
    "surface-feature classifier (best)": "§A.7 p.19: 'Behavioral surface-feature classifiers achieve 62.5-68.0%'",
    "surface-feature classifier (lowest)": "§A.7 p.19: 'Behavioral surface-feature classifiers achieve 62.5-68.0%'",
}
"""The line of our copy of the paper each row comes from (shown in the --compare-paper table)."""
AGREEMENT_KAPPA = {"belief": 0.911, "emotion": 0.623, "intent": 0.709}
"""Table 4: answer-selection agreement of the verification study."""
