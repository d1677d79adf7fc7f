"""Pilot tests of the distribution view (`D`): its histogram counts equal direct SQL counts on the
sample runs, a grid cell opens exactly its items, and `D` is reached from the overview, the
browser, the compare screen and the palette's entries (its bindings)."""

from __future__ import annotations

from textual.coordinate import Coordinate

from qa_inspect.core.query import Filter, grid_cell, item_ids
from qa_inspect.tui.screens import BrowserScreen, CompareScreen, DistributionScreen
from qa_inspect.tui.screens.distribution import GridTable, HistogramView
from qa_inspect.tui.widgets import ItemTable
from tests.helpers import SIZE, Env, async_test, open_compare, open_run, settle
from tests.helpers import env_app as make_app

A, B = "bidaf-baseline", "roberta-wwm-large"


def _sql_bins(env: Env, run: str) -> list[int]:
    """The 12 bins counted straight from the predictions table (answered items of `run`)."""
    scores = [r[0] for r in env.conn.execute(
        "SELECT COALESCE(p.f1, p.f1_recall) FROM predictions p JOIN runs r ON r.id = p.run_id"
        " WHERE r.name = ? AND COALESCE(p.refused, 0) = 0", (run,))]
    bins = [0] * 12
    for s in scores:
        k = 0 if s <= 0 else 11 if s >= 1 else 10 if s > 0.9 else int(-(-s * 10 // 1))  # (lo, hi]
        bins[k] += 1
    return bins


@async_test
async def test_overview_d_shows_the_histogram_of_the_highlighted_run(env: Env) -> None:
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("D")  # the overview's first run: glm-6b (CDQA)
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, DistributionScreen) and screen.loaded_generation == screen.generation
        h = screen.hist_a
        assert h is not None and h.metric == "F1-recall" and h.em is None
        assert [n for _, n in h.bins] == _sql_bins(env, h.run)
        assert h.refused == env.conn.execute(
            "SELECT COUNT(*) FROM predictions p JOIN runs r ON r.id = p.run_id WHERE r.name = ? AND p.refused = 1",
            (h.run,)).fetchone()[0]
        assert not screen.query_one(GridTable).display  # no run B: no grid
        shown = str(screen.query_one("#dist-a", HistogramView).render())
        assert "categories not computed" in shown and h.run in shown
        await pilot.press("escape")
        await settle(pilot)
        assert type(app.screen).__name__ == "OverviewScreen"


@async_test
async def test_browser_d_follows_the_filter_and_a_grid_cell_opens_its_items(env: Env) -> None:
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        browser = await open_run(pilot, A)
        browser.set_filter(browser.filter.with_(compare=B))
        await settle(pilot)
        await pilot.press("D")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, DistributionScreen)
        assert screen.hist_a is not None and [n for _, n in screen.hist_a.bins] == _sql_bins(env, A)
        assert screen.hist_b is not None and [n for _, n in screen.hist_b.bins] == _sql_bins(env, B)
        grid = screen.grid
        assert grid is not None
        table = screen.query_one(GridTable)
        assert table.has_focus
        i, j = grid.bands.index("0"), grid.bands.index("100")  # A scored 0, B full credit
        assert grid.counts[i][j] > 0
        table.move_cursor(row=i, column=j)
        await pilot.press("enter")
        await settle(pilot)
        opened = app.screen
        assert isinstance(opened, BrowserScreen) and opened is not browser
        assert opened.filter.bands == ("0", "100") and opened.filter.compare == B
        expected = item_ids(env.conn, grid_cell(Filter(dataset=browser.filter.dataset, run=A, compare=B), "0", "100"))
        direct = [r[0] for r in env.conn.execute(
            "SELECT p.item_id FROM predictions p JOIN predictions pb ON pb.item_id = p.item_id"
            " WHERE p.run_id = (SELECT id FROM runs WHERE name = ?) AND pb.run_id = (SELECT id FROM runs WHERE name = ?)"
            " AND COALESCE(p.f1, 0) = 0 AND pb.f1 >= 1 ORDER BY p.item_id", (A, B))]
        assert sorted(expected) == direct and opened.total == grid.counts[i][j] == len(direct)
        rows = opened.query_one(ItemTable).win_rows
        assert sorted(r.item_id for r in rows) == direct
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is screen
        table.move_cursor(row=len(grid.bands), column=0)  # a total: no filter of its own
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen is screen


@async_test
async def test_compare_screen_d_shows_the_grid_of_its_runs(env: Env) -> None:
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        compare = await open_compare(pilot, A, 1)
        assert isinstance(compare, CompareScreen)
        await pilot.press("D")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, DistributionScreen)
        assert screen.grid is not None and (screen.grid.run_a, screen.grid.run_b) == (A, B)
        assert screen.grid.common == compare.diff.common if compare.diff is not None else False
        cell = screen.query_one(GridTable).get_cell_at(Coordinate(0, 0)).plain
        assert cell.replace(",", "") == str(screen.grid.counts[0][0])


def test_every_screen_that_opens_it_binds_d() -> None:
    from qa_inspect.tui.screens import OverviewScreen

    for cls in (OverviewScreen, BrowserScreen, CompareScreen):
        keys = {b.key: b.action for b in cls.BINDINGS if hasattr(b, "key")}  # type: ignore[union-attr]
        assert keys.get("D") == "distribution", cls.__name__
