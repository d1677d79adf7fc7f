"""Filters → parameterised SQL, and the one definition of each rule a query needs.

What an error is (`ERROR_SQL`), what "right" means at a threshold (`right_sql`), Δ between two runs
(`DELTA_SQL`), the facet value expressions (`FACETS`) and the FROM/WHERE of a `Filter` (`build`)
are written here once; counts, pages, facets, exports, reports and diffs all use them.

Every value reaches SQLite as a parameter; column names come only from the fixed `SORTS` and
`FACETS` tables. Facets with no `Filter` field of their own (lengths, question type, the other item
features, error category) are selected through `Filter.facets`, which `build` turns into SQL with
`facet_where`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from qa_inspect.core.errors import unknown_name
from qa_inspect.core.labels import labels_of_sql
from qa_inspect.core.store import FEATURE_COLUMNS, pending_marks
from qa_inspect.core.store import STALE_GOLDS_SQL
# Defined in the store (the load sums the overview with them too); part of this module's face.
from qa_inspect.core.store import DIMENSIONS, ERROR_SQL, answered_sql

from qa_inspect.core.metrics import CATEGORY_CODES, GOLD_LENGTHS, PASSAGE_LENGTHS, QUESTION_TYPES

from .columns import is_column, order_sql
from .expression import expression_sql
from .filters import OUTCOMES, SORTS, Filter
# The SQL of an item's values beyond its columns, shared with the column registry (part of this face).
from .item_sql import CATEGORY_SQL, CROSS_SQL, LABELS_SQL, NO_PREDICTION, STALE_ITEMS_SQL, judge_verdict_sql

__all__ = [
    "BANDS", "CATEGORY", "CATEGORY_SQL", "CROSS_SQL", "DELTA_SQL", "DIMENSIONS", "ERROR_SQL", "FACETS",
    "FEATURE_DIMENSIONS", "LABEL", "LENGTH_LABELS", "LONGEST", "NO_GOLD", "NO_PREDICTION", "OTHER", "PASS_BANDS", "QUESTION_WORDS", "SLICES",
    "STALE_ITEMS_SQL", "Built", "answered_sql", "FacetDef", "band_sql", "build", "build_parts", "dimension_columns", "error_expr", "facet_where",
    "bounds_case_sql", "feature_columns", "labels_sql", "order_clause", "right_sql", "run_ids",
    "JUDGE_THRESHOLD", "JUDGE_VS", "judge_facet", "judge_verdict_sql",
]



def dimension_columns(alias: str = "i") -> str:
    """`i.split AS split, …` for every dimension, in `DIMENSIONS` order."""
    return ", ".join(f"{alias}.{d} AS {d}" for d in DIMENSIONS)




def error_expr() -> Any:
    """`ERROR_SQL` as a polars expression over `core.report.item_frame` columns (predicted, em,
    refused, f1_recall): the same rule, for frames re-scored in memory (stale golds excluded)."""
    import polars as pl  # only reports need polars; queries stay light

    return (
        pl.when(~pl.col("predicted")).then(True)
        .when(pl.col("em").is_not_null()).then(pl.col("em") < 1.0)
        .when(pl.col("refused").fill_null(False)).then(True)
        .otherwise(pl.col("f1_recall").fill_null(0.0) < 1.0)
    )



DELTA_SQL = "COALESCE(pb.f1, pb.f1_recall, 0) - COALESCE(p.f1, p.f1_recall, 0)"
"""Δ of a compared item: run B's score − run A's (F1, or F1-recall for CDQA), as `qa-inspect diff`."""


def right_sql(alias: str, threshold: float | None, params: list[Any]) -> str:
    """SQL truth of "this prediction is right": EM 1, or (threshold given) not a refusal and
    F1 / F1-recall ≥ threshold. A missing prediction is never right. `alias` is p or pb."""
    a = {"p": "p", "pb": "pb"}[alias]
    if threshold is None:
        return f"(COALESCE({a}.em, 0) = 1)"
    params.append(float(threshold))
    return f"({answered_sql(a)} AND COALESCE({a}.f1, {a}.f1_recall, 0) >= ?)"


def _outcome_clause(f: Filter, params: list[Any]) -> str:
    if f.outcome not in OUTCOMES:
        raise ValueError(unknown_name("outcome", str(f.outcome), OUTCOMES))
    a_right = right_sql("p", f.outcome_threshold, params)
    b_right = right_sql("pb", f.outcome_threshold, params)
    a_cond, b_cond = {
        "fixed": (f"NOT {a_right}", b_right),
        "broken": (a_right, f"NOT {b_right}"),
        "both_wrong": (f"NOT {a_right}", f"NOT {b_right}"),
        "both_right": (a_right, b_right),
    }[f.outcome]
    return f"(p.id IS NOT NULL AND pb.id IS NOT NULL AND {a_cond} AND {b_cond})"


BANDS: tuple[tuple[str, float | None], ...] = (("0", 0.0), ("1–49", 0.5), ("50–99", 1.0), ("100", None))
"""Score bands of the A-vs-B grid, (label, upper bound): "0" is a score of 0 (a refusal too),
"1–49" below 0.5, "50–99" below 1, "100" full credit. Scores are F1, else F1-recall (0–1)."""


def band_sql(alias: str, params: list[Any]) -> str:
    """SQL of the `BANDS` label of run `alias`'s score (p = A, pb = B); appends the parameters."""
    a = {"p": "p", "pb": "pb"}[alias]
    return bounds_case_sql(f"COALESCE({a}.f1, {a}.f1_recall, 0)",
                           [(label, bound, bound == 0) for label, bound in BANDS], params)


def bounds_case_sql(score: str, bounds: Sequence[tuple[str, float | None, bool]], params: list[Any],
                    prefix: str = "CASE") -> str:
    """`CASE WHEN score <= b1 THEN l1 … ELSE last END` for (label, upper bound, bound included),
    the last bound None; labels and bounds as parameters (appended). The one way a score becomes
    a bin (the score grid's bands, the distribution's histogram bins)."""
    parts = [prefix]
    for label, bound, included in bounds:
        if bound is None:
            parts.append("ELSE ? END")
            params.append(label)
        else:
            parts.append(f"WHEN {score} {'<=' if included else '<'} ? THEN ?")
            params += [bound, label]
    return " ".join(parts)


def _bands_clause(bands: tuple[str, str], params: list[Any]) -> str:
    known = [label for label, _ in BANDS]
    for band in bands:
        if band not in known:
            raise ValueError(unknown_name("score band", band, known))
    a = band_sql("p", params)
    params.append(bands[0])
    b = band_sql("pb", params)
    params.append(bands[1])
    return f"(p.id IS NOT NULL AND pb.id IS NOT NULL AND ({a}) = ? AND ({b}) = ?)"



OTHER = "other"
NO_GOLD = "no gold"

LENGTH_BUCKETS: tuple[tuple[int, str], ...] = (
    (0, "0"), (2, "1–2"), (4, "3–4"), (8, "5–8"), (16, "9–16"), (32, "17–32"), (64, "33–64"),
)
"""(largest length, label) in characters; longer texts fall in `LONGEST`."""
LONGEST = "65+"
LENGTH_LABELS: tuple[str, ...] = tuple(label for _, label in LENGTH_BUCKETS) + (LONGEST,)
POSITIONS = ("0-25%", "25-50%", "50-75%", "75-100%")
OVERLAPS = ("none", "low", "medium", "high")
AGREEMENTS = ("none", "one", "agree", "nested", "differ")
"""Value orders of the item features (`core.metrics.question_features` makes them, and the gold and
passage length buckets with them)."""


def _bucket_sql(length_expr: str, missing_label: str) -> tuple[str, tuple[Any, ...]]:
    params: list[Any] = [missing_label]
    parts = [f"CASE WHEN {length_expr} IS NULL THEN ?"]
    for bound, label in LENGTH_BUCKETS:
        parts.append(f"WHEN {length_expr} <= ? THEN ?")
        params += [bound, label]
    parts.append("ELSE ? END")
    params.append(LONGEST)
    return " ".join(parts), tuple(params)


_PRED_LEN = _bucket_sql("(CASE WHEN p.id IS NULL THEN NULL ELSE length(p.text) END)", NO_PREDICTION)
_GOLD_LEN = ("COALESCE(i.gold_length, ?)", (NO_GOLD,))
"""The gold length ingest stored (`core.metrics.gold_length`: units of the first current gold), so
the facet, the item detail, exports and reports bin it one way; `no gold` for an item without one."""
_STALE = f"i.id IN ({STALE_ITEMS_SQL})"  # uncorrelated: evaluated once
_LABELS = LABELS_SQL


@dataclass(frozen=True, slots=True)
class FacetDef:
    """One facet: its SQL value expression (+ parameters), how a value is selected, value order."""

    name: str
    label: str
    expr: str
    params: tuple[Any, ...] = ()
    field: str | None = None
    """The `Filter` field a selection sets (None: selected through `Filter.facets`)."""
    order: tuple[Any, ...] | None = None
    """Fixed value order (buckets, question words); None: by count, largest first."""
    needs_run: bool = False
    optional: bool = False
    """An item label some items (or datasets) lack: hidden when no item has a value, and the
    missing value cannot be selected."""


PASS_BANDS = ("0", "1–49", "50–99", "100")
"""Bands of a run's share of right samples on an item (%), for runs with several samples per item."""
_PASS_BAND = ("CASE WHEN p.samples IS NULL THEN NULL WHEN p.correct_samples = 0 THEN '0'"
              " WHEN p.correct_samples = p.samples THEN '100' WHEN 2 * p.correct_samples < p.samples THEN '1–49'"
              " ELSE '50–99' END")
"""The pass-rate band of run A's item (NULL for a run of one answer per item: the facet hides)."""

FACETS: dict[str, FacetDef] = {
    d.name: d
    for d in (
        FacetDef("split", "split", "i.split", field="splits", optional=True),
        FacetDef("tag", "tag", "i.tag", field="tags", optional=True),
        FacetDef("answer_type", "answer type", "i.answer_type", field="answer_types", optional=True),
        FacetDef("answerable", "answerable", "i.answerable", order=("answerable", "unanswerable"), optional=True),
        FacetDef("refused", "refused", "p.refused", field="refused", order=(1, 0, None), needs_run=True,
                 optional=True),
        FacetDef("stale", "stale", _STALE, field="stale", order=(1, 0)),
        FacetDef("pred_len", "prediction length", *_PRED_LEN, order=(NO_PREDICTION, *LENGTH_LABELS), needs_run=True),
        FacetDef("gold_len", "gold length", *_GOLD_LEN, order=(NO_GOLD, *GOLD_LENGTHS)),
        FacetDef("error_category", "error category", CATEGORY_SQL, order=(*CATEGORY_CODES, NO_PREDICTION),
                 needs_run=True),
        FacetDef("qword", "question type", "i.question_type", order=QUESTION_TYPES),
        FacetDef("answer_position", "answer position", "i.answer_position", order=POSITIONS, optional=True),
        FacetDef("cross_sentence", "cross-sentence", CROSS_SQL, order=("yes", "no"), optional=True),
        FacetDef("question_overlap", "question overlap", "i.question_overlap", order=OVERLAPS, optional=True),
        FacetDef("gold_count", "gold count", "CAST(i.gold_count AS TEXT)", order=tuple(str(n) for n in range(11))),
        FacetDef("gold_agreement", "gold agreement", "i.gold_agreement", order=AGREEMENTS),
        FacetDef("passage_length", "passage length", "i.passage_length", order=PASSAGE_LENGTHS, optional=True),
        FacetDef("label", "label", _LABELS, needs_run=True, optional=True),
        FacetDef("pass_band", "pass rate", _PASS_BAND, order=PASS_BANDS, needs_run=True, optional=True),
        FacetDef("distinct_answers", "distinct answers", "CAST(p.distinct_answers AS TEXT)", needs_run=True,
                 optional=True),
        FacetDef("flaky", "flaky", "CASE p.flaky WHEN 1 THEN 'flaky' WHEN 0 THEN 'stable' END",
                 order=("flaky", "stable"), needs_run=True, optional=True),
    )
}
"""Every facet, in the order a facet panel lists them. Question type (`qword`, its name from when
it was a question word: saved slices keep it), the other item features and the error category
are the stored columns ingest computed (`core.metrics.question_features`, `error_category`)."""

FEATURE_DIMENSIONS: tuple[str, ...] = FEATURE_COLUMNS
"""Item features that slice a report on request (`report --by`): the `items` columns ingest fills."""
CATEGORY = "error_category"
"""The run's slice: each prediction's error category (`predictions.error_category`)."""
LABEL = "label"
"""The run's slice by hand: each (run, item)'s labels on now (`core.labels`), joined with ", "."""
SLICES: tuple[str, ...] = (*DIMENSIONS, *FEATURE_DIMENSIONS, CATEGORY, LABEL)
"""Everything a report may be sliced by."""


def labels_sql(run_alias: str = "r", dataset_alias: str = "d", item_alias: str = "i") -> str:
    """A (run, item)'s labels as a report reads them, for a run row, a dataset row and an item row."""
    return labels_of_sql(f"{run_alias}.name", f"{dataset_alias}.name", f"{item_alias}.key")
_FEATURE_SQL = {"gold_count": "CAST(i.gold_count AS TEXT)", "cross_sentence": CROSS_SQL}


def feature_columns() -> str:
    """`i.question_type AS question_type, …` for every item feature, as the text values facets show."""
    return ", ".join(f"{_FEATURE_SQL.get(d, 'i.' + d)} AS {d}" for d in FEATURE_DIMENSIONS)


def facet_where(pairs: Iterable[tuple[str, str]], params: list[Any], threshold: float | None = None) -> str:
    """SQL condition for `Filter.facets`: values of one facet OR-ed, facets AND-ed (appends params).
    `threshold`: the filter's `outcome_threshold`, which the judge-vs-official facets judge by."""
    by_name: dict[str, list[Any]] = {}
    for name, value in pairs:
        if name not in FACETS and judge_facet(name, threshold) is None:
            raise ValueError(unknown_name("facet", name, ["judge:NAME", "judge_vs:NAME", *FACETS]))
        by_name.setdefault(name, []).append(value)
    clauses = []
    for name, values in by_name.items():
        d = FACETS.get(name) or judge_facet(name, threshold)
        assert d is not None
        params.extend(d.params)
        params.extend(values)
        clauses.append(f"({d.expr}) IN ({', '.join('?' * len(values))})")
    return "(" + " AND ".join(clauses) + ")"


JUDGE_THRESHOLD = 0.5
"""F1 (F1-recall) at which an official score counts as right beside a judge's verdict when the
filter names no `outcome_threshold`: the compare screen's default."""
JUDGE_VS = ("official wrong · judge right", "official right · judge wrong", "agree")
"""Values of a judge-vs-official facet: the two disagreements first (they are what one looks at)."""


def judge_facet(name: str, threshold: float | None = None) -> FacetDef | None:
    """The facet of one judge: `judge:NAME` (its verdicts: correct/incorrect/partial) or `judge_vs:NAME`
    (official right at `threshold` — default `JUDGE_THRESHOLD` — against the judge's "correct");
    None for other names. Judge names reach SQLite as parameters."""
    kind, _, judge = name.partition(":")
    if not judge or kind not in ("judge", "judge_vs"):
        return None
    if kind == "judge":
        return FacetDef(name, f"judge {judge}", judge_verdict_sql(), (judge,), order=("correct", "incorrect", "partial"),
                        needs_run=True, optional=True)
    bound: list[Any] = []
    right = right_sql("p", JUDGE_THRESHOLD if threshold is None else threshold, bound)
    verdict = judge_verdict_sql()  # a partial verdict is not a "judge right"
    expr = (f"CASE WHEN {verdict} IS NULL THEN NULL WHEN NOT {right} AND {verdict} = 'correct' THEN ?"
            f" WHEN {right} AND {verdict} != 'correct' THEN ? ELSE ? END")
    params = (judge, *bound, judge, JUDGE_VS[0], *bound, judge, *JUDGE_VS[1:])
    return FacetDef(name, f"official vs judge {judge}", expr, tuple(params), order=JUDGE_VS, needs_run=True,
                    optional=True)


def run_ids(conn: Any, f: Filter) -> tuple[int | None, int | None, int | None]:
    ds = run = cmp_ = None
    if f.run:
        row = conn.execute("SELECT id, dataset_id FROM runs WHERE name = ?", (f.run,)).fetchone()
        if row:
            run, ds = row
        else:
            return -1, None, None  # a run not loaded selects nothing, never every item
    if ds is None and f.dataset:
        row = conn.execute("SELECT id FROM datasets WHERE name = ?", (f.dataset,)).fetchone()
        ds = row[0] if row else -1
    if f.compare:
        row = conn.execute("SELECT id FROM runs WHERE name = ?", (f.compare,)).fetchone()
        cmp_ = row[0] if row else -1
    return ds, run, cmp_


def _in(column: str, values: tuple[str, ...], params: list[Any]) -> str:
    params.extend(values)
    return f"{column} IN ({', '.join('?' * len(values))})"


@dataclass(frozen=True, slots=True)
class Built:
    """A filter as SQL pieces: run ids, and the WHERE conditions with their parameters (the
    joins are fixed: items i, run A's predictions p, run B's pb). `build` puts them together;
    `core.query.paging` joins them in another order for index-ordered pages."""

    run: int
    compare: int | None
    where: tuple[str, ...]
    params: tuple[Any, ...]

    def where_sql(self, *extra: str) -> str:
        conds = [*self.where, *extra]
        return (" WHERE " + " AND ".join(conds)) if conds else ""


def build(conn: Any, f: Filter) -> tuple[str, list[Any]]:
    """FROM/WHERE clause and parameters shared by count, page and metrics queries."""
    b = build_parts(conn, f)
    params: list[Any] = [b.run]
    joins = ["FROM items i", "LEFT JOIN predictions p ON p.item_id = i.id AND p.run_id = ?"]
    if b.compare is not None:
        joins.append("LEFT JOIN predictions pb ON pb.item_id = i.id AND pb.run_id = ?")
        params.append(b.compare)
    return " ".join(joins) + b.where_sql(), params + list(b.params)


def build_parts(conn: Any, f: Filter, *, scan_short_search: bool = False) -> Built:
    """The filter's run ids and WHERE conditions (see `Built`). `scan_short_search`: a search of
    under 3 characters as one list of matching items (each table read once) instead of a test
    per item (which a page stops early: best when the text is common)."""
    ds, run, cmp_ = run_ids(conn, f)
    params: list[Any] = []
    where: list[str] = []
    if ds is not None:
        where.append("i.dataset_id = ?")
        params.append(ds)
    if f.splits:
        where.append(_in("i.split", f.splits, params))
    if f.tags:
        where.append(_in("i.tag", f.tags, params))
    if f.answer_types:
        where.append(_in("i.answer_type", f.answer_types, params))
    if f.refused is not None:  # "answered" = a prediction that is not a refusal (span runs: any)
        where.append("p.refused = 1" if f.refused else "p.id IS NOT NULL AND COALESCE(p.refused, 0) = 0")
    if f.em is not None:
        where.append("COALESCE(p.em, 0) = ?")
        params.append(int(f.em))
    if f.f1_min is not None:
        where.append("COALESCE(p.f1, p.f1_recall, 0) >= ?")
        params.append(f.f1_min)
    if f.f1_max is not None:
        where.append("COALESCE(p.f1, p.f1_recall, 0) <= ?")
        params.append(f.f1_max)
    # Stale flags: uncorrelated IN (SQLite evaluates the journal query once, not once per item).
    if f.stale is not None:
        where.append("i.id " + ("" if f.stale else "NOT ") + f"IN ({STALE_ITEMS_SQL})")
    if f.has_proposal is not None:
        where.append(
            "i.id " + ("" if f.has_proposal else "NOT ")
            + f"IN (SELECT s.item_id FROM ({STALE_GOLDS_SQL}) s WHERE s.proposed IS NOT NULL AND s.proposed != '')"
        )
    if f.search.strip():
        where.append(_search_clause(f.search.strip(), params, run if run is not None else -1, pending_marks(conn),
                                    scan=scan_short_search))
    if f.only_disagree and cmp_ is not None:
        where.append(
            "(p.id IS NOT NULL OR pb.id IS NOT NULL) AND (p.em IS NOT pb.em OR p.refused IS NOT pb.refused"
            " OR ABS(COALESCE(p.f1, -1) - COALESCE(pb.f1, -1)) > 1e-9"
            " OR ABS(COALESCE(p.f1_recall, -1) - COALESCE(pb.f1_recall, -1)) > 1e-9)"
        )
    if f.facets:
        where.append(facet_where(f.facets, params, f.outcome_threshold))
    if f.keys is not None:  # one JSON parameter, however many keys (no host-parameter limit)
        where.append("i.key IN (SELECT value FROM json_each(?))")
        params.append(json.dumps(list(f.keys), ensure_ascii=False))
    if f.outcome is not None:
        where.append(_outcome_clause(f, params) if cmp_ is not None else "0")
    if f.bands is not None:
        where.append(_bands_clause(f.bands, params) if cmp_ is not None else "0")
    if f.expression.strip():  # an expression over the registry's columns
        where.append(expression_sql(f.expression, params, f.run))
    return Built(run if run is not None else -1, cmp_, tuple(where), tuple(params))


def _fts_phrase(text: str) -> str:
    """`text` as one FTS5 phrase of the trigram index (used for 3+ characters; shorter is LIKE)."""
    return '"' + text.replace('"', '""') + '"'


def _search_clause(text: str, params: list[Any], run: int, pending: tuple[int, int] | None = None, *,
                   scan: bool = False) -> str:
    """Trigram FTS for 3+ characters (Chinese has no spaces to tokenise on); LIKE for shorter text,
    and for rows a big load left to index later (`pending`: the index marks, see `core.load`).

    The FTS matches are one list of item ids (`i.id IN (… UNION …)`, run A's predictions turned
    into their items), so SQLite starts from the matches, in id order, instead of walking every
    item to test it against them (a rare phrase at a million items: seconds for an empty page)."""
    like = "%" + text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
    if len(text) >= 3:
        phrase = _fts_phrase(text)
        params.extend([phrase, run, phrase])
        hits = (
            "SELECT rowid FROM items_fts WHERE items_fts MATCH ?"
            " UNION SELECT pm.item_id FROM predictions pm WHERE +pm.run_id = ?"  # +: look up the matches by id
            " AND pm.id IN (SELECT rowid FROM predictions_fts WHERE predictions_fts MATCH ?)"
        )
        if pending is not None:  # rows above the marks: a range of ids each, tested by LIKE
            params.extend([pending[0], like, pending[0], like, run, pending[1], like])
            hits += (
                " UNION SELECT im.id FROM items im WHERE im.id > ? AND im.question LIKE ? ESCAPE '\\'"
                " UNION SELECT g.item_id FROM golds g WHERE g.item_id > ? AND g.text LIKE ? ESCAPE '\\'"
                " UNION SELECT pm.item_id FROM predictions pm WHERE pm.run_id = ? AND pm.id > ?"
                " AND pm.text LIKE ? ESCAPE '\\'"
            )
        return f"i.id IN ({hits})"
    if scan:
        params.extend([like, like, run, like])
        return (
            "i.id IN (SELECT im.id FROM items im WHERE im.question LIKE ? ESCAPE '\\'"
            " UNION SELECT g.item_id FROM golds g WHERE g.text LIKE ? ESCAPE '\\'"
            " UNION SELECT pm.item_id FROM predictions pm WHERE pm.run_id = ? AND pm.text LIKE ? ESCAPE '\\')"
        )
    params.extend([like, like, like])
    return (
        "(i.question LIKE ? ESCAPE '\\' OR p.text LIKE ? ESCAPE '\\'"
        " OR EXISTS (SELECT 1 FROM golds g WHERE g.item_id = i.id AND g.text LIKE ? ESCAPE '\\'))"
    )


def order_clause(f: Filter, params: list[Any] | None = None) -> str:
    """ORDER BY for the filter's sort (ties by item id, so paging is stable). A registry column's
    sort (`core.query.columns`) appends its parameters to `params` (none given: sorted by id)."""
    if f.sort not in SORTS and params is not None:
        if is_column(f.sort):  # an unknown name (a slice from a newer version) sorts by id
            return order_sql(f.sort, f.descending, params)
    order = SORTS.get(f.sort, "i.id")
    if order == "stale":
        order = f"i.id IN ({STALE_ITEMS_SQL})"
    elif order == "delta":
        order = DELTA_SQL if f.compare else "i.id"
    direction = "DESC" if f.descending else "ASC"
    if order == "i.id":  # never NULL: a bare rowid order lets SQLite walk the table and stop early
        return f"i.id {direction}"
    return f"{order} IS NULL, {order} {direction}, i.id {direction}"


