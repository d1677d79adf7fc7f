"""The item table: a window of at most `WINDOW` rows over a filter that may match 100k items.

The widget never holds more than one window. Moving the cursor past either end of the window,
paging, Home/End and wheel-scrolling past the edge post `NeedWindow`; the screen fetches that
window with `core.query.page` in a worker and hands it back through `show_window`. Row positions
shown to the user (and used for n/p) are absolute: `start + cursor_row`. A window around an item
found by keyset (jump-to-item) arrives before its start is counted: until `place` gives it, the
table says no row number (`known_cursor` is None) and the cursor stays inside the window.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.message import Message
from textual.theme import Theme
from textual.widgets import DataTable

from qa_inspect.core.query import ItemRow

from ..present import MISSING, signed
from .lean_table import LeanTable
from ..text import cell_text, clean, number, shorten_ids, truncate, truncate_middle

WINDOW = 120
"""Rows held by the widget at once (a few screens; each window change re-renders them)."""

TABLE_KEYS: list[tuple[str, str]] = [
    ("↑ ↓", "move the cursor (more rows load as you go)"),
    ("pgup pgdn", "page through the items"),
    ("home end", "first / last item of the filter"),
    ("← →", "scroll the columns sideways one cell (when they do not fit)"),
    ("shift+← → < >", "scroll the columns sideways one column (the id stays)"),
    ("click header", "sort by that column (again: reverse)"),
    ("click row", "highlight; click again to open"),
]
"""Help rows for the table's own keys and the mouse (the browser's help section lists them)."""


@dataclass(frozen=True, slots=True)
class Col:
    key: str
    label: str
    sort: str | None
    width: int = 0  # fixed width in cells; 0 = flexible
    weight: int = 0  # share of the remaining width for flexible columns
    justify: str = "left"


SPLIT = Col("split", "split", "split", 6)
TAG = Col("tag", "tag", "tag", 8)
TYPE = Col("answer_type", "type", "answer_type", 8)
QUESTION = Col("question", "question", "question", weight=4)
PREDICTION = Col("prediction", "prediction", "prediction", weight=3)
GOLD = Col("best_gold", "best gold", None, weight=3)
EM = Col("em", "EM", "em", 2, justify="right")
F1 = Col("f1", "F1", "f1", 5, justify="right")
F1R = Col("f1_recall", "F1-r", "f1_recall", 5, justify="right")
REFUSED = Col("refused", "ref", "refused", 3)
STALE = Col("stale", "stale", "stale", 5)
B_EM = Col("b_em", "B EM", None, 4, justify="right")
DELTA = Col("delta", "Δ B−A", "delta", 7, justify="right")
"""B − A (core's `delta`), as the compare screen and `qa-inspect diff` report it."""


def registry_col(name: str, label: str, numeric: bool) -> Col:
    """The table's column for a registry column (`core.query.columns`): sortable by its name,
    numbers right-aligned; its cells come from `ItemRow.extra`."""
    if numeric:
        return Col(name, label, name, max(6, min(len(label), 12)), justify="right")
    if name.startswith("answer:"):  # another run's answer: as flexible as the prediction
        return Col(name, label, name, weight=2)
    return Col(name, label, name, REGISTRY_WIDTHS.get(name, max(8, min(len(label) + 2, 16))))


REGISTRY_WIDTHS = {"label": 18, "error_category": 16, "relation": 10}
"""Cells of the registry columns whose values run longer than their header."""


def columns_for(
    cdqa: bool, dims: set[str], compare: bool, key_width: int = 10, width: int = 120,
    dim_widths: dict[str, int] | None = None, has_run: bool = True, keep_all: bool = False,
) -> list[Col]:
    """The columns worth showing: slice columns only when the dataset's labels vary, the metric
    columns of the run's scorer, and the B/Δ columns while comparing. Narrow terminals get a
    shorter id and (unless `keep_all`: the user chose the columns) no slice columns and no B EM,
    so the question keeps its room; `hidden_for_width` counts what that left out."""
    narrow = width < 100
    drop = narrow and not keep_all
    cols = [Col("key", "id", "key", min(max(key_width, 4), 14 if narrow else 18))]  # ids cut in the middle
    if drop:
        dims = set()
    dw = dim_widths or {}
    cols += [Col(c.key, c.label, c.sort, max(len(c.label), min(dw.get(d, c.width), 14)))
             for c, d in ((SPLIT, "split"), (TAG, "tag"), (TYPE, "answer_type")) if d in dims]
    if not has_run:  # browsing a dataset's golds: nothing to score
        return [*cols, QUESTION, Col("best_gold", "gold", None, weight=3), STALE]
    cols += [QUESTION, PREDICTION, GOLD]
    cols += [F1R, REFUSED] if cdqa else [EM, F1]
    cols.append(Col("stale", "⚑", "stale", 1) if narrow else STALE)
    if compare:
        if not cdqa and not drop:  # 80 columns: B F1 and Δ say enough
            cols.append(B_EM)
        cols += [Col("b_main", "B F1-r" if cdqa else "B F1", None, 6, justify="right"), DELTA]
    return cols


def hidden_for_width(every: list[Col], shown: list[Col], user_hidden: tuple[str, ...] = ()) -> list[str]:
    """Labels of the columns of `every` (as wide as they come) a narrow terminal left out of
    `shown`, not counting those the user hid."""
    keys = {c.key for c in shown}
    return [c.label for c in every if c.key not in keys and c.key not in user_hidden]


def layout_widths(cols: list[Col], total: int) -> list[int]:
    """Cell widths that fill `total` columns (2 cells of padding each); flexible columns ≥ 8, or
    ≥ 6 where 8 would not fit. What still does not fit scrolls sideways (the id column stays)."""
    fixed = sum(c.width for c in cols) + 2 * len(cols) + 2  # + scrollbar
    weights = sum(c.weight for c in cols) or 1
    flexible = sum(1 for c in cols if c.weight)
    floor = 8 if total - fixed >= 8 * flexible else 6
    free = max(total - fixed, floor * flexible)
    return [c.width or max(floor, free * c.weight // weights) for c in cols]


class ItemTable(LeanTable):
    """Items of the current filter, one window at a time."""

    BINDINGS = [
        Binding("enter", "select_cursor", "Open", id="item-table.open", tooltip="Open the item under the cursor"),
        Binding("home", "first", "First item", id="item-table.first", show=False),
        Binding("end", "last", "Last item", id="item-table.last", show=False),
        Binding("ctrl+home", "first", "First item", id="item-table.first-ctrl", show=False),
        Binding("ctrl+end", "last", "Last item", id="item-table.last-ctrl", show=False),
        Binding("shift+right,greater_than_sign", "scroll_column(1)", "Columns right", id="item-table.column-right",
                show=False, tooltip="Scroll the columns one to the left (the id column stays)"),
        Binding("shift+left,less_than_sign", "scroll_column(-1)", "Columns left", id="item-table.column-left",
                show=False, tooltip="Scroll the columns one to the right (the id column stays)"),
    ]

    @dataclass
    class NeedWindow(Message):
        """Fetch rows from `start` and put the cursor on absolute row `cursor`."""

        start: int
        cursor: int

    @dataclass
    class Sort(Message):
        """The user asked to sort by a column (header click or the sort key)."""

        sort: str

    @dataclass
    class Resized(Message):
        """The table's own width changed (terminal resized, facet panel shown or hidden): the
        screen lays the columns out again for `width` once the table has it."""

        width: int

    def on_resize(self, event: events.Resize) -> None:
        self.post_message(self.Resized(event.size.width))

    def __init__(self, **kwargs: object) -> None:
        super().__init__(cursor_type="row", zebra_stripes=True, **kwargs)
        self.win_start = 0
        self.win_total = 0
        self.win_rows: list[ItemRow] = []
        self.win_known = True
        """Whether `win_start` is the window's absolute start (False: a keyset window, start not yet counted)."""
        self.cols: list[Col] = []
        self.widths: list[int] = []
        self.sort_key = "key"
        self.descending = False
        self._target: int | None = None
        """Absolute row the cursor is on its way to while a window loads; later keys count from it."""
        self.palette: dict[str, str] = {"good": "green", "bad": "red", "warn": "yellow"}
        self.short_ids: dict[str, str] = {}
        """Each shown row's id as its column shows it (`shorten_ids` over the window's rows)."""

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, self._theme_changed)

    def _theme_changed(self, theme: Theme) -> None:
        """Cells carry theme colours as Rich styles: rebuild them with the new theme's."""
        self.palette = {"good": theme.success or "green", "bad": theme.error or "red", "warn": theme.warning or "yellow"}
        if self.win_rows:
            self.show_window(self.known_start, self.win_rows, self.absolute_cursor, self.win_total)

    # -- building ----------------------------------------------------------------------------
    def set_columns(self, cols: list[Col], sort: str, descending: bool, *, refill: bool = True) -> None:
        """Replace the columns when they changed (run, scorer, compare, terminal width); a new
        sort only relabels the headers. Rebuilding re-renders every visible cell, so skip it."""
        room = self.size.width or self.app.size.width
        widths = layout_widths(cols, room)
        keys = [c.key for c in cols]
        overflow = sum(widths) + 2 * self.cell_padding * len(widths) > room
        # Scrolling sideways (the columns do not fit): the id stays, tinted as pinned.
        self.fixed_columns = keys.index("key") + 1 if overflow and "key" in keys else 0
        if cols == self.cols and widths == self.widths and self.columns:
            if (sort, descending) != (self.sort_key, self.descending):
                self.sort_key, self.descending = sort, descending
                for col, column in zip(cols, self.ordered_columns):
                    column.label = self._label(col)
                self._clear_caches()
                self.refresh()
            return
        self.cols, self.widths = cols, widths
        self.sort_key, self.descending = sort, descending
        theme = self.app.current_theme
        self.palette = {"good": theme.success or "green", "bad": theme.error or "red", "warn": theme.warning or "yellow"}
        self.clear(columns=True)
        for col, width in zip(cols, self.widths):
            self.add_column(self._label(col), width=width, key=col.key)
        if not refill:  # a new window is on its way anyway
            self.win_rows = []
        elif self.win_rows:
            self._fill(self.win_rows)

    def _label(self, col: Col) -> Text:
        down = self.descending
        arrow = (" ↓" if down else " ↑") if col.sort == self.sort_key else ""
        width = self.widths[self.cols.index(col)] if col in self.cols else 0
        label = truncate(col.label, max(1, width - len(arrow))) if width else col.label  # cut headers end in …
        return Text(label + arrow, justify=col.justify, style="bold" if arrow else "")  # type: ignore[arg-type]

    @property
    def absolute_cursor(self) -> int:
        return self.win_start + self.cursor_row

    @property
    def known_start(self) -> int | None:
        """The window's absolute start, None while it is not counted yet."""
        return self.win_start if self.win_known else None

    @property
    def known_cursor(self) -> int | None:
        """The cursor's absolute row to show, None without rows or while the window is not placed."""
        return self.absolute_cursor if self.win_rows and self.win_known else None

    @property
    def current(self) -> ItemRow | None:
        if 0 <= self.cursor_row < len(self.win_rows):
            return self.win_rows[self.cursor_row]
        return None

    def show_window(self, start: int | None, rows: list[ItemRow], cursor: int, total: int) -> None:
        """Show rows `start…` and put the cursor on absolute row `cursor` (clamped). `start` None:
        not counted yet (`place` follows); `cursor` is then the row's index in `rows`."""
        if self._target == cursor or start is None:
            self._target = None  # the window asked for last arrived (an older one leaves it waiting)
        self.win_known = start is not None
        self.win_start, self.win_total, self.win_rows = start or 0, total, rows
        self.clear(columns=False)
        self._fill(rows)
        if rows:
            self.move_cursor(row=min(max(cursor - self.win_start, 0), len(rows) - 1), animate=False)

    def _fill(self, rows: list[ItemRow]) -> None:
        width = next((w for c, w in zip(self.cols, self.widths) if c.key == "key"), 0)
        self.short_ids = dict(zip((r.key for r in rows), shorten_ids([clean(r.key) for r in rows], width)))
        self.add_rows([self._cells(r) for r in rows])  # two rows never read the same id

    def _cells(self, r: ItemRow) -> list[Text]:
        out: list[Text] = []
        for col, width in zip(self.cols, self.widths):
            short = self.short_ids.get(r.key) if col.key == "key" else None
            out.append(Text(short, no_wrap=True) if short is not None else item_cell(col.key, r, width, self.palette))
        return out

    def place(self, item_id: int, position: int | None) -> bool:
        """The counted position of `item_id` in a window shown unplaced: the window's start follows
        from it (the cursor may have moved inside the window since). False when it does not apply."""
        ids = [r.item_id for r in self.win_rows]
        if self.win_known or position is None or item_id not in ids:
            return False
        self.win_start, self.win_known = position - ids.index(item_id), True
        self.win_total = max(self.win_total, self.win_start + len(ids))
        return True

    # -- windowing ---------------------------------------------------------------------------
    def _request(self, start: int, cursor: int) -> None:
        """Fetch the window at `start` with the cursor on absolute row `cursor` (once at a time:
        wheel scrolling coalesces while one is on its way)."""
        if self._target is not None or self.win_total == 0 or not self.win_known:
            return
        self._fetch(start, cursor)

    def _fetch(self, start: int, cursor: int) -> None:
        self._target = max(0, min(cursor, self.win_total - 1))
        start = max(0, min(start, max(self.win_total - WINDOW, 0)))
        self.post_message(self.NeedWindow(start, self._target))

    def _go(self, delta: int) -> None:
        """Move the cursor `delta` rows from where it is, or from where it is going while a window
        loads: ten quick PgDn move ten pages, never fewer (a newer request replaces the older)."""
        if self.win_total == 0:
            return
        base = self.absolute_cursor if self._target is None else self._target
        self.goto(base + delta)

    def goto(self, target: int) -> None:
        """Put the cursor on absolute row `target`: at once inside the window, else fetch around it."""
        if self.win_total == 0:
            return
        target = max(0, min(target, self.win_total - 1))
        if not self.win_known:  # rows past the window are asked for by position: none until it is counted
            target = max(0, min(target, len(self.win_rows) - 1))
        if self._target is None and self.win_start <= target < self.win_start + len(self.win_rows):
            self.move_cursor(row=target - self.win_start)
            return
        self._fetch(target - WINDOW // 2, target)

    @property
    def _more_below(self) -> bool:
        return self.win_start + len(self.win_rows) < self.win_total

    def action_cursor_down(self) -> None:
        self._go(1)

    def action_cursor_up(self) -> None:
        self._go(-1)

    def _page(self) -> int:
        return max(1, self.scrollable_content_region.height - 1)

    def action_page_down(self) -> None:
        self._go(self._page())

    def action_page_up(self) -> None:
        self._go(-self._page())

    def action_first(self) -> None:
        self.goto(0)

    def action_last(self) -> None:
        self.goto(self.win_total - 1)

    def on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        if self._more_below and self.scroll_y >= self.max_scroll_y:
            self._request(self.win_start + WINDOW // 2, max(self.absolute_cursor, self.win_start + WINDOW // 2))

    def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        if self.win_start > 0 and self.scroll_y <= 0:
            self._request(self.win_start - WINDOW // 2, min(self.absolute_cursor, self.win_start - 1))

    # -- sideways ----------------------------------------------------------------------------
    def column_stops(self) -> list[int]:
        """`scroll_x` that puts each scrollable column (after the pinned ones) first."""
        pad = 2 * self.cell_padding
        stops, x = [], 0
        for width in self.widths[self.fixed_columns:]:
            stops.append(x)
            x += width + pad
        return stops

    def action_scroll_column(self, step: int) -> None:
        """Scroll sideways by whole columns: `<` / `>` or shift+← / shift+→."""
        x = round(self.scroll_x)
        stops = [s for s in self.column_stops() if s <= self.max_scroll_x] + [round(self.max_scroll_x)]
        ahead = [s for s in stops if s > x] if step > 0 else [s for s in stops if s < x]
        if ahead:
            self.scroll_to(x=ahead[0] if step > 0 else ahead[-1], animate=False)

    def on_data_table_header_selected(self, event: DataTable.HeaderSelected) -> None:
        event.stop()
        col = self.cols[event.column_index] if event.column_index < len(self.cols) else None
        if col is not None and col.sort:
            self.post_message(self.Sort(col.sort))


def item_cell(key: str, r: ItemRow, width: int, palette: dict[str, str]) -> Text:
    """One cell; dataset/model text always goes through `cell_text` (cleaned, never markup)."""
    if key == "key":
        return Text(truncate_middle(clean(r.key), width), no_wrap=True)  # ids differ at both ends
    if key in ("split", "tag", "answer_type", "question"):
        return cell_text(getattr(r, key), width)
    if key == "prediction":
        if r.prediction is None:
            return Text("(none)", style="dim italic")
        if not r.prediction.strip():
            return Text("(empty)", style="dim italic")
        return cell_text(r.prediction, width, style="italic" if r.refused else "")
    if key == "best_gold":
        return cell_text(r.best_gold, width)
    if key == "em":
        return number(r.em, 0, style=palette["good"] if r.em == 1 else "")
    if key == "f1":
        return number(r.f1, 1, percent=True)
    if key == "f1_recall":
        return number(r.f1_recall, 1, percent=True)
    if key == "refused":
        return Text("yes" if r.refused else ("" if r.refused is not None else "—"), style="italic")
    if key == "stale":
        return Text(("stale" if width >= 5 else "⚑") if r.stale else "", style=palette["warn"])
    if key == "b_em":
        return number(r.compare_em, 0)
    if key == "b_main":
        return number(r.compare_f1 if r.compare_f1 is not None else r.compare_f1_recall, 1, percent=True)
    if key in r.extra:
        return _extra_cell(r.extra[key], width)
    if key == "delta":
        if r.delta is None:
            return Text(MISSING, style="dim", justify="right")
        d = 100 * r.delta
        if abs(d) < 1e-9:
            return Text("0", justify="right", style="dim")
        return Text(signed(d, 1), justify="right", style=palette["good"] if d > 0 else palette["bad"])
    return Text("")


def _extra_cell(value: object, width: int) -> Text:
    """A registry column's value: numbers right-aligned (scores 0–1 as they are stored), text
    cleaned (never markup), missing as —."""
    if value is None:
        return Text(MISSING, style="dim")
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return cell_text(str(value), width)
    return Text(str(value) if isinstance(value, int) else f"{value:.3g}", justify="right", no_wrap=True)
