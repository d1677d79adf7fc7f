"""A run against a dataset split into several files: `[[run]] dataset = ["D1", "D2"]` scores it
against each file's items (one run per file), across reloads; following the split warning's
advice is all it takes; a bad list is one error line naming the key."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from qa_inspect.core.load import load_runs
from qa_inspect.core.store import open_db


def _squad(ids: range) -> str:
    qas = [{"id": f"A{i}", "question": f"Question {i}?", "answers": [{"text": "fox", "answer_start": 4}]} for i in ids]
    return json.dumps({"data": [{"title": "t", "paragraphs": [{"context": "The fox", "qas": qas}]}]})


@pytest.fixture
def runs(tmp_path: Path) -> Path:
    root = tmp_path / "runs"
    root.mkdir()
    (root / "part1.json").write_text(_squad(range(0, 6)), encoding="utf-8")
    (root / "part2.json").write_text(_squad(range(6, 10)), encoding="utf-8")
    (root / "run.json").write_text(json.dumps({f"A{i}": "fox" if i % 2 else "dog" for i in range(10)}), encoding="utf-8")
    return root


def _manifest(root: Path, datasets: object) -> None:
    (root / "qa-inspect.toml").write_text(f'[[run]]\npath = "run.json"\ndataset = {json.dumps(datasets)}\n',
                                          encoding="utf-8")


def _rows(root: Path) -> list[tuple[str, str, int, int]]:
    conn = open_db(root / ".qa-inspect" / "qa.db").conn
    try:
        return conn.execute("SELECT r.name, d.name, r.prediction_count, r.unmatched_count FROM runs r"
                            " JOIN datasets d ON d.id = r.dataset_id ORDER BY r.name").fetchall()
    finally:
        conn.close()


def test_the_split_warning_says_the_lines_that_score_each_file(runs: Path) -> None:
    summary = load_runs(runs)
    assert _rows(runs) == [("run", "part1", 6, 4)]
    [warning] = [w["message"] for w in summary.warnings]
    advice = warning.split("split dataset? ")[1].removesuffix(" in qa-inspect.toml scores it against each")
    (runs / "qa-inspect.toml").write_text(advice.replace(", dataset", "\ndataset").replace("[[run]] ", "[[run]]\n"),
                                          encoding="utf-8")
    summary = load_runs(runs)
    assert summary.errors == [] and summary.warnings == []
    assert _rows(runs) == [("run (part1)", "part1", 6, 0), ("run (part2)", "part2", 4, 0)]


def test_each_part_is_scored_against_its_own_file_and_kept_across_reloads(runs: Path) -> None:
    _manifest(runs, ["part1", "part2"])
    first = load_runs(runs)
    assert {(r.name, r.dataset, r.predictions, r.status) for r in first.runs} == {
        ("run (part1)", "part1", 6, "loaded"), ("run (part2)", "part2", 4, "loaded")}
    again = load_runs(runs)
    assert {(r.name, r.status) for r in again.runs} == {("run (part1)", "unchanged"), ("run (part2)", "unchanged")}
    (runs / "run.json").write_text(json.dumps({f"A{i}": "fox" for i in range(10)}), encoding="utf-8")
    load_runs(runs)
    assert _rows(runs) == [("run (part1)", "part1", 6, 0), ("run (part2)", "part2", 4, 0)]
    conn = open_db(runs / ".qa-inspect" / "qa.db").conn
    assert conn.execute("SELECT COUNT(*), SUM(em) FROM predictions").fetchone() == (10, 10)
    conn.close()
    (runs / "qa-inspect.toml").unlink()  # back to one run, linked by coverage
    load_runs(runs)
    assert _rows(runs) == [("run", "part1", 6, 4)]


def test_predictions_naming_no_file_stay_with_the_first(runs: Path) -> None:
    (runs / "run.json").write_text(json.dumps({"A1": "fox", "A7": "fox", "X": "?"}), encoding="utf-8")
    _manifest(runs, ["part1", "part2"])
    load_runs(runs)
    assert _rows(runs) == [("run (part1)", "part1", 1, 1), ("run (part2)", "part2", 1, 0)]


@pytest.mark.parametrize(("value", "says"), [
    ([], "expected a dataset name or a non-empty list of them"),
    (["part1", 3], "expected a dataset name or a non-empty list of them"),
    (["part1", "part1"], "dataset 'part1' named twice"),
])
def test_a_bad_list_is_one_error_naming_the_key(runs: Path, value: object, says: str) -> None:
    _manifest(runs, value)
    summary = load_runs(runs)
    assert [e["message"] for e in summary.errors] == [f"qa-inspect.toml, [[run]] #1, dataset: {says}"]
