"""The SQLite file: where it lives, opening and migrating it, transactions, settings, shared views, names.

Holds: `schema` (open_db, migrations, `PRAGMA user_version`), `transaction` (one committed write,
retried while busy), `busy` (the one busy timeout), `identity` (a database replaced or deleted under
an open connection is refused), `settings` (the settings table, the annotator name), `paths` (where
the database lives), `overlay` (a user-side database over a read-only shipped one), `views` (SQL
for the current flags and stale golds), `names` (dataset/run look-ups with one "unknown name" error),
`search_marks` (which rows the search index holds), `columns` (column lists both sides name),
`bindings` (dataset fingerprints; which dataset each journal entry belongs to, by content rather
than file name), `overview_cache` (the overview's grouped rows, stored until their data changes),
`frame_store` (each run's facet and count arrays as BLOBs, stored until their data changes),
`schema_description` (tables, columns and indexes read from a database: `describe_schema`),
`table_docs` (what every table and column means, in words: `TABLE_DOCS`), `label_state` (the labels on
now, kept beside the journal by triggers).

May import: `core.errors` only (and sqlite-utils, in `schema_description`, when asked). Everything above the store reaches the
database through these names.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from qa_inspect.core.faces import lazy_face

__all__ = [
    "ANSWER_INDEX",
    "DIMENSIONS",
    "LARGE_DATASET",
    "QUESTION_INDEX",
    "ColumnInfo",
    "IndexInfo",
    "SchemaInfo",
    "TableInfo",
    "describe_schema",
    "ERROR_SQL",
    "FEATURE_COLUMNS",
    "answered_sql",
    "OverviewRows",
    "cached_rows",
    "data_stamp",
    "passage_firsts",
    "stored_passage_firsts",
    "first_rows",
    "overview_rows",
    "stored_rows",
    "SCORE_SCALE",
    "integer_texts",
    "parse_integers",
    "scaled_score_sql",
    "scores_from_integers",
    "DATASET_PART",
    "StoredColumn",
    "frame_stamp",
    "frame_stored",
    "store_frame",
    "stored_frame",
    "ITEMS_MARK",
    "MANIFEST_NAME",
    "PREDICTIONS_MARK",
    "index_marks",
    "pending_marks",
    "pending_rows",
    "set_marks",
    "AMBIGUOUS_SUFFIX",
    "AUTHOR_ENV",
    "CURRENT_FLAGS_SQL",
    "DEFAULT_TIMEOUT",
    "EFFECTIVE_SQL",
    "MIGRATIONS",
    "OpenDb",
    "OVERLAY_KEY",
    "SCHEMA_VERSION",
    "STALE_GOLDS_SQL",
    "TIMEOUT_ENV",
    "BusyCallback",
    "Merged",
    "Placement",
    "Rebinding",
    "RunRef",
    "StoreConnection",
    "author_for",
    "bind_journal",
    "check_same_files",
    "database_file",
    "dataset_fingerprint",
    "default_author",
    "default_db_path",
    "default_timeout",
    "fingerprint_of",
    "get_setting",
    "journal_bindings",
    "known_names",
    "after_commit",
    "merge_shipped",
    "migrate",
    "open_db",
    "open_placed",
    "open_read_only",
    "place_db",
    "require_dataset",
    "require_run",
    "run_names",
    "runs_by_dataset",
    "seed_overlay",
    "set_default_author",
    "set_setting",
    "split_statements",
    "sqlite_connection",
    "store_error",
    "store_fingerprint",
    "user_cache_dir",
    "write_transaction",
    "CONFIG_ENV",
    "UserConfig",
    "read_user_config",
    "user_config_path",
    "TABLE_DOCS",
    "TableDoc",
    "MAX_META_INDEXES",
    "index_texts",
    "index_meta_keys",
    "meta_index",
    "meta_index_name",
    "meta_value_sql",
    "CURRENT_LABELS_SQL",
    "REBUILD_LABELS_SQL",
    "rebuild_label_state",
]

if TYPE_CHECKING:  # where each name lives; loaded on first use at run time (core/faces.py)
    from .bindings import (
        AMBIGUOUS_SUFFIX,
        bind_journal,
        dataset_fingerprint,
        fingerprint_of,
        journal_bindings,
        Rebinding,
        store_fingerprint,
    )
    from .busy import (
        database_file,
        DEFAULT_TIMEOUT,
        default_timeout,
        TIMEOUT_ENV,
    )
    from .identity import (
        check_same_files,
        StoreConnection,
    )
    from .names import (
        known_names,
        require_dataset,
        require_run,
        run_names,
        RunRef,
        runs_by_dataset,
    )
    from .overlay import (
        merge_shipped,
        Merged,
        open_placed,
        open_read_only,
        OVERLAY_KEY,
        seed_overlay,
    )
    from .paths import (
        MANIFEST_NAME,
        default_db_path,
        place_db,
        Placement,
        user_cache_dir,
    )
    from .schema import (
        migrate,
        MIGRATIONS,
        open_db,
        OpenDb,
        SCHEMA_VERSION,
        split_statements,
        store_error,
    )
    from .settings import (
        AUTHOR_ENV,
        author_for,
        default_author,
        get_setting,
        set_default_author,
        set_setting,
    )
    from .user_config import (
        CONFIG_ENV,
        read_user_config,
        user_config_path,
        UserConfig,
    )
    from .transaction import (
        after_commit,
        BusyCallback,
        sqlite_connection,
        write_transaction,
    )
    from .views import (
        answered_sql,
        CURRENT_FLAGS_SQL,
        EFFECTIVE_SQL,
        ERROR_SQL,
        STALE_GOLDS_SQL,
    )
    from .columns import (
        DIMENSIONS,
        FEATURE_COLUMNS,
    )
    from .schema_description import (
        ColumnInfo,
        describe_schema,
        IndexInfo,
        SchemaInfo,
        TableInfo,
    )
    from .passages import passage_firsts, stored_passage_firsts
    from .overview_cache import (
        OverviewRows,
        cached_rows,
        data_stamp,
        first_rows,
        overview_rows,
        stored_rows,
    )
    from .integer_texts import SCORE_SCALE, integer_texts, parse_integers, scaled_score_sql, scores_from_integers
    from .frame_store import (
        DATASET_PART,
        StoredColumn,
        frame_stamp,
        frame_stored,
        store_frame,
        stored_frame,
    )
    from .table_docs import (
        TABLE_DOCS,
        TableDoc,
    )
    from .label_state import (
        CURRENT_LABELS_SQL,
        REBUILD_LABELS_SQL,
        rebuild_label_state,
    )
    from .search_marks import (
        index_marks,
        ITEMS_MARK,
        pending_marks,
        pending_rows,
        PREDICTIONS_MARK,
        set_marks,
    )
    from .text_indexes import (
        ANSWER_INDEX,
        index_texts,
        LARGE_DATASET,
        QUESTION_INDEX,
    )
    from .meta_index import (
        index_meta_keys,
        MAX_META_INDEXES,
        meta_index,
        meta_index_name,
        meta_value_sql,
    )

lazy_face(__name__)
