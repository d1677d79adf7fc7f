"""The item table's width rules: columns that fit, the ones a narrow terminal leaves out (counted
in the status line as "N columns hidden (k)"), the user's columns (k) kept at any width with
sideways scrolling by whole columns (`<` `>`, shift+← →) while the id column stays pinned."""

from __future__ import annotations

from pathlib import Path

from qa_inspect.core.query import ColumnLayout
from qa_inspect.tui.screens import BrowserScreen
from qa_inspect.tui.widgets import ItemTable, StatusLine, columns_for, hidden_for_width
from qa_inspect.tui.widgets.item_table import layout_widths
from tests.helpers import async_test, open_run, settle
from tests.helpers import app_for

A, B = "bidaf-baseline", "roberta-wwm-large"
CMRC = "cmrc2018_dev_sample"


def _keys(cols: list) -> list[str]:  # type: ignore[type-arg]
    return [c.key for c in cols]


def test_narrow_drops_b_em_and_slices_unless_the_user_chose_the_columns() -> None:
    wide = columns_for(False, {"split", "tag"}, True, 12, 200, {"split": 3, "tag": 5})
    narrow = columns_for(False, {"split", "tag"}, True, 12, 80, {"split": 3, "tag": 5})
    kept = columns_for(False, {"split", "tag"}, True, 12, 80, {"split": 3, "tag": 5}, keep_all=True)
    assert {"split", "tag", "b_em"} <= set(_keys(wide))
    assert not {"split", "tag", "b_em"} & set(_keys(narrow))
    assert _keys(kept) == _keys(wide)
    assert hidden_for_width(wide, narrow) == ["split", "tag", "B EM"]
    assert hidden_for_width(wide, narrow, ("tag",)) == ["split", "B EM"]  # hidden by the user: not "for width"
    assert hidden_for_width(wide, kept) == []


def test_widths_fit_80_columns_and_overflow_only_past_the_floor() -> None:
    cols = columns_for(False, set(), True, 12, 80)
    assert sum(w + 2 for w in layout_widths(cols, 79)) <= 79
    many = columns_for(False, {"split", "tag", "answer_type"}, True, 12, 60, keep_all=True)
    widths = layout_widths(many, 60)
    assert min(w for c, w in zip(many, widths) if c.weight) == 6 and sum(w + 2 for w in widths) > 60


def _status(screen: BrowserScreen) -> str:
    return str(screen.query_one(StatusLine).render())


@async_test
async def test_hidden_columns_are_named_and_k_brings_them_back_scrolling_sideways(db: Path) -> None:
    app = app_for(db)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = await open_run(pilot, A)
        screen.set_filter(screen.filter.with_(compare=B))
        await settle(pilot)
        table = screen.query_one(ItemTable)
        assert "b_em" not in _keys(table.cols)
        assert "1 column hidden (k)" in _status(screen)
        assert table.fixed_columns == 0 and table.max_scroll_x == 0  # everything shown fits: nothing pinned
        app.remember_columns(CMRC, ColumnLayout())  # k, then enter: every column, as listed
        screen.rebuild_columns()
        screen.show_status()
        await settle(pilot)
        assert "b_em" in _keys(table.cols) and "hidden" not in _status(screen)
        assert table.max_scroll_x > 0  # they do not fit in 80 columns: the table scrolls sideways
        assert table.fixed_columns == _keys(table.cols).index("key") + 1  # selection mark and id pinned
        stops = table.column_stops()
        await pilot.press("greater_than_sign")
        assert table.scroll_x == min(stops[1], table.max_scroll_x)
        await pilot.press("shift+right", "shift+right", "shift+right", "shift+right", "shift+right", "shift+right")
        assert table.scroll_x == table.max_scroll_x
        await pilot.press("less_than_sign")
        assert table.scroll_x < table.max_scroll_x
        await pilot.press(*["shift+left"] * 8)
        assert table.scroll_x == 0


@async_test
async def test_no_notice_when_everything_fits(db: Path) -> None:
    app = app_for(db)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = await open_run(pilot, A)
        screen.set_filter(screen.filter.with_(compare=B))
        await settle(pilot)
        assert "b_em" in _keys(screen.query_one(ItemTable).cols)
        assert "hidden" not in _status(screen)


def test_registry_columns_cells_are_data_never_markup() -> None:
    from qa_inspect.core.query import ItemRow
    from qa_inspect.tui.widgets import registry_col
    from qa_inspect.tui.widgets.item_table import item_cell

    row = ItemRow(1, "K", None, None, None, "q", "p", None, 0, 0.5, None, None, 0,
                  extra={"meta:note": "[bold]x[/bold]\x1b[31m", "meta:latency": 1.25, "label": None, "gold_count": 3})
    palette = {"good": "green", "bad": "red", "warn": "yellow"}
    text = item_cell("meta:note", row, 30, palette)
    assert "[bold]x[/bold]" in text.plain and "\x1b" not in text.plain and not text.spans  # literal, escape visible
    assert item_cell("meta:latency", row, 8, palette).plain == "1.25"
    assert item_cell("gold_count", row, 8, palette).plain == "3"
    assert item_cell("label", row, 8, palette).plain == "—"
    assert registry_col("meta:latency", "latency", True).justify == "right"
    assert registry_col("answer:b", "b answer", False).weight > 0  # as flexible as a prediction
    assert registry_col("label", "labels", False).width >= len("format, paraphrase")
