"""Unknown names on the command line: one line, worded by `core.errors.unknown_name`, listing the known ones."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from qa_inspect.core.report import REPORT_METRICS, SLICES
from qa_inspect.tui.cli import app
from tests.helpers import copy_loaded

runner = CliRunner()
DATASETS = "cdqa_sample, cmrc2018_dev_sample"
LINKED_RUNS = "bert-base-chinese, bidaf-baseline, glm-6b, qwen-7b-chat, roberta-wwm-large"
METRO_Q = "澜州市最近开通运营的地铁线路是几号线？"  # a cdqa_sample question

pytestmark = pytest.mark.usefixtures("no_author_env")


@pytest.fixture
def runs(loaded_template: Path, tmp_path: Path) -> Path:
    return copy_loaded(loaded_template, tmp_path)


def run(runs: Path, *args: str, code: int = 0) -> Result:
    """`qa-inspect <command> RUNS_DIR <args> --db …`; `args[0]` may be `stale <sub-command>`."""
    words = args[0].split()
    result = runner.invoke(app, [*words, str(runs), *args[1:], "--db", str(runs.parent / "qa.db")])
    assert result.exit_code == code, (result.output, result.stderr)
    return result


def error_line(result: Result) -> str:
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr  # one line, no traceback
    return lines[0]


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (("stale list", "--dataset", "nope"), f"unknown dataset 'nope'; known: {DATASETS}"),
        (("stale export", "--dataset", "nope", "-o", "-"), f"unknown dataset 'nope'; known: {DATASETS}"),
        (("stale score", "--run", "nope"), f"unknown run 'nope' linked to a dataset; known: {LINKED_RUNS}"),
        (("export", "--dataset", "nope", "-o", "x.csv"), f"--dataset: unknown dataset 'nope'; known: {DATASETS}"),
        (("export", "--compare", "nope", "-o", "x.csv"), f"--compare: unknown run 'nope'; known: {LINKED_RUNS}"),
        (("slices save", "x", "--run", "nope"), f"--run: unknown run 'nope'; known: {LINKED_RUNS}"),
        (("slices save", "x", "--run", "qwen-7b-chta"),
         f"--run: unknown run 'qwen-7b-chta'; known: {LINKED_RUNS} (did you mean 'qwen-7b-chat'?)"),
        (("slices delete", "nope"), "unknown slice 'nope'; known: none saved"),
        (("export", "--slice", "nope", "-o", "x.csv"), "unknown slice 'nope'; known: none saved"),
        (("report", "--by", "colour"), "--by: unknown slice dimension 'colour'; known: " + ", ".join(SLICES)),
        (("label add", "bert-base-chinse", "DEV_1_QUERY_0", "--label", "paraphrase"),
         f"unknown run 'bert-base-chinse' linked to a dataset; known: {LINKED_RUNS} (did you mean 'bert-base-chinese'?)"),
        (("slices find", "bert-base-chinese", "roberta-wwm-large", "--metric", "bleu"),
         "--metric: unknown metric 'bleu'; known: " + ", ".join(REPORT_METRICS)),
        (("leaderboard", "--dataset", "nope"), f"unknown dataset 'nope'; known: {DATASETS}"),
    ],
)
def test_unknown_names_list_the_loaded_ones(runs: Path, args: tuple[str, ...], line: str) -> None:
    assert error_line(run(runs, *args, code=1)) == f"qa-inspect: {line}"


def test_flags_of_a_dataset_no_longer_loaded_can_still_be_listed_and_exported(runs: Path) -> None:
    run(runs, "stale mark", METRO_Q, "--new-answer", "7号线")
    shutil.rmtree(runs / "cdqa")  # the dataset goes; its flags stay in the journal
    [flag] = json.loads(run(runs, "stale list", "--dataset", "cdqa_sample", "--json").stdout)
    assert flag["status"] == "orphaned"
    patch = json.loads(run(runs, "stale export", "--dataset", "cdqa_sample", "-o", "-").stdout)
    assert patch["dataset"] == "cdqa_sample" and patch["proposed_answer"] == "7号线"
    # a new release needs the dataset itself
    result = run(runs, "stale export", "--format", "dataset", "--dataset", "cdqa_sample", "-o", "x.json", code=1)
    assert error_line(result) == "qa-inspect: unknown dataset 'cdqa_sample'; known: cmrc2018_dev_sample"
    result = run(runs, "stale list", "--dataset", "cdqa", code=1)  # no flag names it either
    assert error_line(result) == "qa-inspect: unknown dataset 'cdqa'; known: cmrc2018_dev_sample"
