"""The numbers of runs that sampled each question several times: pass@1, pass@k, majority-vote
accuracy and consistency (`core.metrics.run_sample_metrics`), beside the official columns.

The official EM/F1 of such a run stay the first (or marked) sample's; these are means over the
items the run answered with samples, read from the aggregate each prediction stored at ingest
(alike items grouped in SQL, so a million items cost a few hundred rows). A run of one answer per
item has none of these numbers, and the report of a folder without samples is what it was.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from qa_inspect.core.metrics import SampleCounts, run_sample_metrics

if TYPE_CHECKING:
    import polars as pl

__all__ = ["SAMPLE_NOTE", "RunSamples", "run_samples", "sample_columns", "with_sample_metrics"]

SAMPLE_NOTE = "official EM/F1 are the first (or marked) sample's; pass@k, maj and consistency are over all samples"

_SQL = """
SELECT d.name, r.name, p.samples, p.correct_samples, p.majority_correct, p.majority_share, COUNT(*)
FROM predictions p JOIN runs r ON r.id = p.run_id JOIN datasets d ON d.id = r.dataset_id
WHERE p.samples IS NOT NULL {where}
GROUP BY d.name, r.name, p.samples, p.correct_samples, p.majority_correct, p.majority_share
ORDER BY d.name, r.name
"""


@dataclass(frozen=True, slots=True)
class RunSamples:
    """One run's sample metrics (`metrics`: pass@1, pass@2 …, maj, consistency; items, samples)."""

    dataset: str
    run: str
    metrics: dict[str, float | int]

    def to_dict(self) -> dict[str, Any]:
        return {"dataset": self.dataset, "run": self.run, **self.metrics}


def run_samples(conn: sqlite3.Connection, runs: list[str] | None = None) -> list[RunSamples]:
    """Every run with samples (or those of `runs`), in dataset and run order."""
    where, params = "", []
    if runs:
        where, params = f"AND r.name IN ({', '.join('?' * len(runs))})", list(runs)
    grouped: dict[tuple[str, str], list[SampleCounts]] = {}
    for dataset, run, n, c, maj, share, count in conn.execute(_SQL.format(where=where), params):
        grouped.setdefault((dataset, run), []).append(SampleCounts(n, c, bool(maj), share, count))
    return [RunSamples(d, r, run_sample_metrics(rows)) for (d, r), rows in grouped.items()]


def sample_columns(rows: list[RunSamples]) -> list[str]:
    """The metric columns these runs have, in report order: pass@1, pass@2, …, maj, consistency."""
    ks = sorted({int(k[5:]) for r in rows for k in r.metrics if k.startswith("pass@")})
    return [*(f"pass@{k}" for k in ks), "maj", "consistency", "samples", "sample_items"]


def with_sample_metrics(conn: sqlite3.Connection, frame: pl.DataFrame) -> pl.DataFrame:
    """`frame` (the report's) with the sample metrics on each sampled run's overall row, as
    percentages like the official columns; unchanged when no run has samples."""
    import polars as pl

    rows = run_samples(conn)
    if not rows:
        return frame
    cols = sample_columns(rows)
    data = [{"dataset": r.dataset, "run": r.run, "slice": "overall",
             **{c: _value(r.metrics, c) for c in cols}} for r in rows]
    schema = {"dataset": pl.String, "run": pl.String, "slice": pl.String,
              **{c: pl.Int64 if c in ("samples", "sample_items") else pl.Float64 for c in cols}}
    extra = pl.DataFrame(data, schema=schema)
    return frame.join(extra, on=["dataset", "run", "slice"], how="left", maintain_order="left")


def _value(metrics: dict[str, float | int], column: str) -> float | int | None:
    if column == "sample_items":
        return metrics["items"]
    value = metrics.get(column)
    if value is None or column == "samples":
        return value
    return float(value) * 100
