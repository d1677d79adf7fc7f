"""The SQLite file: where it lives, opening and migrating it, transactions, settings, shared views, names.

Holds: `schema` (open_db, migrations, `PRAGMA user_version`), `transaction` (one committed write,
retried while busy), `busy` (the one busy timeout), `identity` (a database replaced or deleted under
an open connection is refused), `settings` (the settings table, the annotator name), `paths` (where
the database lives), `overlay` (a user-side database over a read-only shipped one), `views` (SQL
for the current flags and stale golds), `names` (dataset/run look-ups with one "unknown name" error),
`bindings` (dataset fingerprints; which dataset each journal entry belongs to, by content rather
than file name).

May import: `core.errors` only. Everything above the store reaches the
database through these names.
"""

from __future__ import annotations

from qa_inspect.core.lazy import lazy_face

__all__ = [
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
    "merge_shipped",
    "migrate",
    "open_db",
    "open_placed",
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
]

# Each name is imported from its module on first use (start-up time: see `core/lazy.py`).
lazy_face(__name__, {
    ".bindings": (
        "AMBIGUOUS_SUFFIX", "Rebinding", "bind_journal", "dataset_fingerprint", "fingerprint_of",
        "journal_bindings", "store_fingerprint",
    ),
    ".busy": ("DEFAULT_TIMEOUT", "TIMEOUT_ENV", "database_file", "default_timeout"),
    ".identity": ("StoreConnection", "check_same_files"),
    ".names": ("RunRef", "known_names", "require_dataset", "require_run", "run_names", "runs_by_dataset"),
    ".overlay": ("OVERLAY_KEY", "Merged", "merge_shipped", "open_placed", "seed_overlay"),
    ".paths": ("Placement", "default_db_path", "place_db", "user_cache_dir"),
    ".schema": ("MIGRATIONS", "SCHEMA_VERSION", "OpenDb", "migrate", "open_db", "split_statements", "store_error"),
    ".settings": (
        "AUTHOR_ENV", "author_for", "default_author", "get_setting", "set_default_author", "set_setting",
    ),
    ".user_config": ("CONFIG_ENV", "UserConfig", "read_user_config", "user_config_path"),
    ".transaction": ("BusyCallback", "sqlite_connection", "write_transaction"),
    ".views": ("CURRENT_FLAGS_SQL", "EFFECTIVE_SQL", "STALE_GOLDS_SQL"),
})
