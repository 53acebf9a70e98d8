from __future__ import annotations

from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


@pytest.fixture(scope="session")
def data() -> Path:
    """The real data files (../shared/data). Tests that need them skip, loudly, where they are absent."""
    if not DATA.is_dir():
        pytest.skip(f"real data folder not found at {DATA}")
    return DATA


@pytest.fixture(scope="session")
def situation_counts() -> dict[str, int]:
    """The 12 SI-Bench situations and their dialogue counts in the released file (counted by hand once)."""
    return {
        "Relational Distance - Rejection": 593,
        "Implied meaning - Humor": 356,
        "Implied meaning - Irony/Sarcasm": 251,
        "Equivocation - Vagueness": 248,
        "Relational Test - Counter": 240,
        "Implied meaning - Euphemism": 173,
        "Relational Distance - Push-Pull": 116,
        "Implied meaning - Hint": 99,
        "Relational Test - Commitment": 48,
        "Relational Test - Authenticity": 40,
        "Equivocation - Ambiguity": 36,
        "Relational Test - Value": 21,
    }
