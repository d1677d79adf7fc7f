"""A paper table's intervals (`paper_table_ci`): every cell on one shared resampling per dataset.

Each interval is checked against a computation written out here (the dataset's count matrix
drawn from the leaderboard's stream, per-unit sums by `bincount`, the percentiles by numpy), and
a run's interval over the whole dataset against the leaderboard's own — on the real CMRC dev runs
beside the repository (passages as units, a slice column, the human row) and on generated CDQA
runs whose rows are three runs each (items as units, F1-recall over answered items)."""

from __future__ import annotations

import shutil
import sqlite3
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from qa_inspect.core import flags as F
from qa_inspect.core import stats
from qa_inspect.core.load import load_runs
from qa_inspect.core.report import (
    HUMAN,
    PaperTable,
    StatOptions,
    TableSpec,
    folder_run_settings,
    leaderboard,
    paper_table,
    resampling_unit,
    stored_run_settings,
)
from qa_inspect.core.report.paper_table_ci import table_items
from qa_inspect.core.report.run_stats import dataset_items, metric_values
from qa_inspect.core.report.significance import clusters_for, shared_stream

from tests.core.report.test_paper_table_sums import _cdqa_eval, _span_run
from tests.helpers import Env

SEED, RESAMPLES = 7, 400
CMRC = "cmrc2018_dev"


@pytest.fixture(scope="module")
def cmrc_db(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """CMRC 2018 dev with the two real runs beside the repository."""
    root = tmp_path_factory.mktemp("cmrc")
    shutil.copy(shared_data / "cmrc2018_dev.json", root / "cmrc2018_dev.json")
    for run in sorted((shared_data / "runs").glob("cmrc2018_dev_*.json")):
        shutil.copy(run, root / run.name)
    summary = load_runs(root)
    assert not summary.errors, summary.errors
    return root / ".qa-inspect" / "qa.db"


def _direct(conn: sqlite3.Connection, parts: list[tuple[str, np.ndarray, np.ndarray]]) -> tuple[float, float]:
    """A cell's interval by hand: per part (a dataset, its per-item values, the items counted),
    the dataset's count matrix from its shared stream (the leaderboard's), weighted totals and
    weighted item counts, parts added before dividing; the 2.5th and 97.5th percentiles."""
    total, n = np.zeros(RESAMPLES), np.zeros(RESAMPLES)
    for dataset, values, over in parts:
        data = dataset_items(conn, dataset)
        unit = resampling_unit("auto", data.contexts)
        clusters = clusters_for(unit, data.contexts, data.item_ids)
        labels = np.arange(len(data.item_ids)) if clusters is None else np.unique(clusters, return_inverse=True)[1]
        units = int(labels.max()) + 1
        boot, _ = shared_stream(StatOptions(seed=SEED, resamples=RESAMPLES), dataset, unit).spawn(2)
        counts = np.vstack(list(stats.count_blocks(units, RESAMPLES, boot)))
        assert counts.shape == (RESAMPLES, units) and (counts.sum(axis=1) == units).all()
        total += counts @ np.bincount(labels, weights=np.where(over, values, 0.0), minlength=units)
        n += counts @ np.bincount(labels, weights=over.astype(float), minlength=units)
    draws = total[n > 0] / n[n > 0]
    low, high = np.quantile(draws, [0.025, 0.975])
    return float(low), float(high)


def _table(db: Path, spec: TableSpec) -> PaperTable:
    with sqlite3.connect(db) as conn:
        return paper_table(conn, spec, stored_run_settings(conn))


def test_run_intervals_are_the_leaderboards_and_the_direct_ones(cmrc_db: Path) -> None:
    spec = TableSpec(cells=("em", "f1"), human=True, ci=True, seed=SEED, resamples=RESAMPLES)
    table = _table(cmrc_db, spec)
    assert table.ci_units == {CMRC: "passage"}
    with sqlite3.connect(cmrc_db) as conn:
        board = leaderboard(conn, CMRC, options=StatOptions(seed=SEED, resamples=RESAMPLES))[0]
        data = dataset_items(conn, CMRC)
        for i, runs in table.runs.items():
            row = next(r for r in board.rows if r.run == runs[0])
            scores = data.human if runs == [HUMAN] else data.runs[runs[0]]
            assert scores is not None
            for metric in ("em", "f1"):
                cell = table.cell(i, "all", metric)
                assert cell is not None
                ci = row.metrics[metric]
                assert cell.ci[metric] == (ci.low, ci.high), f"{runs} {metric}: the leaderboard's interval"
                expected = _direct(conn, [(CMRC, *metric_values(data, scores, metric, human=runs == [HUMAN]))])
                assert cell.ci[metric] == pytest.approx(expected, rel=1e-12)
    assert len(table.runs) == 3, "the human row and the two runs"


def test_slices_resample_the_whole_dataset(shared_data: Path, tmp_path: Path) -> None:
    """A column of an item dimension (SQuAD 2.0's answerable / unanswerable questions, a run
    drawn per question): the slice's items counted, the whole dataset's passages resampled."""
    name = "squad2_dev_normans"
    shutil.copy(shared_data / f"{name}.json", tmp_path / f"{name}.json")
    (tmp_path / name).mkdir()
    _span_run(shared_data / f"{name}.json", tmp_path / name / "eval_predictions.json", "slices")
    assert not load_runs(tmp_path).errors
    db = tmp_path / ".qa-inspect" / "qa.db"
    table = _table(db, TableSpec(cols="answerable", cells=("em", "f1"), ci=True, seed=SEED, resamples=RESAMPLES))
    assert table.columns == ["answerable", "unanswerable"] and table.ci_units == {name: "passage"}
    with sqlite3.connect(db) as conn:
        data = dataset_items(conn, name)
        for column in table.columns:
            for metric in ("em", "f1"):
                cell = table.cell(0, column, metric)
                assert cell is not None
                values, over = metric_values(data, data.runs[table.runs[0][0]], metric)
                expected = _direct(conn, [(name, values, over & (data.answerable == column))])
                assert cell.ci[metric] == pytest.approx(expected, rel=1e-12)


def test_a_row_of_three_runs_is_one_run_over_their_items(tmp_path: Path) -> None:
    """CDQA's fast/slow/never files of one model are one row: F1-recall over the items any of
    them answered, answer rate over the items any responded to; items as units."""
    db = _cdqa_eval(tmp_path)
    spec = TableSpec(rows=("model",), cells=("f1_recall (answer_rate)",), where={"shots": "0"}, ci=True, seed=SEED,
                     resamples=RESAMPLES)
    table = _table(db, spec)
    assert table.ci_units == {"cdqa_sample": "item"}
    with sqlite3.connect(db) as conn:
        data = dataset_items(conn, "cdqa_sample")
        for i, runs in table.runs.items():
            assert len(runs) == 3
            union = {k: np.sum([data.runs[r][k] for r in runs], axis=0) for k in data.runs[runs[0]]}
            assert union["predicted"].max() == 1.0, "each item answered by one of the row's runs"
            cell = table.cell(i, "all", "f1_recall (answer_rate)")
            assert cell is not None and set(cell.ci) == {"f1_recall", "answer_rate"}
            for metric in ("f1_recall", "answer_rate"):
                expected = _direct(conn, [("cdqa_sample", *metric_values(data, union, metric))])
                assert cell.ci[metric] == pytest.approx(expected, rel=1e-12)


def test_a_row_over_two_datasets_adds_their_resampled_totals(shared_data: Path, tmp_path: Path) -> None:
    """One model's CMRC dev and trial files are one row: each dataset resampled on its own
    stream, the row's totals and item counts added before dividing (stratified by dataset)."""
    (tmp_path / "qa-inspect.toml").write_text('[settings]\npattern = "{model}_{split}.json"\n', encoding="utf-8")
    for split in ("dev", "trial"):
        shutil.copy(shared_data / f"cmrc2018_{split}.json", tmp_path / f"cmrc2018_{split}.json")
        _span_run(shared_data / f"cmrc2018_{split}.json", tmp_path / f"bert_{split}.json", split)
    assert not load_runs(tmp_path).errors
    db = tmp_path / ".qa-inspect" / "qa.db"
    with sqlite3.connect(db) as conn:
        spec = TableSpec(rows=("model",), cells=("em", "f1"), ci=True, seed=SEED, resamples=RESAMPLES)
        table = paper_table(conn, spec, folder_run_settings(conn, tmp_path))
    assert table.runs == {0: ["bert_dev", "bert_trial"]} and set(table.ci_units) == {CMRC, "cmrc2018_trial"}
    with sqlite3.connect(db) as conn:
        for metric in ("em", "f1"):
            parts = []
            for dataset, run in ((CMRC, "bert_dev"), ("cmrc2018_trial", "bert_trial")):
                data = dataset_items(conn, dataset)
                parts.append((dataset, *metric_values(data, data.runs[run], metric)))
            cell = table.cell(0, "all", metric)
            assert cell is not None and cell.ci[metric] == pytest.approx(_direct(conn, parts), rel=1e-12)


def test_adding_a_run_changes_no_other_interval(cmrc_db: Path) -> None:
    spec = TableSpec(cells=("em", "f1"), ci=True, seed=SEED, resamples=RESAMPLES)
    with sqlite3.connect(cmrc_db) as conn:
        runs = stored_run_settings(conn)
        both = paper_table(conn, spec, runs).to_dict()
        alone = paper_table(conn, spec, runs[:1]).to_dict()
    assert alone["table"][0] == next(r for r in both["table"] if r["runs"] == alone["table"][0]["runs"])
    assert both["ci"] == {"resamples": RESAMPLES, "seed": SEED, "units": {CMRC: "passage"}}


def test_table_items_are_the_leaderboards_arrays(cmrc_db: Path) -> None:
    with sqlite3.connect(cmrc_db) as conn:
        full = dataset_items(conn, CMRC)
        run = sorted(full.runs)[1]
        mine, slices = table_items(conn, CMRC, [run], "split")
    assert list(mine.runs) == [run] and set(slices) == {"dev"}
    for name in ("item_ids", "contexts", "answerable"):
        assert np.array_equal(getattr(mine, name), getattr(full, name)), name
    assert mine.human is not None and full.human is not None
    for key in ("predicted", "em", "f1"):
        assert np.array_equal(mine.runs[run][key], full.runs[run][key]), key
        assert np.array_equal(mine.human[key], full.human[key]), key


@pytest.mark.usefixtures("no_author_env")
def test_adjudicated_intervals_are_the_adjudicated_leaderboards(env: Env) -> None:
    """An adjudicated table (the item-frame path) draws its intervals by the same rule, on the
    adjudicated scores: the adjudicated leaderboard's, for the same seed and resamples."""
    run, dataset = "bert-base-chinese", "cmrc2018_dev_sample"
    F.accept_answer(env.conn, run, "DEV_4_QUERY_0", author="ann")
    spec = TableSpec(cells=("em",), dataset=dataset, ci=True, seed=SEED, resamples=RESAMPLES)
    options = StatOptions(seed=SEED, resamples=RESAMPLES)
    runs = stored_run_settings(env.conn)
    for adjudicated in (False, True):
        table = paper_table(env.conn, replace(spec, adjudicated=adjudicated), runs)
        board = leaderboard(env.conn, dataset, options=options, adjudicated=adjudicated)[0]
        rows = {r.run: r.metrics["em"] for r in board.rows}
        for i, names in table.runs.items():
            cell = table.cell(i, "all", "em")
            assert cell is not None and cell.ci["em"] == (rows[names[0]].low, rows[names[0]].high)
    official = leaderboard(env.conn, dataset, options=options)[0]
    moved = leaderboard(env.conn, dataset, options=options, adjudicated=True)[0]
    assert next(r for r in moved.rows if r.run == run).metrics["em"] != next(
        r for r in official.rows if r.run == run).metrics["em"], "the alias moves the run's numbers"


def test_a_python_callers_table_resamples_as_the_command_does() -> None:
    """`TableSpec`'s defaults are the command's and the leaderboard's (one definition: the
    intervals a Python caller gets are the ones `qa-inspect table --ci` prints)."""
    spec = TableSpec()
    assert (spec.seed, spec.resamples) == (stats.DEFAULT_SEED, stats.DEFAULT_RESAMPLES)
