"""Pilot: the item detail says why each run's prediction is wrong, in words."""

from __future__ import annotations

from pathlib import Path

from textual.content import Content
from textual.widgets import Static

from qa_inspect.core.query import Filter, PredictionInfo
from qa_inspect.tui.screens import DetailScreen
from qa_inspect.tui.widgets.detail_blocks import category_line
from tests.helpers import SIZE, app_for, async_test, item_id, settle


@async_test
async def test_the_detail_shows_the_category_and_its_reason(db: Path) -> None:
    app = app_for(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await app.push_screen(DetailScreen(Filter(run="bert-base-chinese"), item_id(db, "DEV_74_QUERY_0")))
        await settle(pilot)
        detail = app.screen
        assert isinstance(detail, DetailScreen) and detail.detail is not None
        answers = str(detail.query_one("#d-answers", Static).render())
        assert "Why: boundary-short — inside the gold, missing 3 characters at its start" in answers
        others = str(detail.query_one("#d-others", Static).render())
        assert "boundary-long — contains the gold plus 1 character before it" in others  # bidaf-baseline
        meta = str(detail.query_one("#d-meta", Static).render())
        assert "question type" in meta and "gold count 3" in meta


def test_category_text_is_never_markup() -> None:
    p = PredictionInfo("r", None, "x", "cmrc2018-official", 0, 0.0, None, None, None,
                       category="wrong", category_reason="[bold red]x[/] ␛[2J")
    line = category_line(p, "  ")
    assert isinstance(line, Content) and line.plain == "  Why: wrong — [bold red]x[/] ␛[2J"
