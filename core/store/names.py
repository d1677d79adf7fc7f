"""Looking up datasets and runs by name: one place that says "no such name, these exist".

Every command and screen that takes a dataset or run name from the user checks it here, so the
error reads the same everywhere and lists the names that are loaded.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from qa_inspect.core.errors import UnknownNameError

from .transaction import sqlite_connection

__all__ = ["RunRef", "known_names", "require_dataset", "require_run", "run_names", "runs_by_dataset"]

_TABLES = {"dataset": "datasets", "run": "runs"}


@dataclass(frozen=True, slots=True)
class RunRef:
    """A run found by name, with the dataset it is linked to (None when it matched no dataset)."""

    id: int
    name: str
    dataset_id: int | None
    dataset: str | None
    family: str | None
    scorer: str | None = None


def known_names(conn: Any, kind: str) -> list[str]:
    """Names of every loaded `kind` ("dataset" or "run"), sorted."""
    table = _TABLES[kind]
    return [r[0] for r in sqlite_connection(conn).execute(f"SELECT name FROM {table} ORDER BY name")]


def require_dataset(conn: Any, name: str) -> int:
    """The id of the dataset called `name`; UnknownNameError listing the loaded ones otherwise."""
    row = sqlite_connection(conn).execute("SELECT id FROM datasets WHERE name = ?", (name,)).fetchone()
    if row is None:
        raise UnknownNameError("dataset", name, known_names(conn, "dataset"))
    return int(row[0])


def require_run(conn: Any, name: str, *, linked: bool = False) -> RunRef:
    """The run called `name` (and its dataset); with `linked=True` it must be linked to a dataset."""
    raw = sqlite_connection(conn)
    row = raw.execute(
        "SELECT r.id, r.name, r.dataset_id, d.name, d.family, COALESCE(r.scorer, d.scorer) FROM runs r"
        " LEFT JOIN datasets d ON d.id = r.dataset_id WHERE r.name = ?",
        (name,),
    ).fetchone()
    if row is None or (linked and row[2] is None):
        runs = [r[0] for r in raw.execute("SELECT name FROM runs WHERE dataset_id IS NOT NULL ORDER BY name")] if linked \
            else known_names(raw, "run")
        raise UnknownNameError("run", name, runs, " linked to a dataset" if linked else "")
    return RunRef(*row)


def run_names(conn: Any, *, dataset: str | None = None, linked: bool = False, like: str | None = None) -> list[str]:
    """Run names, sorted: of one dataset (`dataset`), of the dataset run `like` belongs to, or every
    run linked to some dataset (`linked=True`), else all."""
    raw = sqlite_connection(conn)
    if like is not None:
        sql, params = "SELECT name FROM runs WHERE dataset_id = (SELECT dataset_id FROM runs WHERE name = ?)", [like]
    elif dataset is not None:
        sql, params = "SELECT r.name FROM runs r JOIN datasets d ON d.id = r.dataset_id WHERE d.name = ?", [dataset]
    else:
        sql, params = "SELECT name FROM runs" + (" WHERE dataset_id IS NOT NULL" if linked else ""), []
    return [r[0] for r in raw.execute(sql + " ORDER BY 1", params)]


def runs_by_dataset(conn: Any) -> list[tuple[str, str | None]]:
    """(run, its dataset or None) for every run, by dataset then run name (a run picker's list)."""
    raw = sqlite_connection(conn)
    rows = raw.execute(
        "SELECT r.name, d.name FROM runs r LEFT JOIN datasets d ON d.id = r.dataset_id ORDER BY d.name, r.name"
    ).fetchall()
    return [(r[0], r[1]) for r in rows]
