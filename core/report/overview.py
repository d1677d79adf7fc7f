"""Headless data for the Runs overview: per dataset its runs, overall and per-slice metrics.

Pure functions of a connection, computed with SQL aggregates (one GROUP BY per slice dimension),
so the TUI, the CLI and tests all see the same numbers. Metrics are counted the way the official
scorers count: EM/F1 average over every item (a missing prediction counts 0), F1-recall over
answered items only, answer rate over the run's responses. An *error* is EM 0, or F1-recall below 1, or a
refusal, or a missing prediction — the same rule as `core.report` (a test holds them equal).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from qa_inspect.core import query
from qa_inspect.core.metrics import answer_rate, uses_f1_recall

from .metrics import DIMENSIONS, HUMAN
from .overview_cache import cached_rows, first_rows

__all__ = [
    "DIMENSIONS",
    "HUMAN",
    "BrowseInfo",
    "DatasetOverview",
    "RunOverview",
    "SliceStat",
    "browse_info",
    "overview",
    "warm_overview",
]

_ANSWERED = query.answered_sql("p")


@dataclass(slots=True)
class SliceStat:
    """One run on one slice. Percentages are 0–100; `error_share` is 0–1 of the run's errors."""

    dimension: str  # "all" or one of DIMENSIONS
    value: str | None
    items: int
    predicted: int = 0
    errors: int = 0
    error_share: float | None = None
    em: float | None = None
    f1: float | None = None
    answered: int | None = None
    f1_recall: float | None = None
    answer_rate: float | None = None

    @property
    def main(self) -> float | None:
        """The headline number: F1, else F1-recall."""
        return self.f1 if self.f1 is not None else self.f1_recall


@dataclass(slots=True)
class RunOverview:
    name: str
    model: str | None
    path: str
    format: str
    scorer: str | None
    predictions: int
    unmatched: int
    overall: SliceStat
    slices: list[SliceStat] = field(default_factory=list)


@dataclass(slots=True)
class DatasetOverview:
    name: str
    family: str
    path: str
    format: str
    items: int
    golds: int
    runs: list[RunOverview] = field(default_factory=list)
    slice_items: dict[str, list[tuple[str | None, int]]] = field(default_factory=dict)
    """dimension → (value, items) for every dimension that has at least one value."""
    human: RunOverview | None = None
    """The human estimate (each gold against the others, from `items.human_em/f1`) as a pseudo-run;
    None where items have one gold (nothing to compare: blank, not 0)."""
    scorer: str | None = None

    @property
    def uses_f1_recall(self) -> bool:
        """F1-recall and answer rate are its numbers (CDQA), not EM/F1."""
        return uses_f1_recall(self.scorer, self.family)

    @property
    def over(self) -> str:
        """What its numbers are computed over, in words (the official script's denominators)."""
        if self.uses_f1_recall:
            return "F1-recall over answered, answer rate over responses"
        return "EM/F1 over all items, missing = 0"

    @property
    def dimensions(self) -> list[str]:
        return [d for d in DIMENSIONS if d in self.slice_items]


def overview(conn: Any, *, slices: bool = True) -> list[DatasetOverview]:
    """Every dataset with its runs and their metrics per slice, datasets by name, runs by name.

    One grouped pass per dataset (by run × split × tag × answer type), rolled up in Python: each
    dimension's numbers are sums over the finest groups, so 10 runs cost one scan, not 40.
    `slices=False` groups by run only (no sort of every prediction): the overall numbers of 1M
    predictions in a fraction of the time, for a first paint; `RunOverview.slices` stay empty."""
    out: list[DatasetOverview] = []
    for ds_id, name, family, path, fmt, items, golds, scorer in conn.execute(
        "SELECT id, name, family, path, format, item_count, gold_count, scorer FROM datasets ORDER BY name"
    ).fetchall():
        ds = DatasetOverview(name, family, path, fmt, items, golds, scorer=scorer)
        cdqa = ds.uses_f1_recall
        rows = cached_rows(conn, ds_id, slices, lambda: _grouped_rows(conn, ds_id, slices, cdqa))
        cells = rows["cells"]
        ds.items = sum(c[_N] for c in cells)
        for k, dim in enumerate(DIMENSIONS):
            counts = _rollup([(c[k], (c[_N],)) for c in cells])
            if any(v is not None for v in counts):
                ds.slice_items[dim] = sorted(((v, int(n[0])) for v, n in counts.items()), key=_by_count)
        groups: dict[int, list[tuple[Any, ...]]] = {}
        for row in rows["runs"]:
            groups.setdefault(row[0], []).append(row[1:])
        for run_id, rname, model, rpath, rfmt, scorer, npred, unmatched in conn.execute(
            "SELECT id, name, model, path, format, scorer, prediction_count, unmatched_count FROM runs"
            " WHERE dataset_id = ? ORDER BY name",
            (ds_id,),
        ).fetchall():
            overall, parts = _aggregate(ds, groups.get(run_id, []), cdqa, per_slice=slices)
            ds.runs.append(RunOverview(rname, model, rpath, rfmt, scorer, npred, unmatched, overall, parts))
        if not cdqa:
            human_rows = rows["human"]
            if human_rows:  # none where every item has a single gold: blank, not 0
                overall, parts = _aggregate(ds, human_rows, cdqa, human=True, per_slice=slices)
                ds.human = RunOverview(HUMAN, None, "", "", None, overall.items, 0, overall, parts)
        out.append(ds)
    return out


def warm_overview(conn: Any) -> int:
    """Store the overview's first-paint rows (each run's overall sums, no slices) of every dataset
    whose stored rows are out of date: a load calls it, so the first open after a load paints
    from them (a second at a million predictions, better spent once by the load). The slices are
    grouped by the app in the background, once, and stored too. Returns how many it computed."""
    computed: list[int] = []
    for ds_id, family, scorer in conn.execute("SELECT id, family, scorer FROM datasets ORDER BY id").fetchall():
        cdqa = uses_f1_recall(scorer, family)

        def compute(ds_id: int = ds_id, cdqa: bool = cdqa) -> dict[str, list[Any]]:
            computed.append(ds_id)
            return _grouped_rows(conn, ds_id, False, cdqa)

        cached_rows(conn, ds_id, False, compute)
    return len(computed)


def _grouped_rows(conn: Any, ds_id: int, slices: bool, cdqa: bool) -> dict[str, list[Any]]:
    """The dataset's grouped passes: items per dimension cell, each run's sums per cell, the human
    estimate's sums (not for CDQA), its item count and longest id. Without `slices` one row each
    (no dimension values, no sort of every prediction: each run's sums are read from its score
    index) for the first paint; the slices' cell counts then come with the full pass."""
    keys = conn.execute("SELECT COUNT(*), MAX(LENGTH(key)) FROM items WHERE dataset_id = ?", (ds_id,)).fetchone()
    if not slices:
        human = [] if cdqa else [r for r in conn.execute(_HUMAN_TOTAL_SQL, (ds_id,)) if r[_N]]
        return {"cells": [[None] * _N + [keys[0]]], "runs": conn.execute(_RUN_TOTAL_SQL, (ds_id,)).fetchall(),
                "human": human, "keys": list(keys)}
    return {
        "cells": conn.execute(f"SELECT {_DIMS}, COUNT(*) FROM items i WHERE dataset_id = ? GROUP BY {_GROUP}",
                              (ds_id,)).fetchall(),
        "runs": conn.execute(_RUN_SQL, (ds_id, ds_id)).fetchall(),
        "human": [] if cdqa else conn.execute(_HUMAN_SQL, (ds_id,)).fetchall(),
        "keys": list(keys),
    }


def _by_count(pair: tuple[str | None, int]) -> tuple[int, bool, str]:
    """Biggest slices first; ties by value, the unlabelled (None) last."""
    value, n = pair
    return (-n, value is None, value or "")


_DIMS = ", ".join(f"i.{d}" for d in DIMENSIONS)
_N = len(DIMENSIONS)
"""Rows below hold the dimensions first (`_DIMS`, in `DIMENSIONS` order), then the sums."""
_GROUP = ", ".join(str(k + 1) for k in range(_N))
_GROUP_AFTER_RUN = ", ".join(str(k + 2) for k in range(_N))
_RUN_SQL = (
    f"SELECT p.run_id, {_DIMS}, COUNT(*), SUM(COALESCE(p.em, 0)), SUM(COALESCE(p.f1, 0)),"
    f" SUM({_ANSWERED}), SUM(CASE WHEN {_ANSWERED} THEN COALESCE(p.f1_recall, 0) ELSE 0 END),"
    f" SUM({query.ERROR_SQL})"
    " FROM predictions p JOIN items i ON i.id = p.item_id"
    " WHERE p.run_id IN (SELECT id FROM runs WHERE dataset_id = ?) AND i.dataset_id = ?"
    f" GROUP BY 1, {_GROUP_AFTER_RUN}"
)
_HUMAN_SQL = (
    f"SELECT {_DIMS}, COUNT(*), SUM(i.human_em), SUM(i.human_f1), COUNT(*), 0,"
    f" SUM(i.human_em < 1) FROM items i WHERE i.dataset_id = ? AND i.human_f1 IS NOT NULL GROUP BY {_GROUP}"
)
_NO_DIMS = ", ".join("NULL" for _ in DIMENSIONS)
_RUN_TOTAL_SQL = (  # a run's predictions are all of its dataset's items (linking stores no others)
    _RUN_SQL.replace(_DIMS, _NO_DIMS).replace(" JOIN items i ON i.id = p.item_id", "")
    .replace(" AND i.dataset_id = ?", "").replace(f"GROUP BY 1, {_GROUP_AFTER_RUN}", "GROUP BY 1")
)
_HUMAN_TOTAL_SQL = _HUMAN_SQL.replace(_DIMS, _NO_DIMS).replace(f" GROUP BY {_GROUP}", "")


def _rollup(rows: list[tuple[Any, tuple[Any, ...]]]) -> dict[Any, list[float]]:
    """Sum the number columns of rows sharing a key."""
    out: dict[Any, list[float]] = {}
    for key, nums in rows:
        acc = out.get(key)
        if acc is None:
            out[key] = [n or 0 for n in nums]
        else:
            for k, n in enumerate(nums):
                acc[k] += n or 0
    return out


def _aggregate(
    ds: DatasetOverview, rows: list[tuple[Any, ...]], cdqa: bool, *, human: bool = False, per_slice: bool = True
) -> tuple[SliceStat, list[SliceStat]]:
    """Overall and per-slice stats from the finest groups `(dimensions…, sums…)`.
    The human estimate averages only the items that have one (two or more golds)."""
    total = _rollup([(None, tuple(r[_N:])) for r in rows]).get(None)
    overall = _stat("all", None, int(total[0]) if human and total else ds.items, total, cdqa)
    overall.error_share = 1.0 if overall.errors else 0.0
    slices: list[SliceStat] = []
    for k, dim in enumerate(DIMENSIONS):
        if dim not in ds.slice_items or not per_slice:
            continue
        by_value = _rollup([(r[k], tuple(r[_N:])) for r in rows])
        for v, n in ds.slice_items[dim]:
            got = by_value.get(v)
            if human and got is None:
                continue
            s = _stat(dim, v, int(got[0]) if human and got else n, got, cdqa)
            s.error_share = s.errors / overall.errors if overall.errors else 0.0
            slices.append(s)
    return overall, slices


def _stat(dim: str, value: str | None, items: int, sums: Any, cdqa: bool) -> SliceStat:
    """Turn sums into percentages; items without a prediction count as errors and score 0.
    Metrics of the other family stay None (as in `core.report`), so nobody reads EM of CDQA."""
    predicted, em, f1, answered, f1r, errors = sums or (0, 0, 0, 0, 0, 0)
    predicted = int(predicted)
    s = SliceStat(dim, value, items, predicted=predicted, errors=int(errors or 0) + items - predicted)
    if cdqa:
        s.answered = int(answered or 0)
        s.f1_recall = 100.0 * (f1r or 0) / answered if answered else None
        s.answer_rate = answer_rate(int(answered or 0), predicted)
    else:
        s.em = 100.0 * (em or 0) / items if items else 0.0
        s.f1 = 100.0 * (f1 or 0) / items if items else 0.0
    return s


@dataclass(slots=True)
class BrowseInfo:
    """What the item browser needs before its first query: the dataset, its scorer family, the
    values of each slice label (columns only for labels that vary), its runs, the longest id."""

    dataset: str | None
    family: str
    scorer: str | None
    items: int
    runs: list[str]
    values: dict[str, list[str]] = field(default_factory=dict)
    key_width: int = 10


def browse_info(conn: Any, run: str | None, dataset: str | None) -> BrowseInfo:
    """The run's dataset (else `dataset`); an unknown name gives an empty, CMRC-style info."""
    row = None
    if run:
        row = conn.execute(
            "SELECT d.id, d.name, d.family, r.scorer FROM runs r JOIN datasets d ON d.id = r.dataset_id"
            " WHERE r.name = ?",
            (run,),
        ).fetchone()
    if row is None and dataset:
        row = conn.execute("SELECT id, name, family, scorer FROM datasets WHERE name = ?", (dataset,)).fetchone()
    if row is None:
        return BrowseInfo(None, "cmrc", None, 0, [])
    ds_id, name, family, scorer = row
    values = {d: query.distinct_values(conn, name, d) for d in DIMENSIONS}
    stored = first_rows(conn, ds_id)  # the longest id: a scan of every key, kept with the overview's rows
    items, key_width = stored["keys"] if stored else conn.execute(
        "SELECT COUNT(*), MAX(LENGTH(key)) FROM items WHERE dataset_id = ?", (ds_id,)
    ).fetchone()
    runs = [r[0] for r in conn.execute("SELECT name FROM runs WHERE dataset_id = ? ORDER BY name", (ds_id,))]
    return BrowseInfo(name, family, scorer, items, runs, values, key_width or 4)
