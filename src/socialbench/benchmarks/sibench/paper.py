"""SI-Bench's published Table 1 scores, typed in once, with their source. Only rows whose columns our copy of the
table (the text we develop against, which lost some cells) gives unambiguously are here; the human expert's reply
scores are from §4.1's text. Shown only with ``socialbench report sibench --compare-paper``, labelled."""

from __future__ import annotations

TABLE1_SOURCE = "SI-Bench Table 1"
TABLE1_COLUMNS = (
    "motivation",
    "cause",
    "emotional_attitude",
    "social_intention",
    "communicative_strategy",
    "cot_reply",
    "direct_reply",
)
_FULL_ROWS = {
    "Claude-4-Opus": (7.62, 7.57, 8.95, 7.47, 6.80, 5.32, 5.28),
    "Claude-4-Sonnet": (7.50, 7.28, 8.90, 7.85, 7.37, 5.07, 5.37),
    "Doubao-1.5-Pro-Character": (2.63, 2.63, 4.61, 6.51, 6.25, 4.63, 5.00),
    "Doubao-Seed-1.6": (5.97, 6.05, 7.24, 6.54, 6.28, 5.06, 5.47),
    "GPT-4o": (5.63, 5.72, 7.65, 7.03, 7.06, 5.07, 4.54),
    "Gemini-2.5-Flash": (5.66, 6.49, 7.93, 7.57, 7.01, 4.56, 4.61),
}
TABLE1: dict[str, dict[str, float | None]] = {
    **{name: dict(zip(TABLE1_COLUMNS, values, strict=True)) for name, values in _FULL_ROWS.items()},
    # the row's fifth cell (communicative strategy) is empty in the table: the other six are unambiguous
    "Qwen-2.5-Max": {
        "motivation": 5.20,
        "cause": 5.15,
        "emotional_attitude": 7.15,
        "social_intention": 7.35,
        "cot_reply": 4.85,
        "direct_reply": 4.47,
    },
    "Gemini-2.5-Pro": {"communicative_strategy": 6.99, "cot_reply": 5.73, "direct_reply": 5.94},
    # Table 1's "Human" row gives the five process scores; the reply scores are §4.1's text
    "Human expert": {
        "motivation": 5.68,
        "cause": 5.41,
        "emotional_attitude": 6.99,
        "social_intention": 7.68,
        "communicative_strategy": 7.11,
        "cot_reply": 6.13,
        "direct_reply": 6.40,
    },
}
TABLE1_ROW_SOURCES = {
    "Qwen-2.5-Max": "Table 1 (its communicative-strategy cell is empty)",
    "Gemini-2.5-Pro": "Table 1 (only its last three cells are given)",
    "Human expert": "Table 1 (process scores); §4.1 (reply scores)",
}
"""Where a row's numbers come from, for rows that are not one full line of Table 1."""
HUMAN_ALPHA = 0.712
"""Krippendorff's alpha of the three annotators (§3.3)."""
TABLE2_FULL_COT = {"Doubao-1.5-Pro": 4.32, "Doubao-1.6-Thinking": 4.55, "GPT-4o": 4.32, "Qwen-2.5-Max": 5.23}
"""Table 2's "Full CoT Setup" reply scores on the 100 random ablation dialogues (the per-component cells are not in
our copy)."""
