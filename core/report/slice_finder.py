"""The slice finder: where does run B differ most from run A, once chance is accounted for?

Every value of every item facet the browser offers (split, tag, answer type, question type, gold
length, answer position, cross-sentence … whatever item facets the query layer defines) is a
candidate slice of the items both runs answer. Facets of a run's prediction (its error category,
length, refusal) are left out: slicing by what A answered selects on A's outcome, and B "differs"
there by construction (regression to the mean), not because of the questions. Each slice with at least `min_items` items
is tested like a diff's slices (paired bootstrap or randomisation, passages as the unit where
questions share one), and the p-values are Holm-adjusted over *all* the slices tested, so a
"significant" slice out of a hundred candidates is not a coin flip. Slices are ranked by adjusted
p, then by |Δ|; `largest` ranks by |Δ| alone (with the adjusted p beside it).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import polars as pl
from qa_inspect.core.query import FACETS, Filter
from qa_inspect.core.store import require_run

from .diff import DiffError, common_frame
from .run_stats import passage_ids
from .significance import DeltaTest, StatOptions, pair_significance

__all__ = ["FoundSlice", "SliceFinding", "find_slices"]

MIN_ITEMS = 20
"""Smallest slice tested: below this a bootstrap says little and the family only grows."""


@dataclass(slots=True)
class FoundSlice:
    facet: str
    label: str
    value: str
    test: DeltaTest

    def to_dict(self) -> dict[str, Any]:
        return {"facet": self.facet, "label": self.label, "value": self.value, **asdict(self.test)}


@dataclass(slots=True)
class SliceFinding:
    run_a: str
    run_b: str
    metric: str
    common: int
    tested: int
    """Slices tested (the Holm family)."""
    skipped: int
    """Facet values with fewer than `min_items` common items."""
    options: StatOptions
    unit: str = "item"
    units: int = 0
    slices: list[FoundSlice] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"run_a": self.run_a, "run_b": self.run_b, "metric": self.metric, "common": self.common,
                "tested": self.tested, "skipped": self.skipped, "unit": self.unit, "units": self.units,
                "seed": self.options.seed, "resamples": self.options.resamples,
                "slices": [s.to_dict() for s in self.slices]}


def _facet_columns(conn: sqlite3.Connection, item_ids: pl.Series, run_id: int, names: Sequence[str]) -> pl.DataFrame:
    """Each common item's value of every facet (per-prediction facets: run A's prediction)."""
    exprs: list[str] = []
    params: list[Any] = []
    for name in names:
        d = FACETS[name]
        exprs.append(f"CAST(({d.expr}) AS TEXT)")
        params.extend(d.params)
    sql = (f"SELECT i.id, {', '.join(exprs)} FROM items i"
           " LEFT JOIN predictions p ON p.item_id = i.id AND p.run_id = ?"
           " WHERE i.id IN (SELECT value FROM json_each(?))")
    rows = conn.execute(sql, [*params, run_id, json.dumps(item_ids.to_list())]).fetchall()
    schema = {"item_id": pl.Int64, **{f"facet:{n}": pl.String for n in names}}
    return pl.DataFrame(rows, schema=schema, orient="row")


def _candidates(frame: pl.DataFrame, names: Sequence[str], min_items: int) -> tuple[list[tuple[str, str]], int]:
    """(column, value) of every facet value with enough items, and how many were too small."""
    out, skipped = [], 0
    for name in names:
        column = f"facet:{name}"
        counts = frame.group_by(column).len().drop_nulls(column)
        for value, n in counts.iter_rows():
            if n >= min_items:
                out.append((column, str(value)))
            else:
                skipped += 1
    return sorted(out), skipped


def find_slices(
    conn: sqlite3.Connection,
    run_a: str,
    run_b: str,
    *,
    metric: str | None = None,
    min_items: int = MIN_ITEMS,
    within: Filter | None = None,
    options: StatOptions | None = None,
    largest: bool = False,
    stop: Callable[[], bool] | None = None,
) -> SliceFinding | None:
    """Every facet value of the common items tested for B − A on `metric` (default F1, or
    F1-recall for CDQA), Holm-adjusted over all of them, ranked (see the module doc). None when
    `stop` says the caller no longer wants it."""
    options = options or StatOptions()
    a, b = require_run(conn, run_a), require_run(conn, run_b)
    a_id, a_ds, b_ds = a.id, a.dataset_id, b.dataset_id
    if a_ds is None or a_ds != b_ds:
        raise DiffError(f"runs {run_a!r} and {run_b!r} are not runs of one dataset")
    frame = common_frame(conn, a_id, b.id, a_ds, within, texts=False)
    cdqa = frame.height > 0 and frame["em_a"].null_count() == frame.height
    metric = metric or ("f1_recall" if cdqa else "f1")
    names = [n for n, d in FACETS.items() if not d.needs_run and n != "stale"]
    facets = _facet_columns(conn, frame["item_id"], a_id, names)
    frame = frame.join(facets, on="item_id", how="left")
    slices, skipped = _candidates(frame, names, min_items)
    finding = SliceFinding(run_a, run_b, metric, frame.height, len(slices), skipped, options)
    if not slices:
        return finding
    same = passage_ids(conn, a_ds)
    if same:
        frame = frame.with_columns(pl.col("context_id").replace(same))
    sig = pair_significance(frame, [(c, v, metric) for c, v in slices], discordant={}, options=options,
                            names=(run_a, run_b), stop=stop)
    if sig is None:
        return None
    finding.unit, finding.units = sig.unit, sig.units
    found = [FoundSlice(t.dimension.removeprefix("facet:"), FACETS[t.dimension.removeprefix("facet:")].label,
                        t.value, t) for t in sig.tests if t.delta is not None]
    finding.slices = sorted(found, key=_rank_key(largest))
    return finding


def _rank_key(largest: bool) -> Callable[[FoundSlice], tuple[float, ...]]:
    def key(s: FoundSlice) -> tuple[float, ...]:
        size = -abs(s.test.delta or 0.0)
        p = s.test.p_holm if s.test.p_holm is not None else 1.0
        return (size, p) if largest else (p, size)

    return key
