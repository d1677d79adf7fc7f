"""How a run's scores are spread over the items of a filter: a histogram of F1 (F1-recall for
CDQA scorers), the EM share, the error categories where they were computed, and in a comparison
the A-vs-B count grid of score bands whose cells are `Filter`s (`Filter.bands`).

Every count is one SQL GROUP BY over `build`'s FROM/WHERE, so the numbers are those of the item
browser's filter (judged with run A); bin bounds and labels reach SQLite as parameters.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from qa_inspect.core.metrics import uses_f1_recall

from .filters import Filter
from .sql import BANDS, band_sql, bounds_case_sql, build

__all__ = [
    "CATEGORY_COLUMN", "SCORE_BINS", "Histogram", "ScoreGrid", "category_counts", "grid_cell", "histogram",
    "score_grid",
]

SCORE_BINS: tuple[tuple[str, float | None, bool], ...] = (
    ("0", 0.0, True),
    *((f"({lo},{lo + 10}]", (lo + 10) / 100, True) for lo in range(0, 90, 10)),
    ("(90,100)", 1.0, False),
    ("100", None, True),
)
"""Histogram bins of a score on 0–100, (label, upper bound on 0–1, bound included): 0 exactly,
(0,10] … (80,90], (90,100) and 100 (full credit)."""

CATEGORY_COLUMN = "error_category"
"""The predictions column holding each prediction's error category (`core.metrics.categories`),
where a load computed it; `category_counts` says None (not computed) without it."""

_MISSING = "\x00missing"
_REFUSED = "\x00refused"


@dataclass(frozen=True, slots=True)
class Histogram:
    """One run's scores over a filter's items. Bins count the answered items (a prediction that is
    not a refusal); items without a prediction and refusals are counted beside them."""

    run: str
    metric: str
    """"F1" or "F1-recall": what the bins are of."""
    items: int
    bins: tuple[tuple[str, int], ...]
    missing: int
    refused: int
    em: int | None
    """Items with EM 1 (None: the scorer has no EM)."""
    categories: tuple[tuple[str, int], ...] | None = None
    """(category, predictions) largest first; None: not computed for this database or run."""

    @property
    def answered(self) -> int:
        return sum(n for _, n in self.bins)

    @property
    def em_share(self) -> float | None:
        """EM 1 over every item of the filter, in % (a missing prediction counts 0, as CMRC's)."""
        return None if self.em is None or not self.items else 100 * self.em / self.items


@dataclass(frozen=True, slots=True)
class ScoreGrid:
    """Items both runs predicted, by A's score band (rows) × B's (columns), `BANDS` order."""

    run_a: str
    run_b: str
    metric: str
    bands: tuple[str, ...]
    counts: tuple[tuple[int, ...], ...]
    items: int
    """Items of the filter (the grid holds those both runs predicted)."""

    @property
    def common(self) -> int:
        return sum(map(sum, self.counts))


def _bin_sql(alias: str, params: list[Any]) -> str:
    score = f"COALESCE({alias}.f1, {alias}.f1_recall, 0)"
    params += [_MISSING, _REFUSED]
    prefix = f"CASE WHEN {alias}.id IS NULL THEN ? WHEN COALESCE({alias}.refused, 0) = 1 THEN ?"
    return bounds_case_sql(score, SCORE_BINS, params, prefix)


def _metric(conn: Any, run: str | None) -> str:
    row = conn.execute(
        "SELECT r.scorer, d.family FROM runs r LEFT JOIN datasets d ON d.id = r.dataset_id WHERE r.name = ?",
        (run,)).fetchone()
    return "F1-recall" if row is not None and uses_f1_recall(row[0], row[1]) else "F1"


def _side(f: Filter, side: str) -> tuple[str, str | None]:
    if side not in ("a", "b"):
        raise ValueError(f"side must be 'a' or 'b', not {side!r}")
    return ("p", f.run) if side == "a" else ("pb", f.compare)


def histogram(conn: Any, f: Filter, side: str = "a") -> Histogram:
    """Run A's (`side="b"`: run B's, `f.compare`) score histogram over the items `f` selects."""
    alias, run = _side(f, side)
    if run is None:
        raise ValueError("a histogram needs a run" if side == "a" else "side 'b' needs a compare run")
    sql, params = build(conn, f)
    select: list[Any] = []
    bin_ = _bin_sql(alias, select)
    rows = conn.execute(
        f"SELECT {bin_} AS bin, COUNT(*), SUM(COALESCE({alias}.em, 0)), COUNT({alias}.em) {sql} GROUP BY bin",
        [*select, *params]).fetchall()
    by_bin = {r[0]: r[1] for r in rows}
    metric = _metric(conn, run)
    with_em = sum(r[3] for r in rows)
    return Histogram(
        run=run, metric=metric, items=sum(by_bin.values()),
        bins=tuple((label, by_bin.get(label, 0)) for label, _, _ in SCORE_BINS),
        missing=by_bin.get(_MISSING, 0), refused=by_bin.get(_REFUSED, 0),
        em=int(sum(r[2] or 0 for r in rows)) if with_em or metric == "F1" else None,
        categories=category_counts(conn, f, side),
    )


def category_counts(conn: Any, f: Filter, side: str = "a") -> tuple[tuple[str, int], ...] | None:
    """Predictions of the run per error category over `f`'s items, largest first; None when the
    database has no category column or no prediction of the run has a category."""
    columns = {r[1] for r in conn.execute("PRAGMA table_info(predictions)")}
    if CATEGORY_COLUMN not in columns:
        return None
    alias, _ = _side(f, side)
    sql, params = build(conn, f)
    rows = conn.execute(
        f"SELECT c, COUNT(*) FROM (SELECT {alias}.{CATEGORY_COLUMN} AS c {sql}) WHERE c IS NOT NULL"
        " GROUP BY c ORDER BY COUNT(*) DESC, c", params).fetchall()
    return tuple((str(c), n) for c, n in rows) or None


def score_grid(conn: Any, f: Filter) -> ScoreGrid:
    """Items of `f` both runs predicted (`f.run` = A, `f.compare` = B) by A's band × B's band."""
    if not f.run or not f.compare:
        raise ValueError("a score grid needs a run and a compare run")
    sql, params = build(conn, f)
    select: list[Any] = []
    a, b = band_sql("p", select), band_sql("pb", select)
    rows = conn.execute(
        f"SELECT {a} AS a, {b} AS b, COUNT(*), p.id IS NOT NULL AND pb.id IS NOT NULL AS both_ {sql}"
        " GROUP BY both_, a, b", [*select, *params]).fetchall()
    labels = tuple(label for label, _ in BANDS)
    cells = {(r[0], r[1]): r[2] for r in rows if r[3]}
    counts = tuple(tuple(cells.get((x, y), 0) for y in labels) for x in labels)
    return ScoreGrid(f.run, f.compare, _metric(conn, f.run), labels, counts, sum(r[2] for r in rows))


def grid_cell(f: Filter, a_band: str, b_band: str) -> Filter:
    """The filter of one grid cell: `f`'s items both runs predicted with A in `a_band`, B in `b_band`."""
    return f.with_(bands=(a_band, b_band))
