"""The compare screen's statistics: the counts never wait for the resampling, the
numbers are `diff_runs(stats=…)`'s, `o` sorts the slices by |Δ| and by p, and the line under the
slice table explains the highlighted slice."""

from __future__ import annotations

import pytest
from textual.coordinate import Coordinate
from textual.widgets import DataTable, Static

from qa_inspect.core.report import StatOptions, diff_runs
from qa_inspect.tui.screens import CompareScreen, OutcomeTable
from tests.helpers import SIZE, Env, async_test, open_compare
from tests.helpers import env_app as make_app
from tests.helpers import settle_facets as settle


@async_test
async def test_counts_show_without_waiting_for_the_statistics(env: Env, monkeypatch: pytest.MonkeyPatch) -> None:
    started: list[int] = []
    monkeypatch.setattr(CompareScreen, "compute_stats", lambda self, generation, *args: started.append(generation))
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await open_compare(pilot, "bidaf-baseline", 1)
        assert screen.diff is not None and screen.significance is None and started == [screen.generation]
        table = screen.query_one(OutcomeTable)
        assert table.get_cell_at(Coordinate(0, 0)).plain.split()[0] == str(screen.diff.outcome("em").fixed)
        assert table.get_cell_at(Coordinate(0, 4)).plain == "…"  # McNemar p: still computing
        assert "computing" in str(screen.query_one("#cmp-slices-title", Static).render())


@async_test
async def test_the_screen_shows_diff_runs_statistics(env: Env) -> None:
    expected = diff_runs(env.conn, "bidaf-baseline", "roberta-wwm-large", stats=StatOptions()).significance
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await open_compare(pilot, "bidaf-baseline", 1)
        assert screen.stats_generation == screen.generation
        assert screen.significance == expected
        mcnemar = screen.query_one(OutcomeTable).get_cell_at(Coordinate(0, 4)).plain
        assert mcnemar == "<0.001*" and expected.outcomes["em"] < 0.001  # the one rule for p (tui.present.p_value)
        slices = screen.query_one("#cmp-slices", DataTable)
        head = [c.label.plain for c in slices.ordered_columns]
        assert head.count("p") == 2  # EM and F1 (at 120 columns; the interval joins from 140)
        detail = str(screen.query_one("#cmp-slice-detail", Static).render())
        em = expected.test("overall", "all", "em")
        assert f"Δ {em.delta:+.2f} [{em.low:+.2f}, {em.high:+.2f}]" in detail and "McNemar" in detail
        assert "over 39 passages" in str(screen.query_one("#cmp-slices-title", Static).render())
        await pilot.press("X")  # swapped runs: the statistics follow, mirrored
        await settle(pilot)
        swapped = screen.significance.test("overall", "all", "em")
        assert (swapped.delta, swapped.low, swapped.high, swapped.p) == (-em.delta, -em.high, -em.low, em.p)


@async_test
async def test_the_statistics_are_the_rows_of_the_tests_computed_beside_the_counts(
        env: Env, monkeypatch: pytest.MonkeyPatch) -> None:
    import qa_inspect.core.report.diff as diff_module

    computed_after: list[int] = []
    real = diff_module.pair_significance
    monkeypatch.setattr(diff_module, "pair_significance",
                        lambda *args, **kw: computed_after.append(1) or real(*args, **kw))
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await open_compare(pilot, "bidaf-baseline", 1)
        assert screen.stats_generation == screen.generation and screen.significance is not None
        ahead = screen.ahead.wait(screen.generation, lambda: False)
        assert ahead is not None and (ahead.run_a, ahead.run_b) == (screen.run_a, screen.run_b)
        assert computed_after == []  # picked from the tests computed beside the counts
        assert screen.diff is not None and screen.significance == ahead.tests.for_slices(
            [(s.dimension, s.value, s.metric) for s in screen.diff.slices],
            {o.criterion: (o.fixed, o.broken) for o in screen.diff.outcomes})


@async_test
async def test_o_sorts_the_slices_by_size_and_by_p(env: Env) -> None:
    app = make_app(env)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        await pilot.press("c")  # glm-6b against qwen-7b-chat: many tag and answer-type slices
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, CompareScreen) and screen.significance is not None
        listed = list(screen.slice_keys)
        assert "95% CI" in [c.label.plain for c in screen.query_one("#cmp-slices", DataTable).ordered_columns]
        await pilot.press("o")
        assert screen.slice_sort == "delta"
        deltas = {(s.dimension, s.value): abs(s.delta or 0) for s in screen.diff.slices if s.metric == "f1_recall"}
        shown = [deltas[k] for k in screen.slice_keys if k[0] != "overall"]
        assert shown == sorted(shown, reverse=True) and set(screen.slice_keys) == set(listed)
        await pilot.press("o")
        assert screen.slice_sort == "p"
        ps = [screen.significance.test(*k, "f1_recall").p_holm for k in screen.slice_keys if k[0] != "overall"]
        assert ps == sorted(ps)
        assert len(screen.slice_refs) == len(screen.slice_keys)  # enter still opens the row's slice
        await pilot.press("o")
        assert screen.slice_keys == listed
