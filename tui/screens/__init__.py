"""Screens: the full-screen views of the app and how one leads to the next.

Holds `overview` (the start screen: every dataset, run and slice), `browser` (the items of a run
under a filter) with `browser_triage` (its compare, facet, saved-slice and export actions) and
`browser_layout` (the split view and the user's columns),
`detail` (one item against every gold), `review_queue` (the stale-answer review queue, one gold
at a time), `compare` (run A against run B) with `compare_parts` (its tables and how a diff fills
them), `distribution` (score histograms and the A-vs-B score grid, `D`), `slice_finder` (the
facet values where B differs from A, `f` on compare), `paper_table` (the runs as a paper table
with bars, `T`), `labels` (error labels by hand: the picker key and 1–9,
mixed into the browser and the detail), and `load_log` (what the last load failed
on, warned about or skipped, and every run's link). Each screen module owns the messages its workers post.

May import: `tui.stale`, `tui.dialogs`, `tui.widgets`, `tui.base`, `tui.commands`, `tui.workers`,
`tui.text` and `qa_inspect.core`; never the app. Inside the package the imports run
overview → browser → browser_triage → compare → detail. A screen reaches the app (open a browser
or a run, show the slices) through `QAApp` (`self.qa_app`).
"""

from __future__ import annotations

from .browser import BrowserScreen
from .compare import CompareScreen, open_compare
from .compare_parts import OutcomeTable, scope_of
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
