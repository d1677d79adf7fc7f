"""Numbers with stale golds excluded, shaped for the views that show them (headless).

The TUI's browser shows the metrics of a filtered slice and the runs overview shows per-run and
per-slice numbers; both can switch to "stale golds excluded". The re-scoring itself is
`core.flags.item_frame_excluding_stale` (predictions on items with a stale gold re-scored against
the golds left, items left with no gold dropped); this module only aggregates it the way
`core.query.metrics` and `core.overview` count, so the two modes differ by the stale golds alone.
"""

from __future__ import annotations

import copy
import sqlite3
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from qa_inspect.core.metrics import answer_rate
from qa_inspect.core.query import Filter, SliceMetrics, build
from qa_inspect.core.store import STALE_GOLDS_SQL, data_stamp, sqlite_connection

from .metrics import DIMENSIONS, slice_table
from .overview import DatasetOverview, RunOverview, SliceStat
from .stale import ALL_GOLDS, EXCLUDE_STALE, item_frame_excluding_stale

if TYPE_CHECKING:
    import polars as pl

__all__ = [
    "ALL_GOLDS",
    "EXCLUDE_STALE",
    "StaleCounts",
    "StaleSlice",
    "overview_excluding_stale",
    "rescored_rows",
    "slice_metrics_excluding_stale",
    "stale_counts",
]

_STALE_ITEMS = f"SELECT s.item_id FROM ({STALE_GOLDS_SQL}) s"
_REMAINING = (
    "EXISTS (SELECT 1 FROM golds g WHERE g.item_id = i.id AND g.superseded = 0"
    f" AND g.id NOT IN (SELECT s.gold_id FROM ({STALE_GOLDS_SQL}) s))"
)
"""The item keeps at least one scored gold that is not stale."""


def _and(sql: str, cond: str) -> str:
    """Add a condition to `core.query.build`'s FROM/WHERE (its joins never hold a WHERE, and its
    conditions are AND-ed, so a top-level WHERE exists exactly when there are conditions)."""
    return sql + (" AND " if " WHERE " in sql else " WHERE ") + cond


@dataclass(slots=True)
class _Sums:
    items: int = 0
    predicted: int = 0
    em: float = 0.0
    f1: float = 0.0
    answered: int = 0
    f1_recall: float = 0.0
    has_em: bool = False
    has_cdqa: bool = False

    def metrics(self) -> SliceMetrics:
        """Counted as `core.query.metrics` counts (missing predictions 0; F1-recall over answered)."""
        m = SliceMetrics(items=self.items, predicted=self.predicted)
        if self.has_em:
            m.em = 100.0 * self.em / self.items if self.items else 0.0
            m.f1 = 100.0 * self.f1 / self.items if self.items else 0.0
        if self.has_cdqa:
            m.answered = self.answered
            m.f1_recall = 100.0 * self.f1_recall / self.answered if self.answered else 0.0
            m.answer_rate = answer_rate(self.answered, self.predicted)
        return m


def _sum_columns(a: str) -> str:
    answered = f"({a}.id IS NOT NULL AND COALESCE({a}.refused, 0) = 0)"
    return (
        f"COUNT({a}.id), SUM(COALESCE({a}.em, 0)), SUM(COALESCE({a}.f1, 0)), SUM(CASE WHEN {answered} THEN 1 ELSE 0 END),"
        f" SUM(CASE WHEN {answered} THEN COALESCE({a}.f1_recall, 0) ELSE 0 END),"
        f" MAX({a}.em IS NOT NULL), MAX({a}.f1_recall IS NOT NULL OR {a}.refused IS NOT NULL)"
    )


@dataclass(slots=True)
class StaleSlice:
    """Metrics of a filter's items with stale golds excluded, for run A and (comparing) run B."""

    metrics: SliceMetrics
    compare: SliceMetrics | None
    stale_items: int
    """Items of the filter with a stale gold now."""
    dropped: int
    """Of those, items left with no scored gold: not counted at all."""
    mode: str = EXCLUDE_STALE


def rescored_rows(conn: Any, runs: list[str]) -> pl.DataFrame:
    """The rows of `item_frame_excluding_stale` that differ from the stored scores: items with a
    stale gold and a gold left, re-scored (reusable across filters while no flag changes)."""
    import polars as pl

    frame = item_frame_excluding_stale(sqlite_connection(conn), runs, human=False)
    return frame.filter(pl.col("stale_golds") > 0)


def slice_metrics_excluding_stale(conn: Any, f: Filter, rescored: pl.DataFrame | None = None) -> StaleSlice:
    """`core.query.metrics_ab` of the filter with stale golds left out.

    Items without a stale gold keep their stored scores (summed in SQL); items with one take the
    re-scored rows of `item_frame_excluding_stale`; items left with no scored gold are dropped.
    Which items the filter matches still follows the stored (all golds) scores. `rescored`:
    `rescored_rows` of the filter's runs, computed once while no flag changes (a 100k-item run
    costs a full re-read otherwise).
    """
    raw = sqlite_connection(conn)
    sql, params = build(raw, f)
    aliases = ("p", "pb") if f.compare else ("p",)
    runs = [f.run, f.compare][: len(aliases)]
    row = raw.execute(
        f"SELECT COUNT(*), {', '.join(_sum_columns(a) for a in aliases)} {_and(sql, f'i.id NOT IN ({_STALE_ITEMS})')}",
        params,
    ).fetchone()
    sums = []
    for k in range(len(aliases)):
        pred, em, f1, answered, f1r, has_em, has_cdqa = row[1 + 7 * k: 8 + 7 * k]
        sums.append(_Sums(row[0], pred or 0, em or 0.0, f1 or 0.0, answered or 0, f1r or 0.0, bool(has_em), bool(has_cdqa)))
    flags = ", ".join(f"MAX({a}.em IS NOT NULL), MAX({a}.f1_recall IS NOT NULL OR {a}.refused IS NOT NULL)" for a in aliases)
    stale_rows = raw.execute(
        f"SELECT i.key, {_REMAINING}, {flags} {_and(sql, f'i.id IN ({_STALE_ITEMS})')} GROUP BY i.id", params
    ).fetchall()
    kept = {r[0] for r in stale_rows if r[1]}
    for s in sums:
        s.items += len(kept)
    for r in stale_rows:  # the stored scores say which family's metrics apply
        for k, s in enumerate(sums):
            s.has_em = s.has_em or bool(r[2 + 2 * k])
            s.has_cdqa = s.has_cdqa or bool(r[3 + 2 * k])
    named = [r for r in runs if r]
    if kept and named:
        frame = rescored if rescored is not None else rescored_rows(raw, named)
        dataset = _dataset_of(raw, named[0])
        for rec in frame.iter_rows(named=True):
            if rec["stale_golds"] == 0 or rec["item_key"] not in kept or rec["dataset"] != dataset:
                continue
            for run, s in zip(runs, sums):
                if rec["run"] != run or not rec["predicted"]:
                    continue
                s.predicted += 1
                s.em += rec["em"] or 0.0
                s.f1 += rec["f1"] or 0.0
                if not rec["refused"]:
                    s.answered += 1
                    s.f1_recall += rec["f1_recall"] or 0.0
    metrics = [s.metrics() for s in sums]
    return StaleSlice(metrics[0], metrics[1] if len(metrics) > 1 else None, len(stale_rows), len(stale_rows) - len(kept))


def _dataset_of(conn: sqlite3.Connection, run: str) -> str | None:
    row = conn.execute("SELECT d.name FROM runs r JOIN datasets d ON d.id = r.dataset_id WHERE r.name = ?", (run,)).fetchone()
    return row[0] if row else None


@dataclass(slots=True)
class StaleCounts:
    """Stale golds of one dataset now: distinct flagged texts, items with one, items left with none."""

    golds: int = 0
    items: int = 0
    dropped: int = 0


def stale_counts(conn: Any) -> dict[str, StaleCounts]:
    """Per dataset name, what "stale golds excluded" leaves out (datasets without a stale gold are
    absent); kept in this process under the stamp `overview_excluding_stale` uses."""
    raw = sqlite_connection(conn)
    key = _stamp(raw, [], False)
    if key is not None and (hit := _COUNTS.get(key)) is not None:
        return {name: replace(c) for name, c in hit.items()}
    out = _counts(raw)
    if key is not None:
        _COUNTS.clear()
        _COUNTS[key] = {name: replace(c) for name, c in out.items()}
    return out


_COUNTS: dict[tuple[Any, ...], dict[str, StaleCounts]] = {}


def _counts(raw: sqlite3.Connection) -> dict[str, StaleCounts]:
    out: dict[str, StaleCounts] = {}
    for name, golds, items in raw.execute(
        # the flagged golds first (MATERIALIZED: else SQLite walks every gold to join them)
        f"WITH s AS MATERIALIZED ({STALE_GOLDS_SQL}) SELECT d.name, COUNT(*), COUNT(DISTINCT x.item_id) FROM"
        " (SELECT DISTINCT s.item_id, g.text FROM s JOIN golds g ON g.id = s.gold_id) x"
        " JOIN items i ON i.id = x.item_id JOIN datasets d ON d.id = i.dataset_id GROUP BY d.name"
    ):
        out[name] = StaleCounts(golds, items)
    for name, dropped in raw.execute(
        f"SELECT d.name, COUNT(*) FROM items i JOIN datasets d ON d.id = i.dataset_id"
        f" WHERE i.id IN ({_STALE_ITEMS}) AND NOT {_REMAINING} GROUP BY d.name"
    ):
        out.setdefault(name, StaleCounts()).dropped = dropped
    return out


def _stat(dim: str, value: str | None, row: dict[str, Any] | None) -> SliceStat:
    if row is None:  # every item of the slice was dropped
        return SliceStat(dim, value, 0, error_share=0.0)
    return SliceStat(
        dim, value, int(row["items"]), predicted=int(row["predicted"] or 0), errors=int(row["errors"] or 0),
        error_share=(row["error_share"] or 0.0) / 100.0, em=row["em"], f1=row["f1"], answered=row["answered"],
        f1_recall=row["f1_recall"], answer_rate=row["answer_rate"],
    )


def overview_excluding_stale(
    conn: Any, datasets: list[DatasetOverview], *, slices: bool = True, frame: pl.DataFrame | None = None
) -> list[DatasetOverview]:
    """`datasets` (from `core.overview.overview`) with every run's and the human estimate's numbers
    recomputed with stale golds excluded; the structure (runs, slice values, order) is kept.

    The answer is kept (in this process) under a stamp of what it depends on: the data
    (`overview_cache.data_stamp` of every dataset), the annotation journal and the overview it
    adjusts. Switching the mode back and forth, or showing the overview again, re-scores
    nothing until a flag or a load changes something. `frame`:
    `item_frame_excluding_stale(conn, None, human=True)` when the caller has it already; without
    it the frame is built on a miss and kept for the full pass that follows a quick one."""
    raw = sqlite_connection(conn)
    key = _stamp(raw, datasets, slices)
    hit = _ANSWERS.get(key) if key is not None else None
    if hit is not None:
        return copy.deepcopy(hit)  # the caller may change what it is given; the kept answer stays
    if frame is None:
        frame = _FRAMES.get(key[:3]) if key is not None else None
        if frame is None:
            frame = item_frame_excluding_stale(raw, None, human=True)
    out = _excluding(frame, datasets, slices)
    if key is not None:
        if len(_ANSWERS) >= _KEEP:
            _ANSWERS.clear()
        _ANSWERS[key] = copy.deepcopy(out)
        _FRAMES.clear()
        if not slices:  # the full pass usually follows: keep the frame for it
            _FRAMES[key[:3]] = frame
    return out


_KEEP = 8
"""Answers kept: a few stamps (the quick and the full pass of the current data and flags)."""
_ANSWERS: dict[tuple[Any, ...], list[DatasetOverview]] = {}
_FRAMES: dict[tuple[Any, ...], pl.DataFrame] = {}


def _stamp(conn: sqlite3.Connection, datasets: list[DatasetOverview], slices: bool) -> tuple[Any, ...] | None:
    """What an excluded overview depends on, or None (an in-memory database: nothing to name it by)."""
    path = next((row[2] for row in conn.execute("PRAGMA database_list") if row[1] == "main"), "")
    if not path:
        return None
    data = tuple(data_stamp(conn, ds_id) for (ds_id,) in conn.execute("SELECT id FROM datasets ORDER BY id"))
    journal = conn.execute("SELECT COUNT(*), MAX(rowid) FROM annotations").fetchone()
    shape = tuple(  # the slice values only where they are shown (a quick pass may carry them or not)
        (ds.name, tuple((r.name, r.predictions, r.overall.items) for r in ds.runs), ds.human is not None,
         tuple((dim, tuple(v for v, _ in ds.slice_items.get(dim, []))) for dim in ds.dimensions) if slices else ())
        for ds in datasets
    )
    return (path, data, tuple(journal), shape, slices)


def _excluding(frame: pl.DataFrame, datasets: list[DatasetOverview], slices: bool) -> list[DatasetOverview]:
    """The recomputation itself: `slice_table` of the re-scored frame, shaped as `datasets`."""
    frame = frame.drop("stale_golds", "mode")
    tables = {"all": slice_table(frame, None)}
    if slices:
        tables.update((dim, slice_table(frame, dim)) for dim in DIMENSIONS)
    rows = {
        (dim, r["dataset"], r["run"], r["value"]): r for dim, t in tables.items() for r in t.iter_rows(named=True)
    }

    def redo(ds: DatasetOverview, run: RunOverview) -> RunOverview:
        overall = _stat("all", None, rows.get(("all", ds.name, run.name, "all")))
        overall.error_share = 1.0 if overall.errors else 0.0
        parts: list[SliceStat] = []
        if slices:
            for dim in ds.dimensions:
                for value, _ in ds.slice_items[dim]:
                    row = rows.get((dim, ds.name, run.name, value if value is not None else "—"))
                    if row is None and run is ds.human:
                        continue
                    parts.append(_stat(dim, value, row))
        predictions = overall.items if run is ds.human else run.predictions
        return replace(run, overall=overall, slices=parts, predictions=predictions)

    out = []
    for ds in datasets:
        new = replace(ds, runs=[redo(ds, r) for r in ds.runs], slice_items=dict(ds.slice_items))
        if ds.human is not None:
            new.human = redo(ds, ds.human)
        out.append(new)
    return out

