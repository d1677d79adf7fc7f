"""`qa-inspect slices find`: the slice finder from the command line."""

from __future__ import annotations

import json

from qa_inspect.tui.cli import app
from typer.testing import CliRunner

from tests.paths import SAMPLE_RUNS

runner = CliRunner()


def test_find_prints_the_family_and_ranked_slices() -> None:
    folder = str(SAMPLE_RUNS / "cmrc2018")
    text = runner.invoke(app, ["slices", "find", folder, "bidaf-baseline", "roberta-wwm-large", "--min-items", "10",
                               "--resamples", "500"])
    assert text.exit_code == 0, text.output
    assert "slices tested (Holm over all)" in text.output and "seed 20180" in text.output
    data = json.loads(runner.invoke(app, ["slices", "find", folder, "bidaf-baseline", "roberta-wwm-large",
                                          "--min-items", "10", "--resamples", "500", "--json", "--top", "3"]).output)
    assert data["metric"] == "f1" and data["tested"] >= 3 and len(data["slices"]) == 3
    assert data["slices"][0]["p_holm"] <= data["slices"][-1]["p_holm"]


def test_unknown_run_and_metric_are_one_line() -> None:
    folder = str(SAMPLE_RUNS / "cmrc2018")
    bad = runner.invoke(app, ["slices", "find", folder, "bidaf-baseline", "nope"])
    assert bad.exit_code == 1 and "nope" in bad.output and "Traceback" not in bad.output
    bad = runner.invoke(app, ["slices", "find", folder, "bidaf-baseline", "roberta-wwm-large", "--metric", "bleu"])
    assert bad.exit_code == 1 and "unknown metric 'bleu'" in bad.output
