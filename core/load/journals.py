"""The load's step that merges the runs folder's journal files (`core.flags.journal_sync`).

The folders read are `RUNS_DIR/.qa-inspect/journal` (the team's shared entries) and the one this
database's new entries go to (`core.flags.journal_folder`: the same folder for the folder's own
database, else `<name>.journal/` beside the database: a read-only folder's overlay, a `--db` elsewhere).
The database is a cache of them.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from qa_inspect.core.flags import journal_folder, sync_journal_files
from qa_inspect.core.store import database_file

from .summary import LoadSummary

__all__ = ["merge_journal_files"]


def merge_journal_files(runs_dir: Path, conn: sqlite3.Connection, summary: LoadSummary) -> None:
    """Merge every journal file into the database; problems and conflicts become load warnings."""
    db_file = database_file(conn)
    if not db_file:
        return  # an in-memory database: nothing to share
    shared = runs_dir / ".qa-inspect" / "journal"
    own = journal_folder(runs_dir, Path(db_file))
    result = sync_journal_files(conn, [shared, own], write_to=own)
    for message in result.lines():
        summary.warnings.append({"path": str(shared), "message": message})
