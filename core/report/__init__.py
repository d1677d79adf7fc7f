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
`adjudicated` (each run's scores with accepted aliases counted as golds, beside the official ones),
`judge_agree` (imported judge verdicts against hand judgements and the official score: κ, confusion, disagreements)
`sample_metrics` (pass@k, majority vote and consistency of runs with several samples per item)
and `release_diff` (two releases of a dataset: items, golds,
open flags, each run's score split into the part the changed golds explain and the rest),
`agreement` (inter-annotator agreement on stale flags, labels and aliases; the disagreements),
`publish` (a read-only copy for Datasette with its metadata) with `publish_queries` (its canned queries).

May import: `core.query`, `core.review` and everything below them; never `tui`, textual or rich.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from qa_inspect.core.faces import lazy_face

__all__ = [
    "SAMPLE_CELLS",
    "SAMPLE_NOTE",
    "RunSamples",
    "item_samples",
    "sample_cells",
    "sliced_samples",
    "run_samples",
    "sample_columns",
    "with_sample_metrics",
    "ADJUDICATED",
    "AGREEMENT_WHATS",
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
    "HAND_VERDICTS",
    "OFFICIAL_CATEGORIES",
    "Agreement",
    "JudgeAgreement",
    "hand_verdicts",
    "judge_agreement",
    "METRIC_LABELS",
    "REPORT_METRICS",
    "SLICES",
    "TESTS",
    "UNITS",
    "AdjudicatedRun",
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
    "diff_significance",
    "find_slices",
    "flag_outcomes",
    "folder_run_settings",
    "item_frame",
    "item_frame_excluding_stale",
    "latex_escape",
    "latex_table",
    "adjudicated_items",
    "adjudicated_scores",
    "adjudicated_summary",
    "leaderboard",
    "overview_adjudicated",
    "overview",
    "overview_excluding_stale",
    "paper_table",
    "frame_table",
    "SAMPLE_CHANGES",
    "SampleDiff",
    "sample_change_filter",
    "sample_change_keys",
    "sample_diff",
    "pair_significance",
    "pair_tests",
    "PairTests",
    "AheadTests",
    "ahead_tests",
    "comparison_arrays",
    "PairArrays",
    "read_pair_arrays",
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
    "AgreementReport",
    "Judgement",
    "JudgedUnit",
    "agreement_report",
    "disagreement_filter",
    "gather_judgements",
    "CANNED_QUERIES",
    "CannedQuery",
    "DB_NAME",
    "METADATA_NAME",
    "Published",
    "datasette_command",
    "publish_database",
    "publish_metadata",
]

if TYPE_CHECKING:  # where each name lives; loaded on first use at run time (core/faces.py)
    from .adjudicated import (
        ADJUDICATED,
        adjudicated_items,
        adjudicated_scores,
        adjudicated_summary,
        AdjudicatedRun,
        overview_adjudicated,
    )
    from .agreement import (
        AGREEMENT_WHATS,
        agreement_report,
        AgreementReport,
        disagreement_filter,
        gather_judgements,
        Judgement,
        JudgedUnit,
    )
    from .chart import (
        chart_svg,
        PALETTE,
    )
    from .diff import (
        CategoryChange,
        cell_filter,
        CRITERIA,
        diff_runs,
        diff_significance,
        DiffError,
        ItemChange,
        Outcomes,
        RunDiff,
        SliceDelta,
    )
    from .latex import (
        latex_escape,
        latex_table,
    )
    from .judge_agree import (
        Agreement,
        HAND_VERDICTS,
        hand_verdicts,
        judge_agreement,
        JudgeAgreement,
        OFFICIAL_CATEGORIES,
    )
    from .leaderboard import (
        Leaderboard,
        leaderboard,
        LeaderboardError,
        PairCell,
    )
    from .sample_metrics import (
        item_samples,
        run_samples,
        SAMPLE_CELLS,
        sample_cells,
        RunSamples,
        SAMPLE_NOTE,
        sample_columns,
        sliced_samples,
        with_sample_metrics,
    )
    from .metrics import (
        DIMENSIONS,
        FEATURE_DIMENSIONS,
        HUMAN,
        item_frame,
        report,
        slice_report,
        slice_table,
        SLICES,
    )
    from .overview import (
        browse_info,
        BrowseInfo,
        DatasetOverview,
        overview,
        RunOverview,
        SliceStat,
    )
    from .paper_table import (
        ALL,
        CELL_METRICS,
        frame_table,
        paper_table,
        PaperTable,
        TableCell,
        TableError,
        TableSpec,
    )
    from .paper_table_text import cell_text, table_axes, template_label
    from .diff_samples import SAMPLE_CHANGES, SampleDiff, sample_change_filter, sample_change_keys, sample_diff
    from .run_settings import (
        folder_run_settings,
        run_settings,
        RunSettings,
        stored_run_settings,
    )
    from .release_diff import (
        compare_releases,
        FLAG_OUTCOMES,
        flag_outcomes,
        FlagOutcome,
        GoldChange,
        MetricSplit,
        release_diff,
        ReleaseDiff,
        RunSplit,
        score_split,
    )
    from .run_stats import (
        METRIC_LABELS,
        MetricCI,
        REPORT_METRICS,
        run_intervals,
        RunIntervals,
        with_intervals,
    )
    from .pair_arrays import (
        PairArrays,
        read_pair_arrays,
    )
    from .diff_ahead import (
        AheadTests,
        ahead_tests,
    )
    from .diff_arrays import comparison_arrays
    from .significance import (
        DeltaTest,
        pair_significance,
        pair_tests,
        PairSignificance,
        PairTests,
        resampling_unit,
        StatOptions,
        TESTS,
        UNITS,
    )
    from .slice_finder import (
        find_slices,
        FoundSlice,
        SliceFinding,
    )
    from .stale import (
        ALL_GOLDS,
        EXCLUDE_STALE,
        item_frame_excluding_stale,
        rescore_excluding_stale,
        StaleRescore,
    )
    from .stale_overview import (
        overview_excluding_stale,
        rescored_rows,
        slice_metrics_excluding_stale,
        stale_counts,
        StaleCounts,
        StaleSlice,
    )
    from .stale_freshness import (
        freshness,
        freshness_overview,
        FRESHNESS_WINDOWS,
        FreshnessRow,
    )
    from .publish import (
        DB_NAME,
        datasette_command,
        METADATA_NAME,
        publish_database,
        publish_metadata,
        Published,
    )
    from .publish_queries import (
        CANNED_QUERIES,
        CannedQuery,
    )

lazy_face(__name__)
