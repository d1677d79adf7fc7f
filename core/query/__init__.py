"""Questions asked of the database: which items a filter selects, their pages, facets, detail, export.

Holds: `filters` (the immutable `Filter`), `sql` (filters → parameterised SQL and the one
definition of an error, of "right" at a threshold, of Δ, of the facet expressions), `rows`
(counts, pages, positions, metrics of a filter), `paging` (page ids by an index walk in the order
shown: no sort of a million items per page), `delta_order` (the stored Δ order of a compared
pair of runs, which Δ pages walk), `facets` (frequency tables), `distribution`
(a run's score histogram, EM share and error categories; the A-vs-B score-band grid), `slices` (saved
filters), `align` + `detail` (one item with every gold, prediction and flag), `export` (the item
list as CSV, JSONL, Parquet or Markdown; the one Markdown table writer), `preferences` (what the
app remembers per user: theme, metrics mode, the last browser filter), `release` (two releases of a
dataset paired item by item; the stored items whose golds a new file changes, for `Filter.keys`).

May import: `core.flags`, `core.load` (whether the search index is complete), `core.store`,
`core.formats` (a new release's file), `core.metrics`,
`core.model`, `core.keys`, `core.errors`.
"""

from __future__ import annotations

from qa_inspect.core.lazy import lazy_face

__all__ = [
    "DELTA_ORDER_MIN_ITEMS",
    "build_delta_order",
    "delta_order_page",
    "fresh_pair",
    "pair_stamp",
    "explain_page",
    "page_ids",
    "CATEGORY",
    "CATEGORY_SQL",
    "BANDS",
    "CATEGORY_COLUMN",
    "SCORE_BINS",
    "Histogram",
    "ScoreGrid",
    "band_sql",
    "bounds_case_sql",
    "category_counts",
    "grid_cell",
    "histogram",
    "score_grid",
    "ColumnLayout",
    "DELTA_SQL",
    "DIMENSIONS",
    "ERROR_SQL",
    "FACETS",
    "FEATURE_DIMENSIONS",
    "LABEL",
    "FORMATS",
    "GOLD_SEPARATOR",
    "MAX_NAME",
    "OUTCOMES",
    "SLICES",
    "SORTS",
    "STALE_ITEMS_SQL",
    "ExportError",
    "FacetDef",
    "FacetRow",
    "FacetTable",
    "Filter",
    "Preferences",
    "GoldInfo",
    "GoldMatch",
    "ItemDetail",
    "ItemRow",
    "Match",
    "PredictionInfo",
    "SavedSlice",
    "SliceError",
    "SliceMetrics",
    "StaleInfo",
    "build",
    "clear",
    "compare_metrics",
    "count",
    "delete_slice",
    "describe",
    "dimension_columns",
    "distinct_values",
    "error_expr",
    "feature_columns",
    "labels_sql",
    "export_format",
    "export_items",
    "facet_table",
    "facet_tables",
    "get_slice",
    "in_context",
    "is_cdqa",
    "item_detail",
    "item_ids",
    "item_table",
    "length_bucket",
    "list_slices",
    "load_slice",
    "markdown_cell",
    "markdown_table",
    "metrics",
    "metrics_ab",
    "neighbour",
    "order_clause",
    "page",
    "per_gold",
    "position",
    "question_word",
    "right_sql",
    "answered_sql",
    "save_slice",
    "select",
    "selected",
    "slice_exists",
    "targets_for_filter",
    "write_frame",
    "load_preferences",
    "save_preferences",
    "copy_choices",
    "evidence_url",
    "ItemPair",
    "ReleaseKeys",
    "closest_dataset",
    "gold_changed_keys",
    "gold_set",
    "pair_items",
    "read_release",
    "stored_items",
]

# Each name is imported from its module on first use (start-up time: see `core/lazy.py`).
lazy_face(__name__, {
    ".paging": ("explain_page", "page_ids"),
    ".delta_order": ("DELTA_ORDER_MIN_ITEMS", "build_delta_order", "delta_order_page", "fresh_pair", "pair_stamp"),
    ".align": ("Match", "in_context", "is_cdqa", "per_gold"),
    ".detail": (
        "GoldInfo", "GoldMatch", "ItemDetail", "PredictionInfo", "StaleInfo", "copy_choices",
        "evidence_url", "item_detail",
    ),
    ".distribution": (
        "CATEGORY_COLUMN", "SCORE_BINS", "Histogram", "ScoreGrid", "category_counts", "grid_cell", "histogram",
        "score_grid",
    ),
    ".export": (
        "FORMATS", "GOLD_SEPARATOR", "ExportError", "export_format", "export_items", "item_table",
        "markdown_cell", "markdown_table", "write_frame",
    ),
    ".facets": (
        "FacetRow", "FacetTable", "clear", "facet_table", "facet_tables", "length_bucket", "question_word",
        "select", "selected",
    ),
    ".filters": ("OUTCOMES", "SORTS", "Filter"),
    ".preferences": ("ColumnLayout", "Preferences", "load_preferences", "save_preferences"),
    ".release": (
        "ItemPair", "ReleaseKeys", "closest_dataset", "gold_changed_keys", "gold_set", "pair_items", "read_release",
        "stored_items",
    ),
    ".rows": (
        "ItemRow", "SliceMetrics", "compare_metrics", "count", "distinct_values", "item_ids", "metrics",
        "metrics_ab", "neighbour", "page", "position", "targets_for_filter",
    ),
    ".slices": (
        "MAX_NAME", "SavedSlice", "SliceError", "delete_slice", "describe", "get_slice", "list_slices",
        "load_slice", "save_slice", "slice_exists",
    ),
    ".sql": (
        "BANDS", "CATEGORY", "CATEGORY_SQL", "DELTA_SQL", "DIMENSIONS", "ERROR_SQL", "FACETS", "FEATURE_DIMENSIONS",
        "LABEL", "SLICES", "STALE_ITEMS_SQL", "FacetDef", "band_sql", "bounds_case_sql", "build", "dimension_columns", "error_expr",
        "feature_columns", "labels_sql", "order_clause", "right_sql", "answered_sql",
    ),
})
