"""The slice finder (`i` on the compare screen): every facet value where run B differs from run A,
tested and Holm-corrected over all slices tested (`core.report.find_slices`), most significant
first; Enter browses a slice's items with A and B side by side."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.message import Message
from textual.widgets import DataTable, Header, Static
from textual.worker import get_current_worker

from qa_inspect.core import report  # the lazy face: find_slices (numpy, polars) loads when first called
from qa_inspect.core.query import Filter, select

from ..stale import COMPARE_STALE_BINDINGS, StaleScreen
from ..present import count, p_value, plural, signed
from ..text import clean, truncate
from ..widgets import KeyFooter

if TYPE_CHECKING:  # find_slices brings polars and numpy: imported when slices are searched
    from qa_inspect.core.report import SliceFinding

__all__ = ["SliceFinderScreen", "SlicesFound"]


@dataclass
class SlicesFound(Message):
    finding: SliceFinding | None
    error: str | None = None


class SliceFinderScreen(StaleScreen):
    """Where B really differs from A, once chance over many slices is accounted for."""

    HELP_TITLE = "Slice finder"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open", "Browse", id="slice-finder.open",
                tooltip="Browse the items of the slice under the cursor, with A and B"),
        Binding("o", "toggle_rank", "By |Δ|", id="slice-finder.sort",
                tooltip="Rank by adjusted p (most significant first) or by the size of Δ"),
        *COMPARE_STALE_BINDINGS,  # u, U, m (stale.keys): the same keys as every other screen
        Binding("escape", "back", "Back", id="slice-finder.back", tooltip="Back to the comparison"),
    ]

    def __init__(self, base: Filter) -> None:
        super().__init__()
        self.base = base
        self.largest = False
        self.finding: SliceFinding | None = None
        self.status = ""

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="finder-title")
        yield DataTable(id="finder-table", cursor_type="row", zebra_stripes=True)
        yield Static(id="finder-note")
        yield KeyFooter()

    def on_mount(self) -> None:
        table = self.query_one("#finder-table", DataTable)
        for label, key in (("facet", "facet"), ("value", "value"), ("items", "items"), ("Δ B−A", "delta"),
                           ("95% CI", "ci"), ("p", "p"), ("p Holm", "holm")):
            table.add_column(label, key=key)
        self._title("testing every slice…")
        table.loading = True
        self.find(self.largest)

    def _title(self, status: str | None = None) -> None:
        self.status = status if status is not None else self.status
        a, b = self.base.run or "?", self.base.compare or "?"
        mode = [("  · all golds (stored scores)", "$warning")] if self.qa_app.exclude_stale else []
        self.query_one("#finder-title", Static).update(Content.assemble(
            ("Slice finder  ", "bold"), ("A ", "$foreground-muted"), (clean(a), "bold"),
            ("  →  B ", "$foreground-muted"), (clean(b), "bold"), ("  · ", ""), (self.status, "$foreground-muted"),
            *mode))

    def stale_mode_changed(self) -> None:
        self._title()

    @work(thread=True, exclusive=True, exit_on_error=False, group="slice-finder")
    def find(self, largest: bool) -> None:
        worker = get_current_worker()
        within = self.base.with_(compare=None)
        with self.db.connect() as conn:
            finding = report.find_slices(conn, self.base.run or "", self.base.compare or "", within=within,
                                  options=report.StatOptions(), largest=largest, stop=lambda: worker.is_cancelled)
        if not worker.is_cancelled:
            self.post_message(SlicesFound(finding))

    def on_slices_found(self, message: SlicesFound) -> None:
        table = self.query_one("#finder-table", DataTable)
        table.loading = False
        self.finding = message.finding
        table.clear()
        f = message.finding
        if f is None:
            return
        for s in f.slices:
            t = s.test
            style = "bold" if t.significant() else ""
            ci = "—" if t.low is None or t.high is None else f"[{t.low:+.2f}, {t.high:+.2f}]"
            table.add_row(Text(s.label), Text(truncate(clean(s.value), 24)), Text(count(t.n), justify="right"),
                          Text(signed(t.delta), justify="right", style=style), Text(ci, justify="right"),
                          Text(p_value(t.p), justify="right"), Text(p_value(t.p_holm, mark=t.significant()),
                                                               justify="right", style=style))
        rank = "by |Δ|" if self.largest else "by adjusted p"
        self._title(f"{f.metric} on {plural(f.common, 'common item')} · {plural(f.tested, 'slice')} tested, ranked {rank}")
        self.query_one("#finder-note", Static).update(Content.styled(
            f"* Holm-adjusted p < 0.05 over all {f.tested} slices · {f.skipped} facet values under 20 items skipped"
            f" · {f.options.resamples:,} resamples by {f.unit} ({f.units:,}), seed {f.options.seed}"
            " · item facets only", "$foreground-muted"))

    @on(DataTable.RowSelected, "#finder-table")
    def _selected(self, event: DataTable.RowSelected) -> None:
        self._open(event.cursor_row)

    def action_open(self) -> None:
        self._open(self.query_one("#finder-table", DataTable).cursor_row)

    def _open(self, row: int) -> None:
        f = self.finding
        if f is None or not 0 <= row < len(f.slices):
            self.notify("No slice to browse: the finder is still testing, or found none.", timeout=3)
            return
        found = f.slices[row]
        chosen = select(self.base, found.facet, found.value)
        if chosen is None:
            self.notify("This slice cannot be browsed as a filter.", severity="warning")
            return
        self.qa_app.open_browser(chosen)

    def action_toggle_rank(self) -> None:
        self.largest = not self.largest
        self.query_one("#finder-table", DataTable).loading = True
        self.find(self.largest)

    def action_back(self) -> None:
        self.dismiss(None)
