"""A new filter's count, metrics and facet counts from its run's frame, not a pass over its items.

`metrics_ab` is one SQL pass over the items a filter selects, each looked up in run A's covering
index: 0.3–1.3 s at a million items, for every new filter. What most filters select by (an item
label: split, tag, answer type; run A's EM, F1 range, refusal, error category) and what the
metrics sum (run A's scores) change only when a load writes items or scores. So a filter made of
those conditions alone is a boolean mask over the run's frame (`core.query.facet_frame`: every
item's facet codes and run A's scores, kept per process and stored in the database for a big
dataset) and its count and metrics are sums over it (milliseconds); its facets are `bincount`s of
the codes under the mask. Other filters (a search, stale flags, run B, an expression …) keep the
SQL pass for the count and select the frame's rows by their item ids for the facets.

The count path uses a frame only when it costs no pass (`kept_frame`: kept, or stored);
the browser reads a big run's frame in the background once its first count is shown
(`count_frame`, from `tui.screens.item_counts`). Every count equals the SQL count and every metric
equals it to rounding (tests compare them, hypothesis over filters). numpy is imported where a
frame is read or counted, never when the app starts.
"""

from __future__ import annotations

import threading
from dataclasses import fields
from typing import TYPE_CHECKING, Any

from qa_inspect.core.store import LARGE_DATASET

from .columns import column_def
from .data_stamp import data_stamp
from .facet_frame import LIVE_FACETS, FacetFrame, facet_frame
from .filters import Filter
from .sql import CATEGORY, STALE_ITEMS_SQL, FacetDef, build, build_parts, run_ids

if TYPE_CHECKING:
    import numpy as np

__all__ = ["COUNT_FRAME_MIN_ITEMS", "count_frame", "facet_counts",
           "frame_metric_row"]

COUNT_FRAME_MIN_ITEMS = LARGE_DATASET
"""Datasets smaller than this are counted by SQL alone (under 50 ms): no frame is read for a count."""
LABELS = {"splits": "split", "tags": "tag", "answer_types": "answer_type"}
"""Filter field → the item label facet whose codes the frame holds."""
EXPRESSIBLE = frozenset({"dataset", "run", "sort", "descending", "outcome_threshold", "refused", "em", "f1_min",
                         "f1_max", "facets", *LABELS})
"""Filter fields a frame answers (sort and threshold change no count; facets: the error category alone)."""
_DEFAULT = Filter()
Counts = dict[Any, list[int]]
"""A facet's value → [items, errors]: what `core.query.facets` builds a table from."""


def count_frame(conn: Any, f: Filter, min_items: int = COUNT_FRAME_MIN_ITEMS) -> FacetFrame | None:
    """The frame of `f`'s run, read now when neither kept nor stored (one reader at a time: a second
    asker waits for it); None without a run or when its dataset holds fewer than `min_items` items."""
    ds, run, _ = run_ids(conn, f)
    if run is None or ds is None or ds == -1:
        return None
    n = conn.execute("SELECT COUNT(*) FROM items WHERE dataset_id = ?", (ds,)).fetchone()[0]
    if n < min_items:
        return None
    return facet_frame(conn, f, [])


def expressible(f: Filter) -> bool:
    """Whether a frame answers `f`: every field it sets is one the frame holds (facets: the error category)."""
    changed = {fl.name for fl in fields(Filter) if getattr(f, fl.name) != getattr(_DEFAULT, fl.name)}
    return bool(f.run) and changed <= EXPRESSIBLE and all(name == CATEGORY for name, _ in f.facets)


def _mask(frame: FacetFrame, f: Filter) -> np.ndarray:
    """The items `f` selects, as `core.query.sql.build_parts` words each condition."""
    import numpy as np

    mask = np.ones(len(frame.predicted), dtype=bool)
    wanted = [(LABELS[field], getattr(f, field)) for field in LABELS if getattr(f, field)]
    if f.facets:
        wanted.append((CATEGORY, tuple(v for _, v in f.facets)))  # one facet: its values OR-ed
    for column, values in wanted:  # `IN (…)`: NULL never matches
        codes, index = frame.label_codes(column)
        mask &= np.isin(codes, [index[v] for v in values if v is not None and v in index])
    if f.refused is not None:  # `p.refused = 1`, else a prediction that is not a refusal
        mask &= (frame.refused == 1) if f.refused else (frame.predicted & (frame.refused <= 0))
    if f.em is not None:  # COALESCE(p.em, 0) = ?
        mask &= np.where(frame.em < 0, 0, frame.em) == int(f.em)
    if f.f1_min is not None or f.f1_max is not None:  # COALESCE(p.f1, p.f1_recall, 0)
        score = np.where(np.isnan(frame.f1), np.nan_to_num(frame.f1_recall, nan=0.0), frame.f1)
        mask &= (score >= f.f1_min) if f.f1_min is not None else True
        mask &= (score <= f.f1_max) if f.f1_max is not None else True
    return mask


def frame_metric_row(frame: FacetFrame, f: Filter) -> tuple[Any, ...] | None:
    """`metrics_ab`'s row for run A from the frame (count, then `_metric_columns("p")`'s seven
    values: NULL where SQL's aggregate over no row is NULL); None when the frame cannot answer `f`."""
    if not expressible(f):
        return None
    import numpy as np

    mask = _mask(frame, f)
    items = int(mask.sum())
    if items == 0:
        return (0, 0, None, None, None, None, None, None)
    pred = mask & frame.predicted
    answered = pred & (frame.refused <= 0)
    n_answered = int(answered.sum())
    em = float(np.where(frame.em < 0, 0, frame.em)[mask].sum()) / items
    f1 = float(np.nan_to_num(frame.f1, nan=0.0)[mask].sum()) / items
    f1r = float(np.nan_to_num(frame.f1_recall, nan=0.0)[answered].sum()) / n_answered if n_answered else None
    has_em = int(bool((mask & (frame.em >= 0)).any()))
    has_cdqa = int(bool((mask & (~np.isnan(frame.f1_recall) | (frame.refused >= 0))).any()))
    return (items, int(pred.sum()), em, f1, n_answered, f1r, has_em, has_cdqa)


def facet_counts(conn: Any, f: Filter, defs: list[FacetDef]) -> list[Counts] | None:
    """Per facet of `defs`, value → [items, errors] over the items of `f` (only values some item
    has), from the frame and the live facets; None when the frame cannot answer (no file)."""
    import numpy as np  # with the first count, not with the app

    frame = facet_frame(conn, f, defs)
    if frame is None:
        return None
    if expressible(f):  # a mask over the frame: no pass over the filter's items
        at = np.flatnonzero(_mask(frame, f))
        ids = frame.ids[at]
    else:
        sql, params = build(conn, f)
        ids = np.fromiter((r[0] for r in conn.execute(f"SELECT i.id {sql}", params)), dtype=np.int64)
        ids.sort()
        at = np.searchsorted(frame.ids, ids)
        if len(ids) and (at[-1] >= len(frame.ids) or not np.array_equal(frame.ids[np.minimum(at, len(frame.ids) - 1)], ids)):
            return None  # an item outside the run's dataset (cannot happen through `build`): count in SQL
    whole = len(at) == len(frame.ids)  # every item: no selection to gather
    errors = frame.errors if whole else frame.errors[at]
    wrong = np.flatnonzero(errors)
    out: list[Counts] = []
    for d in defs:
        if d.name in LIVE_FACETS:
            out.append(_live(conn, f, d, ids, errors))
            continue
        codes, values = frame.codes[(d.name, d.expr, tuple(d.params))]
        picked = codes if whole else codes[at]
        n = np.bincount(picked, minlength=len(values))
        e = np.bincount(picked[wrong], minlength=len(values))
        out.append({values[c]: [int(n[c]), int(e[c])] for c in np.flatnonzero(n)})
    return out


_LIVE_KEEP = 8
_LIVE: dict[tuple[Any, ...], tuple[dict[int, Any], Any]] = {}
_LIVE_LOCK = threading.Lock()


def _live_values(conn: Any, f: Filter, d: FacetDef) -> tuple[dict[int, Any], Any]:
    """(item id → value of its few items with one, the default value) of a journal facet, kept
    until the journal or the data moves (every filter of a run asks the same)."""
    journal = conn.execute("SELECT COUNT(*), MAX(rowid) FROM annotations").fetchone()
    key = (data_stamp(conn), tuple(journal), d.name, d.expr, d.params, f.dataset if f.run is None else None, f.run)
    with _LIVE_LOCK:
        kept = _LIVE.get(key)
    if kept is not None and key[0] is not None:
        return kept
    if d.name == "stale":  # the flagged items themselves (`i.id IN (…)` is 1 for them, 0 for the rest)
        rows = conn.execute(STALE_ITEMS_SQL).fetchall()
        found: tuple[dict[int, Any], Any] = ({r[0]: 1 for r in rows}, 0)
    else:
        b = build_parts(conn, Filter(dataset=f.dataset, run=f.run))
        label = column_def("label")
        rows = conn.execute(
            f"SELECT i.id, ({d.expr}) FROM items i LEFT JOIN predictions p ON p.item_id = i.id AND p.run_id = ?"
            f"{b.where_sql(label.sparse or '1')}", [*d.params, b.run, *b.params, f.run, *label.sparse_params]).fetchall()
        found = ({r[0]: r[1] for r in rows if r[1] is not None}, None)
    with _LIVE_LOCK:
        _LIVE[key] = found
        while len(_LIVE) > _LIVE_KEEP:
            _LIVE.pop(next(iter(_LIVE)))
    return found


def _live(conn: Any, f: Filter, d: FacetDef, ids: np.ndarray, errors: np.ndarray) -> Counts:
    """A journal facet over `ids`: the values of its few items with one (flagged, labelled),
    the default value (not stale: 0; no label: None) for the rest."""
    import numpy as np  # with the first count, not with the app

    value_of, default = _live_values(conn, f, d)
    marked = np.fromiter(sorted(value_of), dtype=np.int64)
    hit = np.isin(ids, marked)
    out: Counts = {}
    rest = int((~hit).sum())
    if rest:
        out[default] = [rest, int(errors[~hit].sum())]
    for item, err in zip(ids[hit].tolist(), errors[hit].tolist(), strict=True):
        c = out.setdefault(value_of[item], [0, 0])
        c[0] += 1
        c[1] += err
    return out
