"""`core.report`: metrics by slice from the database agree with the official aggregates."""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import polars as pl
import pytest
from qa_inspect.core.load import load_runs
from qa_inspect.core.metrics import cdqa, cmrc
from qa_inspect.core.metrics.human import aggregate_human, human_score
from qa_inspect.core.report import DIMENSIONS, HUMAN, item_frame, report, slice_table

CMRC_RUNS = {"bert-base-chinese", "bidaf-baseline", "roberta-wwm-large"}
CDQA_RUNS = {"glm-6b", "qwen-7b-chat"}


@pytest.fixture(scope="module")
def conn(tmp_path_factory: pytest.TempPathFactory, sample_runs: Path) -> Iterator[sqlite3.Connection]:
    base = tmp_path_factory.mktemp("report")
    runs = base / "runs"
    shutil.copytree(sample_runs, runs, ignore=shutil.ignore_patterns(".qa-inspect"))
    summary = load_runs(runs, base / "qa.db")
    assert not summary.errors
    c = sqlite3.connect(base / "qa.db")
    yield c
    c.close()


@pytest.fixture(scope="module")
def table(conn: sqlite3.Connection) -> pl.DataFrame:
    return report(conn)


def overall(table: pl.DataFrame, run: str) -> dict:
    rows = table.filter((pl.col("slice") == "overall") & (pl.col("run") == run)).to_dicts()
    assert len(rows) == 1
    return rows[0]


def _stored(conn: sqlite3.Connection, run: str) -> list[tuple]:
    """(em, f1, refused, f1_recall) per item of the run's dataset, None for an unanswered item."""
    return conn.execute(
        "SELECT p.id IS NOT NULL, p.em, p.f1, p.refused, p.f1_recall FROM runs r"
        " JOIN items i ON i.dataset_id = r.dataset_id"
        " LEFT JOIN predictions p ON p.run_id = r.id AND p.item_id = i.id WHERE r.name = ? ORDER BY i.id",
        (run,),
    ).fetchall()


def test_every_run_and_the_human_estimate_are_reported(table: pl.DataFrame) -> None:
    runs = set(table.filter(pl.col("slice") == "overall")["run"].to_list())
    assert runs == CMRC_RUNS | CDQA_RUNS | {HUMAN}
    assert set(table["slice"].unique().to_list()) <= {"overall", *DIMENSIONS}


@pytest.mark.parametrize("run", sorted(CMRC_RUNS))
def test_cmrc_overall_equals_official_aggregate(conn: sqlite3.Connection, table: pl.DataFrame, run: str) -> None:
    rows = _stored(conn, run)
    scores = [cmrc.CmrcScore(em=em, f1=f1, best_gold=None) if answered else None for answered, em, f1, _, _ in rows]
    official = cmrc.aggregate(scores, len(rows))
    got = overall(table, run)
    assert got["items"] == official["total"] == 153
    assert got["predicted"] == official["total"] - official["skip"]
    assert float("%.3f" % got["em"]) == pytest.approx(official["em"], abs=1e-9)
    assert float("%.3f" % got["f1"]) == pytest.approx(official["f1"], abs=1e-3)
    assert got["f1_recall"] is None and got["answer_rate"] is None  # not this family's metrics
    # an error is an item not exactly matched (unanswered included)
    assert got["errors"] == official["total"] - sum(em for answered, em, *_ in rows if answered)


@pytest.mark.parametrize("run", sorted(CDQA_RUNS))
def test_cdqa_overall_equals_official_aggregate(conn: sqlite3.Connection, table: pl.DataFrame, run: str) -> None:
    rows = _stored(conn, run)
    scores = [
        cdqa.CdqaScore(refused=bool(refused), f1_recall=f1r, best_gold=None) if answered else None
        for answered, _, _, refused, f1r in rows
    ]
    official = cdqa.aggregate(scores, len(rows))
    got = overall(table, run)
    assert got["items"] == official["total"] == 38
    assert got["answered"] == official["answered"]
    assert got["f1_recall"] == pytest.approx(official["f1_recall"], abs=1e-4)
    assert got["answer_rate"] == pytest.approx(official["answer_rate"], abs=5e-3)
    assert got["em"] is None and got["f1"] is None
    assert 0 < got["answered"] < got["items"]  # the sample runs do refuse now and then


def test_slice_counts_sum_to_the_total(table: pl.DataFrame) -> None:
    totals = {r["run"]: r["items"] for r in table.filter(pl.col("slice") == "overall").to_dicts()}
    checked = 0
    for (run, dim), part in table.filter(pl.col("slice") != "overall").group_by(["run", "slice"]):
        assert part["items"].sum() == totals[run], (run, dim)
        assert part["value"].n_unique() == part.height  # each value once
        checked += 1
    assert checked >= len(totals)  # every run has at least one dimension
    # CDQA has tags and answer types; the CMRC sample only splits
    dims = {r: set(table.filter((pl.col("run") == r) & (pl.col("slice") != "overall"))["slice"]) for r in totals}
    assert dims["glm-6b"] >= {"tag", "answer_type"}
    assert dims["bert-base-chinese"] == {"split"}


def test_error_shares_sum_to_100(table: pl.DataFrame) -> None:
    for (run, dim), part in table.group_by(["run", "slice"]):
        if part["errors"].sum() == 0:
            assert part["error_share"].sum() == 0
            continue
        assert part["error_share"].sum() == pytest.approx(100.0), (run, dim)
        errors = part["errors"].sum()
        for row in part.to_dicts():
            assert row["error_share"] == pytest.approx(100.0 * row["errors"] / errors)


def test_human_estimate_for_cmrc_only(conn: sqlite3.Connection, table: pl.DataFrame) -> None:
    human = table.filter(pl.col("run") == HUMAN)
    assert set(human["dataset"].to_list()) == {"cmrc2018_dev_sample"}
    assert table.filter((pl.col("dataset") == "cdqa_sample") & (pl.col("run") == HUMAN)).is_empty()
    row = overall(table, HUMAN)
    golds: dict[int, list[str]] = {}
    for item_id, text in conn.execute(
        "SELECT g.item_id, g.text FROM golds g JOIN items i ON i.id = g.item_id JOIN datasets d ON d.id = i.dataset_id"
        " WHERE d.name = 'cmrc2018_dev_sample' AND g.superseded = 0 ORDER BY g.item_id, g.idx"
    ):
        golds.setdefault(item_id, []).append(text)
    expected = aggregate_human(human_score(g) for g in golds.values())
    assert row["items"] == expected["items"] == 153
    assert float("%.3f" % row["em"]) == pytest.approx(expected["em"], abs=1e-3)
    assert float("%.3f" % row["f1"]) == pytest.approx(expected["f1"], abs=1e-3)
    # listed after the model runs of its dataset
    cmrc_rows = table.filter((pl.col("slice") == "overall") & (pl.col("dataset") == "cmrc2018_dev_sample"))
    assert cmrc_rows["run"].to_list()[-1] == HUMAN


def test_by_and_runs_select(conn: sqlite3.Connection) -> None:
    only = report(conn, by=["tag"], runs=["glm-6b"])
    assert set(only["slice"].to_list()) == {"overall", "tag"}
    assert set(only["run"].to_list()) <= {"glm-6b", HUMAN}
    assert "glm-6b" in only["run"].to_list()
    with pytest.raises(ValueError, match="unknown slice dimension 'colour'"):
        slice_table(item_frame(conn), "colour")


def test_empty_database_gives_an_empty_report(tmp_path: Path) -> None:
    from qa_inspect.core.store import open_db

    c = open_db(tmp_path / "empty.db").conn
    try:
        assert report(c).is_empty()
    finally:
        c.close()
