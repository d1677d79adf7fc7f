"""What the database already holds, as a load meets it: files not (successfully) read this time,
reported as they were; names taken; journal entries bound to their dataset by content."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from qa_inspect.core.store import bind_journal, journal_bindings

from .ingest import transaction
from .summary import DatasetReport, LoadSummary, RunReport

__all__ = ["bind_datasets", "dataset_warnings", "report_stored", "unique_name"]


def report_stored(conn: sqlite3.Connection, rels: list[str], summary: LoadSummary, status: str) -> None:
    """Report what the database holds for files not (successfully) read this time."""
    for rel in rels:
        kind_row = conn.execute("SELECT kind, owner, note FROM files WHERE path = ?", (rel,)).fetchone()
        kind = kind_row[0] if kind_row else None
        if kind == "dataset":
            row = conn.execute(
                "SELECT name, format, item_count, gold_count, encoding, scorer, meta FROM datasets WHERE path = ?", (rel,)
            ).fetchone()
            if row:
                summary.datasets.append(DatasetReport(row[0], rel, row[1], row[2], row[3], status, row[4], row[5]))
                summary.warnings.extend(dataset_warnings(rel, json.loads(row[6]) if row[6] else {}))
        elif kind == "run":
            rows = conn.execute(
                "SELECT r.name, r.format, d.name, r.prediction_count, r.unmatched_count, r.link_reason, r.encoding,"
                " r.meta FROM runs r LEFT JOIN datasets d ON d.id = r.dataset_id WHERE r.path = ? ORDER BY r.id",
                (rel,),
            ).fetchall()  # one run per file, or one per dataset file it was declared against
            for row in rows:
                link = (json.loads(row[7]) if row[7] else {}).get("link", {})
                report = RunReport(row[0], rel, row[1], row[2], row[3], row[4], status, row[5] or "", row[6],
                                   link.get("coverage"), link.get("run_coverage"), link.get("method", ""),
                                   list(link.get("warnings", [])))
                summary.runs.append(report)
                summary.warnings.extend({"path": rel, "message": f"{rel}: {w}"} for w in report.warnings)
        elif kind == "side" and status == "unchanged":
            summary.skipped.append({"path": rel, "reason": f"side file of {kind_row[1]}, read with it"})
        elif kind == "skipped" and status == "unchanged":
            summary.skipped.append({"path": rel, "reason": kind_row[2] or "not QA data"})


def dataset_warnings(rel: str, meta: dict[str, object]) -> list[dict[str, str]]:
    """What a dataset's reader said (`meta["warnings"]`: repeated keys, ...), as load warnings;
    kept in the dataset's stored meta so every later load says it again until the file changes."""
    said = meta.get("warnings")
    return [{"path": rel, "message": f"{rel}: {w}"} for w in said] if isinstance(said, list) else []


def unique_name(conn: sqlite3.Connection, table: str, name: str, rel: str) -> str:
    """Names are unique per table; a second file with the same name gets its folder appended."""
    base, n, candidate = name, 1, name
    while True:
        row = conn.execute(f"SELECT path FROM {table} WHERE name = ?", (candidate,)).fetchone()  # noqa: S608
        if row is None or row[0] == rel:
            return candidate
        n += 1
        parent = Path(rel).parent.name
        candidate = f"{base} ({parent})" if n == 2 and parent else f"{base} ({n})"


def bind_datasets(conn: sqlite3.Connection) -> list[dict[str, str]]:
    """Bind journal entries to their dataset by content (a renamed file keeps its flags, a journal
    written against one of two same-named files binds to that one); the warnings to report.
    An unchanged folder writes nothing (and waits on no lock)."""
    stale, changes = journal_bindings(conn)
    if stale:
        with transaction(conn):
            changes = bind_journal(conn)
    paths = dict(conn.execute("SELECT name, path FROM datasets"))
    return [{"path": paths.get(c.new) or paths.get(c.written_as) or c.written_as, "message": c.message}
            for c in changes]
