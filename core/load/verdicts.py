"""Judge verdicts into the `verdicts` table: from verdict files, and from the runs' own logs.

A verdict names its run and item. A verdicts JSONL file names the run by its stored name and the
item by id or question; an Inspect log's verdicts belong to the run the log itself is, and an
OpenCompass results file's to the predictions it sits beside — those are paired with the run's
predictions when the run is read (by sample id, or row position), so they go to the items the
predictions were linked to, however the link was made. Items are found with the matching runs
use (`items.resolve`). Rows are keyed by (run name, item key, judge), like hand labels, so a run
read again keeps the verdicts of a file that did not change; `source` ties them to their file.

A verdicts file naming a run that is not loaded (yet) is stored as far as it can be, said in a
warning, and read again on the next load.
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from qa_inspect.core.errors import FormatError
from qa_inspect.core.formats import Verdict, VerdictFile, framework_verdicts
from qa_inspect.core.model import Prediction, Run

from .ingest import FileStamp, record_file, transaction
from .ingest_runs import RunCache
from .items import resolve
from .summary import LoadSummary

__all__ = ["PendingVerdicts", "framework_pending", "pending_file", "store_verdicts"]


@dataclass(slots=True)
class PendingVerdicts:
    """Verdicts read this load, waiting for their runs to be stored."""

    rel: str
    file: VerdictFile
    run: Run | None = None
    """The run whose own log held them (its predictions are in `pairs`); None: a verdicts file."""
    pairs: list[tuple[Verdict, Prediction]] = field(default_factory=list)
    stamp: FileStamp | None = None
    """A verdicts file's own stamp (recorded when stored; a run's log is recorded as the run)."""


def pending_file(rel: str, file: VerdictFile, stamp: FileStamp) -> PendingVerdicts:
    return PendingVerdicts(rel, file, stamp=stamp)


def framework_pending(path: Path, rel: str, run: Run, summary: LoadSummary) -> list[PendingVerdicts]:
    """The verdicts a run's own framework output holds, paired with its predictions now, before
    linking rewrites their refs. Inspect: by sample id; OpenCompass: by row position."""
    try:
        found = framework_verdicts(path, run.format, run.framework_verdicts)
    except (FormatError, OSError, ValueError) as exc:
        why = exc.message if isinstance(exc, FormatError) else type(exc).__name__  # no absolute path
        summary.warnings.append({"path": rel, "message": f"{rel}: judge verdicts not read ({why})"})
        return []
    if found is None:
        return [PendingVerdicts(rel, VerdictFile(path, run.format, []), run)]  # clears verdicts it held before
    by_id = {str(p.meta.get("original_id", p.ref)): p for p in run.predictions}
    by_position = {p.meta["position"]: p for p in run.predictions if isinstance(p.meta.get("position"), int)}
    pairs: list[tuple[Verdict, Prediction]] = []
    for verdict in found.verdicts:
        prediction = by_position.get(verdict.position) if verdict.position is not None else by_id.get(verdict.ref)
        if prediction is not None:
            pairs.append((verdict, prediction))
    return [PendingVerdicts(rel, found, run, pairs)]


def store_verdicts(
    conn: sqlite3.Connection, pending: list[PendingVerdicts], cache: RunCache, summary: LoadSummary
) -> None:
    """Store each file's verdicts (replacing what it held before). A verdicts file naming a run
    or item not loaded keeps no stamp, so the next load reads it again."""
    for entry in pending:
        if entry.run is not None and _dataset_of(conn, entry) is None:
            continue  # the run was not stored: its error says why, and its old rows stay
        rows, missing = _rows(conn, entry, cache)
        with transaction(conn):
            conn.execute("DELETE FROM verdicts WHERE source = ?", (entry.rel,))
            conn.executemany(
                "INSERT OR REPLACE INTO verdicts (run, item_key, judge, verdict, value, raw, rationale, source)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)
            if entry.stamp is not None:
                stamp = entry.stamp
                if missing:
                    stamp = FileStamp(stamp.path, stamp.kind, -1, stamp.mtime_ns, "", stamp.format, stamp.encoding)
                record_file(conn, stamp)
        _report(entry, rows, missing, summary)


def _dataset_of(conn: sqlite3.Connection, entry: PendingVerdicts) -> int | None:
    """The dataset of the run whose log held these verdicts, as stored this load (None: not stored)."""
    assert entry.run is not None
    found = conn.execute("SELECT dataset_id FROM runs WHERE name = ? AND path = ?", (entry.run.name, entry.rel)).fetchone()
    return None if found is None else found[0]


Row = tuple[str, str, str, str, float, Any, Any, str]


def _rows(conn: sqlite3.Connection, entry: PendingVerdicts, cache: RunCache) -> tuple[list[Row], Counter[str]]:
    """Rows to insert, and per run name the verdicts that found no run or no item."""
    missing: Counter[str] = Counter()
    rows: list[Row] = []
    if entry.run is not None:
        by_key, by_q, _, _ = cache.for_dataset(conn, _dataset_of(conn, entry) or 0)
        for verdict, prediction in entry.pairs:
            _add(conn, rows, missing, entry.run.name, verdict, resolve(prediction, by_key, by_q), entry.rel)
        return rows, missing
    datasets: dict[str, int | None] = {}
    for verdict in entry.file.verdicts:
        name = verdict.run or ""
        if name not in datasets:
            row = conn.execute("SELECT dataset_id FROM runs WHERE name = ?", (name,)).fetchone()
            datasets[name] = row[0] if row is not None else None
        dataset_id = datasets[name]
        if dataset_id is None:
            missing[f"run {name!r} is not loaded"] += 1
            continue
        by_key, by_q, _, _ = cache.for_dataset(conn, dataset_id)
        item = resolve(Prediction(verdict.ref, verdict.ref_kind, ""), by_key, by_q)
        _add(conn, rows, missing, name, verdict, item, entry.rel)
    return rows, missing


def _add(conn: sqlite3.Connection, rows: list[Row], missing: Counter[str], run: str, verdict: Verdict,
         item_id: int | None, source: str) -> None:
    if item_id is None:
        missing[f"no item of run {run!r}'s dataset"] += 1
        return
    key = conn.execute("SELECT key FROM items WHERE id = ?", (item_id,)).fetchone()[0]
    rows.append((run, key, verdict.judge, verdict.verdict, verdict.value, verdict.raw, verdict.rationale, source))


def _report(entry: PendingVerdicts, rows: list[Row], missing: Counter[str], summary: LoadSummary) -> None:
    rel = entry.rel
    for note in entry.file.warnings:
        summary.warnings.append({"path": rel, "message": f"{rel}: {note}"})
    for why, n in sorted(missing.items()):
        later = "; read again on the next load" if why.endswith("not loaded") else ""
        summary.warnings.append({"path": rel, "message": f"{rel}: {n} verdict(s) not stored: {why}{later}"})
    if rows or entry.run is None:
        judges = sorted({r[2] for r in rows})
        summary.verdicts.append({"path": rel, "format": entry.file.format, "stored": len(rows),
                                 "judges": judges, "runs": sorted({r[0] for r in rows})})
