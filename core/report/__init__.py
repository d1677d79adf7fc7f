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

from .diff import (
    CRITERIA,
    DiffError,
    ItemChange,
    Outcomes,
    RunDiff,
    SliceDelta,
    cell_filter,
    diff_runs,
)
from .latex import latex_escape, latex_table
from .leaderboard import Leaderboard, LeaderboardError, PairCell, leaderboard
from .metrics import DIMENSIONS, HUMAN, item_frame, report, slice_report, slice_table
from .overview import (
    BrowseInfo,
    DatasetOverview,
    RunOverview,
    SliceStat,
    browse_info,
    overview,
)
from .run_stats import METRIC_LABELS, MetricCI, RunIntervals, run_intervals
from .significance import (
    TESTS,
    UNITS,
    DeltaTest,
    PairSignificance,
    StatOptions,
    pair_significance,
    resampling_unit,
)
from .stale import (
    ALL_GOLDS,
    EXCLUDE_STALE,
    StaleRescore,
    item_frame_excluding_stale,
    rescore_excluding_stale,
)
from .stale_overview import (
    StaleCounts,
    StaleSlice,
    overview_excluding_stale,
    rescored_rows,
    slice_metrics_excluding_stale,
    stale_counts,
)

__all__ = [
    "ALL_GOLDS",
    "CRITERIA",
    "DIMENSIONS",
    "EXCLUDE_STALE",
    "HUMAN",
    "METRIC_LABELS",
    "TESTS",
    "UNITS",
    "BrowseInfo",
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
