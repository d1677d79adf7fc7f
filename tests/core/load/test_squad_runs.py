"""SQuAD data gets the SQuAD scorers, and whole runs reproduce what the official scripts print
(`../shared/conformance/squad_runs/expected.json`), in memory (`score_run`) and once loaded."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from qa_inspect.core.formats import read_source
from qa_inspect.core.load import load_runs, score_run
from qa_inspect.core.model import Dataset, Run
from qa_inspect.core.report import report


@pytest.fixture(scope="module")
def expected(conformance_dir: Path) -> dict:
    return json.loads((conformance_dir / "squad_runs" / "expected.json").read_text(encoding="utf-8"))


def _read(path: Path) -> Dataset | Run:
    src = read_source(path)
    assert isinstance(src, (Dataset, Run)), src
    return src


def _close(got: dict, want: dict) -> None:
    assert list(got) == list(want), "same keys, in the script's order"
    for key, value in want.items():
        assert got[key] == pytest.approx(value, abs=1e-9), key


@pytest.mark.parametrize("name", ["v2_mixed", "v2_abstainer", "v11_missing10"])
def test_score_run_prints_the_official_dict(name: str, expected: dict, shared_data: Path, conformance_dir: Path) -> None:
    case = expected[name]
    ds = _read(shared_data / case["dataset"])
    run = _read(conformance_dir / "squad_runs" / f"{name}_predictions.json")
    scored = score_run(ds, run)  # type: ignore[arg-type]
    assert scored.scorer == case["scorer"], "the default follows what the data is"
    _close(scored.summary()["overall"], case["official"])


def test_no_answer_threshold_and_probabilities_given_explicitly(
    expected: dict, shared_data: Path, conformance_dir: Path
) -> None:
    case = expected["v2_mixed"]
    ds = _read(shared_data / case["dataset"])
    run = _read(conformance_dir / "squad_runs" / "v2_mixed_predictions.json")
    probs = json.loads((conformance_dir / "squad_runs" / case["no_answer_probabilities"]).read_text())
    _close(score_run(ds, run, na_probs=probs, na_prob_thresh=0.5).summary()["overall"], case["official_thresh_0.5"])  # type: ignore[arg-type]


def test_dataset_kinds_pick_their_scorer(shared_data: Path) -> None:
    assert _read(shared_data / "squad2_dev_normans.json").has_unanswerable  # type: ignore[union-attr]
    assert not _read(shared_data / "squad1_dev_normans_answerable.json").has_unanswerable  # type: ignore[union-attr]


def test_loaded_runs_report_the_official_exact_and_f1(
    expected: dict, shared_data: Path, conformance_dir: Path, tmp_path: Path
) -> None:
    runs = tmp_path / "runs"
    (runs / "data").mkdir(parents=True)
    for name in ("squad2_dev_normans.json", "squad1_dev_normans_answerable.json"):
        shutil.copy(shared_data / name, runs / "data" / name)
    for name in ("v2_abstainer", "v11_missing10"):
        (runs / name).mkdir()
        shutil.copy(conformance_dir / "squad_runs" / f"{name}_predictions.json", runs / name / "predictions.json")
    summary = load_runs(runs, tmp_path / "qa.db")
    assert not summary.errors, summary.errors
    with sqlite3.connect(tmp_path / "qa.db") as conn:
        scorers = dict(conn.execute("SELECT name, scorer FROM datasets"))
        assert scorers == {"squad2_dev_normans": "squad-v2", "squad1_dev_normans_answerable": "squad-v1.1"}
        table = report(conn, by=[])
    overall = {r["run"]: r for r in table.filter(table["slice"] == "overall").iter_rows(named=True)}
    v2 = expected["v2_abstainer"]["official"]
    assert overall["v2_abstainer"]["em"] == pytest.approx(v2["exact"], abs=1e-9)
    assert overall["v2_abstainer"]["f1"] == pytest.approx(v2["f1"], abs=1e-9)
    v11 = expected["v11_missing10"]["official"]
    assert overall["v11_missing10"]["em"] == pytest.approx(v11["exact_match"], abs=1e-9)
    assert overall["v11_missing10"]["f1"] == pytest.approx(v11["f1"], abs=1e-9)


def test_a_database_scored_under_older_rules_is_rescored(shared_data: Path, conformance_dir: Path, tmp_path: Path) -> None:
    """An unchanged folder loaded before SQuAD got its own scorer is read again once."""
    runs = tmp_path / "runs"
    (runs / "run").mkdir(parents=True)
    shutil.copy(shared_data / "squad2_dev_normans.json", runs / "squad2.json")
    shutil.copy(conformance_dir / "squad_runs" / "v2_abstainer_predictions.json", runs / "run" / "predictions.json")
    db = tmp_path / "qa.db"
    load_runs(runs, db)
    with sqlite3.connect(db) as conn:  # as an older qa-inspect left it
        conn.execute("UPDATE datasets SET scorer = 'cmrc2018-official'")
        conn.execute("UPDATE runs SET scorer = 'cmrc2018-official'")
        conn.execute("UPDATE predictions SET scorer = 'cmrc2018-official', em = 0")
        conn.execute("DELETE FROM settings WHERE key = 'scoring_rules'")
    again = load_runs(runs, db)
    assert {d.status for d in again.datasets} == {"loaded"}
    with sqlite3.connect(db) as conn:
        assert set(conn.execute("SELECT DISTINCT scorer FROM predictions")) == {("squad-v2",)}
        assert conn.execute("SELECT SUM(em) FROM predictions").fetchone()[0] > 0
    assert {d.status for d in load_runs(runs, db).datasets} == {"unchanged"}


def test_unanswerable_questions_are_a_slice_with_the_official_hasans_noans(
    expected: dict, shared_data: Path, conformance_dir: Path, tmp_path: Path
) -> None:
    from qa_inspect.core import query
    from qa_inspect.core.query import Filter

    runs = tmp_path / "runs"
    (runs / "v2_abstainer").mkdir(parents=True)
    shutil.copy(shared_data / "squad2_dev_normans.json", runs / "squad2.json")
    shutil.copy(conformance_dir / "squad_runs" / "v2_abstainer_predictions.json", runs / "v2_abstainer" / "predictions.json")
    load_runs(runs, tmp_path / "qa.db")
    want = expected["v2_abstainer"]["official"]
    with sqlite3.connect(tmp_path / "qa.db") as conn:
        table = report(conn, by=["answerable"])
        by = {r["value"]: r for r in table.filter(table["slice"] == "answerable").iter_rows(named=True)
              if r["run"] == "v2_abstainer"}
        assert by["answerable"]["items"] == want["HasAns_total"] and by["unanswerable"]["items"] == want["NoAns_total"]
        assert by["answerable"]["em"] == pytest.approx(want["HasAns_exact"], abs=1e-9)
        assert by["answerable"]["f1"] == pytest.approx(want["HasAns_f1"], abs=1e-9)
        assert by["unanswerable"]["em"] == pytest.approx(want["NoAns_exact"], abs=1e-9)
        facet = query.facet_table(conn, Filter(run="v2_abstainer"), "answerable")
        rows = {r.value: r for r in facet.rows}
        assert rows["unanswerable"].items == want["NoAns_total"]
        assert query.count(conn, rows["unanswerable"].filter) == want["NoAns_total"]


def test_detail_and_overview_say_no_answer_is_expected(shared_data: Path, conformance_dir: Path, tmp_path: Path) -> None:
    from qa_inspect.core.query import item_detail
    from qa_inspect.core.report import overview

    runs = tmp_path / "runs"
    (runs / "mixed").mkdir(parents=True)
    shutil.copy(shared_data / "squad2_dev_normans.json", runs / "squad2.json")
    for name in ("predictions", "null_odds"):
        shutil.copy(conformance_dir / "squad_runs" / f"v2_mixed_{name}.json", runs / "mixed" / f"v2_mixed_{name}.json")
    load_runs(runs, tmp_path / "qa.db")
    with sqlite3.connect(tmp_path / "qa.db") as conn:
        item_id = conn.execute("SELECT id FROM items WHERE answerable = 'unanswerable' LIMIT 1").fetchone()[0]
        run = conn.execute("SELECT name FROM runs").fetchone()[0]
        detail = item_detail(conn, item_id, run)
        ds = overview(conn)[0]
    assert detail is not None and detail.unanswerable and detail.scorer == "squad-v2"
    assert detail.prediction is not None and detail.prediction.no_answer_probability is not None
    assert ds.scorer == "squad-v2" and not ds.uses_f1_recall and "missing = 0" in ds.over
    assert ds.human is None or ds.human.overall.items > 0  # blank, not 0, where there is nothing to compare
