"""The numbers of runs that sampled each question several times: pass@1, pass@k, majority-vote
accuracy and consistency (`core.metrics.run_sample_metrics`), beside the official columns.

The official EM/F1 of such a run stay the first (or marked) sample's; these are means over the
items the run answered with samples (overall, and on each value of the item dimensions a report
slices by), read from the aggregate each prediction stored at ingest
(alike items grouped in SQL, so a million items cost a few hundred rows). A run of one answer per
item has none of these numbers, and the report of a folder without samples is what it was.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from qa_inspect.core.metrics import SampleCounts, run_sample_metrics
from qa_inspect.core.query import DIMENSIONS, FEATURE_DIMENSIONS, dimension_columns, feature_columns

if TYPE_CHECKING:
    import polars as pl

__all__ = ["SAMPLE_CELLS", "SAMPLE_NOTE", "RunSamples", "item_samples", "run_samples", "sample_cells", "sample_columns",
           "sliced_samples", "with_sample_metrics"]

SAMPLE_CELLS = ("pass@1", "pass@2", "pass@4", "pass@8", "pass@16", "pass@32", "pass@64", "maj", "consistency")
"""Sample metrics a paper-table cell may name (`qa-inspect table --cell "pass@1,pass@4"`)."""
_ITEM_COLUMNS = ("n_samples", "correct_samples", "majority_correct", "majority_share")

SAMPLE_NOTE = "official EM/F1 are the first (or marked) sample's; pass@k, maj and consistency are over all samples"

_SQL = """
SELECT d.name, r.name, p.samples, p.correct_samples, p.majority_correct, p.majority_share, COUNT(*)
FROM predictions p JOIN runs r ON r.id = p.run_id JOIN datasets d ON d.id = r.dataset_id
WHERE p.samples IS NOT NULL {where}
GROUP BY d.name, r.name, p.samples, p.correct_samples, p.majority_correct, p.majority_share
ORDER BY d.name, r.name
"""
_SLICED_SQL = """
SELECT d.name, r.name, {dims}, p.samples, p.correct_samples, p.majority_correct, p.majority_share
FROM predictions p JOIN runs r ON r.id = p.run_id JOIN datasets d ON d.id = r.dataset_id
JOIN items i ON i.id = p.item_id WHERE p.samples IS NOT NULL
"""


@dataclass(frozen=True, slots=True)
class RunSamples:
    """One run's sample metrics (`metrics`: pass@1, pass@2 …, maj, consistency; items, samples)
    overall (`slice` "overall", `value` "all") or on one value of an item dimension."""

    dataset: str
    run: str
    metrics: dict[str, float | int]
    slice: str = "overall"
    value: str = "all"

    def to_dict(self) -> dict[str, Any]:
        return {"dataset": self.dataset, "run": self.run, "slice": self.slice, "value": self.value, **self.metrics}


def run_samples(conn: sqlite3.Connection, runs: list[str] | None = None) -> list[RunSamples]:
    """Every run with samples (or those of `runs`), overall, in dataset and run order."""
    where, params = "", []
    if runs:
        where, params = f"AND r.name IN ({', '.join('?' * len(runs))})", list(runs)
    grouped: dict[tuple[str, str], list[SampleCounts]] = {}
    for dataset, run, n, c, maj, share, count in conn.execute(_SQL.format(where=where), params):
        grouped.setdefault((dataset, run), []).append(SampleCounts(n, c, bool(maj), share, count))
    return [RunSamples(d, r, run_sample_metrics(rows)) for (d, r), rows in grouped.items()]


def sliced_samples(conn: sqlite3.Connection, by: Sequence[str]) -> list[RunSamples]:
    """Every run with samples on each value of the item dimensions `by` (those the report slices
    by that are item columns: split, tag, question type …; a missing value is "—", as the report's)."""
    dims = [d for d in by if d in DIMENSIONS or d in FEATURE_DIMENSIONS]
    if not dims:
        return []
    columns = ", ".join(c for c in f"{dimension_columns()}, {feature_columns()}".split(", ")
                        if c.rsplit(" AS ", 1)[-1] in dims)
    names = [c.rsplit(" AS ", 1)[-1] for c in columns.split(", ")]
    grouped: dict[tuple[str, str, str, str], list[SampleCounts]] = {}
    for dataset, run, *rest in conn.execute(_SLICED_SQL.format(dims=columns)):
        values, (n, c, maj, share) = rest[:len(names)], rest[len(names):]
        for dim, value in zip(names, values):
            key = (dataset, run, dim, "—" if value is None else str(value))
            grouped.setdefault(key, []).append(SampleCounts(n, c, bool(maj), share))
    return [RunSamples(d, r, run_sample_metrics(rows), dim, v) for (d, r, dim, v), rows in grouped.items()]


def sample_columns(rows: list[RunSamples]) -> list[str]:
    """The metric columns these runs have, in report order: pass@1, pass@2, …, maj, consistency."""
    ks = sorted({int(k[5:]) for r in rows for k in r.metrics if k.startswith("pass@")})
    return [*(f"pass@{k}" for k in ks), "maj", "consistency", "samples", "sample_items"]


def with_sample_metrics(conn: sqlite3.Connection, frame: pl.DataFrame, by: Sequence[str] = ()) -> pl.DataFrame:
    """`frame` (the report's) with the sample metrics on each sampled run's overall row and its
    rows of the item dimensions `by`, as percentages like the official columns; unchanged when no
    run has samples."""
    import polars as pl

    rows = run_samples(conn)
    if not rows:
        return frame
    rows += sliced_samples(conn, by)
    cols = sample_columns(rows)
    data = [{"dataset": r.dataset, "run": r.run, "slice": r.slice, "value": r.value,
             **{c: _value(r.metrics, c) for c in cols}} for r in rows]
    schema = {"dataset": pl.String, "run": pl.String, "slice": pl.String, "value": pl.String,
              **{c: pl.Int64 if c in ("samples", "sample_items") else pl.Float64 for c in cols}}
    extra = pl.DataFrame(data, schema=schema)
    return frame.join(extra, on=["dataset", "run", "slice", "value"], how="left", maintain_order="left")


def _value(metrics: dict[str, float | int], column: str) -> float | int | None:
    if column == "sample_items":
        return metrics["items"]
    value = metrics.get(column)
    if value is None or column == "samples":
        return value
    return float(value) * 100


def item_samples(conn: sqlite3.Connection, runs: list[str]) -> pl.DataFrame:
    """(dataset, run, item_key) → the item's sample counts, for the runs that sampled items."""
    import polars as pl

    rows = conn.execute(
        "SELECT d.name, r.name, i.key, p.samples, p.correct_samples, p.majority_correct, p.majority_share"
        " FROM predictions p JOIN runs r ON r.id = p.run_id JOIN datasets d ON d.id = r.dataset_id"
        f" JOIN items i ON i.id = p.item_id WHERE p.samples IS NOT NULL AND r.name IN ({', '.join('?' * len(runs))})",
        runs).fetchall()
    schema = {"dataset": pl.String, "run": pl.String, "item_key": pl.String, "n_samples": pl.Int64,
              "correct_samples": pl.Int64, "majority_correct": pl.Int64, "majority_share": pl.Float64}
    return pl.DataFrame(rows, schema=schema, orient="row")


def sample_cells(frame: pl.DataFrame) -> dict[str, float | None]:
    """`SAMPLE_CELLS` (percentages) over the rows of `frame` that carry sample counts (an item
    frame joined with `item_samples`); None where no item has samples or k exceeds them."""
    import polars as pl

    if "n_samples" not in frame.columns:
        return dict.fromkeys(SAMPLE_CELLS)
    grouped = frame.filter(pl.col("n_samples").is_not_null()).group_by(list(_ITEM_COLUMNS)).len()
    metrics = run_sample_metrics(SampleCounts(n, c, bool(m), s, count) for n, c, m, s, count in grouped.iter_rows())
    return {name: None if name not in metrics else float(metrics[name]) * 100 for name in SAMPLE_CELLS}
