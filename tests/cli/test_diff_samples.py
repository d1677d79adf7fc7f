"""`qa-inspect diff` of sampled runs: a samples table (text, Markdown) and `samples` in --json;
runs of one answer per item print exactly what they printed before."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from qa_inspect.core.load import load_runs
from qa_inspect.tui.cli import app
from typer.testing import CliRunner

from tests.diff_samples_data import diff_samples_folder

runner = CliRunner()


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = diff_samples_folder(tmp_path_factory.mktemp("diff_samples_cli"))
    assert not load_runs(folder).errors
    return folder


def test_text_markdown_and_json(runs: Path) -> None:
    text = runner.invoke(app, ["diff", str(runs), "a", "b", "--no-stats"])
    assert text.exit_code == 0, text.output
    assert "Samples (pass@1" in text.output and "became flaky" in text.output and "+25.00" in text.output
    md = runner.invoke(app, ["diff", str(runs), "a", "b", "--no-stats", "--markdown"])
    assert "## Samples (pass@1" in md.output and "| pass@1 A |" in md.output
    data = json.loads(runner.invoke(app, ["diff", str(runs), "a", "b", "--no-stats", "--json"]).output)
    assert data["samples"]["pass1_a"] == 50.0 and data["samples"]["pass1_b"] == 75.0
    assert (data["samples"]["became_flaky"], data["samples"]["became_stable"], data["samples"]["still_flaky"]) == (1, 1, 1)


def test_single_answer_runs_unchanged(runs: Path) -> None:
    text = runner.invoke(app, ["diff", str(runs), "one", "two", "--no-stats"])
    assert text.exit_code == 0 and "Samples" not in text.output and "pass@1" not in text.output
    data = json.loads(runner.invoke(app, ["diff", str(runs), "one", "two", "--no-stats", "--json"]).output)
    assert "samples" not in data
