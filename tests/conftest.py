from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

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


CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_FLAGS = [  # headless as root, and quiet on a machine without internet
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@contextmanager
def chromium_browser() -> Iterator[Any]:
    """Debian's chromium driven by Playwright (never `playwright install`); `make test` installs chromium. Start it
    after any inspect eval of the test: Playwright's sync API keeps an event loop of its own while it runs."""
    if not CHROMIUM.exists():
        pytest.skip("Debian's chromium is not installed at /usr/bin/chromium (`make test` installs it)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_FLAGS)
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture
def browser() -> Iterator[Any]:
    with chromium_browser() as launched:
        yield launched
