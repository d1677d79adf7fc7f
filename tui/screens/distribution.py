"""Distribution view (`D`): how a run's scores spread over the items of a filter.

Per run a histogram of F1 (F1-recall for CDQA scorers) in bins 0, (0,10] … (90,100), 100 with
counts and block bars, the EM share, and the error categories where a load computed them. With a
run B (the browser's compare run, or the compare screen's B) also B's histogram over the same
items and the A-vs-B grid of score bands; enter on a count opens exactly its items in the item
browser (`Filter.bands`). Every count comes from `core.query.distribution` in a thread worker.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.coordinate import Coordinate
from textual.message import Message
from textual.widget import Widget
from textual.widgets import DataTable, Header, Static
from textual.worker import get_current_worker

from qa_inspect.core.query import Filter, Histogram, ScoreGrid, grid_cell, histogram, score_grid

from ..stale import COMPARE_STALE_BINDINGS, StaleScreen
from ..present import count, percent, plural
from ..text import bar, clean, truncate
from ..widgets import KeyFooter, describe

__all__ = ["DistributionLoaded", "DistributionScreen", "GridTable", "HistogramView"]


@dataclass
class DistributionLoaded(Message):
    generation: int
    a: Histogram | None
    b: Histogram | None
    grid: ScoreGrid | None
    error: str | None


def _share(n: int, total: int) -> str:
    return f"{100 * n / total:5.1f}%" if total else "     —"


def histogram_lines(h: Histogram, width: int, colour: str = "blue") -> list[Text]:
    """The histogram as lines of at most `width` cells: label, count, bar, share of answered items;
    then the items beside the bins, the EM share and the error categories."""
    answered = h.answered
    biggest = max([n for _, n in h.bins] + [1])
    label_w, count_w = 8, max(3, len(count(biggest)))
    bar_w = max(4, min(40, width - label_w - count_w - 10))
    lines = [Text(truncate(clean(h.run), max(8, width)), style="bold")]
    for label, n in h.bins:
        lines.append(Text.assemble(
            (f"{label:>{label_w}} ", "dim"), (f"{n:>{count_w},} ", "bold" if n else "dim"),
            (bar(n / biggest, bar_w), colour), (f" {_share(n, answered)}", "dim")))
    beside = [f"{count(answered)} answered", f"no prediction {count(h.missing)}"] + (
        [f"refused {count(h.refused)}"] if h.refused or h.metric != "F1" else [])
    lines.append(Text("  ·  ".join(beside) + f"  (of {plural(h.items, 'item')})", style="dim"))
    if h.em is not None:
        lines.append(Text.assemble(("EM 1 ", "dim"), (count(h.em), "bold"), (f" of {plural(h.items, 'item')} = ", "dim"),
                                   (percent(h.em_share or 0), "bold")))
    else:
        lines.append(Text(f"no EM: {h.metric} is this scorer's score", style="dim"))
    lines.append(Text(""))
    if h.categories is None:
        lines.append(Text("Error categories: categories not computed", style="dim italic"))
        return lines
    total = sum(n for _, n in h.categories) or 1
    lines.append(Text.assemble(("Error categories", "bold"), (f"  of {plural(total, 'prediction')}", "dim")))
    top = max(n for _, n in h.categories)
    name_w = min(26, max(len(c) for c, _ in h.categories))
    for name, n in h.categories:
        lines.append(Text.assemble((f"{truncate(clean(name), name_w):<{name_w}} ", ""), (f"{n:>{count_w},} ", "bold"),
                                   (bar(n / top, max(4, min(20, width - name_w - count_w - 10))), colour),
                                   (f" {_share(n, total)}", "dim")))
    return lines


class HistogramView(Widget):
    """One run's histogram, drawn to the width it gets."""

    DEFAULT_CSS = "HistogramView { height: auto; width: 1fr; padding: 0 1; }"

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.hist: Histogram | None = None

    def show(self, h: Histogram | None) -> None:
        self.hist = h
        self.display = h is not None
        self.refresh(layout=True)

    def get_content_height(self, container: object, viewport: object, width: int) -> int:
        return len(histogram_lines(self.hist, width)) if self.hist is not None else 0

    def render(self) -> Text:
        if self.hist is None:
            return Text("")
        colour = self.app.current_theme.primary or "blue"
        return Text("\n").join(histogram_lines(self.hist, self.size.width, colour))


class GridTable(DataTable[Text]):
    """A's score band (rows) × B's (columns); enter on a count browses its items."""

    BINDINGS = [Binding("enter", "select_cursor", "Browse", id="distribution.grid.browse",
                        tooltip="Browse the items counted in this cell")]

    def __init__(self, **kwargs: object) -> None:
        super().__init__(cursor_type="cell", show_row_labels=True, **kwargs)  # type: ignore[arg-type]
        self.grid: ScoreGrid | None = None

    def show(self, g: ScoreGrid, palette: dict[str, str]) -> None:
        self.grid = g
        self.clear(columns=True)
        for band in g.bands:
            self.add_column(Text(f"B {band}", justify="right"), width=max(7, len(band) + 2), key=band)
        self.add_column(Text("all", justify="right"), width=6, key="all")
        for i, band in enumerate(g.bands):
            cells = []
            for j, n in enumerate(g.counts[i]):
                style = "dim" if i == j else (palette["good"] if j > i else palette["bad"])
                cells.append(Text(count(n), justify="right", style=style if n else "dim"))
            cells.append(Text(count(sum(g.counts[i])), justify="right", style="bold"))
            self.add_row(*cells, label=Text(f"A {band}", style="bold"), key=band)
        totals = [Text(count(sum(row[j] for row in g.counts)), justify="right", style="bold")
                  for j in range(len(g.bands))]
        self.add_row(*totals, Text(count(g.common), justify="right", style="bold"), label=Text("all", style="bold"))
        self.move_cursor(row=0, column=min(1, len(g.bands) - 1))

    def cell_bands(self, at: Coordinate) -> tuple[str, str] | None:
        """(A band, B band) of a count cell; None on a total."""
        g = self.grid
        if g is None or not (0 <= at.row < len(g.bands) and 0 <= at.column < len(g.bands)):
            return None
        return g.bands[at.row], g.bands[at.column]


class DistributionScreen(StaleScreen):
    """Histograms of run A (and B) over a filter's items, and the A-vs-B score grid."""

    HELP_TITLE = "Distribution"
    DEFAULT_CSS = """
    DistributionScreen #dist-title { height: auto; padding: 0 1; background: $panel; }
    DistributionScreen #dist-body { height: 1fr; }
    DistributionScreen .dist-section { height: 1; padding: 0 1; margin-top: 1; text-wrap: nowrap; text-overflow: ellipsis; }
    DistributionScreen #dist-grid-title { height: auto; text-wrap: wrap; }
    DistributionScreen #dist-grid { height: auto; width: auto; margin: 0 1; }
    DistributionScreen #dist-hists { height: auto; }
    DistributionScreen.-short .dist-section { margin-top: 0; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open", "Browse cell", id="distribution.open",
                tooltip="Browse the items of the grid cell under the cursor"),
        Binding("tab", "app.focus_next", "Next", show=False, id="distribution.next-table",
                tooltip="Move between the grid and the histograms"),
        *COMPARE_STALE_BINDINGS,  # u, U, m (stale.keys): the same keys as every other screen
        Binding("escape", "back", "Back", id="distribution.back", tooltip="Back to where you came from"),
    ]

    def __init__(self, f: Filter) -> None:
        super().__init__()
        self.filter = f
        self.generation = 0
        self.loaded_generation = -1  # the generation on screen (tests)
        self.hist_a: Histogram | None = None
        self.hist_b: Histogram | None = None
        self.grid: ScoreGrid | None = None

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="dist-title")
        with VerticalScroll(id="dist-body"):
            yield Static(id="dist-grid-title", classes="dist-section")
            yield GridTable(id="dist-grid")
            yield Static(id="dist-hists-title", classes="dist-section")
            with Horizontal(id="dist-hists"):
                yield HistogramView(id="dist-a")
                yield HistogramView(id="dist-b")
        yield KeyFooter()

    def on_mount(self) -> None:
        compare = bool(self.filter.compare)
        for wid in ("#dist-grid-title", "#dist-grid"):
            self.query_one(wid).display = compare
        self.app.theme_changed_signal.subscribe(self, lambda _: self._fill())
        self.reload()

    def reload(self) -> None:
        self.generation += 1
        self.query_one("#dist-body").loading = True
        self._show_title()
        self.compute(self.generation, self.filter)

    @work(thread=True, exclusive=True, exit_on_error=False, group="distribution")
    def compute(self, generation: int, f: Filter) -> None:
        a = b = grid = None
        error = None
        with self.db.connect() as conn:
            try:
                a = histogram(conn, f)
                if f.compare:
                    b = histogram(conn, f, "b")
                    grid = score_grid(conn, f)
            except ValueError as exc:  # a saved filter naming an unknown band
                error = str(exc)
        if not get_current_worker().is_cancelled:
            self.post_message(DistributionLoaded(generation, a, b, grid, error))

    def on_distribution_loaded(self, message: DistributionLoaded) -> None:
        if message.generation != self.generation:
            return
        self.loaded_generation = message.generation
        self.hist_a, self.hist_b, self.grid = message.a, message.b, message.grid
        self.query_one("#dist-body").loading = False
        if message.error:
            self.notify(clean(message.error), severity="error", markup=False)
        self._show_title()
        self._fill()
        self.refresh_bindings()
        if self.grid is not None:
            self.query_one(GridTable).focus()

    # -- drawing -----------------------------------------------------------------------------
    def _show_title(self) -> None:
        f = self.filter
        parts: list[tuple[str, str]] = [("Distribution  ", "bold"), ("A " if f.compare else "run ", "$foreground-muted"),
                                        (clean(f.run or ""), "bold")]
        if f.compare:
            parts += [("  vs  B ", "$foreground-muted"), (clean(f.compare), "bold $accent")]
        if self.hist_a is not None:
            parts += [("   ", ""), (plural(self.hist_a.items, "item"), "bold $accent")]
            chips = [(label, value) for label, value in describe(f) if label not in ("run", "vs", "dataset")]
            parts += [("  " + " ".join(f"{label} {value}".strip() for label, value in chips), "$foreground-muted")
                      ] if chips else [("  (every item of the dataset)", "$foreground-muted")]
        elif self.loaded_generation != self.generation:
            parts += [("   counting…", "$foreground-muted italic")]
        if self.qa_app.exclude_stale:
            parts += [("  · scores against every gold (stored)", "$warning")]
        self.query_one("#dist-title", Static).update(Content.assemble(*parts))

    def _fill(self) -> None:
        theme = self.app.current_theme
        palette = {"good": theme.success or "green", "bad": theme.error or "red"}
        g = self.grid
        if g is not None:
            self.query_one("#dist-grid-title", Static).update(Content.assemble(
                (f"{g.metric} bands: A rows × B columns", "bold"),
                (f"  {plural(g.common, 'item')} both runs predicted (a refusal scores 0) · ", "$foreground-muted"),
                ("B higher", "$success"), (" · ", "$foreground-muted"), ("A higher", "$error"),
                (" · enter browses a count", "$foreground-muted")))
            self.query_one(GridTable).show(g, palette)
        h = self.hist_a
        self.query_one("#dist-hists-title", Static).update(Content.assemble(
            (f"{h.metric if h else 'Score'} histogram", "bold"),
            ("  bins (lo,hi] on 0–100; % of answered items", "$foreground-muted")))
        self.query_one("#dist-a", HistogramView).show(self.hist_a)
        self.query_one("#dist-b", HistogramView).show(self.hist_b)

    # -- actions -----------------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Enter browses a grid cell: only shown while there is a grid (a run B)."""
        if action == "open":
            return self.grid is not None
        return super().check_action(action, parameters)

    @on(DataTable.CellSelected, "#dist-grid")
    def _cell_selected(self, event: DataTable.CellSelected) -> None:
        event.stop()
        self._open_cell(event.coordinate)

    def action_open(self) -> None:
        table = self.query_one(GridTable)
        if table.display and self.focused is table:
            self._open_cell(table.cursor_coordinate)

    def _open_cell(self, at: Coordinate) -> None:
        table = self.query_one(GridTable)
        bands = table.cell_bands(at)
        if bands is None or table.grid is None:
            self.notify("Choose a count cell: the totals have no filter of their own.", severity="warning")
            return
        if table.grid.counts[at.row][at.column] == 0:
            self.notify("No items in this cell.", severity="warning")
            return
        self.qa_app.open_browser(grid_cell(self.filter, *bands))

    def stale_changed(self) -> None:
        self.reload()

    def stale_mode_changed(self) -> None:
        self._show_title()

    def action_back(self) -> None:
        self.dismiss(None)
