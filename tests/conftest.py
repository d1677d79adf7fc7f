"""Shared fixtures: the real data beside the repository, and the sample runs folder."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"
SAMPLE_RUNS = REPO / "sample_runs"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """`../shared/data` (CMRC 2018 dev/trial, CDQA v1); skipped with a visible reason when absent."""
    path = SHARED / "data"
    if not path.is_dir():
        pytest.skip(f"real data not available: {path} is absent (it sits beside the repository)")
    return path


@pytest.fixture(scope="session")
def conformance_dir() -> Path:
    """`../shared/conformance`: the official scorers' answers on known inputs."""
    path = SHARED / "conformance"
    if not path.is_dir():
        pytest.skip(f"conformance files not available: {path} is absent (it sits beside the repository)")
    return path


@pytest.fixture(scope="session")
def sample_runs() -> Path:
    return SAMPLE_RUNS
