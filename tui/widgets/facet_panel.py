"""Facet panel: VisiData-style frequency tables of the browser's current filter, beside the items.

For every facet of `core.facets` (split, tag, answer type, refused, stale, prediction length,
gold length, question word) one row per value: items, error rate, share of all errors, and a bar
(length = items, relative to the facet's largest value; the red part = its errors).

Enter filters to a value (again: clears the facet), space adds or removes a value (values of one
facet are OR-ed), backspace clears the facet. A facet with a selection is counted without its own
selection, so its other values stay listed and can be added.

Counting runs in a thread worker, debounced after each filter change and only while the panel is
shown; the item table never waits for it. A newer filter interrupts an older count.
"""

from __future__ import annotations

import sqlite3
import threading
from dataclasses import dataclass, replace
from typing import Any

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.timer import Timer
from textual.widgets import DataTable, Static
from textual.worker import get_current_worker

from qa_inspect.core.query import (
    FACETS,
    FacetRow,
    FacetTable,
    Filter,
    clear,
    facet_defs,
    facet_frame,
    facet_table,
    facet_tables,
    judge_facet,
    select,
    selected,
)

from ..base import WorkerErrors
from ..present import count, noun, percent
from ..text import BLOCKS, clean, count_cells, truncate

DEBOUNCE = 0.3
"""Seconds a filter must stay unchanged before the facets are counted (typing, quick toggles)."""


def toggle(f: Filter, name: str, value: Any) -> Filter | None:
    """`f` with `value` of facet `name` added to its selection, or removed when already selected;
    None when the value cannot be selected (items without a label, without a prediction)."""
    current = [str(v) for v in selected(f, name)]
    key = str(int(value)) if isinstance(value, bool) else str(value)
    if key in current:
        out = clear(f, name)
        for v in selected(f, name):
            if str(v) != key:
                nxt = select(out, name, v, add=True)
                out = nxt if nxt is not None else out
        return out
    return select(f, name, value, add=True)


def choose(f: Filter, name: str, value: Any) -> Filter | None:
    """`f` with only `value` selected in facet `name`; the facet cleared when that is already so."""
    key = str(value)
    if [str(v) for v in selected(f, name)] == [key]:
        return clear(f, name)
    return select(f, name, value)


def split_bar(items: int, errors: int | None, largest: int, width: int, ok: str, bad: str) -> Text:
    """A bar `width` cells wide: length ∝ items / largest (eighth-cell steps), the first
    errors / largest of it in `bad`. Where the two parts meet inside one cell the error part is the
    block's foreground and the rest its background."""
    if largest <= 0 or width <= 0:
        return Text(" " * max(width, 0))
    total8 = round(8 * width * items / largest)
    err8 = min(total8, round(8 * width * (errors or 0) / largest)) if errors is not None else 0
    out = Text(no_wrap=True)
    for cell in range(width):
        lo = 8 * cell
        e = min(max(err8 - lo, 0), 8)
        t = min(max(total8 - lo, 0), 8)
        if e == 8:
            out.append("█", Style(color=bad))
        elif e > 0:
            out.append(BLOCKS[e], Style(color=bad, bgcolor=ok if t - e >= 4 else None))
        elif t > 0:
            out.append("█" if t == 8 else BLOCKS[t], Style(color=ok))
        else:
            out.append(" ")
    return out


@dataclass(frozen=True, slots=True)
class Colours:
    """Theme colours of the panel: bars (`ok`), their error part (`bad`), selected values (`accent`)."""

    ok: str
    bad: str
    accent: str


@dataclass(frozen=True, slots=True)
class Widths:
    """Cells of the value label and the bar; whether the error columns are shown."""

    value: int
    bar: int
    errors: bool


def facet_head(name: str, chosen: bool, widths: Widths, colours: Colours) -> Text:
    """A facet's title row label; ⌫ when it has a selection (backspace clears it)."""
    d = FACETS.get(name) or judge_facet(name)  # a judge's facet names the judge (data: cleaned)
    head = Text.assemble((clean(d.label) if d is not None else clean(name), f"bold {colours.ok}"))
    if chosen:
        head.append(" ⌫", style="dim")
    head.truncate(3 + widths.value, overflow="ellipsis")
    return head


def value_cells(name: str, r: FacetRow, chosen: set[str], largest: int, widths: Widths, colours: Colours) -> list[Text]:
    """One value's row: ● when selected, its label (data: cleaned), items, error rate and share, bar."""
    on = str(r.value) in chosen or (name in ("refused", "stale") and r.value is not None
                                    and str(int(r.value)) in chosen)
    label = Text.assemble((" ● " if on else "   ", colours.accent),
                          (truncate(clean(r.label), widths.value), "bold" if on else ("dim" if r.filter is None else "")))
    cells = [label, Text(count(r.items), justify="right")]
    if widths.errors:
        cells.append(Text("" if r.error_rate is None else percent(r.error_rate, 0), justify="right"))
        cells.append(Text("" if r.error_share is None else percent(r.error_share, 0), justify="right", style="dim"))
    cells.append(Text.assemble("  ", split_bar(r.items, r.errors, largest, widths.bar, colours.ok, colours.bad)))
    return cells


@dataclass
class FacetsLoaded(Message):
    generation: int
    filter: Filter
    tables: list[FacetTable]
    total: int
    errors: int | None


class FacetList(DataTable[Text]):
    """The rows of every facet: a title row per facet, then its values."""

    BINDINGS = [
        Binding("enter", "choose", "Only this", id="facets.choose",
                tooltip="Filter to this value only (again, or on a facet title: clear it)"),
        Binding("space", "toggle_value", "Add/remove", id="facets.toggle",
                tooltip="Add this value to the facet's selection, or remove it"),
        Binding("backspace", "clear_facet", "Clear facet", id="facets.clear",
                tooltip="Clear the selection of the facet under the cursor"),
        Binding("delete", "clear_facet", "Clear facet", id="facets.clear-delete", show=False,
                tooltip="Clear the selection of the facet under the cursor"),
        Binding("escape", "leave", "Items", id="facets.leave", tooltip="Back to the item table"),
    ]

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(cursor_type="row", show_header=True, cell_padding=0, **kwargs)
        self.refs: list[tuple[str, FacetRow | None]] = []

    @property
    def ref(self) -> tuple[str, FacetRow | None] | None:
        return self.refs[self.cursor_row] if 0 <= self.cursor_row < len(self.refs) else None

    def _panel(self) -> FacetPanel:
        return self.query_ancestor(FacetPanel)

    def action_choose(self) -> None:
        ref = self.ref
        if ref is not None:
            self._panel().apply(ref[0], ref[1], add=False)

    def action_toggle_value(self) -> None:  # not `toggle`: DOMNode.action_toggle(attribute) is textual's
        ref = self.ref
        if ref is not None and ref[1] is not None:
            self._panel().apply(ref[0], ref[1], add=True)

    def action_clear_facet(self) -> None:
        ref = self.ref
        if ref is not None:
            self._panel().apply(ref[0], None, add=False)

    def action_leave(self) -> None:
        self._panel().post_message(FacetPanel.Leave())

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()  # the browser listens to its item table's cursor, not this one

    def reveal_cursor(self) -> None:
        """Scroll the cursor's row into view once the rows are laid out: after a refill or a resize
        the scroll position is the old one, and Enter would pick a value the user cannot see."""
        self.call_after_refresh(lambda: self.move_cursor(row=self.cursor_row, animate=False, scroll=True))

    def on_focus(self) -> None:
        self.reveal_cursor()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        """A second click on a row chooses it (enter is bound to `choose` directly)."""
        event.stop()
        self.action_choose()


class FacetPanel(WorkerErrors, Vertical):
    """Counts and errors per facet value of the current filter; selecting a value filters."""

    DEFAULT_CSS = """
    FacetPanel {
        width: 48;
        height: 1fr;
        border-left: vkey $panel-lighten-2;
        display: none;
    }
    FacetPanel.-shown { display: block; }
    FacetPanel #facet-title { height: 1; padding: 0 1; background: $panel; text-wrap: nowrap; text-overflow: ellipsis; }
    FacetPanel FacetList { height: 1fr; }
    """

    @dataclass
    class Selected(Message):
        """The user chose facet values: show this filter."""

        filter: Filter

    class Leave(Message):
        """Escape in the panel: focus the item table."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.filter: Filter | None = None
        self.shown_filter: Filter | None = None
        self.tables: list[FacetTable] = []
        self.totals: tuple[int, int | None] = (0, None)
        """Items and errors of the filter (facets with a selection are counted without it)."""
        self.generation = 0
        self.loaded_generation = -1  # the generation on screen (tests)
        self._timer: Timer | None = None
        self._dirty = True
        self._lock = threading.Lock()
        self._busy: sqlite3.Connection | None = None
        self._order_scope: tuple[str | None, str | None] | None = None
        self._order: dict[str, dict[str, int]] = {}
        """Per facet, the place each value was first listed at (while `_order_scope` stays)."""

    def compose(self) -> ComposeResult:
        yield Static(id="facet-title")
        yield FacetList(id="facet-list")

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, lambda _: self._fill())

    @property
    def shown(self) -> bool:
        return self.has_class("-shown")

    def show(self, on: bool) -> None:
        self.set_class(on, "-shown")
        if on and self._dirty and self.filter is not None:
            self._start()

    # -- counting ----------------------------------------------------------------------------
    def follow(self, f: Filter, *, data_changed: bool = False) -> None:
        """The browser's filter changed (or, `data_changed`, what it selects did: a flag was
        written): count again once it settles (only while shown)."""
        if f == self.filter and not self._dirty and not data_changed:
            return
        self.filter = f
        self._dirty = True
        if not self.shown:
            return
        if self._timer is not None:
            self._timer.stop()
        self._title(updating=True)
        self._timer = self.set_timer(DEBOUNCE, self._start)

    def _start(self) -> None:
        if self.filter is None:
            return
        self._dirty = False
        self.generation += 1
        with self._lock:  # a newer filter: stop the older count's query where SQLite allows
            if self._busy is not None:
                self._busy.interrupt()
        self._title(updating=True)
        self.count(self.generation, self.filter)

    @work(thread=True, exclusive=True, exit_on_error=False, group="facets")
    def count(self, generation: int, f: Filter) -> None:
        worker = get_current_worker()
        with self.db.connect() as conn:  # the run's facet frame: read once, never interrupted
            facet_frame(conn, f, facet_defs(conn, f))
        if worker.is_cancelled:
            return
        with self.db.connect() as conn:
            with self._lock:
                self._busy = conn
            try:
                tables = facet_tables(conn, f)
                total = tables[0].total if tables else 0
                errors = tables[0].errors if tables else None
                # A facet with a selection is counted without it, so its other values can be added.
                for k, t in enumerate(tables):
                    if selected(f, t.name) and not worker.is_cancelled:
                        tables[k] = facet_table(conn, clear(f, t.name), t.name)
            except sqlite3.OperationalError as exc:
                if "interrupted" in str(exc):
                    return
                raise
            finally:
                with self._lock:
                    self._busy = None
        if not worker.is_cancelled:
            self.post_message(FacetsLoaded(generation, f, tables, total, errors))

    def on_facets_loaded(self, message: FacetsLoaded) -> None:
        message.stop()
        if message.generation != self.generation:
            return
        self.loaded_generation = message.generation
        self.tables = self._keep_order(message.tables, message.filter)
        self.totals = (message.total, message.errors)
        self.shown_filter = message.filter
        self._fill()
        self._title()

    def _keep_order(self, tables: list[Any], f: Filter) -> list[Any]:
        """Values keep the order they were first listed in while the dataset and run stay (counts
        change under the cursor, rows do not jump); values new to a facet follow, largest first."""
        scope = (f.dataset, f.run)
        if self._order_scope != scope:
            self._order_scope, self._order = scope, {}
        order = self._order
        out = []
        for t in tables:
            seen = order.setdefault(t.name, {})
            for r in t.rows:
                seen.setdefault(str(r.value), len(seen))
            out.append(replace(t, rows=sorted(t.rows, key=lambda r: seen[str(r.value)])))
        return out

    # -- drawing -----------------------------------------------------------------------------
    def _title(self, *, updating: bool = False) -> None:
        parts: list[tuple[str, str]] = [("Facets", "bold")]
        if self.tables:
            total, errors = self.totals
            parts += [("  ", ""), (count(total), "bold $accent"), (" " + noun(total, "item"), "$foreground-muted")]
            if errors is not None:
                parts += [("  ", ""), (count(errors), "bold $error"), (" " + noun(errors, "error"), "$foreground-muted")]
        if updating or not self.tables:
            parts.append(("  counting…", "italic $foreground-muted"))
        self.query_one("#facet-title", Static).update(Content.assemble(*parts))

    def _fill(self) -> None:
        """Every facet: a title row, then one row per value; the cursor stays on its row."""
        table = self.query_one(FacetList)
        keep = table.ref
        keep_key = (keep[0], None if keep[1] is None else str(keep[1].value)) if keep else None
        table.clear(columns=True)
        table.refs = []
        if not self.tables:
            return
        theme = self.app.current_theme
        colours = Colours(theme.primary or "blue", theme.error or "red", theme.accent or "yellow")
        widths = self._add_columns(table, colours)
        cursor = 0
        f = self.filter or Filter()
        for t in self.tables:
            chosen = {str(v) for v in selected(f, t.name)}
            table.add_row(facet_head(t.name, bool(chosen), widths, colours), *[Text("")] * (len(table.columns) - 1))
            if keep_key == (t.name, None):
                cursor = table.row_count - 1
            table.refs.append((t.name, None))
            largest = max((r.items for r in t.rows), default=0)
            for r in t.rows:
                table.add_row(*value_cells(t.name, r, chosen, largest, widths, colours))
                table.refs.append((t.name, r))
                if keep_key == (t.name, str(r.value)):
                    cursor = table.row_count - 1
        table.move_cursor(row=cursor, animate=False)
        table.reveal_cursor()

    def _add_columns(self, table: FacetList, colours: Colours) -> Widths:
        """value, items, (err%, share,) bar: the value and bar columns share what the panel leaves."""
        has_errors = any(t.errors is not None for t in self.tables)
        inner = max((table.size.width or (self.size.width or 48) - 1) - 2, 30)  # less the scrollbar
        longest = max([8, *(cell_len(clean(r.label)) for t in self.tables for r in t.rows),
                       *(cell_len(t.label) - 3 for t in self.tables)])
        value_w = min(longest, 24 if inner >= 70 else 14)
        items_w = count_cells((r.items for t in self.tables for r in t.rows), 5) + 1  # and a space before it
        fixed = 3 + value_w + items_w + (5 + 6 if has_errors else 0) + 2  # columns are unpadded: widths space them
        bar_w = max(6, min(inner - fixed, 40))
        table.add_column(Text("value"), width=3 + value_w, key="value")
        table.add_column(Text("items", justify="right"), width=items_w, key="items")
        if has_errors:
            table.add_column(Text("err%", justify="right"), width=5, key="rate")
            table.add_column(Text("share", justify="right"), width=6, key="share")
        ok, bad = colours.ok, colours.bad
        legend = Text.assemble("  ", ("█", ok), " n ", ("█", bad), " err") if has_errors else Text("  items")
        legend.truncate(bar_w + 2)
        table.add_column(legend, width=bar_w + 2, key="bar")
        return Widths(value_w, bar_w, has_errors)

    def on_resize(self) -> None:
        if self.tables:
            self._fill()

    # -- choosing ----------------------------------------------------------------------------
    def apply(self, name: str, row: FacetRow | None, *, add: bool) -> None:
        """Enter/space/backspace on a row: post the new filter (from the browser's latest one)."""
        f = self.filter
        if f is None:
            return
        if row is None:
            new: Filter | None = clear(f, name)
            if new == f:
                return
        else:
            new = toggle(f, name, row.value) if add else choose(f, name, row.value)
        if new is None:
            self.notify("Items without this value cannot be filtered on.", severity="warning")
            return
        self.post_message(self.Selected(new))
