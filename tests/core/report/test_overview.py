"""Runs overview data: the same numbers as `core.report` (and so as `qa-inspect report`)."""

from __future__ import annotations

import math
import sqlite3
from pathlib import Path

import pytest
from qa_inspect.core import report
from qa_inspect.core.load import load_runs
from qa_inspect.core.report import HUMAN, DatasetOverview, overview


@pytest.fixture(scope="module")
def sample_db(tmp_path_factory: pytest.TempPathFactory, sample_runs: Path) -> Path:
    db = tmp_path_factory.mktemp("overview") / "qa.db"
    summary = load_runs(sample_runs, db)
    assert not summary.errors, summary.errors
    return db


@pytest.fixture(scope="module")
def data(sample_db: Path) -> list[DatasetOverview]:
    with sqlite3.connect(sample_db) as conn:
        return overview(conn)


def _close(a: float | None, b: float | None) -> bool:
    if a is None or b is None or (isinstance(b, float) and math.isnan(b)):
        return a is None and (b is None or math.isnan(b))
    return abs(a - b) < 1e-9


def test_datasets_and_runs_listed(data: list[DatasetOverview]) -> None:
    names = {ds.name: ds for ds in data}
    assert set(names) == {"cdqa_sample", "cmrc2018_dev_sample"}
    assert [r.name for r in names["cmrc2018_dev_sample"].runs] == ["bert-base-chinese", "bidaf-baseline", "roberta-wwm-large"]
    assert names["cmrc2018_dev_sample"].items == 153
    assert names["cdqa_sample"].dimensions == ["tag", "answer_type"]


def test_numbers_match_core_report(sample_db: Path, data: list[DatasetOverview]) -> None:
    """Every run × slice cell equals the polars report: items, errors, share, EM/F1, F1-recall."""
    with sqlite3.connect(sample_db) as conn:
        table = report.report(conn)
    rows = {(r["run"], r["slice"], r["value"]): r for r in table.iter_rows(named=True)}
    checked = 0
    for ds in data:
        for run in [*ds.runs, *([ds.human] if ds.human else [])]:
            for s in [run.overall, *run.slices]:
                key = (run.name, "overall" if s.dimension == "all" else s.dimension,
                       "all" if s.dimension == "all" else (s.value if s.value is not None else "—"))
                r = rows[key]
                assert s.items == r["items"], key
                assert s.errors == r["errors"], key
                assert _close(s.em, r["em"]) and _close(s.f1, r["f1"]), key
                assert _close(s.f1_recall, r["f1_recall"]) and _close(s.answer_rate, r["answer_rate"]), key
                assert abs(100 * (s.error_share or 0) - r["error_share"]) < 1e-9, key
                checked += 1
    assert checked > 20


def test_error_shares_add_up_per_dimension(data: list[DatasetOverview]) -> None:
    for ds in data:
        for run in ds.runs:
            for dim in ds.dimensions:
                total = sum(s.error_share or 0 for s in run.slices if s.dimension == dim)
                assert abs(total - 1.0) < 1e-9 or run.overall.errors == 0


def test_human_estimate_only_for_span_datasets(data: list[DatasetOverview]) -> None:
    names = {ds.name: ds for ds in data}
    human = names["cmrc2018_dev_sample"].human
    assert human is not None and human.name == HUMAN
    assert human.overall.f1 is not None and 80 < human.overall.f1 <= 100
    assert names["cdqa_sample"].human is None


def test_cdqa_counts_refusals_as_unanswered(data: list[DatasetOverview]) -> None:
    ds = next(d for d in data if d.family == "cdqa")
    for run in ds.runs:
        o = run.overall
        assert o.em is None and o.f1 is None
        assert o.answered is not None and o.answered <= o.items
        assert o.answer_rate == pytest.approx(100 * o.answered / o.items)


def test_empty_database(tmp_path: Path) -> None:
    from qa_inspect.core.store import open_db

    db = open_db(tmp_path / "empty.db")
    assert overview(db.conn) == []


def test_quick_pass_has_the_same_overall_numbers(sample_db: Path, data: list[DatasetOverview]) -> None:
    with sqlite3.connect(sample_db) as conn:
        quick = overview(conn, slices=False)
    for q, full in zip(quick, data):
        assert q.name == full.name and q.items == full.items
        # the slices' item counts come with the full pass (or its stored rows, when present)
        assert q.slice_items in ({}, full.slice_items)
        for a, b in zip([*q.runs, *([q.human] if q.human else [])], [*full.runs, *([full.human] if full.human else [])]):
            assert a.slices == []
            assert a.overall.items == b.overall.items and a.overall.errors == b.overall.errors
            assert _close(a.overall.f1, b.overall.f1) or abs((a.overall.f1 or 0) - (b.overall.f1 or 0)) < 1e-9


def test_browse_info(sample_db: Path) -> None:
    from qa_inspect.core.report import browse_info

    with sqlite3.connect(sample_db) as conn:
        info = browse_info(conn, "glm-6b", None)
        assert info.dataset == "cdqa_sample" and info.family == "cdqa" and info.scorer == "cdqa-f1-recall"
        assert info.runs == ["glm-6b", "qwen-7b-chat"] and info.items == 38
        assert len(info.values["tag"]) == 3 and info.values["split"] == []
        assert browse_info(conn, None, "cmrc2018_dev_sample").key_width >= len("DEV_4_QUERY_0")
        assert browse_info(conn, "nope", None).dataset is None
