"""A diff's counts from the comparison's arrays (`diff_arrays`, what the compare screen reads once
for counts and tests) equal the SQL engine's (`diff_sql`), on the sample runs (with and without a
scope, any threshold and `top`), on random small datasets (the sample's items and predictions
given random labels, scores, refusals and categories) and on real CMRC dev runs: every count,
category and change the same, means summed in another order to 1e-12."""

from __future__ import annotations

import math
import shutil
import sqlite3
import weakref
from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from qa_inspect.core.load import load_runs
from qa_inspect.core.query import Filter
from qa_inspect.core.report import RunDiff, comparison_arrays, diff_runs
from qa_inspect.core.store import open_db

from tests.helpers import loaded_sample

PAIRS = [("bert-base-chinese", "roberta-wwm-large"), ("bidaf-baseline", "bert-base-chinese"),
         ("glm-6b", "qwen-7b-chat"), ("qwen-7b-chat", "glm-6b")]
SCOPES: dict[str, Filter | None] = {"none": None, "em0": Filter(em=0), "answered": Filter(refused=False),
                                    "tag": Filter(tags=("fast-changing",))}


@pytest.fixture(scope="module")
def conn(tmp_path_factory: pytest.TempPathFactory, sample_runs: Path) -> Iterator[sqlite3.Connection]:
    c = loaded_sample(tmp_path_factory.mktemp("diff_arrays"), sample_runs)
    yield c
    c.close()


def _numbers(d: RunDiff) -> dict[str, Any]:
    out = asdict(d)
    out.pop("samples")
    return out


def _same(fast: Any, slow: Any, where: str = "") -> None:
    """Equal, floats to 1e-12 (sums in another order); every other value exactly, of one type."""
    if isinstance(slow, float) and isinstance(fast, float):
        assert math.isclose(fast, slow, rel_tol=1e-12, abs_tol=1e-12), f"{where}: {fast} != {slow}"
    elif isinstance(slow, dict):
        assert isinstance(fast, dict) and fast.keys() == slow.keys(), where
        for k in slow:
            _same(fast[k], slow[k], f"{where}.{k}")
    elif isinstance(slow, list):
        assert isinstance(fast, list) and len(fast) == len(slow), f"{where}: {len(fast)} != {len(slow)}"
        for k, (x, y) in enumerate(zip(fast, slow, strict=True)):
            _same(x, y, f"{where}[{k}]")
    else:
        assert fast == slow and type(fast) is type(slow), f"{where}: {fast!r} != {slow!r}"


def _both(conn: sqlite3.Connection, a: str, b: str, *, threshold: float = 0.5, top: int = 20,
          within: Filter | None = None) -> RunDiff:
    """Both engines' diff, held equal; the arrays' one."""
    arrays = comparison_arrays(conn, a, b, within=within)
    assert arrays is not None and arrays.categories is not None
    fast = diff_runs(conn, a, b, threshold=threshold, top=top, within=within, arrays=arrays)
    _same(_numbers(fast), _numbers(diff_runs(conn, a, b, threshold=threshold, top=top, within=within)))
    return fast


@pytest.mark.parametrize(("a", "b"), PAIRS)
@pytest.mark.parametrize("scope", list(SCOPES))
def test_counts_from_arrays_are_the_sql_counts(conn: sqlite3.Connection, a: str, b: str, scope: str) -> None:
    within = SCOPES[scope]
    d = _both(conn, a, b, within=None if within is None else within.with_(run=a), top=500)
    assert d.common > 0 or scope != "none"


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sampled_from(PAIRS), st.floats(0.0, 1.0), st.integers(0, 40), st.sampled_from(list(SCOPES)))
def test_any_threshold_top_and_scope(conn: sqlite3.Connection, pair: tuple[str, str], threshold: float, top: int,
                                     scope: str) -> None:
    within = SCOPES[scope]
    _both(conn, *pair, threshold=threshold, top=top, within=None if within is None else within.with_(run=pair[0]))


_LABELS = st.tuples(st.sampled_from(["dev", "test", None]), st.sampled_from(["fast-changing", "slow-changing", None]),
                    st.sampled_from(["person", "date", "work", None]))
_SCORE = st.one_of(st.none(), st.sampled_from([0.0, 0.25, 0.5, 1 / 3, 1.0]), st.floats(0.0, 1.0))
_PREDICTION = st.one_of(st.none(), st.tuples(  # None: the run has no prediction for the item
    st.sampled_from([None, 0, 1]), _SCORE, _SCORE, st.sampled_from([None, 0, 1]),
    st.sampled_from([None, "exact", "wrong", "partial"])))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sampled_from(PAIRS), st.lists(st.tuples(_LABELS, _PREDICTION, _PREDICTION), min_size=1, max_size=12),
       st.floats(0.0, 1.0), st.integers(0, 12))
def test_random_small_datasets(conn: sqlite3.Connection, pair: tuple[str, str],
                               rows: list[tuple[Any, Any, Any]], threshold: float, top: int) -> None:
    """The first items of the pair's dataset with random labels and, per run, a random EM, F1,
    F1-recall, refusal and category (or no prediction); the other items' predictions dropped."""
    mem = sqlite3.connect(":memory:")
    conn.backup(mem)
    runs = [mem.execute("SELECT id FROM runs WHERE name = ?", (name,)).fetchone()[0] for name in pair]
    dataset = mem.execute("SELECT dataset_id FROM runs WHERE id = ?", (runs[0],)).fetchone()[0]
    items = [r[0] for r in mem.execute("SELECT id FROM items WHERE dataset_id = ? ORDER BY id LIMIT ?",
                                       (dataset, len(rows)))]
    mem.execute(f"DELETE FROM predictions WHERE item_id NOT IN ({', '.join('?' * len(items))})", items)
    for item, (labels, *predictions) in zip(items, rows):
        mem.execute("UPDATE items SET split = ?, tag = ?, answer_type = ? WHERE id = ?", (*labels, item))
        for run, values in zip(runs, predictions, strict=True):
            if values is None:
                mem.execute("DELETE FROM predictions WHERE run_id = ? AND item_id = ?", (run, item))
            else:
                mem.execute("UPDATE predictions SET em = ?, f1 = ?, f1_recall = ?, refused = ?, error_category = ?"
                            " WHERE run_id = ? AND item_id = ?", (*values, run, item))
    _both(mem, *pair, threshold=threshold, top=top)
    mem.close()


def test_real_cmrc_dev_runs(shared_data: Path, tmp_path: Path) -> None:
    """Two real BERT runs on CMRC 2018 dev."""
    folder = tmp_path / "runs" / "cmrc"
    (folder / "runs").mkdir(parents=True)
    shutil.copy(shared_data / "cmrc2018_dev.json", folder / "cmrc2018_dev.json")
    names = []
    for run in sorted((shared_data / "runs").glob("cmrc2018_dev_*.json")):
        shutil.copy(run, folder / "runs" / run.name)
        names.append(run.stem)
    db = tmp_path / "qa.db"
    assert not load_runs(tmp_path / "runs", db_path=db).errors
    c = open_db(db).conn
    try:
        (a, b), = c.execute("SELECT MIN(name), MAX(name) FROM runs").fetchall()
        assert a != b
        for threshold in (0.0, 0.5, 1.0):
            d = _both(c, a, b, threshold=threshold, top=50)
            assert d.common > 3000 and d.categories
        _both(c, b, a, within=Filter(run=b, em=0))
    finally:
        c.close()


def test_the_diff_lets_handed_over_arrays_go_once_counted(conn: sqlite3.Connection,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Handed over (no other reference), the arrays are gone before the run counts' SQL: at a
    million items the screen's tests resample meanwhile and need the room."""
    from qa_inspect.core.report import diff_sql

    seen: list[bool] = []
    real = diff_sql.run_counts

    def run_counts(*args: Any, **kwargs: Any) -> Any:
        seen.append(item_ids() is None)
        return real(*args, **kwargs)

    monkeypatch.setattr(diff_sql, "run_counts", run_counts)
    held = [comparison_arrays(conn, "glm-6b", "qwen-7b-chat")]
    assert held[0] is not None
    item_ids = weakref.ref(held[0].item_ids)
    fast = diff_runs(conn, "glm-6b", "qwen-7b-chat", arrays=held.pop())
    assert seen == [True]
    _same(_numbers(fast), _numbers(diff_runs(conn, "glm-6b", "qwen-7b-chat")))
