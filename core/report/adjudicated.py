"""Adjudicated numbers: each run's scores with the accepted aliases counted as golds.

Official scores are computed once at ingest and never change. An *adjudicated* score is what the
SAME scorer (`core.metrics.score_prediction`, the one the prediction was scored with) gives over
the item's scored golds plus its accepted aliases (`core.flags.current_aliases`); only items that
have aliases are rescored, every other item keeps its stored score, so a run without aliases has
adjudicated numbers equal to its official ones to the last bit. Denominators are the official ones
(`core.report.run_stats`). Every number built on these is labelled "adjudicated"
(`ADJUDICATED`) and shown beside the official one.

`adjudicated_scores` gives one run's per-item arrays (what `DatasetItems.runs` holds);
`adjudicated_items` a whole dataset so the leaderboard, the paper table and diff's paired tests run
unchanged on adjudicated scores; `adjudicated_summary` the report's rows (official, adjudicated, Δ).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np
from qa_inspect.core.flags import current_aliases
from qa_inspect.core.metrics import answer_rate, default_scorer, score_prediction
from qa_inspect.core.store import require_dataset, require_run

from .run_stats import _RUN_COLUMNS, _RUN_SQL, DatasetItems, _numbers, dataset_items

if TYPE_CHECKING:
    import polars as pl

    from .overview import DatasetOverview

__all__ = [
    "run_rescored",
    "ADJUDICATED", "AdjudicatedRun", "adjudicate_frame", "adjudicate_item_frame", "adjudicated_items",
    "adjudicated_scores", "adjudicated_summary", "overview_adjudicated",
]

ADJUDICATED = "adjudicated"
"""The label every number that counts aliases carries; the others are "official"."""

_ALIASED_SQL = """
SELECT i.id, i.key, p.text, COALESCE(p.scorer, ?),
       (SELECT json_group_array(g.text) FROM (SELECT text FROM golds WHERE item_id = i.id AND superseded = 0 ORDER BY idx) g)
FROM items i JOIN predictions p ON p.item_id = i.id AND p.run_id = ?
WHERE i.dataset_id = ? AND i.key IN ({keys})
"""


def _rescored(conn: sqlite3.Connection, run_id: int, dataset_id: int, scorer: str,
              aliases: dict[str, tuple[str, ...]]) -> dict[int, tuple[float, float, float, float]]:
    """Item id → (em, f1, refused, f1_recall) over golds + aliases, for the run's answered aliased items."""
    out: dict[int, tuple[float, float, float, float]] = {}
    keys = sorted(aliases)
    for start in range(0, len(keys), 500):
        chunk = keys[start:start + 500]
        sql = _ALIASED_SQL.format(keys=", ".join("?" * len(chunk)))
        for item_id, key, text, used, golds in conn.execute(sql, (scorer, run_id, dataset_id, *chunk)):
            row = score_prediction(used, text, [*json.loads(golds), *aliases[key]])
            out[item_id] = (float(row.em or 0), float(row.f1 or 0.0), float(bool(row.refused)), float(row.f1_recall or 0.0))
    return out


def _item_ids(conn: sqlite3.Connection, dataset_id: int) -> np.ndarray:
    return np.fromiter((r[0] for r in conn.execute("SELECT id FROM items WHERE dataset_id = ? ORDER BY id", (dataset_id,))),
                       dtype=np.int64)


def _apply(scores: dict[str, np.ndarray], item_ids: np.ndarray, rescored: Mapping[int, tuple[float, ...]]) -> dict[str, np.ndarray]:
    """Copies of `scores` with the rescored items' values put in (official arrays stay untouched)."""
    out = {k: v.copy() for k, v in scores.items()}
    if not rescored:
        return out
    pos = np.searchsorted(item_ids, np.fromiter(rescored, dtype=np.int64))
    values = np.array(list(rescored.values()), dtype=np.float64)
    for k, col in enumerate(("em", "f1", "refused", "f1_recall")):
        out[col][pos] = values[:, k]
    return out


def _scorer(conn: sqlite3.Connection, dataset_id: int, stored: str | None) -> str:
    if stored:
        return stored
    family = conn.execute("SELECT family FROM datasets WHERE id = ?", (dataset_id,)).fetchone()[0]
    return default_scorer(family)


def adjudicated_scores(conn: sqlite3.Connection, run: str) -> dict[str, np.ndarray]:
    """Per-item scores of `run` over its dataset's items in id order (`predicted`, `em`, `f1`,
    `refused`, `f1_recall`, as `dataset_items` gives them), accepted aliases counted as golds."""
    ref = require_run(conn, run, linked=True)
    assert ref.dataset_id is not None
    n = conn.execute("SELECT COUNT(*) FROM items WHERE dataset_id = ?", (ref.dataset_id,)).fetchone()[0]
    official = _numbers(conn, _RUN_SQL, (ref.id, ref.dataset_id), n, len(_RUN_COLUMNS))
    scores = {c: official[:, k] for k, c in enumerate(_RUN_COLUMNS)}
    aliases = current_aliases(conn, ref.dataset)
    rescored = _rescored(conn, ref.id, ref.dataset_id, _scorer(conn, ref.dataset_id, ref.scorer), aliases) if aliases else {}
    return _apply(scores, _item_ids(conn, ref.dataset_id), rescored)


def adjudicated_items(conn: sqlite3.Connection, dataset: str, data: DatasetItems | None = None) -> DatasetItems:
    """`dataset_items` with every run's scores adjudicated (the human estimate stays as it is)."""
    data = data if data is not None else dataset_items(conn, dataset)
    aliases = current_aliases(conn, dataset)
    if not aliases:
        return replace(data, runs={r: {k: v.copy() for k, v in s.items()} for r, s in data.runs.items()})
    ds_id = require_dataset(conn, dataset)
    runs = {}
    for run, scores in data.runs.items():
        ref = require_run(conn, run)
        rescored = _rescored(conn, ref.id, ds_id, _scorer(conn, ds_id, ref.scorer), aliases)
        runs[run] = _apply(scores, data.item_ids, rescored)
    return replace(data, runs=runs)


@dataclass(frozen=True, slots=True)
class AdjudicatedRun:
    """One run's headline numbers, official and adjudicated, in points, and what the aliases touch."""

    dataset: str
    run: str
    scorer: str | None
    metric: str
    official: float | None
    adjudicated: float | None
    over: str
    aliased_items: int
    """Items of the dataset that have an accepted alias."""
    moved_items: int
    """Items whose score for this run the aliases change."""

    @property
    def delta(self) -> float | None:
        if self.official is None or self.adjudicated is None:
            return None
        return self.adjudicated - self.official

    def to_dict(self) -> dict[str, Any]:
        return {"dataset": self.dataset, "run": self.run, "scorer": self.scorer, "metric": self.metric,
                "official": self.official, ADJUDICATED: self.adjudicated, "delta": self.delta, "over": self.over,
                "aliased_items": self.aliased_items, "moved_items": self.moved_items}


_OVER = {"em": "all items, missing = 0", "f1": "all items, missing = 0", "f1_recall": "answered items",
         "answer_rate": "the run's responses"}


def _headline(metric: str, s: dict[str, np.ndarray]) -> float | None:
    """The official aggregate of one headline metric (the report's own denominators)."""
    predicted = s["predicted"] > 0
    if metric == "answer_rate":
        return answer_rate(int((predicted & (s["refused"] == 0)).sum()), int(predicted.sum()))
    if metric == "f1_recall":
        over = predicted & (s["refused"] == 0)
        return float(s["f1_recall"][over].mean() * 100) if over.any() else None
    return float(s[metric].mean() * 100) if len(s[metric]) else None


def adjudicated_summary(conn: sqlite3.Connection, runs: list[str] | None = None) -> list[AdjudicatedRun]:
    """Per run (every run linked to a dataset, or `runs`) and headline metric: official and adjudicated."""
    names = [r[0] for r in conn.execute(
        "SELECT d.name FROM datasets d WHERE EXISTS (SELECT 1 FROM runs r WHERE r.dataset_id = d.id) ORDER BY d.name")]
    out: list[AdjudicatedRun] = []
    for dataset in names:
        data = dataset_items(conn, dataset)
        adj = adjudicated_items(conn, dataset, data)
        aliased = len(current_aliases(conn, dataset))
        metrics = ["f1_recall", "answer_rate"] if data.cdqa else ["em", "f1"]
        for run, official in data.runs.items():
            if runs is not None and run not in runs:
                continue
            after = adj.runs[run]
            moved = int(np.any([official[c] != after[c] for c in ("em", "f1", "f1_recall")], axis=0).sum())
            out += [AdjudicatedRun(dataset, run, data.scorer, m, _headline(m, official), _headline(m, after), _OVER[m],
                                   aliased, moved) for m in metrics]
    return out


def run_rescored(conn: sqlite3.Connection, run: str) -> tuple[str | None, dict[int, tuple[float, float, float, float]]]:
    """(the run's dataset, item id → adjudicated (em, f1, refused, f1_recall)) of its rescored items."""
    ref = require_run(conn, run)
    if ref.dataset_id is None:
        return None, {}
    aliases = current_aliases(conn, ref.dataset)
    if not aliases:
        return ref.dataset, {}
    return ref.dataset, _rescored(conn, ref.id, ref.dataset_id, _scorer(conn, ref.dataset_id, ref.scorer), aliases)


def _put(frame: pl.DataFrame, mask: pl.Expr, values: pl.Expr, column: str) -> pl.Expr:
    import polars as pl

    return pl.when(mask).then(values).otherwise(pl.col(column)).cast(frame.schema[column]).alias(column)


def adjudicate_frame(conn: sqlite3.Connection, frame: pl.DataFrame, runs: Mapping[str, str]) -> pl.DataFrame:
    """A frame with one row per item (`item_id`) and each run's scores in columns `em_<side>`,
    `f1_<side>`, `refused_<side>`, `f1_recall_<side>` (diff's common frame; `runs`: side → run name),
    with the rescored items' adjudicated values put in."""
    import polars as pl

    for side, run in runs.items():
        _, rescored = run_rescored(conn, run)
        if not rescored:
            continue
        ids = pl.col("item_id")
        mask = ids.is_in(list(rescored))
        cols = []
        for k, col in enumerate(("em", "f1", "refused", "f1_recall")):
            mapping = {i: v[k] for i, v in rescored.items()}
            values = ids.replace_strict(mapping, default=None, return_dtype=pl.Float64)
            name = f"{col}_{side}"
            if name in frame.columns:  # a column the scorer fills (the other family's stay empty)
                cols.append(_put(frame, mask & pl.col(name).is_not_null(), values, name))
        frame = frame.with_columns(cols)
    return frame


def adjudicate_item_frame(conn: sqlite3.Connection, frame: pl.DataFrame) -> pl.DataFrame:
    """`core.report.item_frame` (one row per run × item) with every run's rescored items adjudicated."""
    import polars as pl

    runs = [r for r in frame.get_column("run").unique().to_list() if r is not None]
    for run in runs:
        dataset, rescored = run_rescored(conn, run) if run in _linked_runs(conn) else (None, {})
        if not rescored:
            continue
        marks = ", ".join("?" * len(rescored))
        keys = dict(conn.execute(f"SELECT id, key FROM items WHERE id IN ({marks})", list(rescored)))
        mask = (pl.col("run") == run) & (pl.col("dataset") == dataset) & pl.col("predicted")
        cols = []
        for k, col in enumerate(("em", "f1", "refused", "f1_recall")):
            mapping = {keys[i]: v[k] for i, v in rescored.items()}
            values = pl.col("item_key").replace_strict(mapping, default=None, return_dtype=pl.Float64)
            cols.append(_put(frame, mask & pl.col("item_key").is_in(list(mapping)) & pl.col(col).is_not_null(), values, col))
        frame = frame.with_columns(cols)
    return frame


def _linked_runs(conn: sqlite3.Connection) -> set[str]:
    return {r[0] for r in conn.execute("SELECT name FROM runs WHERE dataset_id IS NOT NULL")}


def overview_adjudicated(conn: sqlite3.Connection, datasets: list[DatasetOverview], *, slices: bool = True
                         ) -> list[DatasetOverview]:
    """`datasets` (`core.report.overview`) with every run's numbers, overall and per slice,
    from adjudicated scores: the app's adjudicated metrics mode. The human estimate stays as it is;
    the structure (runs, slice values, order) is kept, as in stale-excluded mode (whose re-aggregation
    over an item frame this reuses)."""
    import polars as pl

    from .metrics import item_frame
    from .stale_overview import overview_excluding_stale

    frame = adjudicate_item_frame(conn, item_frame(conn, None, human=True))
    frame = frame.with_columns(pl.lit(None, dtype=pl.String).alias("stale_golds"), pl.lit(ADJUDICATED).alias("mode"))
    return overview_excluding_stale(conn, datasets, slices=slices, frame=frame)
