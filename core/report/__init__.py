"""Numbers for people: metrics by slice, the runs overview, run-vs-run diffs, stale-excluded metrics.

Holds: `metrics` (every run × slice with polars: `report`, `slice_table`, `slice_report`),
`overview` (the runs overview and what the browser needs first), `diff` (what run B fixed and broke
relative to A, per-slice deltas, largest changes), `stale` (metrics with stale golds left out) and
`stale_overview` (the overview and slice metrics in that mode), `stale_freshness` (the share of
golds verified within 30/90/365 days and open stale flags, per tag and answer type), `significance` (is a diff's Δ
more than noise: intervals, p-values, McNemar, Holm over slices; `StatOptions`), `run_stats`
(each run's headline metrics with confidence intervals), `leaderboard` (runs ranked with
intervals and a Holm-corrected pairwise significance matrix), `run_settings` (what each run was:
model, prompt, shots …), `paper_table` (runs grouped by settings × slices, the papers' table
shapes) and `chart` (such a table as an SVG bar chart), `latex` (booktabs tables), `slice_finder` (the facet values where B differs from A, Holm over all)
and `release_diff` (two releases of a dataset: items, golds,
open flags, each run's score split into the part the changed golds explain and the rest).

May import: `core.query`, `core.review` and everything below them; never `tui`, textual or rich.
"""

from __future__ import annotations

from qa_inspect.core.lazy import lazy_face

__all__ = [
    "ALL",
    "ALL_GOLDS",
    "CELL_METRICS",
    "PALETTE",
    "FRESHNESS_WINDOWS",
    "FoundSlice",
    "FreshnessRow",
    "freshness",
    "freshness_overview",
    "CRITERIA",
    "DIMENSIONS",
    "EXCLUDE_STALE",
    "FLAG_OUTCOMES",
    "FEATURE_DIMENSIONS",
    "HUMAN",
    "METRIC_LABELS",
    "REPORT_METRICS",
    "SLICES",
    "TESTS",
    "UNITS",
    "BrowseInfo",
    "CategoryChange",
    "DatasetOverview",
    "DeltaTest",
    "DiffError",
    "FlagOutcome",
    "GoldChange",
    "ItemChange",
    "Leaderboard",
    "LeaderboardError",
    "MetricCI",
    "MetricSplit",
    "Outcomes",
    "PairCell",
    "PaperTable",
    "PairSignificance",
    "RunDiff",
    "ReleaseDiff",
    "RunIntervals",
    "RunSplit",
    "RunOverview",
    "RunSettings",
    "SliceDelta",
    "SliceFinding",
    "SliceStat",
    "StaleCounts",
    "StaleRescore",
    "StaleSlice",
    "StatOptions",
    "TableCell",
    "TableError",
    "TableSpec",
    "browse_info",
    "cell_filter",
    "cell_text",
    "chart_svg",
    "compare_releases",
    "diff_runs",
    "find_slices",
    "flag_outcomes",
    "folder_run_settings",
    "item_frame",
    "item_frame_excluding_stale",
    "latex_escape",
    "latex_table",
    "leaderboard",
    "overview",
    "warm_overview",
    "overview_excluding_stale",
    "paper_table",
    "pair_significance",
    "release_diff",
    "report",
    "resampling_unit",
    "rescore_excluding_stale",
    "rescored_rows",
    "run_settings",
    "run_intervals",
    "score_split",
    "slice_metrics_excluding_stale",
    "slice_report",
    "slice_table",
    "stale_counts",
    "stored_run_settings",
    "table_axes",
    "template_label",
    "with_intervals",
]

# Each name is imported from its module on first use (start-up time: see `core/lazy.py`).
lazy_face(__name__, {
    ".chart": ("PALETTE", "chart_svg"),
    ".diff": (
        "CRITERIA", "CategoryChange", "DiffError", "ItemChange", "Outcomes", "RunDiff", "SliceDelta", "cell_filter",
        "diff_runs",
    ),
    ".latex": ("latex_escape", "latex_table"),
    ".leaderboard": ("Leaderboard", "LeaderboardError", "PairCell", "leaderboard"),
    ".metrics": (
        "DIMENSIONS", "FEATURE_DIMENSIONS", "HUMAN", "SLICES", "item_frame", "report", "slice_report", "slice_table",
    ),
    ".overview": ("BrowseInfo", "DatasetOverview", "RunOverview", "SliceStat", "browse_info", "overview",
                  "warm_overview"),
    ".paper_table": (
        "ALL", "CELL_METRICS", "PaperTable", "TableCell", "TableError", "TableSpec", "cell_text", "paper_table",
        "table_axes", "template_label",
    ),
    ".run_settings": ("RunSettings", "folder_run_settings", "run_settings", "stored_run_settings"),
    ".release_diff": (
        "FLAG_OUTCOMES", "FlagOutcome", "GoldChange", "MetricSplit", "ReleaseDiff", "RunSplit", "compare_releases",
        "flag_outcomes", "release_diff", "score_split",
    ),
    ".run_stats": ("METRIC_LABELS", "REPORT_METRICS", "MetricCI", "RunIntervals", "run_intervals", "with_intervals"),
    ".significance": (
        "TESTS", "UNITS", "DeltaTest", "PairSignificance", "StatOptions", "pair_significance",
        "resampling_unit",
    ),
    ".slice_finder": ("FoundSlice", "SliceFinding", "find_slices"),
    ".stale": (
        "ALL_GOLDS", "EXCLUDE_STALE", "StaleRescore", "item_frame_excluding_stale",
        "rescore_excluding_stale",
    ),
    ".stale_overview": (
        "StaleCounts", "StaleSlice", "overview_excluding_stale", "rescored_rows",
        "slice_metrics_excluding_stale", "stale_counts",
    ),
    ".stale_freshness": ("FRESHNESS_WINDOWS", "FreshnessRow", "freshness", "freshness_overview"),
})
