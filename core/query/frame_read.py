"""Reading a run's frame from the rows (`core.query.facet_frame` keeps and stores it): each
facet's value code per item and run A's scores, computed by SQLite and packed several to an
integer, every column travelling as one comma-joined text of integers that SQLite builds and
numpy parses in C, so no Python object is made per item (rows into Python cost five times the
read). The dataset's item part is one statement over its items; the run's part reads the facets
over run A's covering score index down it with the scores, the others apart.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from qa_inspect.core.store import integer_texts, scaled_score_sql, scores_from_integers

from .columns import run_has_samples
from .filters import Filter
from .sql import ERROR_SQL, FacetDef, build_parts, run_ids

if TYPE_CHECKING:
    import numpy as np

__all__ = ["RUN_SQL", "SAMPLE_FACETS", "FacetId", "facet_id", "read_codes"]

FacetId = tuple[str, str, tuple[Any, ...]]
"""A facet as a frame knows it: name, expression, parameters (a judge's threshold is one)."""
SAMPLE_FACETS = ("pass_band", "distinct_answers", "flaky")
"""Facets of a run's sample aggregates (`core.load`'s columns, NULL on every prediction without
samples): a run that never sampled has no value of them, and no pass reads one."""


def facet_id(d: FacetDef) -> FacetId:
    return d.name, d.expr, tuple(d.params)


RUN_SQL = (f"COALESCE({ERROR_SQL}, 0) | ((p.id IS NOT NULL) << 1) | ((COALESCE(p.em, -1) + 1) << 2)"
            " | ((COALESCE(p.refused, -1) + 1) << 4)")
"""Run A's error, predicted, EM and refused packed in one integer (2 bits each, -1 = NULL as 0);
F1 and F1-recall (`SCORES`) follow it as scaled integers (`store.scaled_score_sql`)."""
def _cursor(conn: Any, f: Filter, select: str, select_params: list[Any], with_run: bool, where: str = "",
            where_params: tuple[Any, ...] = ()) -> Any:
    """Rows over the items of `f`'s dataset and run (nothing else of `f`)."""
    b = build_parts(conn, Filter(dataset=f.dataset, run=f.run))
    join = " LEFT JOIN predictions p ON p.item_id = i.id AND p.run_id = ?" if with_run else ""
    return conn.execute(f"SELECT {select} FROM items i{join}{b.where_sql(*([where] if where else []))}",
                        [*select_params, *([b.run] if with_run else []), *b.params, *where_params])


PACK_BITS = 62
"""Bits of one packed integer of codes (SQLite's are 64-bit signed)."""


def _known(conn: Any, f: Filter, d: FacetDef, with_run: bool) -> list[Any]:
    """The values a facet is coded by in SQL: its fixed order, else (an item's label) the
    dataset's values, read down the label's index; NULL aside (code 0). A value found in neither
    is coded afterwards (`_others`)."""
    if d.order is not None:
        return [v for v in dict.fromkeys(d.order) if v is not None]
    if with_run:
        return []
    return [r[0] for r in _cursor(conn, f, f"DISTINCT ({d.expr})", list(d.params), False) if r[0] is not None]


def read_codes(conn: Any, f: Filter, defs: list[FacetDef], *, with_run: bool, ids: np.ndarray | None = None
                ) -> tuple[np.ndarray, dict[FacetId, tuple[np.ndarray, list[Any]]], list[np.ndarray]]:
    """(item ids ascending, each facet's codes and values, with the run: run A's packed scores,
    F1 and F1-recall). Codes are computed by SQLite (`CASE` over the known values), packed
    several to an integer, and every column travels as one comma-joined text that SQLite builds
    and numpy parses in C (`_texts`): no Python object per item (a row of Python objects cost
    more than computing it). A value not known beforehand is coded by `_others`. Given the
    items' `ids`, facets of run A's prediction alone are read from its predictions (no join)."""
    import numpy as np  # with the first count, not with the app

    unsampled = with_run and not (f.run and run_has_samples(conn, f.run))
    constant = {k for k, d in enumerate(defs) if unsampled and d.name in SAMPLE_FACETS}
    known = [_known(conn, f, d, with_run) for d in defs]
    alone = ids is not None and with_run and bool(f.run) and not any(_I_COLUMN.search(d.expr) for d in defs)
    indexed = _score_columns(conn) if alone else set()
    parts = [[k for k, d in enumerate(defs) if (k in constant or _p_columns(d.expr) <= indexed) == inside]
             for inside in (True, False)]
    exprs: list[list[str]] = []
    params: list[list[Any]] = []
    shifts: dict[int, tuple[int, int]] = {}
    for part in parts:  # the facets the scores' index holds, then the others (one part unless `alone`)
        part_exprs, part_params, part_shifts = _packed_sql([defs[k] for k in part], [known[k] for k in part],
                                                           {n for n, k in enumerate(part) if k in constant})
        shifts.update({k: (g + sum(len(e) for e in exprs), shift) for k, (g, shift) in
                       ((part[n], at) for n, at in part_shifts.items())})
        exprs.append(part_exprs if part else [])
        params.append(part_params if part else [])
    arrays = None
    if alone and ids is not None:
        arrays = _by_prediction(conn, f, exprs, params, ids)
    if arrays is None or ids is None:
        ids, arrays = _by_item(conn, f, exprs[0] + exprs[1], params[0] + params[1], with_run)
    codes: dict[FacetId, tuple[np.ndarray, list[Any]]] = {}
    for k, d in enumerate(defs):
        g, shift = shifts[k]
        n = len(known[k]) + 1
        raw = (arrays[g] >> shift) & ((1 << n.bit_length()) - 1)
        values = [None, *known[k]]
        if (raw == n).any():  # values outside the known ones
            raw, values = _others(conn, f, d, with_run, ids, raw, values)
        codes[facet_id(d)] = (raw.astype(np.min_scalar_type(max(len(values) - 1, 0))), values)
    return ids, codes, arrays[len(exprs[0]) + len(exprs[1]):]


_I_COLUMN = re.compile(r"(?<![\w.])i\.")
_P_NAME = re.compile(r"(?<![\w.])p\.(\w+)")
SCORES_INDEX = "predictions_scores"
"""The covering index of run A's scores: facets over its columns alone are read down it."""


def _p_columns(expr: str) -> set[str]:
    """The prediction columns an expression reads (`p.x`)."""
    return set(_P_NAME.findall(expr))


def _score_columns(conn: Any) -> set[str]:
    """Columns of `SCORES_INDEX` (with the row id): what a read down it can evaluate."""
    return {"id", *(r[2] for r in conn.execute(f"PRAGMA index_info({SCORES_INDEX})"))}


def _packed_sql(defs: list[FacetDef], known: list[list[Any]], constant: set[int]) -> tuple[
        list[str], list[Any], dict[int, tuple[int, int]]]:
    """SELECT expressions of the facets' codes packed `PACK_BITS` to an integer, their parameters,
    and each facet's (expression, shift); a `constant` facet is NULL (code 0) for every item."""
    groups: list[list[int]] = [[]]
    used = 0
    for k, values in enumerate(known):
        bits = (len(values) + 1).bit_length()
        if used + bits > PACK_BITS:
            groups.append([])
            used = 0
        groups[-1].append(k)
        used += bits
    exprs, params = [], []
    shifts: dict[int, tuple[int, int]] = {}
    for g, group in enumerate(groups):
        parts, shift = [], 0
        for k in group:
            code, code_p = ("0", []) if k in constant else _code_sql(defs[k], known[k])
            parts.append(f"(({code}) << {shift})")
            params += code_p
            shifts[k] = (g, shift)
            shift += (len(known[k]) + 1).bit_length()
        exprs.append(" | ".join(parts) or "0")
    return exprs, params, shifts


def _select(exprs: list[str], key: str, with_run: bool) -> tuple[list[str], list[str]]:
    """(per-row integer expressions: the packed codes, then with the run its packed scores, F1 and
    F1-recall scaled; the listed-key expressions: the items whose F1, F1-recall did not scale)."""
    if not with_run:
        return exprs, []
    (f1, f1_odd), (f1r, f1r_odd) = scaled_score_sql("p.f1", key), scaled_score_sql("p.f1_recall", key)
    return [*exprs, RUN_SQL, f1, f1r], [f1_odd, f1r_odd]


def _texts(conn: Any, per_row: list[str], listed: list[str], rest: str, params: list[Any]
           ) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Each expression over the rows of `rest` (FROM … WHERE …) as one comma-joined text of
    integers, in one pass, parsed by numpy: `per_row` ones (never NULL, so aligned: the texts
    follow one scan) and `listed` ones (NULL but for a few rows)."""
    parsed = integer_texts(conn, [*per_row, *listed], rest, params)
    return parsed[:len(per_row)], parsed[len(per_row):]


def _by_item(conn: Any, f: Filter, exprs: list[str], params: list[Any], with_run: bool
             ) -> tuple[np.ndarray, list[np.ndarray]]:
    """(item ids ascending, the codes of `exprs` and with the run its scores) over the items of
    `f`'s dataset, run A joined."""
    b = build_parts(conn, Filter(dataset=f.dataset, run=f.run))
    join = " LEFT JOIN predictions p ON p.item_id = i.id AND p.run_id = ?" if with_run else ""
    per_row, listed = _select(["i.id", *exprs], "i.id", with_run)
    columns, odd = _texts(conn, per_row, listed, f"FROM items i{join}{b.where_sql()}",
                          [*params, *([b.run] if with_run else []), *b.params])
    ids, columns = _ascending(columns[0], columns[1:])
    return ids, _scores(conn, b.run, ids, columns, odd, len(exprs)) if with_run else columns


def _ascending(keys: np.ndarray, columns: list[np.ndarray]) -> tuple[np.ndarray, list[np.ndarray]]:
    """`keys` sorted and `columns` in their order (a scan down an index other than the ids')."""
    import numpy as np  # with the first count, not with the app

    if len(keys) < 2 or bool(np.all(keys[1:] > keys[:-1])):
        return keys, columns
    order = np.argsort(keys, kind="stable")
    return keys[order], [c[order] for c in columns]


def _scores(conn: Any, run: int | None, ids: np.ndarray, columns: list[np.ndarray], odd: list[np.ndarray],
            n_codes: int) -> list[np.ndarray]:
    """The codes, run A's packed scores, and its F1 and F1-recall as floats (−1 → NaN; the listed
    items' read again as floats: `store.scores_from_integers`; without a run, none can be)."""
    out = columns[:n_codes + 1]
    for raw, listed, name in zip(columns[n_codes + 1:], odd, ("f1", "f1_recall"), strict=True):
        out.append(scores_from_integers(conn, "predictions", name, -1 if run is None else run, raw,
                                        listed if run is not None else listed[:0], ids))
    return out


def _by_prediction(conn: Any, f: Filter, exprs: list[list[str]], params: list[list[Any]], ids: np.ndarray
                   ) -> list[np.ndarray] | None:
    """The codes of `exprs` (over run A's prediction alone: first those its scores' covering index
    holds, read down it with the scores; then the others, read down whatever index SQLite picks)
    for each of `ids`, then run A's scores; the items without a prediction given the values of
    a missing one. Down the scores' index, not a text index in text order, the table's rows are
    never visited at random (3× faster). None when a prediction's item is not among `ids`."""
    import numpy as np  # with the first count, not with the app

    run = run_ids(conn, f)[1]
    per_row, listed = _select(["p.item_id", *exprs[0]], "p.item_id", True)
    columns, odd = _texts(conn, per_row, listed, f"FROM predictions p INDEXED BY {SCORES_INDEX} WHERE p.run_id = ?",
                          [*params[0], run])
    found = [_ascending(columns[0], columns[1:])]
    if exprs[1]:
        rest, _ = _texts(conn, ["p.item_id", *exprs[1]], [], "FROM predictions p WHERE p.run_id = ?", [*params[1], run])
        found.append(_ascending(rest[0], rest[1:]))
    blank = conn.execute(f"SELECT {', '.join([*per_row[1:], *exprs[1]])}"  # the values in `out`'s order
                         " FROM (SELECT 1) LEFT JOIN predictions p ON p.id = NULL", [*params[0], *params[1]]).fetchone()
    out: list[np.ndarray] = []
    for item_ids, part in found:
        at = np.searchsorted(ids, item_ids)
        if len(at) and (at[-1] >= len(ids) or not np.array_equal(ids[np.minimum(at, len(ids) - 1)], item_ids)):
            return None
        for column in part:
            full = np.full(len(ids), blank[len(out)], dtype=np.int64)
            full[at] = column
            out.append(full)
    # the codes in part order: the scores' index part's codes, the others', then its scores
    n = len(exprs[0])
    out = [*out[:n], *out[len(out) - len(exprs[1]):], *out[n:len(out) - len(exprs[1])]]
    return _scores(conn, run, ids, out, odd, n + len(exprs[1]))


def _code_sql(d: FacetDef, known: list[Any]) -> tuple[str, list[Any]]:
    """SQL of a facet's code: 0 for NULL, 1… for the known values, one past them for any other
    (the expression is evaluated twice only for those)."""
    whens = " ".join(f"WHEN ? THEN {k + 1}" for k in range(len(known)))
    other = f"CASE WHEN ({d.expr}) IS NULL THEN 0 ELSE {len(known) + 1} END"
    if not known:
        return other, list(d.params)
    return f"COALESCE(CASE ({d.expr}) {whens} END, {other})", [*d.params, *known, *d.params]


def _others(conn: Any, f: Filter, d: FacetDef, with_run: bool, ids: np.ndarray, raw: np.ndarray,
            values: list[Any]) -> tuple[np.ndarray, list[Any]]:
    """Codes for the items whose value is none of the known ones: those items' values read (a
    second pass that returns only them), each new value the next code."""
    import numpy as np  # with the first count, not with the app

    known = [v for v in values if v is not None]
    where = f"({d.expr}) IS NOT NULL" + (f" AND ({d.expr}) NOT IN ({', '.join('?' * len(known))})" if known else "")
    found = _cursor(conn, f, f"i.id, ({d.expr})", list(d.params), with_run, where,
                    (*d.params, *(d.params + tuple(known) if known else ()))).fetchall()
    index = {v: k for k, v in enumerate(values)}
    out = raw.astype(np.int64)
    out[np.searchsorted(ids, np.array([r[0] for r in found], dtype=np.int64))] = [
        index.setdefault(r[1], len(index)) for r in found]
    return out, list(index)
