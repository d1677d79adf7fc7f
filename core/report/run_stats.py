"""Each run's headline metrics with 95% confidence intervals, counted as the official scripts count.

- span scorers: EM and F1 over every dataset question (a missing prediction counts 0), and for
  SQuAD 2.0-style data HasAns / NoAns EM and F1 over the answerable / unanswerable questions;
- CDQA: F1-recall over answered (not refused) items, answer rate over the run's responses;
- the human estimate (each gold against the others) over the items that have one.

Intervals are percentile bootstraps by passage where the dataset's questions share passages (the
CMRC / SQuAD build), else by item (`StatOptions.unit` forces either; each result says which), all
runs and metrics on one shared resampling of the dataset's units (`stats.shared_tests`).
`metric_values` gives the per-item values and the items a metric is defined on, so the
leaderboard compares two runs on exactly what it ranks them by.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
from qa_inspect.core import stats
from qa_inspect.core.metrics import SAMPLE_F1_THRESHOLD, uses_f1_recall
from qa_inspect.core.store import passage_firsts, require_dataset

from .metric_labels import METRIC_LABELS
from .metrics import HUMAN
from .significance import StatOptions, clusters_for, resampling_unit, shared_stream

__all__ = [
    "METRIC_LABELS",
    "REPORT_METRICS",
    "DatasetItems",
    "MetricCI",
    "RunIntervals",
    "dataset_items",
    "intervals_and_pairs",
    "item_arrays",
    "read_chunks",
    "metric_values",
    "passage_ids",
    "pass_sql",
    "run_intervals",
    "with_intervals",
]

_OVER = {
    "em": "all items, missing = 0", "f1": "all items, missing = 0", "f1_recall": "answered items",
    "answer_rate": "the run's responses", "em_hasans": "answerable items", "f1_hasans": "answerable items",
    "em_noans": "unanswerable items", "f1_noans": "unanswerable items",
    "pass@1": "all items, the share of right samples (one answer: right or not), missing = 0",
}


@dataclass(frozen=True, slots=True)
class MetricCI:
    """One metric of one run, in points, with its interval and what it is computed over."""

    metric: str
    value: float | None  # None: no item to compute it over
    low: float | None
    high: float | None
    n: int  # items it is computed over
    units: int  # resampling units among them
    over: str


@dataclass(slots=True)
class RunIntervals:
    run: str
    human: bool
    items: int  # dataset items
    predicted: int  # items the run answers
    model: str | None = None
    metrics: dict[str, MetricCI] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "run": self.run, "human": self.human, "model": self.model, "items": self.items,
            "predicted": self.predicted, "metrics": {k: asdict(v) for k, v in self.metrics.items()},
        }


@dataclass(slots=True)
class DatasetItems:
    """A dataset's items (in id order) and every run's per-item scores on them, as arrays."""

    name: str
    family: str
    scorer: str | None
    item_ids: np.ndarray
    contexts: np.ndarray  # passage id, -1 for none
    answerable: np.ndarray  # "answerable" / "unanswerable" / "" (no such labels)
    runs: dict[str, dict[str, np.ndarray]]  # run → predicted, em, f1, refused, f1_recall
    models: dict[str, str | None]
    human: dict[str, np.ndarray] | None  # predicted (has an estimate), em, f1
    sampled: bool = False
    """Some run sampled items several times: `pass@1` (the per-item share of right samples) is a metric."""

    @property
    def cdqa(self) -> bool:
        return uses_f1_recall(self.scorer, self.family)

    @property
    def metrics(self) -> list[str]:
        """The metrics its runs are judged by, headline first."""
        if self.cdqa:
            return ["f1_recall", "answer_rate", *(["pass@1"] if self.sampled else [])]
        has_noans = bool((self.answerable == "unanswerable").any())
        return ["em", "f1", *(["em_hasans", "f1_hasans", "em_noans", "f1_noans"] if has_noans else []),
                *(["pass@1"] if self.sampled else [])]


_ITEMS_SQL = """
SELECT i.id, COALESCE(i.context_id, -1), COALESCE(i.answerable, ''), i.human_em, i.human_f1{extra}
FROM items i WHERE i.dataset_id = ? ORDER BY i.id
"""


def pass_sql(alias: str) -> str:
    """SQL of an answered item's pass@1 for prediction alias `alias` (p, pa, pb): the share of
    its samples that are right, or for a run of one answer whether that one is (EM, else F1-recall
    at `SAMPLE_F1_THRESHOLD` and no refusal)."""
    a = {"p": "p", "pa": "pa", "pb": "pb"}[alias]
    return (f"COALESCE(1.0 * {a}.correct_samples / {a}.samples, {a}.em, COALESCE({a}.refused, 0) = 0"
            f" AND COALESCE({a}.f1_recall, 0) >= {float(SAMPLE_F1_THRESHOLD)!r}, 0)")


_RUN_SQL = f"""
SELECT p.id IS NOT NULL, COALESCE(p.em, 0), COALESCE(p.f1, 0), COALESCE(p.refused, 0), COALESCE(p.f1_recall, 0),
       {pass_sql("p")}
FROM items i LEFT JOIN predictions p ON p.run_id = ? AND p.item_id = i.id
WHERE i.dataset_id = ? ORDER BY i.id
"""
_RUN_COLUMNS = ("predicted", "em", "f1", "refused", "f1_recall", "pass")
"""`pass`: the item's share of right samples (a run of one answer: whether that one is right)."""
_SAMPLED_SQL = ("SELECT EXISTS (SELECT 1 FROM predictions p JOIN runs r ON r.id = p.run_id"
                " WHERE r.dataset_id = ? AND p.samples IS NOT NULL)")
_CHUNK = 20_000
"""Rows read at a time into the arrays: a million rows as Python tuples would hold ten times the
memory of the arrays they fill (and the app runs this in the background of the overview)."""


def passage_ids(conn: sqlite3.Connection, dataset_id: int) -> dict[int, int]:
    """Context id → the first context id with the same text, where they differ: SQuAD files give
    paragraphs no id, so each question stores its passage on its own, yet questions on one passage
    are one resampling unit. Stored once per loaded data (`store.passage_firsts`)."""
    return passage_firsts(conn, dataset_id)


def read_chunks(conn: sqlite3.Connection, sql: str, params: Sequence[Any]) -> Iterator[list[Any]]:
    """The rows of `sql`, `_CHUNK` at a time (arrays are filled from them, never a whole list)."""
    cursor = conn.execute(sql, params)
    while rows := cursor.fetchmany(_CHUNK):
        yield rows


def _numbers(conn: sqlite3.Connection, sql: str, params: tuple[Any, ...], n: int, width: int) -> np.ndarray:
    """The query's rows (`n` of them, `width` numbers each; None → NaN) as an (n, width) array."""
    out = np.empty((n, width), dtype=np.float64)
    at = 0
    for rows in read_chunks(conn, sql, params):
        out[at:at + len(rows)] = np.array(rows, dtype=np.float64)
        at += len(rows)
    return out[:at]


def item_arrays(
    conn: sqlite3.Connection, ds_id: int, extra: str | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, list[Any]]:
    """A dataset's items in id order, read in chunks into arrays: ids, passages (-1: none; the
    same text one id, `passage_ids`), answerable labels (one string object per label), human EM
    and F1 (NaN: none), and the values of `extra` (an SQL expression over `items i`; [] without)."""
    n = conn.execute("SELECT COUNT(*) FROM items WHERE dataset_id = ?", (ds_id,)).fetchone()[0]
    ids, contexts = np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64)
    answerable, human_em, human_f1 = np.empty(n, dtype=object), np.empty(n), np.empty(n)
    values: list[Any] = []
    labels: dict[str, str] = {}  # one string object per label, not one per item
    sql = _ITEMS_SQL.format(extra="" if extra is None else f", {extra}")
    at = 0
    for rows in read_chunks(conn, sql, (ds_id,)):
        part = slice(at, at + len(rows))
        cols = list(zip(*rows, strict=True))
        ids[part], contexts[part] = cols[0], cols[1]
        answerable[part] = [labels.setdefault(v, v) for v in cols[2]]
        human_em[part] = np.array(cols[3], dtype=np.float64)  # None → NaN
        human_f1[part] = np.array(cols[4], dtype=np.float64)
        values.extend(cols[5] if extra is not None else ())
        at += len(rows)
    same = passage_ids(conn, ds_id)
    if same:
        contexts = np.array([same.get(int(c), int(c)) for c in contexts], dtype=np.int64)
    return ids, contexts, answerable, human_em, human_f1, values


def dataset_items(conn: sqlite3.Connection, name: str) -> DatasetItems:
    """Every run of dataset `name` on every item (`UnknownNameError` for an unknown name)."""
    ds_id = require_dataset(conn, name)
    family, scorer = conn.execute("SELECT family, scorer FROM datasets WHERE id = ?", (ds_id,)).fetchone()
    ids, contexts, answerable, human_em, human_f1, _ = item_arrays(conn, ds_id)
    n = len(ids)
    runs: dict[str, dict[str, np.ndarray]] = {}
    models: dict[str, str | None] = {}
    for run_id, run, model in conn.execute(
        "SELECT id, name, model FROM runs WHERE dataset_id = ? ORDER BY name", (ds_id,)
    ).fetchall():
        values = _numbers(conn, _RUN_SQL, (run_id, ds_id), n, len(_RUN_COLUMNS))
        runs[run], models[run] = {c: values[:, k] for k, c in enumerate(_RUN_COLUMNS)}, model
    human = None
    has = ~np.isnan(human_f1)
    if has.any() and not uses_f1_recall(scorer, family):
        human = {"predicted": has.astype(np.float64), "em": np.nan_to_num(human_em, nan=0.0),
                 "f1": np.nan_to_num(human_f1, nan=0.0)}
    sampled = bool(conn.execute(_SAMPLED_SQL, (ds_id,)).fetchone()[0])
    return DatasetItems(name, family, scorer, ids, contexts, answerable, runs, models, human, sampled)


def metric_values(
    data: DatasetItems, scores: dict[str, np.ndarray], metric: str, *, human: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """Per-item values of `metric` in points, and the items it is computed over (official denominators)."""
    predicted = scores["predicted"] > 0
    if metric == "pass@1":  # the per-item mean over samples; statistics resample items, never samples
        return scores["pass"] * 100.0, np.ones(len(predicted), dtype=bool)
    if metric == "answer_rate":
        return (scores["refused"] == 0) * 100.0, predicted
    if metric == "f1_recall":
        return scores["f1_recall"] * 100.0, predicted & (scores["refused"] == 0)
    base, _, part = metric.partition("_")
    over = predicted.copy() if human else np.ones(len(predicted), dtype=bool)
    if part == "hasans":
        over &= data.answerable == "answerable"
    elif part == "noans":
        over &= data.answerable == "unanswerable"
    return scores[base] * 100.0, over


def _metric_ci(ci: stats.Interval | None, metric: str, human: bool) -> MetricCI:
    what = "items with a human estimate" if human else _OVER[metric]
    if ci is None:
        return MetricCI(metric, None, None, None, 0, 0, what)
    return MetricCI(metric, ci.estimate, ci.low, ci.high, ci.n, ci.units, what)


def run_intervals(
    conn: sqlite3.Connection, dataset: str, options: StatOptions | None = None, *, data: DatasetItems | None = None
) -> tuple[str, list[RunIntervals]]:
    """The resampling unit used ("passage" or "item") and, per run of `dataset` (the human
    estimate first, where there is one), every headline metric with its interval. Every run and
    metric is resampled at once on the dataset's shared resampling (`stats.shared_tests`, the
    stream the leaderboard's pairs use): adding a run changes no other run's interval."""
    options = (options or StatOptions()).check()
    unit, out, _ = intervals_and_pairs(data if data is not None else dataset_items(conn, dataset), options)
    return unit, out


def intervals_and_pairs(
    data: DatasetItems, options: StatOptions, metric: str = "", pairs: Sequence[tuple[str, str]] = ()
) -> tuple[str, list[RunIntervals], list[stats.PairedTest | None]]:
    """`run_intervals`, and the paired test of run b − run a on `metric` for each of `pairs`, from
    one pass over one resampling of the dataset (`stats.shared_tests` on its shared stream)."""
    unit = resampling_unit(options.unit, data.contexts)
    clusters = clusters_for(unit, data.contexts, data.item_ids)
    out: list[RunIntervals] = []
    rows: list[tuple[RunIntervals, str, bool]] = []
    values: list[np.ndarray] = []
    over: list[np.ndarray] = []
    where: dict[tuple[str, str], int] = {}
    sides = ([(HUMAN, data.human, True)] if data.human is not None else []) + [
        (run, scores, False) for run, scores in data.runs.items()
    ]
    for run, scores, human in sides:
        out.append(RunIntervals(run, human, len(data.item_ids), int((scores["predicted"] > 0).sum()),
                                data.models.get(run)))
        for m in data.metrics:
            if human and m not in ("em", "f1"):
                continue
            v, o = metric_values(data, scores, m, human=human)
            if not human:
                where[(run, m)] = len(rows)
            rows.append((out[-1], m, human))
            values.append(v)
            over.append(o)
    n = len(data.item_ids)
    cis, tests = stats.shared_tests(
        np.array(values).reshape(len(rows), n), np.array(over, dtype=bool).reshape(len(rows), n),
        [(where[(a, metric)], where[(b, metric)]) for a, b in pairs], clusters, resamples=options.resamples,
        level=options.level, rng=shared_stream(options, data.name, unit), randomisation=options.test == "randomisation",
    )
    for (r, m, human), ci in zip(rows, cis, strict=True):
        r.metrics[m] = _metric_ci(ci, m, human)
    return unit, out, tests


REPORT_METRICS = ("em", "f1", "f1_recall", "answer_rate")
"""The report's headline columns that get `<metric>_low` / `<metric>_high` beside them."""


def with_intervals(conn: sqlite3.Connection, frame: Any, options: StatOptions | None = None) -> Any:
    """A report frame (`core.report.report`) with each run's overall interval of every headline
    metric (`em_low`, `em_high`, …; slice rows and metrics a scorer lacks stay empty) and the
    resampling unit (`ci_unit`): the per-run intervals `run_intervals` computes for the leaderboard."""
    import polars as pl

    rows = []
    for dataset in frame.filter(pl.col("slice") == "overall").get_column("dataset").unique().to_list():
        unit, runs = run_intervals(conn, dataset, options)
        for r in runs:
            row: dict[str, Any] = {"dataset": dataset, "run": HUMAN if r.human else r.run, "slice": "overall",
                                   "ci_unit": unit}
            for m in REPORT_METRICS:
                ci = r.metrics.get(m)
                row[f"{m}_low"], row[f"{m}_high"] = (ci.low, ci.high) if ci is not None else (None, None)
            rows.append(row)
    schema = {"dataset": pl.String, "run": pl.String, "slice": pl.String, "ci_unit": pl.String,
              **{f"{m}_{end}": pl.Float64 for m in REPORT_METRICS for end in ("low", "high")}}
    cis = pl.DataFrame(rows, schema=schema)
    return frame.join(cis, on=["dataset", "run", "slice"], how="left", maintain_order="left")
