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
from qa_inspect.core.store import cached_rows, first_rows, overview_rows

from .metrics import DIMENSIONS, HUMAN

__all__ = [
    "DIMENSIONS",
    "HUMAN",
    "BrowseInfo",
    "DatasetOverview",
    "RunOverview",
    "SliceStat",
    "browse_info",
    "overview",
]


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
        rows = cached_rows(conn, ds_id, slices, lambda: overview_rows(conn, ds_id, slices, cdqa))
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


def _by_count(pair: tuple[str | None, int]) -> tuple[int, bool, str]:
    """Biggest slices first; ties by value, the unlabelled (None) last."""
    value, n = pair
    return (-n, value is None, value or "")


_N = len(DIMENSIONS)
"""Rows (`core.store.overview_rows`) hold the dimensions first, in `DIMENSIONS` order, then the sums."""


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
