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
from qa_inspect.core.query import Filter, SliceMetrics, build, error_expr
from qa_inspect.core.store import STALE_GOLDS_SQL, data_stamp, sqlite_connection

from .metrics import DIMENSIONS, item_frame, slice_table
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
    for name, dropped in raw.execute(  # the flagged golds once, first (as above)
        f"WITH s AS MATERIALIZED ({STALE_GOLDS_SQL}) SELECT d.name, COUNT(*) FROM items i"
        " JOIN datasets d ON d.id = i.dataset_id WHERE i.id IN (SELECT s.item_id FROM s) AND NOT EXISTS"
        " (SELECT 1 FROM golds g WHERE g.item_id = i.id AND g.superseded = 0 AND g.id NOT IN (SELECT s.gold_id FROM s))"
        " GROUP BY d.name"
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
    nothing until a flag or a load changes something. Without `frame`, a miss reads and re-scores
    the stale items' rows alone and moves the overview's numbers by them (`_adjusted`: a few
    hundred rows, where the whole re-scored frame of a million-item run took a minute), keeping
    those rows for the full pass that follows a quick one. `frame`: a whole re-scored item frame
    (the adjudicated mode's), re-aggregated."""
    raw = sqlite_connection(conn)
    key = _stamp(raw, datasets, slices)
    hit = _ANSWERS.get(key) if key is not None else None
    if hit is not None:
        return copy.deepcopy(hit)  # the caller may change what it is given; the kept answer stays
    kept: tuple[pl.DataFrame, pl.DataFrame] | None = None
    if frame is not None:  # a whole re-scored frame (adjudicated mode): every number re-aggregated
        out = _excluding(frame, datasets, slices)
    else:
        kept = _FRAMES.get(key[:3]) if key is not None else None
        if kept is None:
            kept = _stale_rows(raw)
        out = _adjusted(kept, datasets, slices)
    if key is not None:
        if len(_ANSWERS) >= _KEEP:
            _ANSWERS.clear()
        _ANSWERS[key] = copy.deepcopy(out)
        _FRAMES.clear()
        if not slices and kept is not None:  # the full pass usually follows: keep the stale items' rows for it
            _FRAMES[key[:3]] = kept
    return out


_KEEP = 8
"""Answers kept: a few stamps (the quick and the full pass of the current data and flags)."""
_ANSWERS: dict[tuple[Any, ...], list[DatasetOverview]] = {}
_FRAMES: dict[tuple[Any, ...], tuple[pl.DataFrame, pl.DataFrame]] = {}


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



def _stale_rows(raw: sqlite3.Connection) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The item frame's rows of the items with a stale gold, as stored (every gold) and re-scored
    with stale golds excluded (`item_frame_excluding_stale`; items left with no gold absent): all
    that moves the overview when a flag does (a few hundred rows, not a run's million)."""
    frame = item_frame_excluding_stale(raw, None, human=True, only_stale=True)
    stale = frame.filter(frame["stale_golds"] > 0)
    ids = [r[0] for r in raw.execute(f"WITH s AS MATERIALIZED ({STALE_GOLDS_SQL}) SELECT DISTINCT s.item_id FROM s")]
    return item_frame(raw, None, human=True, items=ids), stale.drop("stale_golds", "mode")


Sums = tuple[int, int, int, float, float, int, float]
"""(items, predicted, errors, EM sum, F1 sum, answered, F1-recall sum over answered) of a slice."""
_NONE: Sums = (0, 0, 0, 0.0, 0.0, 0, 0.0)


def _row_sums(frame: pl.DataFrame, dims: list[str]) -> dict[tuple[str, str, str, str], Sums]:
    """Per (dimension or "all", dataset, run, value: "—" for none) the sums of `frame`'s rows, as
    `slice_table` aggregates them (errors by `error_expr`, the one rule)."""
    import polars as pl

    answered = pl.col("predicted") & ~pl.col("refused").fill_null(False)  # as slice_table's aggregates
    rows = frame.with_columns(error_expr().alias("_error"), answered.alias("_answered")).iter_rows(named=True)
    out: dict[tuple[str, str, str, str], list[Any]] = {}
    for rec in rows:
        one = (1, int(rec["predicted"]), int(rec["_error"]), rec["em"] or 0.0, rec["f1"] or 0.0,
               int(rec["_answered"]), (rec["f1_recall"] or 0.0) if rec["_answered"] else 0.0)
        for dim in ["all", *dims]:
            value = "all" if dim == "all" else rec[dim] if rec[dim] is not None else "—"
            acc = out.setdefault((dim, rec["dataset"], rec["run"], value), [0, 0, 0, 0.0, 0.0, 0, 0.0])
            for k, v in enumerate(one):
                acc[k] += v
    return {k: (v[0], v[1], v[2], v[3], v[4], v[5], v[6]) for k, v in out.items()}


def _moved(stat: SliceStat | None, dim: str, value: str | None, minus: Sums, plus: Sums) -> SliceStat:
    """`stat` (every gold) less the stale items' stored sums plus their re-scored ones; the
    metrics a scorer does not give stay None, as in `stat`."""
    if stat is None:
        return SliceStat(dim, value, 0, error_share=0.0)
    had = (stat.items, stat.predicted, stat.errors, (stat.em or 0.0) * stat.items / 100,
           (stat.f1 or 0.0) * stat.items / 100, stat.answered or 0, (stat.f1_recall or 0.0) * (stat.answered or 0) / 100)
    items, predicted, errors, em, f1, answered, f1r = (h - m + p for h, m, p in zip(had, minus, plus, strict=True))
    if items <= 0:
        return SliceStat(dim, value, 0, error_share=0.0)
    cdqa = stat.answered is not None
    return SliceStat(
        dim, value, int(items), predicted=int(predicted), errors=int(errors), error_share=stat.error_share,
        em=None if stat.em is None else 100.0 * em / items, f1=None if stat.f1 is None else 100.0 * f1 / items,
        answered=int(answered) if cdqa else None,
        f1_recall=(100.0 * f1r / answered if answered else None) if stat.f1_recall is not None or cdqa else None,
        answer_rate=answer_rate(int(answered), int(predicted)) if cdqa else None,
    )


def _adjusted(rows: tuple[pl.DataFrame, pl.DataFrame], datasets: list[DatasetOverview], slices: bool
              ) -> list[DatasetOverview]:
    """`datasets` with stale golds excluded, from the stale items' rows alone (`_stale_rows`):
    each number is the overview's less what those items added, plus what they add re-scored.
    Equal to re-aggregating the whole re-scored frame (`_excluding`), to rounding, in
    milliseconds at a million items where that took a minute."""
    dims = list(DIMENSIONS) if slices else []
    stored, rescored = _row_sums(rows[0], dims), _row_sums(rows[1], dims)

    def redo(ds: DatasetOverview, run: RunOverview) -> RunOverview | None:
        def moved(stat: SliceStat | None, dim: str, value: str | None) -> SliceStat:
            at = (dim, ds.name, run.name, "all" if dim == "all" else value if value is not None else "—")
            return _moved(stat, dim, value, stored.get(at, _NONE), rescored.get(at, _NONE))

        overall = moved(run.overall, "all", None)
        overall.error_share = 1.0 if overall.errors else 0.0
        parts: list[SliceStat] = []
        if slices:
            have = {(s.dimension, s.value): s for s in run.slices}
            for dim in ds.dimensions:
                for value, _ in ds.slice_items[dim]:
                    stat = moved(have.get((dim, value)), dim, value)
                    if stat.items == 0 and run is ds.human:
                        continue
                    stat.error_share = stat.errors / overall.errors if overall.errors else 0.0
                    parts.append(stat)
        predictions = overall.items if run is ds.human else run.predictions
        return replace(run, overall=overall, slices=parts, predictions=predictions)

    out = []
    for ds in datasets:
        new = replace(ds, runs=[r for r in (redo(ds, r) for r in ds.runs) if r is not None],
                      slice_items=dict(ds.slice_items))
        if ds.human is not None:
            new.human = redo(ds, ds.human)
        out.append(new)
    return out
