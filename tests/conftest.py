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
