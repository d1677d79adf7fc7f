"""Score distributions: histogram bins, EM share and the A-vs-B grid against direct SQL counts on
the sample runs; a grid cell's filter selects exactly that cell's items; error categories say
"not computed" without their column and count it where it exists."""

from __future__ import annotations

import pytest

from qa_inspect.core.query import (
    BANDS,
    SCORE_BINS,
    Filter,
    category_counts,
    count,
    grid_cell,
    histogram,
    page,
    score_grid,
)
from tests.helpers import Env

CMRC = ("bidaf-baseline", "roberta-wwm-large")
CDQA = ("glm-6b", "qwen-7b-chat")


def _direct(env: Env, run: str, where: str, params: tuple[object, ...] = ()) -> int:
    """Items of `run`'s dataset whose prediction (p, maybe missing) satisfies `where`."""
    return env.conn.execute(
        "SELECT COUNT(*) FROM items i JOIN runs r ON r.dataset_id = i.dataset_id AND r.name = ?"
        f" LEFT JOIN predictions p ON p.item_id = i.id AND p.run_id = r.id WHERE {where}",
        (run, *params)).fetchone()[0]


ANSWERED = "p.id IS NOT NULL AND COALESCE(p.refused, 0) = 0"
SCORE = "COALESCE(p.f1, p.f1_recall)"


@pytest.mark.parametrize("run", [CMRC[0], CDQA[0]])
def test_histogram_equals_direct_sql(env: Env, run: str) -> None:
    h = histogram(env.conn, Filter(run=run))
    expected = [
        _direct(env, run, f"{ANSWERED} AND {SCORE} = 0"),
        *(_direct(env, run, f"{ANSWERED} AND {SCORE} > ? AND {SCORE} <= ?", (lo / 100, (lo + 10) / 100))
          for lo in range(0, 90, 10)),
        _direct(env, run, f"{ANSWERED} AND {SCORE} > 0.9 AND {SCORE} < 1"),
        _direct(env, run, f"{ANSWERED} AND {SCORE} >= 1"),
    ]
    assert [n for _, n in h.bins] == expected
    assert [label for label, _ in h.bins] == [label for label, _, _ in SCORE_BINS]
    assert h.missing == _direct(env, run, "p.id IS NULL")
    assert h.refused == _direct(env, run, "p.refused = 1")
    assert h.items == h.answered + h.missing + h.refused == count(env.conn, Filter(run=run))


def test_em_share_counts_missing_as_zero_and_cdqa_has_none(env: Env) -> None:
    h = histogram(env.conn, Filter(run=CMRC[0]))
    assert h.metric == "F1"
    assert h.em == _direct(env, CMRC[0], "p.em = 1")
    assert h.em_share == pytest.approx(100 * h.em / h.items)
    cdqa = histogram(env.conn, Filter(run=CDQA[0]))
    assert cdqa.metric == "F1-recall" and cdqa.em is None and cdqa.em_share is None


def test_histogram_follows_the_filter_and_run_b(env: Env) -> None:
    f = Filter(run=CMRC[0], compare=CMRC[1], em=0)
    a, b = histogram(env.conn, f), histogram(env.conn, f, "b")
    assert a.items == b.items == count(env.conn, f)
    assert a.bins[-1][1] == 0  # EM 0 items of A: none with F1 100 (EM 1 ⇔ F1 100 on these runs)
    assert b.run == CMRC[1]
    ids = [r.item_id for r in page(env.conn, f, 0, 1000)]
    marks = ",".join("?" * len(ids))
    full_b = env.conn.execute(
        f"SELECT COUNT(*) FROM predictions p JOIN runs r ON r.id = p.run_id AND r.name = ?"
        f" WHERE p.item_id IN ({marks}) AND p.f1 >= 1", (CMRC[1], *ids)).fetchone()[0]
    assert b.bins[-1][1] == full_b
    with pytest.raises(ValueError):
        histogram(env.conn, Filter(run=CMRC[0]), "b")


@pytest.mark.parametrize("runs", [CMRC, CDQA])
def test_grid_cells_open_exactly_their_items(env: Env, runs: tuple[str, str]) -> None:
    f = Filter(run=runs[0], compare=runs[1])
    grid = score_grid(env.conn, f)
    assert grid.bands == tuple(label for label, _ in BANDS)
    both = env.conn.execute(
        "SELECT COUNT(*) FROM predictions p JOIN predictions pb ON pb.item_id = p.item_id"
        " WHERE p.run_id = (SELECT id FROM runs WHERE name = ?) AND pb.run_id = (SELECT id FROM runs WHERE name = ?)",
        runs).fetchone()[0]
    assert grid.common == both and grid.items == count(env.conn, f)
    for i, a in enumerate(grid.bands):
        for j, b in enumerate(grid.bands):
            cell = grid_cell(f, a, b)
            assert count(env.conn, cell) == grid.counts[i][j], (a, b)
    rows = page(env.conn, grid_cell(f, "100", "0"), 0, 1000)
    assert all((r.f1 or r.f1_recall or 0) >= 1 and not (r.compare_f1 or r.compare_f1_recall) for r in rows)


def test_grid_cell_filter_round_trips_and_checks_its_bands(env: Env) -> None:
    cell = grid_cell(Filter(run=CMRC[0], compare=CMRC[1]), "0", "100")
    assert Filter.from_dict(cell.to_dict()) == cell
    with pytest.raises(ValueError):
        Filter.from_dict({"bands": ["0"]})
    with pytest.raises(ValueError, match="unknown score band"):
        count(env.conn, cell.with_(bands=("0", "101")))
    assert count(env.conn, cell.with_(compare=None)) == 0  # no run B: matches nothing


def test_categories_not_computed_without_the_column_then_counted(env: Env) -> None:
    f = Filter(run=CMRC[0])
    columns = {r[1] for r in env.conn.execute("PRAGMA table_info(predictions)")}
    if "error_category" not in columns:  # a load that computes categories adds it
        assert category_counts(env.conn, f) is None
        assert histogram(env.conn, f).categories is None
        env.conn.execute("ALTER TABLE predictions ADD COLUMN error_category TEXT")
    env.conn.execute("UPDATE predictions SET error_category = NULL")
    assert category_counts(env.conn, f) is None  # the column, but nothing computed yet
    env.conn.execute("UPDATE predictions SET error_category = CASE WHEN em = 1 THEN 'exact' ELSE 'wrong' END")
    cats = dict(category_counts(env.conn, f) or ())
    assert cats == {"exact": _direct(env, CMRC[0], "p.em = 1"), "wrong": _direct(env, CMRC[0], "p.em = 0")}
    assert dict(category_counts(env.conn, f.with_(em=1)) or ()) == {"exact": cats["exact"]}
