"""The load log: what the last load of the folder did, kept in the database for the app to show.

A load prints its summary once, before the app opens; the app (and anyone opening the database
later) reads it back from here. `LoadLog.entries` flattens it into one row per thing a user
should see: every error, warning, skipped and removed file, and every run's link and coverage.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from qa_inspect.core.errors import StoreError
from qa_inspect.core.store import get_setting, write_transaction

from .summary import DatasetReport, LoadSummary, RunReport

__all__ = ["LOG_SETTING", "LoadLog", "LogEntry", "last_load", "record_load"]

LOG_SETTING = "last_load"
"""Settings key holding the last load's summary as JSON."""


@dataclass(frozen=True, slots=True)
class LogEntry:
    """One row of the load log. `severity`: error, warning, skipped, removed, run, dataset."""

    severity: str
    path: str
    message: str


@dataclass(slots=True)
class LoadLog:
    at: str
    """When the load finished (UTC, ISO 8601)."""
    summary: LoadSummary

    @property
    def problems(self) -> int:
        """Errors and warnings: what the overview counts with ⚠."""
        return len(self.summary.errors) + len(self.summary.warnings)

    def entries(self) -> list[LogEntry]:
        """Errors first, then warnings, skipped and removed files, then every run and dataset."""
        s = self.summary
        out = [LogEntry("error", e["path"], _without_path(e["path"], e["message"])) for e in s.errors]
        out += [LogEntry("warning", w["path"], _without_path(w["path"], w["message"])) for w in s.warnings]
        out += [LogEntry("skipped", k["path"], k["reason"]) for k in s.skipped]
        out += [LogEntry("removed", path, "gone from the folder: its rows were deleted") for path in s.removed]
        out += [LogEntry("run", r.path, _run_line(r)) for r in s.runs]
        out += [LogEntry("dataset", d.path, _dataset_line(d)) for d in s.datasets]
        return out


def _without_path(path: str, message: str) -> str:
    """Summary messages start with their file (for a terminal line); a log row shows it apart."""
    return message[len(path) + 2:] if message.startswith(path + ": ") else message


def _run_line(r: RunReport) -> str:
    if r.dataset is None:
        return f"{r.name}: {r.status}, matched no dataset"
    coverage = f", answers {r.coverage:g}% of its items" if r.coverage is not None else ""
    run_cov = f", {r.run_coverage:g}% of its predictions matched" if r.run_coverage is not None else ""
    method = f" by {r.method}" if r.method else ""
    return (f"{r.name}: {r.status}; linked to {r.dataset}{method}{coverage}{run_cov}; "
            f"{r.predictions:,} predictions, {r.unmatched:,} unmatched")


def _dataset_line(d: DatasetReport) -> str:
    scorer = f", scored with {d.scorer}" if d.scorer else ""
    return f"{d.name}: {d.status}; {d.items:,} items, {d.golds:,} golds ({d.format}{scorer})"


def _summary_from(data: dict[str, Any]) -> LoadSummary:
    runs = [RunReport(**{k: v for k, v in r.items() if k in RunReport.__slots__}) for r in data.get("runs", [])]
    datasets = [DatasetReport(**{k: v for k, v in d.items() if k in DatasetReport.__slots__})
                for d in data.get("datasets", [])]
    return LoadSummary(db=data.get("db", ""), datasets=datasets, runs=runs, skipped=list(data.get("skipped", [])),
                       errors=list(data.get("errors", [])), removed=list(data.get("removed", [])),
                       warnings=list(data.get("warnings", [])))


def record_load(conn: sqlite3.Connection, summary: LoadSummary) -> None:
    """Keep the summary as the last load (best effort: a busy database skips it, it is only a log).
    An unchanged folder's summary equal to the stored one writes nothing."""
    body = summary.to_dict()
    stored = get_setting(conn, LOG_SETTING)
    if stored:
        try:
            if json.loads(stored).get("summary") == body:
                return
        except ValueError:
            pass
    at = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    value = json.dumps({"at": at, "summary": body}, ensure_ascii=False)
    try:
        write_transaction(conn, lambda c: c.execute(
            "INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)", (LOG_SETTING, value)), deadline=0.5)
    except StoreError:
        pass  # busy or read-only: the next load records its own log


def last_load(conn: sqlite3.Connection) -> LoadLog | None:
    """The last load's log, or None when this database has none (or an unreadable one)."""
    stored = get_setting(conn, LOG_SETTING)
    if not stored:
        return None
    try:
        data = json.loads(stored)
        return LoadLog(str(data["at"]), _summary_from(data["summary"]))
    except (ValueError, KeyError, TypeError):
        return None
