from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
GAMES = ROOT / "games"


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT
