"""What the database holds for files a load did not (successfully) read: reported as they were."""

from __future__ import annotations

import json
import sqlite3

from .summary import DatasetReport, LoadSummary, RunReport

__all__ = ["report_stored"]


def report_stored(conn: sqlite3.Connection, rels: list[str], summary: LoadSummary, status: str) -> None:
    """Report what the database holds for files not (successfully) read this time."""
    for rel in rels:
        kind_row = conn.execute("SELECT kind, owner, note FROM files WHERE path = ?", (rel,)).fetchone()
        kind = kind_row[0] if kind_row else None
        if kind == "dataset":
            row = conn.execute(
                "SELECT name, format, item_count, gold_count, encoding, scorer FROM datasets WHERE path = ?", (rel,)
            ).fetchone()
            if row:
                summary.datasets.append(DatasetReport(row[0], rel, row[1], row[2], row[3], status, row[4], row[5]))
        elif kind == "run":
            row = conn.execute(
                "SELECT r.name, r.format, d.name, r.prediction_count, r.unmatched_count, r.link_reason, r.encoding,"
                " r.meta FROM runs r LEFT JOIN datasets d ON d.id = r.dataset_id WHERE r.path = ?",
                (rel,),
            ).fetchone()
            if row:
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
