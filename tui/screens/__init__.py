"""Screens: the full-screen views of the app and how one leads to the next.

Holds `overview` (the start screen: every dataset, run and slice), `browser` (the items of a run
under a filter), `detail` (one item against every gold), `review_queue` (the stale-answer review
queue, one gold at a time), `compare` (run A against run B) with `compare_tables` (its tables and
how a diff fills them), `distribution` (score histograms and the A-vs-B score grid, `D`),
`slice_finder` (the facet values where B differs from A, `i` on compare), `paper_table` (the runs
as a paper table with bars, `T`), and `load_log` (what the last load failed on, warned about or
skipped, and every run's link).

A screen holds the state that drives its drawing (Textual `var`s: the browser's filter and
counts, the detail's chosen gold) and composes widgets; what it shares with other screens, or
what is big enough to name, is an object it owns, built with the screen and callbacks: the
browser's `ItemWindows` (item_windows: info and row windows in workers), `ItemCounts`
(item_counts: counts cached per set of items), `DeltaOrder` (delta_order), `ColumnFit`
(column_fit: the columns that fit, `k`), `SplitView` (split_view, `|`), `ItemExport`
(item_export, `e`), `FilterKeys` (filter_keys: `f r C d w o O x`), its keys (browser_keys) and its
`SearchBox` widget (search_box, `/`); `LabelActions` (labels: `l`, 1–9, in the browser and the
detail); and from `tui.stale` the `StaleActions` every `StaleScreen` owns. Screens run workers and
controllers post results back with `call_later` on the screen; widgets tell the screen by message.

May import: `tui.stale`, `tui.dialogs`, `tui.widgets`, `tui.base`, `tui.commands`, `tui.workers`,
`tui.text` and `qa_inspect.core`; never the app. Inside the package the imports run
overview → browser → compare → detail. A screen reaches the app (open a browser or a run, show
the slices) through `QAApp` (`self.qa_app`).
"""

from __future__ import annotations

from .browser import BrowserScreen
from .compare import CompareScreen, open_compare
from .compare_tables import OutcomeTable, scope_of
from .detail import DetailScreen
from .distribution import DistributionScreen
from .load_log import LoadLogScreen
from .overview import OverviewScreen, filter_for
from .paper_table import PaperTableScreen
from .review_queue import ReviewQueueScreen
from .slice_finder import SliceFinderScreen

__all__ = [
    "BrowserScreen",
    "CompareScreen",
    "DetailScreen",
    "DistributionScreen",
    "LoadLogScreen",
    "OutcomeTable",
    "OverviewScreen",
    "PaperTableScreen",
    "ReviewQueueScreen",
    "SliceFinderScreen",
    "filter_for",
    "open_compare",
    "scope_of",
]
