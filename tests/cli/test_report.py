"""`qa-inspect report`: every run × slice as a table, JSON, CSV or Markdown."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from tests.cli.helpers import copy_sample_runs, invoke

@pytest.fixture
def runs(tmp_path: Path, sample_runs: Path) -> Path:
    return copy_sample_runs(sample_runs, tmp_path)


def test_report_formats(runs: Path, tmp_path: Path) -> None:
    db = tmp_path / "qa.db"
    res = invoke("report", str(runs), "--db", str(db), "--json")
    assert res.exit_code == 0, res.output
    rows = json.loads(res.stdout)
    assert isinstance(rows, list) and rows
    assert set(rows[0]) == {"dataset", "family", "scorer", "run", "slice", "value", "items", "item_share", "predicted",
                            "em", "f1",
                            "answered", "f1_recall", "answer_rate", "errors", "error_share",
                            "em_over_run", "f1_over_run", "answer_rate_over_dataset"}
    runs_seen = {r["run"] for r in rows}
    assert runs_seen == {"bert-base-chinese", "bidaf-baseline", "roberta-wwm-large", "glm-6b", "qwen-7b-chat",
                         "human estimate"}
    bert = next(r for r in rows if r["run"] == "bert-base-chinese" and r["slice"] == "overall")
    assert (bert["items"], bert["predicted"]) == (153, 150)

    res = invoke("report", str(runs), "--db", str(db), "--csv")
    assert res.exit_code == 0
    table = list(csv.DictReader(io.StringIO(res.stdout)))
    assert len(table) == len(rows)
    assert table[0].keys() == rows[0].keys()
    assert {r["run"] for r in table} == runs_seen

    res = invoke("report", str(runs), "--db", str(db), "--markdown")
    assert res.exit_code == 0
    lines = res.stdout.splitlines()
    assert lines[0].startswith("| dataset | scorer | run | slice | value | items |")
    assert set(lines[1]) <= set("|-")
    assert len(lines) == 2 + len(rows)
    assert all(ln.startswith("| ") and ln.endswith(" |") for ln in lines[:1] + lines[2:])
    assert all(ln.count(" | ") == lines[0].count(" | ") for ln in lines[2:])  # no cell breaks the table

    res = invoke("report", str(runs), "--db", str(db))
    assert res.exit_code == 0
    assert "roberta-wwm-large" in res.stdout and "human estimate" in res.stdout


def test_report_by_one_dimension(runs: Path, tmp_path: Path) -> None:
    res = invoke("report", str(runs), "--db", str(tmp_path / "qa.db"), "--by", "tag", "--json")
    assert res.exit_code == 0
    assert {r["slice"] for r in json.loads(res.stdout)} == {"overall", "tag"}
    res = invoke("report", str(runs), "--db", str(tmp_path / "qa.db"), "--by", "tag,colour")
    assert res.exit_code == 1
    assert res.stderr.strip() == (
        "qa-inspect: --by: unknown slice dimension 'colour'; known: split, tag, answer_type, answerable, question_type,"
        " gold_length, passage_length, answer_position, gold_count, gold_agreement, cross_sentence,"
        " question_overlap, error_category, label")


def test_report_text_names_the_other_denominator_of_partial_runs(runs: Path, tmp_path: Path) -> None:
    res = invoke("report", str(runs), "--db", str(tmp_path / "qa.db"), "--by", "split")
    assert res.exit_code == 0
    assert "bert-base-chinese answers 150 of 153 items of cmrc2018_dev_sample: over the items it answered EM" in res.stdout
    assert "qwen-7b-chat answers" not in res.stdout  # it answers every item: nothing to add


def test_ci_gives_each_run_the_leaderboard_intervals(runs: Path, tmp_path: Path) -> None:
    db = tmp_path / "qa.db"
    res = invoke("report", str(runs), "--db", str(db), "--ci", "--resamples", "500", "--json")
    assert res.exit_code == 0, res.output
    rows = {(r["dataset"], r["run"]): r for r in json.loads(res.stdout) if r["slice"] == "overall"}
    boards = json.loads(invoke("leaderboard", str(runs), "--db", str(db), "--resamples", "500", "--json").stdout)
    for board in boards:
        for run in board["rows"]:
            name = "human estimate" if run["human"] else run["run"]
            row = rows[(board["dataset"], name)]
            assert row["ci_unit"] == board["unit"]
            for metric in ("em", "f1", "f1_recall", "answer_rate"):
                if metric in run["metrics"]:
                    m = run["metrics"][metric]
                    assert (row[f"{metric}_low"], row[f"{metric}_high"]) == pytest.approx((m["low"], m["high"]))
                    assert row[metric] == pytest.approx(m["value"])
    text = invoke("report", str(runs), "--db", str(db), "--ci", "--resamples", "500")
    assert "95% intervals, 500 bootstrap resamples, seed 20180" in text.stdout
    bad = invoke("report", str(runs), "--db", str(db), "--ci", "--slice", "x")
    assert bad.exit_code == 1
