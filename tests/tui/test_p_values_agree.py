"""A p-value reads the same in the terminal and in the app: `qa-inspect slices find` and the slice
finder screen both print every p (and Holm-adjusted p) as `tui.present.p_value` writes it."""

from __future__ import annotations

import json

from textual.widgets import DataTable
from typer.testing import CliRunner

from qa_inspect.core.report import StatOptions, find_slices
from qa_inspect.tui.cli import app as cli
from qa_inspect.tui.present import p_value
from qa_inspect.tui.screens import SliceFinderScreen
from tests.helpers import Env, async_test, open_compare
from tests.helpers import env_app as make_app
from tests.helpers import settle_facets as settle

A, B = "bidaf-baseline", "roberta-wwm-large"
FAST = ["--resamples", "200"]


def test_the_cli_prints_p_by_the_one_rule(env: Env) -> None:
    runner = CliRunner()
    args = ["slices", "find", str(env.runs), A, B, "--db", str(env.db), *FAST, "--top", "50"]
    found = json.loads(runner.invoke(cli, [*args, "--json"]).stdout)
    text = runner.invoke(cli, args, terminal_width=250).stdout
    rows = [line.split("│") for line in text.splitlines() if line.count("│") == 6]
    assert len(rows) == len(found["slices"]) > 0
    for cells, s in zip(rows, found["slices"], strict=True):
        mark = s["p_holm"] is not None and s["p_holm"] < StatOptions().alpha
        assert [c.strip() for c in cells[5:]] == [p_value(s["p"]), p_value(s["p_holm"], mark=mark)]


@async_test
async def test_the_slice_finder_screen_prints_p_as_the_cli_does(env: Env) -> None:
    expected = find_slices(env.conn, A, B, options=StatOptions())
    assert expected is not None and expected.slices
    app = make_app(env)
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        await open_compare(pilot, A, 1)
        await pilot.press("i")
        await settle(pilot)
        assert isinstance(app.screen, SliceFinderScreen)
        table = app.screen.query_one("#finder-table", DataTable)
        shown = [(str(table.get_row_at(i)[5]), str(table.get_row_at(i)[6])) for i in range(table.row_count)]
    assert shown == [(p_value(s.test.p), p_value(s.test.p_holm, mark=s.test.significant())) for s in expected.slices]
