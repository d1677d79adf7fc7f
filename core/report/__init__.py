"""Numbers for people: metrics by slice, the runs overview, run-vs-run diffs, stale-excluded metrics.

Holds: `metrics` (every run × slice with polars: `report`, `slice_table`, `slice_report`),
`overview` (the runs overview and what the browser needs first), `diff` (what run B fixed and broke
relative to A, per-slice deltas, largest changes), `stale` (metrics with stale golds left out) and
`stale_overview` (the overview and slice metrics in that mode), `significance` (is a diff's Δ
more than noise: intervals, p-values, McNemar, Holm over slices; `StatOptions`), `run_stats`
(each run's headline metrics with confidence intervals), `leaderboard` (runs ranked with
intervals and a Holm-corrected pairwise significance matrix) and `latex` (booktabs tables).

May import: `core.query` and everything below it; never `tui`, textual or rich.
"""

from __future__ import annotations

from qa_inspect.core.lazy import lazy_face

__all__ = [
    "ALL_GOLDS",
    "CRITERIA",
    "DIMENSIONS",
    "EXCLUDE_STALE",
    "FEATURE_DIMENSIONS",
    "HUMAN",
    "METRIC_LABELS",
    "SLICES",
    "TESTS",
    "UNITS",
    "BrowseInfo",
    "CategoryChange",
    "DatasetOverview",
    "DeltaTest",
    "DiffError",
    "ItemChange",
    "Leaderboard",
    "LeaderboardError",
    "MetricCI",
    "Outcomes",
    "PairCell",
    "PairSignificance",
    "RunDiff",
    "RunIntervals",
    "RunOverview",
    "SliceDelta",
    "SliceStat",
    "StaleCounts",
    "StaleRescore",
    "StaleSlice",
    "StatOptions",
    "browse_info",
    "cell_filter",
    "diff_runs",
    "item_frame",
    "item_frame_excluding_stale",
    "latex_escape",
    "latex_table",
    "leaderboard",
    "overview",
    "overview_excluding_stale",
    "pair_significance",
    "report",
    "resampling_unit",
    "rescore_excluding_stale",
    "rescored_rows",
    "run_intervals",
    "slice_metrics_excluding_stale",
    "slice_report",
    "slice_table",
    "stale_counts",
]

# Each name is imported from its module on first use (start-up time: see `core/lazy.py`).
lazy_face(__name__, {
    ".diff": (
        "CRITERIA", "CategoryChange", "DiffError", "ItemChange", "Outcomes", "RunDiff", "SliceDelta", "cell_filter",
        "diff_runs",
    ),
    ".latex": ("latex_escape", "latex_table"),
    ".leaderboard": ("Leaderboard", "LeaderboardError", "PairCell", "leaderboard"),
    ".metrics": (
        "DIMENSIONS", "FEATURE_DIMENSIONS", "HUMAN", "SLICES", "item_frame", "report", "slice_report", "slice_table",
    ),
    ".overview": ("BrowseInfo", "DatasetOverview", "RunOverview", "SliceStat", "browse_info", "overview"),
    ".run_stats": ("METRIC_LABELS", "MetricCI", "RunIntervals", "run_intervals"),
    ".significance": (
        "TESTS", "UNITS", "DeltaTest", "PairSignificance", "StatOptions", "pair_significance",
        "resampling_unit",
    ),
    ".stale": (
        "ALL_GOLDS", "EXCLUDE_STALE", "StaleRescore", "item_frame_excluding_stale",
        "rescore_excluding_stale",
    ),
    ".stale_overview": (
        "StaleCounts", "StaleSlice", "overview_excluding_stale", "rescored_rows",
        "slice_metrics_excluding_stale", "stale_counts",
    ),
})
