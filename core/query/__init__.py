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

from typing import TYPE_CHECKING

from qa_inspect.core.faces import lazy_face

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
    "PASS_BANDS",
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
    "csv_frame",
    "facet_table",
    "facet_tables",
    "get_slice",
    "in_context",
    "is_cdqa",
    "item_detail",
    "SampleGroup",
    "SampleRow",
    "sample_groups",
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
    "unknown_values",
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

if TYPE_CHECKING:  # where each name lives; loaded on first use at run time (core/faces.py)
    from .paging import (
        explain_page,
        page_ids,
    )
    from .delta_order import (
        build_delta_order,
        DELTA_ORDER_MIN_ITEMS,
        delta_order_page,
        fresh_pair,
        pair_stamp,
    )
    from .align import (
        in_context,
        is_cdqa,
        Match,
        per_gold,
    )
    from .detail import (
        copy_choices,
        evidence_url,
        GoldInfo,
        GoldMatch,
        item_detail,
        ItemDetail,
        PredictionInfo,
        StaleInfo,
    )
    from .sample_detail import (
        SampleGroup,
        sample_groups,
        SampleRow,
    )
    from .distribution import (
        CATEGORY_COLUMN,
        category_counts,
        grid_cell,
        Histogram,
        histogram,
        SCORE_BINS,
        score_grid,
        ScoreGrid,
    )
    from .export import (
        export_format,
        csv_frame,
        export_items,
        ExportError,
        FORMATS,
        GOLD_SEPARATOR,
        item_table,
        markdown_cell,
        markdown_table,
        write_frame,
    )
    from .facets import (
        clear,
        facet_table,
        facet_tables,
        FacetRow,
        FacetTable,
        length_bucket,
        question_word,
        select,
        selected,
    )
    from .filters import (
        Filter,
        OUTCOMES,
        SORTS,
    )
    from .preferences import (
        ColumnLayout,
        load_preferences,
        Preferences,
        save_preferences,
    )
    from .release import (
        closest_dataset,
        gold_changed_keys,
        gold_set,
        ItemPair,
        pair_items,
        read_release,
        ReleaseKeys,
        stored_items,
    )
    from .rows import (
        compare_metrics,
        count,
        distinct_values,
        item_ids,
        ItemRow,
        metrics,
        metrics_ab,
        neighbour,
        page,
        position,
        SliceMetrics,
        targets_for_filter,
    )
    from .slices import (
        delete_slice,
        describe,
        get_slice,
        list_slices,
        load_slice,
        MAX_NAME,
        save_slice,
        SavedSlice,
        slice_exists,
        SliceError,
        unknown_values,
    )
    from .sql import (
        answered_sql,
        band_sql,
        BANDS,
        bounds_case_sql,
        build,
        CATEGORY,
        CATEGORY_SQL,
        DELTA_SQL,
        dimension_columns,
        DIMENSIONS,
        error_expr,
        ERROR_SQL,
        FacetDef,
        FACETS,
        PASS_BANDS,
        feature_columns,
        FEATURE_DIMENSIONS,
        LABEL,
        labels_sql,
        order_clause,
        right_sql,
        SLICES,
        STALE_ITEMS_SQL,
    )

lazy_face(__name__)
