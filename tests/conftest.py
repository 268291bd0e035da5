"""Shared fixtures. Data from the shared folder beside the project is optional: tests that need
it skip with a reason where it is absent."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

PROJECT_DIR = Path(__file__).resolve().parent.parent
SHARED_DATA = Path(
    os.environ.get("EVALTRANS_SHARED_DATA", PROJECT_DIR.parent / "shared" / "mt-eval-data")
)


def shared_path(*parts: str) -> Path:
    """Path of a file of the shared real data; skips the calling test when it is absent."""
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"shared data not available: {'/'.join(parts)} (set EVALTRANS_SHARED_DATA)")
    return path


@pytest.fixture
def shared_data() -> Path:
    """Root of the shared mt-eval-data folder; skips when it is absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip("shared mt-eval-data folder not available (set EVALTRANS_SHARED_DATA)")
    return SHARED_DATA
