"""What the CLI test modules share: invoking the Typer app and a fresh copy of the sample runs."""

from __future__ import annotations

import shutil
from pathlib import Path

from typer.testing import CliRunner, Result

from qa_inspect.tui.cli import app

__all__ = ["copy_sample_runs", "invoke", "runner"]

runner = CliRunner()


def copy_sample_runs(sample_runs: Path, tmp_path: Path) -> Path:
    """sample_runs copied to `tmp_path/runs`, not loaded (no `.qa-inspect` state folder)."""
    dest = tmp_path / "runs"
    shutil.copytree(sample_runs, dest, ignore=shutil.ignore_patterns(".qa-inspect"))
    return dest


def invoke(*args: str, env: dict[str, str] | None = None) -> Result:
    """`qa-inspect ARGS…` in-process; anything but a clean exit (a traceback) fails the test here."""
    result = runner.invoke(app, list(args), env=env)
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output
    return result
