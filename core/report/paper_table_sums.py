"""A paper table's cells from per-run sums: a hundred runs of 20,000 questions in milliseconds.

`paper_table` used to build every run's item frame (a row per run × item) and average it in
polars: 2 million rows read through Python for 100 runs. The cells only need sums, and the
overview already keeps them: each run's count, EM, F1, answered, F1-recall over answered and
errors, per run or per cell of the item dimensions, stored in the database under a stamp of the
data (`core.store.cached_rows`; a load stores the per-run rows). A row's cell adds its runs' sums
over the union of their datasets' items. The numbers are the report's (`slice_table`): EM/F1 over
every item (a missing answer counts 0), F1-recall over answered items, answer rate = answered /
predicted, an item without a prediction an error, metrics the scorer does not give None.

Intervals need per-item values: `paper_table_ci` reads them per run as arrays and draws every
cell's on one shared resampling per dataset.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from qa_inspect.core.metrics import SampleCounts, run_sample_metrics, uses_f1_recall
from qa_inspect.core.query import DIMENSIONS

from .sample_metrics import SAMPLE_CELLS

if TYPE_CHECKING:
    from qa_inspect.core.store import OverviewRows

__all__ = ["RunRow", "RunSums", "group_values", "run_rows", "run_sums"]

ALL = "all"
_MISSING = "—"
"""A dimension value an item does not have, as the report writes it."""


@dataclass(frozen=True, slots=True)
class RunRow:
    """What a table needs to know of a run before summing it."""

    id: int
    name: str
    dataset_id: int
    dataset: str
    family: str | None
    scorer: str | None
    """The run's scorer, else its dataset's (`COALESCE(r.scorer, d.scorer)`, as the item frame)."""


@dataclass(slots=True)
class RunSums:
    """One run's (or one dataset's items') sums on one value of the column dimension."""

    items: int = 0
    predicted: int = 0
    em: float = 0.0
    f1: float = 0.0
    answered: int = 0
    f1_recall: float = 0.0
    errors: int = 0
    samples: list[SampleCounts] = field(default_factory=list)

    def add(self, other: RunSums) -> None:
        self.predicted += other.predicted
        self.em += other.em
        self.f1 += other.f1
        self.answered += other.answered
        self.f1_recall += other.f1_recall
        self.errors += other.errors
        self.samples.extend(other.samples)


def run_rows(conn: sqlite3.Connection, names: Sequence[str]) -> dict[str, RunRow]:
    """The runs of `names` that have a dataset (a run without one has no items to table)."""
    marks = ", ".join("?" * len(names))
    rows = conn.execute(
        "SELECT r.id, r.name, r.dataset_id, d.name, d.family, COALESCE(r.scorer, d.scorer) FROM runs r"
        f" JOIN datasets d ON d.id = r.dataset_id WHERE r.name IN ({marks})", list(names)).fetchall()
    return {row[1]: RunRow(*row) for row in rows}


def _value_sql(by: str | None) -> str:
    if by is None:
        return "NULL"
    if by not in DIMENSIONS:  # the only way a column name enters SQL: a fixed name
        raise ValueError(f"not an item dimension: {by!r}")
    return f"i.{by}"


def _key(by: str | None, value: object) -> str:
    if by is None:
        return ALL
    return _MISSING if value is None else str(value)


def run_sums(conn: sqlite3.Connection, runs: Iterable[RunRow], by: str | None,
             samples: bool) -> tuple[dict[tuple[int, str], RunSums], dict[tuple[int, str], int]]:
    """Per (run id, value) the run's prediction sums, and per (dataset id, value) the items.

    They are the overview's grouped rows (`core.store.overview_rows`: each run's sums per cell of
    the item dimensions, or per run alone), kept in the database under a stamp of the data: a
    load stores the per-run rows, the overview the per-cell ones, so a table usually reads a
    stored row per run; rows out of date are summed again (and stored). Sample counts are read
    by one grouped query when a cell names a sample metric."""
    from qa_inspect.core.store import cached_rows, overview_rows

    runs = list(runs)
    wanted = {r.id for r in runs}
    sums: dict[tuple[int, str], RunSums] = {}
    items: dict[tuple[int, str], int] = {}
    at = 1 + DIMENSIONS.index(by) if by is not None else None
    slices = by is not None
    datasets = sorted({r.dataset_id for r in runs})
    for ds, family, scorer in conn.execute(
            f"SELECT id, family, scorer FROM datasets WHERE id IN ({', '.join('?' * len(datasets))})", datasets).fetchall():

        def compute(ds: int = ds, cdqa: bool = uses_f1_recall(scorer, family)) -> OverviewRows:
            return overview_rows(conn, ds, slices, cdqa)

        rows = cached_rows(conn, ds, slices, compute)
        for *dims, n in rows["cells"]:
            key = (ds, _key(by, dims[at - 1] if at else None))
            items[key] = items.get(key, 0) + n
        for rid, *rest in rows["runs"]:
            if rid in wanted:
                n, em, f1, answered, f1r, errors = rest[len(DIMENSIONS):]
                sums.setdefault((rid, _key(by, rest[at - 1] if at else None)), RunSums()).add(
                    RunSums(0, n, float(em or 0), float(f1 or 0), answered or 0, float(f1r or 0), errors or 0))
    if samples and runs:
        _sample_sums(conn, runs, by, sums)
    return sums, items


def _sample_sums(conn: sqlite3.Connection, runs: Sequence[RunRow], by: str | None,
                 sums: dict[tuple[int, str], RunSums]) -> None:
    """Each run's sample counts per value of `by`, grouped alike (`sample_metrics`). A prediction
    has sample counts only beside its samples' `completions` rows: with none stored, no run has
    any, and the grouped pass over every prediction of the runs (2M rows at 100 runs) is skipped."""
    if conn.execute("SELECT 1 FROM completions LIMIT 1").fetchone() is None:
        return
    value = _value_sql(by)
    join = "" if by is None else " JOIN items i ON i.id = p.item_id"
    for rid, v, n, c, maj, share, count in conn.execute(
            f"SELECT p.run_id, {value}, p.samples, p.correct_samples, p.majority_correct, p.majority_share, COUNT(*)"
            f" FROM predictions p{join} WHERE p.run_id IN ({', '.join('?' * len(runs))}) AND p.samples IS NOT NULL"
            " GROUP BY 1, 2, 3, 4, 5, 6", [r.id for r in runs]):
        sums.setdefault((rid, _key(by, v)), RunSums()).samples.append(SampleCounts(n, c, bool(maj), share, count))


def group_values(members: Sequence[RunRow], by: str | None, sums: Mapping[tuple[int, str], RunSums],
                 items: Mapping[tuple[int, str], int], sampled: bool) -> dict[str, dict[str, float | None]]:
    """Column value → metric → value for a row made of `members` (one run over the union of their
    items), in the report's value order; a dimension the row's items lack altogether is no column."""
    datasets = {m.dataset_id for m in members}
    totals: dict[str, RunSums] = {}
    for (ds, value), n in items.items():
        if ds in datasets:
            totals.setdefault(value, RunSums()).items += n
    for m in members:
        for value, total in totals.items():
            one = sums.get((m.id, value))
            if one is not None:
                total.add(one)
    whole = sum(t.items for t in totals.values())
    if by is not None and _MISSING in totals and totals[_MISSING].items == whole:
        return {}
    cdqa = uses_f1_recall(members[0].scorer) if members[0].scorer else False
    return {value: _metrics(totals[value], cdqa, sampled) for value in sorted(totals)}


def _metrics(t: RunSums, cdqa: bool, sampled: bool) -> dict[str, float | None]:
    """The report's numbers from one cell's sums (`metrics.slice_table`)."""
    out: dict[str, float | None] = {
        "em": None if cdqa else t.em / t.items * 100,
        "f1": None if cdqa else t.f1 / t.items * 100,
        "f1_recall": (t.f1_recall / t.answered * 100 if t.answered else None) if cdqa else None,
        # answered / predicted as polars divides it: no prediction gives NaN, not an error
        "answer_rate": (t.answered / t.predicted * 100 if t.predicted else float("nan")) if cdqa else None,
        "items": t.items, "predicted": t.predicted, "answered": t.answered if cdqa else None,
        "errors": t.errors + t.items - t.predicted,
    }
    if sampled:
        metrics = run_sample_metrics(t.samples)
        out.update({name: float(metrics[name]) * 100 if name in metrics else None for name in SAMPLE_CELLS})
    return out
