"""The code says what it holds: mypy, with the settings in pyproject.toml (`[tool.mypy]`), finds
nothing in `qa_inspect.core` or `qa_inspect.tui`.

The check runs as `python -m mypy` from the repository root, as a developer runs it, so the
configuration under test is the one in the repository (its incremental cache makes a re-run quick).
"""

from __future__ import annotations

import subprocess
import sys

from tests.paths import REPO


def test_mypy_finds_no_errors() -> None:
    res = subprocess.run(
        [sys.executable, "-m", "mypy"], capture_output=True, text=True, cwd=REPO, timeout=900,
    )
    output = res.stdout + res.stderr
    assert res.returncode == 0, f"mypy exit {res.returncode}:\n{output[-8000:]}"
    assert "Success: no issues found" in output, output[-2000:]
