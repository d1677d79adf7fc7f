"""Two runs of one dataset compared: what B fixed and broke relative to A, per-slice metric deltas,
and the items whose score moved most.

Everything is computed on the items **both** runs answer (have a prediction for; a CDQA refusal
is an answer that counts as wrong), so A and B are judged on the same questions:

- outcome counts (fixed = A wrong → B right, broken, both wrong, both right) by EM (span scorers)
  and by a threshold on the F1-style score (F1, or F1-recall for CDQA; refusals are wrong);
- per slice (overall, each split / tag / answer type value) every metric of the runs' scorer for A
  and B, with B − A and the number of items behind each number;
- per error category, fixed counted by A's category (what kind of error B fixed) and broken by B's
  (what kind of error B made), by the first criterion (EM; F1-recall ≥ threshold for CDQA);
- the largest changes of the F1-style score, B − A;
- given `StatOptions`, whether each Δ is more than noise (`significance`: intervals, p-values,
  McNemar, Holm over slices, minimum detectable effect).

One engine computes them: SQL aggregates (module `diff_sql`: a million common items in under
2 s, none read into Python). Statistics, which resample items, read the per-item arrays they need
(`common_frame`, no texts) only when asked for. Float means are sums in SQL's order; `to_dict`
(what `qa-inspect diff --json` prints) rounds them to `JSON_PLACES`, so the output does not hang on
the last bits of a summation order.

`cell_filter` turns an outcome cell into a `core.query.Filter` (run = A, compare = B, `outcome`)
so a UI can open the item browser on exactly the items counted in that cell.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

import polars as pl
from qa_inspect.core.errors import QAInspectError
from qa_inspect.core.metrics import CATEGORY_CODES, uses_f1_recall
from qa_inspect.core.query import OUTCOMES, Filter, dimension_columns
from qa_inspect.core.store import require_run

from . import diff_arrays, diff_sql
from .adjudicated import adjudicate_frame, run_rescored
from .diff_ahead import AheadTests
from .diff_samples import SampleDiff, sample_diff
from .metrics import DIMENSIONS
from .pair_arrays import PairArrays, read_pair_arrays
from .run_stats import passage_ids
from .significance import PairSignificance, StatOptions, pair_significance

__all__ = [
    "CRITERIA",
    "JSON_PLACES",
    "CategoryChange",
    "DiffError",
    "ItemChange",
    "Outcomes",
    "RunDiff",
    "SliceDelta",
    "cell_filter",
    "diff_runs",
    "diff_significance",
]


class DiffError(QAInspectError):
    """Runs that cannot be compared (unknown, the same run, different or no dataset)."""


CRITERIA = ("em", "threshold")
"""How "right" is judged: EM 1, or the F1-style score ≥ threshold (refusals wrong)."""

JSON_PLACES = 9
"""Decimals of a slice's means (0–100) in `RunDiff.to_dict`: far below anything shown, far above
the last bits in which two summation orders of the same scores differ (~1e-12)."""


def _json_float(v: float | None) -> float | None:
    """A mean as the JSON output writes it (the one place its rounding is decided)."""
    return None if v is None else round(v, JSON_PLACES)


@dataclass(frozen=True, slots=True)
class Outcomes:
    """The 2×2 table of one criterion on the items both runs answer."""

    criterion: str  # "em" | "threshold"
    label: str  # "EM", "F1 ≥ 50", "F1-recall ≥ 50" (the threshold on the 0–100 scale scores are shown in)
    threshold: float | None
    fixed: int
    broken: int
    both_wrong: int
    both_right: int

    @property
    def total(self) -> int:
        return self.fixed + self.broken + self.both_wrong + self.both_right

    def count(self, outcome: str) -> int:
        if outcome not in OUTCOMES:
            raise ValueError(f"unknown outcome {outcome!r}; choose from {', '.join(OUTCOMES)}")
        return int(getattr(self, outcome))


@dataclass(frozen=True, slots=True)
class SliceDelta:
    """One metric on one slice: A, B, B − A, and how many items stand behind each number."""

    dimension: str  # "overall" or one of DIMENSIONS
    value: str  # "all" for overall; "—" for items without a value
    metric: str  # "em" | "f1" | "f1_recall" | "answer_rate"
    items: int  # items of the slice both runs answer
    a: float | None
    b: float | None
    delta: float | None
    n_a: int  # items behind A's number (answered ones for F1-recall)
    n_b: int


@dataclass(frozen=True, slots=True)
class CategoryChange:
    """One error category in a diff: items B fixed that were this kind of error in A, and items
    B broke by making this kind of error ("B fixes 41 boundary-long errors, breaks 3")."""

    category: str
    fixed: int
    broken: int


@dataclass(frozen=True, slots=True)
class ItemChange:
    """One item whose F1-style score changed (score = F1, or F1-recall with refusals as 0)."""

    item_id: int
    key: str
    question: str
    prediction_a: str
    prediction_b: str
    score_a: float
    score_b: float
    delta: float  # score_b − score_a
    em_a: int | None = None
    em_b: int | None = None
    refused_a: bool | None = None
    refused_b: bool | None = None


@dataclass(slots=True)
class RunDiff:
    run_a: str
    run_b: str
    dataset: str
    family: str
    score_metric: str  # "f1" or "f1_recall": the score of `changes` and of the threshold criterion
    threshold: float
    items: int  # items of the dataset (within the restricting filter, if any)
    predicted_a: int  # of those, how many each run answers
    predicted_b: int
    common: int  # answered by both: the base of every number below
    outcomes: list[Outcomes] = field(default_factory=list)
    slices: list[SliceDelta] = field(default_factory=list)
    changes: list[ItemChange] = field(default_factory=list)
    within: Filter | None = None
    scorer: str | None = None
    """The scorer of run A (B's dataset is the same, so is its scorer)."""
    significance: PairSignificance | None = None
    """Intervals and tests of every slice delta, when `diff_runs` was given `stats`."""
    categories: list[CategoryChange] = field(default_factory=list)
    """Fixed and broken per error category, by the first criterion of `outcomes` (see the module doc)."""
    adjudicated: bool = False
    """On adjudicated scores (accepted aliases count as golds, `core.report.adjudicated`), not official."""
    samples: SampleDiff | None = None
    """pass@1 and the flaky/stable changes (`diff_samples`), when either run sampled items."""

    @property
    def only_a(self) -> int:
        return self.predicted_a - self.common

    @property
    def only_b(self) -> int:
        return self.predicted_b - self.common

    def outcome(self, criterion: str) -> Outcomes:
        for o in self.outcomes:
            if o.criterion == criterion:
                return o
        raise KeyError(criterion)

    def cell_filter(self, outcome: str, criterion: str = "em", base: Filter | None = None) -> Filter:
        """The item-browser filter of one cell (see module `cell_filter`)."""
        base = base if base is not None else (self.within or Filter())
        return cell_filter(
            self.run_a, self.run_b, outcome, criterion=criterion, threshold=self.threshold,
            base=base.with_(dataset=self.dataset),
        )

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "run_a": self.run_a, "run_b": self.run_b, "dataset": self.dataset, "family": self.family,
            "scorer": self.scorer,
            "score_metric": self.score_metric, "threshold": self.threshold, "items": self.items,
            "predicted_a": self.predicted_a, "predicted_b": self.predicted_b, "common": self.common,
            "only_a": self.only_a, "only_b": self.only_b,
            "outcomes": [asdict(o) | {"total": o.total} for o in self.outcomes],
            "slices": [_slice_dict(s) for s in self.slices],
            "categories": [asdict(c) for c in self.categories],
            "changes": [asdict(c) for c in self.changes],
        }
        if self.adjudicated:  # official JSON stays as it was
            out["numbers"] = "adjudicated"
        if self.within is not None:
            out["within"] = self.within.to_dict()
        if self.significance is not None:
            out["significance"] = self.significance.to_dict()
        if self.samples is not None:  # single-answer runs: the JSON stays as it was
            s = self.samples
            out["samples"] = s.to_dict() | {"pass1_a": _json_float(s.pass1_a), "pass1_b": _json_float(s.pass1_b),
                                            "delta": None if s.delta is None else _json_float(s.delta)}
        return out


def _slice_dict(s: SliceDelta) -> dict[str, Any]:
    """A slice delta for JSON: A and B rounded (`_json_float`), Δ the difference of what is shown."""
    a, b = _json_float(s.a), _json_float(s.b)
    return asdict(s) | {"a": a, "b": b, "delta": None if a is None or b is None else _json_float(b - a)}


def cell_filter(
    run_a: str,
    run_b: str,
    outcome: str,
    *,
    criterion: str = "em",
    threshold: float = 0.5,
    base: Filter | None = None,
) -> Filter:
    """`base` (default: no restriction) showing run A with B as compare run, restricted to one
    outcome cell: `query.count(conn, cell_filter(...))` equals the cell's count in `diff_runs`
    (when `base` restricts nothing beyond the diff's own `within`)."""
    if outcome not in OUTCOMES:
        raise ValueError(f"unknown outcome {outcome!r}; choose from {', '.join(OUTCOMES)}")
    if criterion not in CRITERIA:
        raise ValueError(f"unknown criterion {criterion!r}; choose from {', '.join(CRITERIA)}")
    return (base or Filter()).with_(
        run=run_a,
        compare=run_b,
        outcome=outcome,
        outcome_threshold=None if criterion == "em" else float(threshold),
    )


def _run(conn: sqlite3.Connection, name: str) -> tuple[int, int | None, str | None, str | None, str | None]:
    ref = require_run(conn, name)
    return ref.id, ref.dataset_id, ref.dataset, ref.family, ref.scorer


_COMMON_SQL = f"""
SELECT i.id AS item_id, i.key AS key, i.question AS question, i.context_id AS context_id, {dimension_columns()},
       pa.text AS prediction_a, pa.em AS em_a, pa.f1 AS f1_a, pa.refused AS refused_a, pa.f1_recall AS f1_recall_a,
       pb.text AS prediction_b, pb.em AS em_b, pb.f1 AS f1_b, pb.refused AS refused_b, pb.f1_recall AS f1_recall_b,
       pa.error_category AS category_a, pb.error_category AS category_b
FROM items i
JOIN predictions pa ON pa.item_id = i.id AND pa.run_id = ?
JOIN predictions pb ON pb.item_id = i.id AND pb.run_id = ?
WHERE i.dataset_id = ?
"""

_WITHOUT_TEXTS = (
    _COMMON_SQL.replace("i.question AS question", "NULL AS question")
    .replace("pa.text AS prediction_a", "NULL AS prediction_a").replace("pb.text AS prediction_b", "NULL AS prediction_b")
)

_SCHEMA = {
    "item_id": pl.Int64, "key": pl.String, "question": pl.String, "context_id": pl.Int64,
    **{d: pl.String for d in DIMENSIONS},
    "prediction_a": pl.String, "em_a": pl.Int64, "f1_a": pl.Float64, "refused_a": pl.Boolean, "f1_recall_a": pl.Float64,
    "prediction_b": pl.String, "em_b": pl.Int64, "f1_b": pl.Float64, "refused_b": pl.Boolean, "f1_recall_b": pl.Float64,
    "category_a": pl.String, "category_b": pl.String,
}


def common_frame(
    conn: sqlite3.Connection, run_a: int, run_b: int, dataset_id: int, within: Filter | None = None,
    *, texts: bool = True,
) -> pl.DataFrame:
    """The items both runs answer (of `within`'s items, when given), one row each in id order: the
    item's labels and both runs' scores (and texts). What every A-vs-B comparison is computed on."""
    params: list[Any] = [run_a, run_b, dataset_id]
    restrict = diff_sql.within_clause(conn, within, params)
    cur = conn.execute((_COMMON_SQL if texts else _WITHOUT_TEXTS) + restrict + " ORDER BY i.id", params)
    parts = []  # in chunks: a million rows as Python tuples at once took a gigabyte before the frame
    while rows := cur.fetchmany(_CHUNK):
        parts.append(pl.DataFrame(rows, schema=_SCHEMA, orient="row"))
    return pl.concat(parts) if parts else pl.DataFrame(schema=_SCHEMA)


_CHUNK = 100_000
"""Rows of the common frame read at once (tens of MB as tuples)."""


def diff_runs(
    conn: sqlite3.Connection,
    run_a: str,
    run_b: str,
    *,
    threshold: float = 0.5,
    top: int = 20,
    within: Filter | None = None,
    stats: StatOptions | None = None,
    stop: Callable[[], bool] | None = None,
    adjudicated: bool = False,
    arrays: PairArrays | None = None,
) -> RunDiff:
    """Compare run B with run A (see the module doc). `within` restricts the items to those a
    filter selects (e.g. a saved slice); `stats` adds `significance` (left None if `stop`, asked
    between its tests, says so); `adjudicated`: on the scores with accepted aliases counted as golds
    (the same engine over a copy of the two runs' rows, `diff_sql.adjudicated_rows`). Raises
    `DiffError` for an unknown run, the same run twice, or runs of different datasets.
    `arrays`: the common items as `diff_arrays.comparison_arrays(conn, run_a, run_b, within=within)`
    read them (the compare screen reads them once for the counts and the tests): the counts come
    from them (`diff_arrays.array_groups`), the same numbers without SQL's grouping pass."""
    if not 0.0 <= threshold <= 1.0:
        raise DiffError(f"F1 threshold {threshold} is outside 0…1")
    if run_a == run_b:
        raise DiffError(f"run {run_a!r} compared with itself; name two different runs")
    a_id, a_ds, a_ds_name, family, scorer = _run(conn, run_a)
    b_id, b_ds, b_ds_name, _, _ = _run(conn, run_b)
    if a_ds is None or b_ds is None:
        lonely = run_a if a_ds is None else run_b
        raise DiffError(f"run {lonely!r} is linked to no dataset, so it has nothing to compare on")
    if a_ds != b_ds:
        raise DiffError(
            f"runs {run_a!r} ({a_ds_name}) and {run_b!r} ({b_ds_name}) are on different datasets;"
            " diff compares two runs of one dataset"
        )
    assert a_ds_name is not None and family is not None  # a run linked to a dataset has both
    if adjudicated:
        runs = {a_id: run_rescored(conn, run_a)[1], b_id: run_rescored(conn, run_b)[1]}
        with diff_sql.adjudicated_rows(conn, runs) as table:
            diff = _sql_diff(conn, (run_a, a_id), (run_b, b_id), a_ds, a_ds_name, family, scorer,
                             threshold=threshold, top=top, within=within, table=table)
        diff.adjudicated = True
    else:
        held, arrays = ([] if arrays is None else [arrays]), None  # handed on: _sql_diff lets them go
        diff = _sql_diff(conn, (run_a, a_id), (run_b, b_id), a_ds, a_ds_name, family, scorer,
                         threshold=threshold, top=top, within=within, arrays=held)
        diff.samples = sample_diff(conn, run_a, run_b, within)
    if stats is not None:
        diff.significance = diff_significance(conn, diff, stats, stop=stop)
    return diff


def diff_significance(
    conn: sqlite3.Connection, diff: RunDiff, stats: StatOptions, *, stop: Callable[[], bool] | None = None,
    ahead: AheadTests | None = None,
) -> PairSignificance | None:
    """Intervals and tests of every slice delta of a computed `diff` (module `significance`),
    without computing its counts again (the compare screen shows the counts first, then these).
    Reads the per-item arrays only now, without texts, as numpy; None if `stop` said so. `ahead`:
    tests computed beside the counts (`diff_ahead.ahead_tests`), used when they are of this
    comparison with these settings and hold every slice of the diff."""
    if (ahead is not None and not diff.adjudicated and ahead.tests.options == stats
            and (ahead.run_a, ahead.run_b, ahead.within) == (diff.run_a, diff.run_b, diff.within)):
        picked = ahead.tests.for_slices([(s.dimension, s.value, s.metric) for s in diff.slices],
                                        {o.criterion: (o.fixed, o.broken) for o in diff.outcomes})
        if picked is not None:
            return picked
    (a_id, dataset_id), b_id = (_run(conn, diff.run_a)[:2]), _run(conn, diff.run_b)[0]
    assert dataset_id is not None  # a diff exists only for runs of one dataset
    dims: dict[str, list[str]] = {}
    for s in diff.slices:
        if s.dimension != "overall" and s.value not in dims.setdefault(s.dimension, []):
            dims[s.dimension].append(s.value)
    return pair_significance(
        _pair_arrays(conn, diff, (a_id, b_id, dataset_id), dims).with_passages(passage_ids(conn, dataset_id)),
        [(s.dimension, s.value, s.metric) for s in diff.slices], options=stats, names=(diff.run_a, diff.run_b),
        discordant={o.criterion: (o.fixed, o.broken) for o in diff.outcomes}, stop=stop,
    )


def _pair_arrays(conn: sqlite3.Connection, diff: RunDiff, ids: tuple[int, int, int],
                 dims: dict[str, list[str]]) -> PairArrays:
    """The common items' arrays of `diff`: read from SQL, or from the re-scored frame when the
    diff is adjudicated (accepted aliases counted as golds, in memory)."""
    a_id, b_id, dataset_id = ids
    if diff.adjudicated:
        frame = common_frame(conn, a_id, b_id, dataset_id, diff.within, texts=False)
        frame = adjudicate_frame(conn, frame, {"a": diff.run_a, "b": diff.run_b})
        return PairArrays.from_frame(frame, dims)
    return read_pair_arrays(conn, a_id, b_id, dataset_id, diff.within, dims, metrics={s.metric for s in diff.slices})


def _criteria(has_em: bool, threshold: float) -> list[tuple[str, float | None, str]]:
    """(criterion, threshold or None for EM, label) of the outcome tables, first one first."""
    criteria: list[tuple[str, float | None, str]] = [("em", None, "EM")] if has_em else []
    score_label = "F1" if has_em else "F1-recall"
    criteria.append(("threshold", threshold, f"{score_label} ≥ {threshold * 100:g}"))  # scores read 0–100
    return criteria


def _sql_diff(
    conn: sqlite3.Connection, a: tuple[str, int], b: tuple[str, int], dataset_id: int, dataset: str,
    family: str, scorer: str | None, *, threshold: float, top: int, within: Filter | None,
    table: str = "predictions", arrays: list[PairArrays] | None = None,
) -> RunDiff:
    """`diff_runs` without statistics, from SQL aggregates (module `diff_sql`) over `table`'s rows,
    or from the common items' arrays (`diff_arrays`), handed over in `arrays` (at most one) and
    let go once counted, before the SQL of the run counts and the changes' texts: at a million
    items the compare screen's tests resample meanwhile, and their buffers need the room."""
    counted = arrays[0] if arrays else None
    (run_a, a_id), (run_b, b_id) = a, b
    varying, constant = diff_sql.varying_dimensions(conn, dataset_id)
    has_em = diff_sql.scored_with_em(conn, a_id, b_id)
    for _ in range(2):  # the guess of has_em checked on the common items: read again if wrong
        criteria = _criteria(has_em, threshold)
        from_arrays = None if counted is None else diff_arrays.array_groups(
            counted, varying, threshold=threshold, criterion=criteria[0][0])
        groups = from_arrays if from_arrays is not None else diff_sql.common_groups(
            conn, a_id, b_id, dataset_id, threshold=threshold, dimensions=varying, criterion=criteria[0][0],
            within=within, changes=top > 0, table=table)
        if groups:  # what the runs were scored with decides (any scorer may score any dataset)
            found = sum(g.has_em_a for g in groups) > 0 and sum(g.has_em_b for g in groups) > 0
        else:
            found = not uses_f1_recall(scorer, family)
        if found == has_em:
            break
        has_em = found
    largest = None if from_arrays is None or counted is None else diff_arrays.largest_ids(counted, top)
    if arrays:
        arrays.clear()
    del counted
    items, predicted_a, predicted_b = diff_sql.run_counts(conn, a_id, b_id, dataset_id, within)
    rank = {c: k for k, c in enumerate(CATEGORY_CODES)}
    categories = diff_sql.category_counts(groups)
    return RunDiff(
        run_a=run_a, run_b=run_b, dataset=dataset, family=family, score_metric="f1" if has_em else "f1_recall",
        threshold=threshold, items=items, predicted_a=predicted_a, predicted_b=predicted_b,
        common=sum(g.items for g in groups),
        outcomes=[Outcomes(c, label, t, **diff_sql.outcome_counts(groups, c)) for c, t, label in criteria],
        within=within, scorer=scorer,
        slices=[SliceDelta(**r) for r in diff_sql.slice_rows(groups, constant, not has_em)],
        categories=[CategoryChange(c, f, n) for c, (f, n) in
                    sorted(categories.items(), key=lambda kv: (rank.get(kv[0], 99), kv[0]))],
        changes=[ItemChange(**r) for r in diff_sql.largest_changes(
            conn, a_id, b_id, dataset_id, top, within, groups, table, largest)],
    )
