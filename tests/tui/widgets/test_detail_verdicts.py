"""Judge verdicts in the app's widgets: the detail's answer block lists each judge's verdict and
rationale under the prediction; the facet panel titles a judge's facets by the judge."""

from __future__ import annotations

from pathlib import Path

from qa_inspect.core.load import load_runs
from qa_inspect.core.query import item_detail
from qa_inspect.core.store import open_db
from qa_inspect.tui.widgets.detail_blocks import answers
from qa_inspect.tui.widgets.facet_panel import Colours, Widths, facet_head
from tests.judge_data import RUN, judge_folder


def test_the_answer_block_shows_each_judges_verdict(tmp_path: Path) -> None:
    load_runs(judge_folder(tmp_path), tmp_path / "qa.db")
    conn = open_db(tmp_path / "qa.db").conn
    try:
        item = conn.execute("SELECT id FROM items WHERE key = 'MINI_DEV_1_QUERY_1'").fetchone()[0]
        detail = item_detail(conn, item, RUN)
    finally:
        conn.close()
    assert detail is not None
    text = answers(detail, subsequence=False, width=100).plain
    assert "Judge model_graded_fact: partial — The title without its marks is the same work" in text
    assert "Judge includes: incorrect — 春潮" in text
    assert "Judge gpt-judge: partial" in text
    assert text.index("Judge ") < text.index("Golds ")  # under the prediction, before the golds


def test_a_judge_facet_is_titled_by_its_judge() -> None:
    head = facet_head("judge_vs:model_graded_fact", False, Widths(40, 10, True), Colours("green", "red", "blue"))
    assert head.plain == "official vs judge model_graded_fact"


def test_the_facet_panel_counts_a_judges_verdicts(tmp_path: Path) -> None:
    """Pilot: the browser of the judged run, facet panel on (ctrl+f): the judges' facets are there."""
    from qa_inspect.tui.widgets import FacetPanel
    from tests.helpers import app_for, async_test, open_run_with_facets, settle_facets

    runs = judge_folder(tmp_path)
    load_runs(runs, tmp_path / "qa.db")

    @async_test
    async def run() -> None:
        app = app_for(tmp_path / "qa.db", runs)
        async with app.run_test(size=(160, 45)) as pilot:
            screen = await open_run_with_facets(pilot, RUN)
            panel = screen.query_one(FacetPanel)
            await pilot.press("ctrl+f")
            await settle_facets(pilot)
            tables = {t.name: t for t in panel.tables}
            assert panel.shown
            assert [(r.label, r.items) for r in tables["judge:model_graded_fact"].rows] == [
                ("correct", 3), ("incorrect", 2), ("partial", 1)]
            assert "judge_vs:gpt-judge" in tables

    run()
