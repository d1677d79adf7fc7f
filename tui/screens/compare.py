"""Compare two runs (`c`): what run B fixed and broke relative to run A, per-slice deltas, and the
items whose F1 (F1-recall) moved most — `core.report.diff_runs` on screen.

Every number is on the items both runs answer. Enter on a count opens the item browser on exactly
those items (`RunDiff.cell_filter`), with the A/B/Δ columns; on a slice it opens that slice with
the B columns, on a change that item. Δ is always B − A here and in the browser's Δ column.

The counts show as soon as the diff is in; a second worker then computes whether each Δ is more
than noise (`diff_significance` of that diff: intervals, p-values, McNemar, Holm over the slices) and fills
those cells in, so the screen never waits on resampling. `o` sorts the slices by |Δ| or by p.

The screen dismisses with a browser `Filter` when the user asks to browse with the B columns
(`b`); the opener applies it (the browser) or opens a browser on it (the overview). The tables and
how the diff fills them are in `compare_tables`; this module holds the data, the worker and the keys.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.coordinate import Coordinate
from textual.events import Resize
from textual.message import Message
from textual.reactive import var
from textual.screen import Screen
from textual.widgets import DataTable, Header, Static
from textual.worker import get_current_worker

from qa_inspect.core import report  # the lazy face: diff_runs & co. (polars, numpy) load when first called
from qa_inspect.core.errors import QAInspectError
from qa_inspect.core.query import OUTCOMES, Filter
from qa_inspect.core.store import run_names

from ..widgets import KeyFooter
from ..dialogs import RunPicker
from ..stale import COMPARE_STALE_BINDINGS, StaleScreen
from ..text import clean
from .compare_ahead import AheadSlot
from .compare_samples import SampleTable, fill_samples
from .compare_tables import (
    SLICE_FIELD,
    SLICE_SORTS,
    THRESHOLDS,
    OutcomeTable,
    Palette,
    PlainTable,
    changes_title,
    compare_title,
    fill_changes,
    fill_outcomes,
    fill_slices,
    is_cdqa,
    outcomes_title,
    palette_of,
    slice_detail,
    slices_title,
    update_mcnemar,
)
from .detail import DetailScreen
from .distribution import DistributionScreen
from .slice_finder import SliceFinderScreen

if TYPE_CHECKING:  # diff_runs brings polars and numpy: imported when a comparison is computed
    from qa_inspect.core.report import ItemChange, PairSignificance, RunDiff


@dataclass
class DiffLoaded(Message):
    generation: int
    diff: RunDiff | None
    error: str | None
    runs: list[str]
    """Runs of A's dataset (for choosing another B)."""


SCREEN_RESAMPLE_BUDGET = 200_000_000
"""Resamples × common items the screen spends at most: 10,000 resamples (as `qa-inspect diff`) up to
20,000 common items, fewer beyond (at least 1,000; the title says how many, so the CLI can repeat
the numbers with `--resamples`)."""


def stats_resamples(common: int) -> int:
    """The screen's resample count for `common` items, in thousands."""
    fit = SCREEN_RESAMPLE_BUDGET // max(common, 1) // 1000 * 1000
    return max(1000, min(report.StatOptions().resamples, fit))


@dataclass
class StatsLoaded(Message):
    generation: int
    significance: PairSignificance | None
    error: str | None


class CompareScreen(StaleScreen):
    """Run A against run B on the items both answer."""

    HELP_TITLE = "Compare runs"
    DEFAULT_CSS = """
    CompareScreen #cmp-title { height: auto; padding: 0 1; background: $panel; }
    CompareScreen #cmp-body { height: 1fr; }
    CompareScreen .cmp-section { height: 1; padding: 0 1; margin-top: 1; text-wrap: nowrap; text-overflow: ellipsis; }
    CompareScreen #cmp-outcomes { height: auto; margin: 0 1; }
    CompareScreen #cmp-samples { height: auto; margin: 0 1; }
    CompareScreen #cmp-lower { height: 1fr; }
    CompareScreen #cmp-slices-box { height: auto; max-height: 50%; }
    CompareScreen #cmp-changes-box { height: 1fr; }
    CompareScreen #cmp-slices { height: auto; max-height: 16; margin: 0 1; }
    CompareScreen #cmp-slice-detail { height: 1; padding: 0 1; text-wrap: nowrap; text-overflow: ellipsis; }
    CompareScreen #cmp-changes { height: 1fr; margin: 0 1; }
    CompareScreen.-short .cmp-section { margin-top: 0; }
    CompareScreen.-short #cmp-slices { max-height: 6; }
    CompareScreen.-tall #cmp-slices { max-height: 14; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open", "Open", id="compare.open",
                tooltip="Browse a count's items (A, B, Δ B−A columns), a slice, or an item"),
        Binding("b", "browse_all", "Browse A+B", id="compare.browse-all",
                tooltip="Browse every item of the scope with the B and Δ B−A columns"),
        Binding("C", "choose_b", "Run B", id="compare.choose-b", tooltip="Compare run A with another run (B)"),
        Binding("X", "swap", "Swap A/B", id="compare.swap", tooltip="Swap runs A and B"),
        Binding("t", "threshold", "Threshold", id="compare.threshold",
                tooltip="The F1 (F1-recall) at or above which an answer counts as right"),
        Binding("o", "sort_slices", "Sort slices", show=False, id="compare.sort",
                tooltip="Order the slices as listed, by the size of Δ, or by p (most significant first)"),
        Binding("z", "toggle_scope", "Scope", show=False, id="compare.toggle-scope",
                tooltip="Compare on the browser's filter or on the whole dataset"),
        Binding("D", "distribution", "Distribution", show=False, id="compare.distribution",
                tooltip="Score histograms of A and B and the A-vs-B score grid on this scope"),
        Binding("i", "find_slices", "Find slices", id="compare.find-slices",
                tooltip="Every facet value where B differs from A, Holm-corrected over all slices tested"),
        Binding("tab", "app.focus_next", "Next table", show=False, id="compare.next-table",
                tooltip="Move to the next table"),
        *COMPARE_STALE_BINDINGS,  # u, U, m (stale.keys): the same keys as every other screen
        Binding("escape", "back", "Back", id="compare.back", tooltip="Back to where you came from"),
    ]

    slice_sort: var[str] = var("slice", init=False)
    """How the slices table is sorted (`s` cycles `SLICE_SORTS`); setting it redraws the tables."""

    def __init__(self, run_a: str, run_b: str, *, scope: Filter | None = None, threshold: float = 0.5,
                 top: int = 50) -> None:
        super().__init__()
        self.run_a = run_a
        self.run_b = run_b
        self.scope = scope
        self.use_scope = scope is not None
        self.threshold = threshold
        self.top = top
        self.diff: RunDiff | None = None
        self.error: str | None = None
        self.significance: PairSignificance | None = None
        self.stats_error: str | None = None
        self.stats_generation = -1  # the generation whose significance is on screen (tests)
        self.slice_keys: list[tuple[str, str]] = []
        self.runs: list[str] = []
        self.generation = 0
        self.loaded_generation = -1  # the generation on screen (tests)
        self.slice_refs: list[Filter | None] = []
        self.change_refs: list[ItemChange] = []
        self.palette: Palette = {"good": "green", "bad": "red", "warn": "yellow"}
        self._width = 0
        self.ahead = AheadSlot()  # the tests computed beside the counts

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="cmp-title")
        with Vertical(id="cmp-body"):
            yield Static(id="cmp-outcomes-title", classes="cmp-section")
            yield OutcomeTable(id="cmp-outcomes")
            yield Static(id="cmp-samples-title", classes="cmp-section")
            yield SampleTable(id="cmp-samples")
            with Vertical(id="cmp-lower"):
                with Vertical(id="cmp-slices-box"):
                    yield Static(id="cmp-slices-title", classes="cmp-section")
                    yield PlainTable(id="cmp-slices")
                    yield Static(id="cmp-slice-detail")
                with Vertical(id="cmp-changes-box"):
                    yield Static(id="cmp-changes-title", classes="cmp-section")
                    yield PlainTable(id="cmp-changes")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, lambda _: self._fill())
        self.reload()

    # -- work --------------------------------------------------------------------------------
    def within(self) -> Filter | None:
        """The `within` filter of the diff: the scope, judged with run A (as the cells will be)."""
        if self.scope is None or not self.use_scope:
            return None
        return self.scope.with_(run=self.run_a)

    def reload(self) -> None:
        self.generation += 1
        self.significance, self.stats_error = None, None
        self.query_one("#cmp-body").loading = True
        self._show_title()
        self.ahead.start(self.generation)
        self.compute(self.generation, self.run_a, self.run_b, self.threshold, self.within())
        self.compute_ahead(self.generation, self.run_a, self.run_b, self.within())

    @work(thread=True, exclusive=True, exit_on_error=False, group="diff")
    def compute(self, generation: int, run_a: str, run_b: str, threshold: float, within: Filter | None) -> None:
        diff: RunDiff | None = None
        error: str | None = None
        worker = get_current_worker()
        held = [self.ahead.arrays(generation, lambda: worker.is_cancelled)]  # handed over, not kept here:
        with self.db.connect() as conn:  # the diff lets the arrays go once counted, before the tests' buffers
            runs = run_names(conn, like=run_a)
            try:
                diff = None if worker.is_cancelled else report.diff_runs(
                    conn, run_a, run_b, threshold=threshold, top=self.top, within=within, arrays=held.pop())
            except report.DiffError as exc:
                error = str(exc)
        if not worker.is_cancelled:
            self.post_message(DiffLoaded(generation, diff, error, runs))

    @work(thread=True, exclusive=True, exit_on_error=False, group="diff-ahead")
    def compute_ahead(self, generation: int, run_a: str, run_b: str, within: Filter | None) -> None:
        """The arrays (handed to `compute`: the counts) and every slice's test (`compare_ahead`)."""
        worker = get_current_worker()
        self.ahead.compute(self.db, generation, run_a, run_b, within, stats_resamples, lambda: worker.is_cancelled)

    @work(thread=True, exclusive=True, exit_on_error=False, group="diff-stats")
    def compute_stats(self, generation: int, diff: RunDiff, resamples: int) -> None:
        """Intervals and tests of every slice of the diff on screen (one resampling of its items:
        seconds at a million), after the counts, which it does not compute again: the rows of
        the tests computed beside the counts (`compute_ahead`) when they hold every slice, else
        computed now; a cancelled worker stops between blocks of resamples."""
        sig: PairSignificance | None = None
        error: str | None = None
        worker = get_current_worker()
        ahead = self.ahead.wait(generation, lambda: worker.is_cancelled)
        with self.db.connect() as conn:
            try:
                sig = report.diff_significance(conn, diff, report.StatOptions(resamples=resamples),
                                               stop=lambda: worker.is_cancelled, ahead=ahead)
            except QAInspectError as exc:
                error = str(exc)
        if not worker.is_cancelled:
            self.post_message(StatsLoaded(generation, sig, error))

    def on_diff_loaded(self, message: DiffLoaded) -> None:
        if message.generation != self.generation:
            return
        self.loaded_generation = message.generation
        self.diff, self.error, self.runs = message.diff, message.error, message.runs
        self.query_one("#cmp-body").loading = False
        self._show_title()
        self._fill()
        if self.diff is not None and not isinstance(self.focused, DataTable):
            self.query_one(OutcomeTable).focus()
        if self.diff is not None:
            resamples = stats_resamples(self.diff.common)
            self.compute_stats(message.generation, self.diff, resamples)

    def on_stats_loaded(self, message: StatsLoaded) -> None:
        if message.generation != self.generation:
            return
        self.stats_generation = message.generation
        self.significance, self.stats_error = message.significance, message.error
        if message.error:
            self.notify(clean(message.error), severity="warning")
        if self.diff is not None:
            self._fill(outcomes=False)
            update_mcnemar(self.query_one(OutcomeTable), self.significance)

    # -- drawing (compare_tables) -------------------------------------------------------------
    @property
    def cdqa(self) -> bool:
        return is_cdqa(self.diff)

    def _show_title(self) -> None:
        computing = self.loaded_generation != self.generation
        title = compare_title(self.run_a, self.run_b, self.diff, self.error, computing, self.within(),
                              self.scope is not None)
        self.query_one("#cmp-title", Static).update(title)

    def _fill(self, *, outcomes: bool = True) -> None:
        """Titles and tables from the diff and (once in) its significance; `outcomes=False` leaves
        the outcome table as it is."""
        d = self.diff
        self.palette = palette_of(self.app.current_theme)
        self._width = self.size.width or self.app.size.width
        sig = self.significance
        narrow = self._width < 100
        self.query_one("#cmp-outcomes-title", Static).update(outcomes_title(d, sig, narrow))
        if outcomes:
            fill_outcomes(self.query_one(OutcomeTable), d, self.palette, sig, narrow)
        fill_samples(self.query_one(SampleTable), self.query_one("#cmp-samples-title", Static), d, self.palette)
        self.query_one("#cmp-slices-title", Static).update(slices_title(d, sig, self.slice_sort, self._width < 92))
        slices = self.query_one("#cmp-slices", PlainTable)
        keys = fill_slices(slices, d, self.palette, self._width, sig, self.slice_sort)
        self.slice_keys = keys
        self.slice_refs = [self._slice_filter(dim, value) for dim, value in keys]
        self._show_slice_detail(slices.cursor_row)
        self.change_refs = list(d.changes) if d is not None else []
        self.query_one("#cmp-changes-title", Static).update(changes_title(d))
        fill_changes(self.query_one("#cmp-changes", PlainTable), d, self.palette, self._width)

    def on_resize(self, event: Resize) -> None:
        if self.diff is not None and event.size.width != self._width:
            self.call_after_refresh(self._fill)  # once the tables have their new sizes

    # -- filters the tables open -------------------------------------------------------------
    def base(self) -> Filter:
        """Run A with B as compare run, on the scope."""
        d = self.diff
        dataset = d.dataset if d is not None else None
        within = self.within()
        base = within if within is not None else Filter()
        return base.with_(dataset=dataset, run=self.run_a, compare=self.run_b)

    def _slice_filter(self, dim: str, value: str) -> Filter | None:
        if dim == "overall":
            return self.base()
        field = SLICE_FIELD.get(dim)
        if field is None or value == "—":
            return None
        return self.base().with_(**{field: (value,)})

    def cell_filter(self, criterion: str, outcome: str) -> Filter:
        assert self.diff is not None
        return self.diff.cell_filter(outcome, criterion, base=self.base().with_(compare=None))

    # -- opening what a table row stands for --------------------------------------------------
    def _browse(self, f: Filter) -> None:
        self.qa_app.open_browser(f)

    @on(DataTable.CellSelected, "#cmp-outcomes")
    def _cell_selected(self, event: DataTable.CellSelected) -> None:
        event.stop()
        self._open_cell(event.coordinate)

    def _open_cell(self, at: Coordinate) -> None:
        table = self.query_one(OutcomeTable)
        if self.diff is None or not (0 <= at.row < len(table.criteria)) or not 0 <= at.column < len(OUTCOMES):
            return
        criterion, outcome = table.criteria[at.row], OUTCOMES[at.column]
        if self.diff.outcome(criterion).count(outcome) == 0:
            self.notify("No items in this cell.", severity="warning")
            return
        self._browse(self.cell_filter(criterion, outcome))

    @on(DataTable.CellSelected, "#cmp-samples")
    def _sample_selected(self, event: DataTable.CellSelected) -> None:
        event.stop()
        self._open_sample_change(event.coordinate.column)

    def _open_sample_change(self, column: int) -> None:
        change = self.query_one(SampleTable).change_at(column)
        samples = self.diff.samples if self.diff is not None else None
        if change is None or samples is None:
            return
        if samples.count(change) == 0:
            self.notify("No items in this cell.", severity="warning")
            return
        self.browse_sample_change(change, self.within())

    @work(thread=True, exclusive=True, exit_on_error=False, group="diff-samples")
    def browse_sample_change(self, change: str, within: Filter | None) -> None:
        """Browse one flaky/stable list (its keys read in SQL, off the UI thread)."""
        with self.db.connect() as conn:
            f = report.sample_change_filter(conn, self.run_a, self.run_b, change, within)
        self.app.call_from_thread(self._browse, f)

    def _show_slice_detail(self, row: int) -> None:
        key = self.slice_keys[row] if 0 <= row < len(self.slice_keys) else None
        self.query_one("#cmp-slice-detail", Static).update(slice_detail(self.diff, self.significance, key))

    @on(DataTable.RowHighlighted, "#cmp-slices")
    def _slice_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        self._show_slice_detail(event.cursor_row)

    @on(DataTable.RowSelected, "#cmp-slices")
    def _slice_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self._open_slice(event.cursor_row)

    def _open_slice(self, row: int) -> None:
        if not 0 <= row < len(self.slice_refs):
            return
        f = self.slice_refs[row]
        if f is None:
            self.notify("Items without this label cannot be filtered on.", severity="warning")
            return
        self._browse(f)

    @on(DataTable.RowSelected, "#cmp-changes")
    def _change_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self._open_change(event.cursor_row)

    def _open_change(self, row: int) -> None:
        if not 0 <= row < len(self.change_refs):
            return
        ids = [c.item_id for c in self.change_refs]  # n/p walk this list, in the order it is shown
        self.app.push_screen(DetailScreen(self.base().with_(sort="delta"), ids[row], nav=ids, total=len(ids)))

    # -- actions -----------------------------------------------------------------------------
    def action_open(self) -> None:
        focused = self.focused
        if isinstance(focused, OutcomeTable):
            self._open_cell(focused.cursor_coordinate)
        elif isinstance(focused, SampleTable):
            self._open_sample_change(focused.cursor_column)
        elif isinstance(focused, PlainTable) and focused.id == "cmp-slices":
            self._open_slice(focused.cursor_row)
        elif isinstance(focused, PlainTable) and focused.id == "cmp-changes":
            self._open_change(focused.cursor_row)

    def action_browse_all(self) -> None:
        if self.diff is None:
            self.notify("The comparison is still being counted: b browses its items once it is in.", timeout=3)
            return
        self.dismiss(self.base())

    def action_choose_b(self) -> None:
        others = [r for r in self.runs if r != self.run_a]
        if not others:
            self.notify("No other run on this dataset to compare with.", severity="warning")
            return

        def done(run: str | None) -> None:
            if run and run != self.run_b:
                self.run_b = run
                self.reload()

        self.app.push_screen(RunPicker(f"Compare {clean(self.run_a)} (A) with", self.run_b, others), done)

    def action_swap(self) -> None:
        self.run_a, self.run_b = self.run_b, self.run_a
        self.reload()

    def action_threshold(self) -> None:
        score = "F1-recall" if self.cdqa else "F1"
        labels = {t: f"{score} ≥ {float(t) * 100:g}" for t in THRESHOLDS}  # scores read 0–100 everywhere

        def done(choice: str | None) -> None:
            if choice and float(choice) != self.threshold:
                self.threshold = float(choice)
                self.reload()

        picker = RunPicker("An answer counts as right when", f"{self.threshold:g}", list(THRESHOLDS), labels=labels)
        self.app.push_screen(picker, done)

    def action_sort_slices(self) -> None:
        self.slice_sort = SLICE_SORTS[(SLICE_SORTS.index(self.slice_sort) + 1) % len(SLICE_SORTS)]

    def watch_slice_sort(self) -> None:
        if self.diff is not None:
            self._fill()

    def action_toggle_scope(self) -> None:
        if self.scope is None:
            self.notify("Opened without a filter: the comparison is on the whole dataset already.")
            return
        self.use_scope = not self.use_scope
        self.reload()

    def action_distribution(self) -> None:
        self.app.push_screen(DistributionScreen(self.base()))

    def action_find_slices(self) -> None:
        self.app.push_screen(SliceFinderScreen(self.base()))

    def action_back(self) -> None:
        self.dismiss(None)


def open_compare(
    screen: Screen[Any], run_a: str, others: list[str], *, run_b: str | None = None, scope: Filter | None = None,
    done: Callable[[Filter | None], None] | None = None,
) -> None:
    """Open the compare screen for run A: straight away when B is known or there is one other
    run, else after picking B among `others`. `done` gets the filter to browse with B columns."""

    def show(b: str | None) -> None:
        if b:
            screen.app.push_screen(CompareScreen(run_a, b, scope=scope), done)

    if run_b:
        show(run_b)
        return
    candidates = [r for r in others if r != run_a]
    if not candidates:
        screen.notify("No other run on this dataset to compare with.", severity="warning")
        return
    if len(candidates) == 1:
        show(candidates[0])
        return
    screen.app.push_screen(RunPicker(f"Compare {clean(run_a)} (A) with", None, candidates), show)
