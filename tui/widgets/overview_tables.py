"""Tables of the Runs overview: one per dataset listing its runs, one of the highlighted run's slices."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.cells import cell_len
from rich.text import Text
from textual.binding import Binding
from textual.widgets import DataTable

from qa_inspect.core.report import DatasetOverview, RunOverview, SliceStat

if TYPE_CHECKING:  # numpy (the intervals' module) is imported when intervals are first computed
    from qa_inspect.core.report import Leaderboard

from ..present import count, dimension_name
from ..present import number as number_text
from ..present import share as present_share
from ..text import bar, cell_text, clean, count_cells, number


def _pct(value: float | None, style: str = "") -> Text:
    return number(value, 1, style=style)


@dataclass(frozen=True, slots=True)
class RowRef:
    """What a row of an overview table opens."""

    dataset: str
    run: str | None
    dimension: str = "all"
    value: str | None = None
    human: bool = False


class RunsTable(DataTable[Text]):
    """The runs of one dataset, with the human estimate as a last, dimmed row."""

    BINDINGS = [
        Binding("enter", "select_cursor", "Open", id="runs-table.open", tooltip="Open the items of this run"),
        Binding("down", "cursor_down", "Down", id="runs-table.cursor-down", show=False),
        Binding("up", "cursor_up", "Up", id="runs-table.cursor-up", show=False),
    ]

    def __init__(self, ds: DatasetOverview, **kwargs: object) -> None:
        super().__init__(cursor_type="row", **kwargs)  # type: ignore[arg-type]
        self.ds = ds
        self.cdqa = ds.uses_f1_recall
        self.refs: list[RowRef] = []
        self.name_w = 16
        self.board: Leaderboard | None = None
        """Intervals and ties of the main metric, once the overview's worker has them."""
        self.run_shown: Callable[[str], bool] | None = None
        """Which runs to list (the overview's filter by settings); None: every run."""
        self.pending = True
        """Intervals are being computed ("…"); False once shown or switched off (stale golds excluded)."""

    def on_mount(self) -> None:
        main = ("F1-r", "ans%") if self.cdqa else ("EM", "F1")
        self.name_w = min(32, max([16, *(cell_len(clean(r.name)) for r in self.ds.runs)]))
        self.add_column(Text("run"), width=self.name_w, key="run")
        counts = count_width(self.ds, 7)
        self.add_column(Text("preds", justify="right"), width=counts, key="preds")
        self.add_column(Text(main[0], justify="right"), width=5, key="m1")
        self.add_column(Text(main[1], justify="right"), width=5, key="m2")
        self.add_column(Text("errors", justify="right"), width=counts, key="errors")
        self.add_column(Text("±" + ("F1-r" if self.cdqa else "F1"), justify="right"), width=6, key="ci")
        self.add_column(Text("vs best"), width=7, key="tie")
        self.add_column(Text(""), width=12, key="bar")
        self.fill()
        self.app.theme_changed_signal.subscribe(self, lambda _: self.update_data(self.ds))

    def show_intervals(self, board: Leaderboard | None) -> None:
        """The main metric's interval (± half its width) and whether each run is tied with the best."""
        self.board = board
        self.pending = False
        self.update_data(self.ds)

    def _interval_cells(self, name: str | None, human: bool) -> list[Text]:
        board = self.board
        row = None if board is None else next((r for r in board.rows if (r.human if human else r.run == name)), None)
        m = None if row is None or board is None else row.metrics.get(board.metric)
        if row is None or m is None or m.low is None or m.high is None:
            return [Text("…" if self.pending and not human else "", justify="right", style="dim"), Text("")]
        ci = Text("±" + number_text((m.high - m.low) / 2), justify="right", style="dim")
        if human or board is None:
            return [ci, Text("")]
        if board.rank(row.run) == 1:
            return [ci, Text("best", style="bold")]
        return [ci, Text("tied", style="italic") if board.tied_with_best(row.run) else Text("")]

    def update_data(self, ds: DatasetOverview) -> None:
        """New numbers for the same dataset (the slices pass landed): refill, keep the cursor."""
        row = self.cursor_row
        self.ds = ds
        self.fill()
        if self.row_count:
            self.move_cursor(row=min(row, self.row_count - 1), animate=False)

    def set_run_filter(self, shown: Callable[[str], bool] | None) -> None:
        self.run_shown = shown
        self.update_data(self.ds)

    def fill(self) -> None:
        self.clear()
        self.refs = []
        for r in self.ds.runs:
            if self.run_shown is not None and not self.run_shown(r.name):
                continue
            self.add_row(*self._run_cells(r, self.name_w))
            self.refs.append(RowRef(self.ds.name, r.name))
        if not self.ds.runs:
            self.add_row(Text("(golds only)", style="italic"), *[Text("")] * 7)
            self.refs.append(RowRef(self.ds.name, None))
        elif not self.refs:
            self.add_row(Text("(no run with these settings: f)", style="italic"), *[Text("")] * 7)
            self.refs.append(RowRef(self.ds.name, None))
        if self.ds.human is not None:
            self.add_row(*self._run_cells(self.ds.human, self.name_w, human=True))
            self.refs.append(RowRef(self.ds.name, None, human=True))

    def _run_cells(self, r: RunOverview, width: int, *, human: bool = False) -> list[Text]:
        o = r.overall
        m1, m2 = (o.f1_recall, o.answer_rate) if self.cdqa else (o.em, o.f1)
        main = o.main
        style = "italic dim" if human else ""
        return [
            cell_text(r.name, width, style=style or "bold"),
            Text(count(r.predictions), justify="right", style=style),
            _pct(m1, style), _pct(m2, style or "bold"),
            Text(count(o.errors), justify="right", style=style),
            *self._interval_cells(r.name, human),
            Text(bar(None if main is None else main / 100, 12), style="dim" if human else _bar_style(self)),
        ]

    @property
    def ref(self) -> RowRef | None:
        return self.refs[self.cursor_row] if 0 <= self.cursor_row < len(self.refs) else None

    def action_cursor_down(self) -> None:
        """Past the last row, move on to the next table (datasets read as one list)."""
        if self.cursor_row >= self.row_count - 1:
            self.screen.focus_next(DataTable)
        else:
            super().action_cursor_down()

    def action_cursor_up(self) -> None:
        if self.cursor_row <= 0:
            self.screen.focus_previous(DataTable)
        else:
            super().action_cursor_up()


def _bar_style(table: DataTable[Text]) -> str:
    return table.app.current_theme.primary or "blue"


def count_width(ds: DatasetOverview, least: int) -> int:
    """Cells wide enough for the dataset's item count with separators (`1,000,000`): no count of
    predictions, items or errors is larger, and a cut count reads as another number."""
    return count_cells([ds.items], least)


class SlicesTable(DataTable[Text]):
    """Per split / tag / answer type: items, metrics, errors and each slice's share of errors."""

    BINDINGS = [Binding("enter", "select_cursor", "Open", id="slices-table.open",
                        tooltip="Open the items of this slice")]

    def __init__(self, **kwargs: object) -> None:
        super().__init__(cursor_type="row", zebra_stripes=True, **kwargs)  # type: ignore[arg-type]
        self.refs: list[RowRef] = []
        self.cdqa = False

    def show(self, ds: DatasetOverview, run: RunOverview | None, *, loading: bool = False) -> None:
        self.cdqa = ds.uses_f1_recall
        self.clear(columns=True)
        main = ("F1-r", "ans%") if self.cdqa else ("EM", "F1")
        counts = count_width(ds, 6)
        for label, width, key in (
            ("slice", 22, "slice"), ("items", counts, "items"), (main[0], 5, "m1"), (main[1], 5, "m2"),
            ("", 8, "bar"), ("errors", counts, "errors"), ("share", 5, "share"), ("of errors", 9, "sbar"),
        ):
            right = key in ("items", "m1", "m2", "errors", "share")
            self.add_column(Text(label, justify="right" if right else "left"), width=width, key=key)
        self.refs = []
        if run is None:
            for dim in ds.dimensions:
                for value, n in ds.slice_items[dim]:
                    self.add_row(self._label(dim, value), Text(count(n), justify="right"), *[Text("")] * 6)
                    self.refs.append(RowRef(ds.name, None, dim, value))
            return
        human = run is ds.human
        for s in [run.overall, *run.slices]:
            self.add_row(*self._cells(s))
            self.refs.append(RowRef(ds.name, None if human else run.name, s.dimension, s.value, human))
        if loading and not run.slices and ds.dimensions:
            self.add_row(Text("computing slices…", style="italic dim"), *[Text("")] * 7)
            self.refs.append(RowRef(ds.name, None if human else run.name))

    def _label(self, dim: str, value: str | None) -> Text:
        if dim == "all":
            return Text("all items", style="bold")
        return Text.assemble((dimension_name(dim) + " ", "dim"), (clean(value) if value is not None else "(none)", ""))

    def _cells(self, s: SliceStat) -> list[Text]:
        m1, m2 = (s.f1_recall, s.answer_rate) if self.cdqa else (s.em, s.f1)
        main = s.main
        share = s.error_share
        label = self._label(s.dimension, s.value)
        label.truncate(22, overflow="ellipsis")
        primary = _bar_style(self)
        warn = self.app.current_theme.warning or "yellow"
        return [
            label, Text(count(s.items), justify="right"), _pct(m1), _pct(m2, "bold"),
            Text(bar(None if main is None else main / 100, 8), style=primary),
            Text(count(s.errors), justify="right"),
            Text("" if share is None else present_share(share), justify="right"),
            Text(bar(share, 9), style=warn),
        ]

    @property
    def ref(self) -> RowRef | None:
        return self.refs[self.cursor_row] if 0 <= self.cursor_row < len(self.refs) else None
