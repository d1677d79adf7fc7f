"""The slice finder: every facet value tested, Holm over all of them, ranked."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest
from qa_inspect.core.errors import QAInspectError
from qa_inspect.core.query import FACETS
from qa_inspect.core.report import StatOptions, diff_runs, find_slices

OPTIONS = StatOptions(resamples=500)


@pytest.fixture
def conn(loaded_db: Path, tmp_path: Path) -> sqlite3.Connection:
    db = tmp_path / "qa.db"
    shutil.copy(loaded_db, db)
    return sqlite3.connect(db)


def test_identical_runs_find_nothing(conn: sqlite3.Connection) -> None:
    conn.execute("INSERT INTO runs (name, path, format, dataset_id, scorer) SELECT 'twin', path || '#twin', format,"
                 " dataset_id, scorer FROM runs WHERE name = 'bert-base-chinese'")
    conn.execute("INSERT INTO predictions (run_id, item_id, text, scorer, em, f1, refused, f1_recall)"
                 " SELECT (SELECT id FROM runs WHERE name = 'twin'), item_id, text, scorer, em, f1, refused, f1_recall"
                 " FROM predictions WHERE run_id = (SELECT id FROM runs WHERE name = 'bert-base-chinese')")
    found = find_slices(conn, "bert-base-chinese", "twin", min_items=5, options=OPTIONS)
    assert found is not None and found.tested > 0
    assert all(s.test.delta == 0 and s.test.p == 1 for s in found.slices)


def test_every_facet_value_with_enough_items_is_tested_and_holm_is_over_all(conn: sqlite3.Connection) -> None:
    found = find_slices(conn, "bidaf-baseline", "roberta-wwm-large", min_items=10, options=OPTIONS)
    assert found is not None
    assert found.tested == len(found.slices) and found.tested > 5
    assert {s.facet for s in found.slices} <= set(FACETS)
    assert all(s.test.n >= 10 and s.test.family == found.tested for s in found.slices)
    for s in found.slices:
        assert s.test.p_holm is not None and s.test.p_holm >= s.test.p
    adjusted = [s.test.p_holm for s in found.slices]
    assert adjusted == sorted(adjusted), "ranked by adjusted p"
    overall = diff_runs(conn, "bidaf-baseline", "roberta-wwm-large", top=0)
    split = next(s for s in found.slices if s.facet == "split" and s.value == "dev")
    f1 = next(d for d in overall.slices if d.dimension == "overall" and d.metric == "f1")
    assert split.test.n == overall.common and split.test.delta == pytest.approx(f1.delta, abs=1e-9)


def test_largest_ranks_by_size_and_min_items_skips(conn: sqlite3.Connection) -> None:
    found = find_slices(conn, "bidaf-baseline", "roberta-wwm-large", min_items=40, largest=True, options=OPTIONS)
    assert found is not None and found.skipped > 0
    sizes = [abs(s.test.delta or 0) for s in found.slices]
    assert sizes == sorted(sizes, reverse=True)


def test_runs_of_different_datasets_are_one_error(conn: sqlite3.Connection) -> None:
    with pytest.raises(QAInspectError, match="not runs of one dataset"):
        find_slices(conn, "glm-6b", "roberta-wwm-large", options=OPTIONS)
