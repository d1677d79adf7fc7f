"""Pilot: the item detail of a run that sampled the item lists every sample with its score,
grouped by equivalent answer with counts (core.query.sample_groups)."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Static

from qa_inspect.core.load import load_runs
from qa_inspect.core.query import Filter, item_detail
from qa_inspect.core.store import open_db
from qa_inspect.tui.screens import DetailScreen
from tests.helpers import SIZE, app_for, async_test, settle
from tests.sampled_runs import write_dataset, write_plain


def _db(tmp_path: Path) -> tuple[Path, Path, int]:
    runs = tmp_path / "runs"
    write_dataset(runs)
    write_plain(runs)
    db = tmp_path / "qa.db"
    assert not load_runs(runs, db).errors
    conn = open_db(db).conn
    item = conn.execute("SELECT id FROM items WHERE key = 'Q1'").fetchone()[0]
    conn.close()
    return runs, db, int(item)


def test_the_detail_groups_samples_by_equivalent_answer(tmp_path: Path) -> None:
    _, db, item = _db(tmp_path)
    conn = open_db(db).conn
    d = item_detail(conn, item, "sampled")
    conn.close()
    assert d is not None and d.prediction is not None
    groups = d.prediction.samples
    assert [(g.answer, g.count) for g in groups] == [("quick brown fox", 3), ("a hare", 1)]
    assert [r.sample for r in groups[0].rows] == [1, 2, 4] and [r.em for r in groups[0].rows] == [1, 1, 1]


@async_test
async def test_the_detail_screen_lists_every_sample(tmp_path: Path) -> None:
    runs, db, item = _db(tmp_path)
    app = app_for(db, runs)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await app.push_screen(DetailScreen(Filter(run="sampled"), item))
        await settle(pilot)
        detail = app.screen
        assert isinstance(detail, DetailScreen) and detail.detail is not None
        meta = str(detail.query_one("#d-meta", Static).render())
        assert "samples: 4, 2 distinct answers" in meta
        assert "×3 quick brown fox" in meta and "×1 a hare" in meta
        for n in range(1, 5):
            assert f"#{n} " in meta
