"""Metrics by slice for every run (and the human estimate), built with polars from the database.

Counting follows the official scorers: EM/F1 average over every item of the slice (an item the run
did not answer counts 0; `em_over_run`/`f1_over_run` give the same over the items it answered,
where that differs); F1-recall averages answered items only and answer rate = answered / the
run's responses (`core.metrics.answer_rate`), as CDQA's script divides (`answer_rate_over_dataset`
where the run left items unanswered).
An *error* is an item not fully right, as `core.query.sql.ERROR_SQL` defines it (no prediction,
EM 0, or for CDQA a refusal or F1-recall below 1). `error_share` is the slice's part of all the run's
errors, `item_share` its part of the run's items. Besides the item labels (`DIMENSIONS`, the
default) a report may be sliced by the item features ingest stored (`FEATURE_DIMENSIONS`:
question type, answer position, …) and by each run's error categories (`error_category`).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from qa_inspect.core.errors import unknown_name
from qa_inspect.core.metrics import CATEGORY_CODES, SCORERS, uses_f1_recall
from qa_inspect.core.query import (
    CATEGORY,
    CATEGORY_SQL,
    DIMENSIONS,
    FEATURE_DIMENSIONS,
    LABEL,
    SLICES,
    Filter,
    build,
    dimension_columns,
    error_expr,
    feature_columns,
    labels_sql,
)

if TYPE_CHECKING:
    import polars as pl

__all__ = ["DIMENSIONS", "FEATURE_DIMENSIONS", "HUMAN", "SLICES", "human_frame", "item_frame", "report", "slice_report", "slice_table"]

HUMAN = "human estimate"
"""Name of the pseudo-run holding the human estimate."""

_FRAME_SQL = f"""
SELECT d.name AS dataset, d.family AS family, r.name AS run, i.key AS item_key, {dimension_columns()},
       {feature_columns()}, {CATEGORY_SQL} AS {CATEGORY}, {{labels}} AS {LABEL}, p.id IS NOT NULL AS predicted, p.em AS em, p.f1 AS f1, p.refused AS refused,
       p.f1_recall AS f1_recall, COALESCE(r.scorer, d.scorer) AS scorer
FROM runs r JOIN datasets d ON d.id = r.dataset_id
JOIN items i ON i.dataset_id = r.dataset_id
LEFT JOIN predictions p ON p.run_id = r.id AND p.item_id = i.id
"""

_HUMAN_SQL = f"""
SELECT d.name AS dataset, d.family AS family, ? AS run, i.key AS item_key, {dimension_columns()},
       {feature_columns()}, NULL AS {CATEGORY}, NULL AS {LABEL}, 1 AS predicted, i.human_em AS em, i.human_f1 AS f1, NULL AS refused, NULL AS f1_recall, d.scorer AS scorer
FROM items i JOIN datasets d ON d.id = i.dataset_id
WHERE i.human_f1 IS NOT NULL
"""

def _schema() -> dict[str, Any]:
    """The item frame's columns and types."""
    import polars as pl

    return {
        "dataset": pl.String, "family": pl.String, "run": pl.String, "item_key": pl.String,
        **{d: pl.String for d in (*DIMENSIONS, *FEATURE_DIMENSIONS, CATEGORY, LABEL)}, "predicted": pl.Boolean,
        "em": pl.Float64, "f1": pl.Float64, "refused": pl.Boolean, "f1_recall": pl.Float64, "scorer": pl.String,
    }
_F1_RECALL = [s for s in SCORERS if uses_f1_recall(s)]
"""Scorers whose numbers are F1-recall and answer rate (`metrics.uses_f1_recall`), for polars."""


def item_frame(
    conn: sqlite3.Connection, runs: Sequence[str] | None = None, *, human: bool = True, labels: bool = False,
    items: Sequence[int] | None = None,
) -> pl.DataFrame:
    """One row per (run, item of the run's dataset); the human estimate appears as a pseudo-run.
    `labels`: fill the `label` column (a look-up per row in the journal; NULL otherwise).
    `items`: only these items (ids), e.g. the few a stale flag re-scores."""
    import polars as pl  # imported by the reports that use it: the app starts without it

    sql, params = _FRAME_SQL.replace("{labels}", labels_sql() if labels else "NULL"), []
    where = []
    if runs:
        where.append(f"r.name IN ({', '.join('?' * len(runs))})")
        params = list(runs)
    only = " AND i.id IN (SELECT value FROM json_each(?))" if items is not None else ""
    if items is not None:
        where.append("i.id IN (SELECT value FROM json_each(?))")
        params.append(json.dumps(list(items)))
    rows = conn.execute(sql + (" WHERE " + " AND ".join(where) if where else ""), params).fetchall()
    if human:
        rows += conn.execute(_HUMAN_SQL + only, (HUMAN, *([json.dumps(list(items))] if items is not None else []))
                             ).fetchall()
    return pl.DataFrame(rows, schema=_schema(), orient="row")


def human_frame(conn: sqlite3.Connection) -> pl.DataFrame:
    """The human estimate alone, as `item_frame` has it (no run read)."""
    import polars as pl

    return pl.DataFrame(conn.execute(_HUMAN_SQL, (HUMAN,)).fetchall(), schema=_schema(), orient="row")


def _aggregates() -> list[pl.Expr]:
    import polars as pl  # imported by the reports that use it: the app starts without it

    answered = pl.col("predicted") & ~pl.col("refused").fill_null(False)
    error = error_expr()
    return [
        pl.len().alias("items"),
        pl.col("predicted").sum().alias("predicted"),
        (pl.col("em").fill_null(0.0).mean() * 100).alias("em"),
        (pl.col("f1").fill_null(0.0).mean() * 100).alias("f1"),
        answered.sum().alias("answered"),
        (pl.col("f1_recall").filter(answered).fill_null(0.0).mean() * 100).alias("f1_recall"),
        (answered.sum() / pl.col("predicted").sum() * 100).alias("answer_rate"),  # metrics.answer_rate
        error.sum().alias("errors"),
        # The same numbers over the other denominator, for runs that answer part of the dataset:
        (pl.col("em").filter(pl.col("predicted")).fill_null(0.0).mean() * 100).alias("em_over_run"),
        (pl.col("f1").filter(pl.col("predicted")).fill_null(0.0).mean() * 100).alias("f1_over_run"),
        (answered.mean() * 100).alias("answer_rate_over_dataset"),
    ]


def slice_table(frame: pl.DataFrame, by: str | None = None) -> pl.DataFrame:
    """Metrics per dataset × run × value of `by` (None: overall), with each slice's share of the
    run's items (`item_share`: for `error_category`, the run's distribution) and of its errors."""
    import polars as pl  # imported by the reports that use it: the app starts without it

    keys = ["dataset", "family", "scorer", "run"]
    if by is not None:
        if by not in SLICES:
            raise ValueError(unknown_name("slice dimension", by, SLICES))
        frame = frame.with_columns(pl.col(by).fill_null("—").alias("value"))
    else:
        frame = frame.with_columns(pl.lit("all").alias("value"))
    out = frame.group_by([*keys, "value"]).agg(_aggregates())
    totals = frame.group_by(keys).agg(error_expr().sum().alias("run_errors"), pl.len().alias("run_items"))
    out = out.join(totals, on=keys)
    if by is not None:  # a dimension the dataset does not have at all is not a slice
        out = out.filter(~((pl.col("value") == "—") & (pl.col("items") == pl.col("run_items"))))
    out = out.with_columns(
        pl.when(pl.col("run_errors") > 0)
        .then(pl.col("errors") / pl.col("run_errors") * 100)
        .otherwise(0.0)
        .alias("error_share"),
        (pl.col("items") / pl.col("run_items") * 100).alias("item_share"),
        pl.lit(by or "overall").alias("slice"),
    )
    # Metrics the scorer does not give are nulled, so nobody reads EM of a CDQA run.
    cdqa = pl.col("scorer").is_in(_F1_RECALL)
    out = out.with_columns(
        pl.when(cdqa).then(None).otherwise(pl.col("em")).alias("em"),
        pl.when(cdqa).then(None).otherwise(pl.col("f1")).alias("f1"),
        pl.when(cdqa).then(pl.col("f1_recall")).otherwise(None).alias("f1_recall"),
        pl.when(cdqa).then(pl.col("answer_rate")).otherwise(None).alias("answer_rate"),
        pl.when(cdqa).then(pl.col("answered")).otherwise(None).alias("answered"),
    )
    # The other denominator only where it differs: the run left items of the slice unanswered.
    partial = pl.col("predicted") < pl.col("items")
    out = out.with_columns(
        pl.when(partial & ~cdqa).then(pl.col("em_over_run")).otherwise(None).alias("em_over_run"),
        pl.when(partial & ~cdqa).then(pl.col("f1_over_run")).otherwise(None).alias("f1_over_run"),
        pl.when(partial & cdqa).then(pl.col("answer_rate_over_dataset")).otherwise(None)
        .alias("answer_rate_over_dataset"),
    )
    order = [pl.col("dataset"), pl.col("run") == HUMAN, pl.col("run"), pl.col("value")]
    if by == CATEGORY:  # the categories in the order of their table, `no prediction` last
        rank = {code: n for n, code in enumerate(CATEGORY_CODES)}
        order.insert(3, pl.col("value").replace_strict(rank, default=len(rank), return_dtype=pl.Int64))
    return out.sort(order).select(
        "dataset", "family", "scorer", "run", "slice", "value", "items", "item_share", "predicted", "em", "f1",
        "answered", "f1_recall", "answer_rate", "errors", "error_share",
        "em_over_run", "f1_over_run", "answer_rate_over_dataset",
    )


def report(
    conn: sqlite3.Connection, by: Sequence[str] = DIMENSIONS, runs: Sequence[str] | None = None
) -> pl.DataFrame:
    """Overall plus one block per dimension in `by`, stacked: the `report` command's table."""
    import polars as pl  # imported by the reports that use it: the app starts without it

    frame = item_frame(conn, runs, labels=LABEL in by)
    parts = [slice_table(frame, None)] + [slice_table(frame, dim) for dim in by]
    return pl.concat(parts, how="vertical")


def slice_report(conn: sqlite3.Connection, f: Filter, by: Sequence[str] = DIMENSIONS) -> pl.DataFrame:
    """`core.report.report` restricted to the items `f` selects: every run of those items'
    datasets (and the human estimate) on just those items — e.g. how every model does on the
    questions one model gets wrong. Error shares are within the slice."""
    import polars as pl  # imported by the reports that use it: the app starts without it

    sql, params = build(conn, f)
    keys = conn.execute(
        f"SELECT DISTINCT (SELECT d.name FROM datasets d WHERE d.id = i.dataset_id), i.key {sql}", params
    ).fetchall()
    chosen = pl.DataFrame(keys, schema={"dataset": pl.String, "item_key": pl.String}, orient="row")
    frame = item_frame(conn, labels=LABEL in by).join(chosen, on=["dataset", "item_key"], how="semi")
    parts = [slice_table(frame, None)] + [slice_table(frame, dim) for dim in by]
    return pl.concat(parts, how="vertical")
