"""The SQLite file: where it lives, opening and migrating it, transactions, settings, shared views, names.

Holds: `schema` (open_db, migrations, `PRAGMA user_version`), `transaction` (one committed write,
retried while busy), `settings` (the settings table, the annotator name), `paths` (default
database location), `views` (SQL for the current flags and stale golds), `names` (dataset/run
look-ups with one "unknown name" error), `bindings` (dataset fingerprints; which dataset each
journal entry belongs to, by content rather than file name).

May import: `core.errors` only (and sqlite_utils). Everything above the store reaches the
database through these names.
"""

from __future__ import annotations

from .bindings import (
    AMBIGUOUS_SUFFIX,
    Rebinding,
    bind_journal,
    dataset_fingerprint,
    fingerprint_of,
    journal_bindings,
    store_fingerprint,
)
from .names import (
    RunRef,
    known_names,
    require_dataset,
    require_run,
    run_names,
    runs_by_dataset,
)
from .paths import default_db_path, user_cache_dir
from .schema import (
    MIGRATIONS,
    SCHEMA_VERSION,
    TIMEOUT_ENV,
    default_timeout,
    migrate,
    open_db,
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
from .transaction import (
    BUSY_DEADLINE,
    BusyCallback,
    sqlite_connection,
    write_transaction,
)
from .views import CURRENT_FLAGS_SQL, EFFECTIVE_SQL, STALE_GOLDS_SQL

__all__ = [
    "AMBIGUOUS_SUFFIX",
    "AUTHOR_ENV",
    "BUSY_DEADLINE",
    "CURRENT_FLAGS_SQL",
    "EFFECTIVE_SQL",
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "STALE_GOLDS_SQL",
    "TIMEOUT_ENV",
    "BusyCallback",
    "Rebinding",
    "RunRef",
    "author_for",
    "bind_journal",
    "dataset_fingerprint",
    "default_author",
    "default_db_path",
    "default_timeout",
    "fingerprint_of",
    "get_setting",
    "journal_bindings",
    "known_names",
    "migrate",
    "open_db",
    "require_dataset",
    "require_run",
    "run_names",
    "runs_by_dataset",
    "set_default_author",
    "set_setting",
    "split_statements",
    "sqlite_connection",
    "store_error",
    "store_fingerprint",
    "user_cache_dir",
    "write_transaction",
]
