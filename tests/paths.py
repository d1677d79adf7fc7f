"""Where test inputs live, for test modules at any depth of `tests/`."""

from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent
FIXTURES = TESTS / "fixtures"
SAMPLE_RUNS = REPO / "sample_runs"
CORE = REPO / "core"
