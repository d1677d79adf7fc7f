"""Facet counts of any filter from per-item value codes read once per run, not a pass per filter.

Counting every facet of a new filter used to evaluate every facet expression for every item it
selects (ten seconds at a million items, for each filter). The values of most facets change only
when a load writes items or scores, so a run's `FacetFrame` holds, for every item of its dataset
in id order, the code of its value of each such facet and whether it is an error (`ERROR_SQL`),
under a stamp of the loaded data. A filter's counts are then its item ids (one query, the
filter's own conditions) looked up in the frame and counted with `numpy.bincount`.

The facets the annotation journal moves (stale, the run's labels) are not in the frame: each
filter asks for the few items that have a value (the flagged items; the labelled ones) and
counts the rest as the default value, so a flag or label written counts at once, without
reading the frame again. Every count equals the `GROUP BY` of the same expressions over the
filter (tests compare them).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any


from .columns import column_def
from .data_stamp import data_stamp as _data_stamp
from .filters import Filter
from .sql import ERROR_SQL, STALE_ITEMS_SQL, FacetDef, build, build_parts

if TYPE_CHECKING:
    import numpy as np

__all__ = ["FacetFrame", "LIVE_FACETS", "facet_counts", "facet_frame"]

LIVE_FACETS = ("stale", "label")
"""Facets the annotation journal changes: counted per filter from their few items with a value."""

Counts = dict[Any, list[int]]
"""A facet's value → [items, errors]: what `core.query.facets` builds a table from."""


FacetId = tuple[str, str, tuple[Any, ...]]
"""A facet as a frame knows it: name, expression, parameters (a judge's threshold is one)."""


@dataclass(slots=True)
class FacetFrame:
    """Per item of a run's dataset (ids ascending): its error, and each facet's value code."""

    ids: np.ndarray
    errors: np.ndarray
    codes: dict[FacetId, tuple[np.ndarray, list[Any]]]
    """Facet → (code per item, the values the codes index); a facet first asked for is added."""


_KEEP = 2
"""Frames kept in this process (tens of MB each at a million items)."""
_FRAMES: dict[tuple[Any, ...], FacetFrame] = {}
_LOCK = threading.Lock()
_READING = threading.Lock()


def _base(f: Filter) -> Filter:
    """The filter of every item a frame holds: `f`'s dataset and run, nothing else."""
    return Filter(dataset=f.dataset, run=f.run)


def _facet_id(d: FacetDef) -> FacetId:
    return d.name, d.expr, tuple(d.params)


def facet_frame(conn: Any, f: Filter, defs: list[FacetDef]) -> FacetFrame | None:
    """The frame of `f`'s dataset and run holding every facet of `defs` but the live ones (read
    once, then kept while its stamp holds; a facet it lacks is read and added); None for a
    database without a file (nothing to stamp it by)."""
    stamp = _data_stamp(conn)
    if stamp is None:
        return None
    key = (stamp, f.dataset, f.run)
    with _READING:  # one reader at a time: a second asker waits for the frame instead of reading it too
        with _LOCK:
            frame = _FRAMES.get(key)
        missing = [d for d in defs if d.name not in LIVE_FACETS and (frame is None or _facet_id(d) not in frame.codes)]
        if frame is not None and not missing:
            return frame
        read = _read(conn, f, missing)
        with _LOCK:
            frame = _FRAMES.get(key)
            if frame is None:
                frame = _FRAMES[key] = read
            else:
                frame.codes.update(read.codes)
            while len(_FRAMES) > _KEEP:
                _FRAMES.pop(next(iter(_FRAMES)))
        return frame


def _read(conn: Any, f: Filter, defs: list[FacetDef]) -> FacetFrame:
    """One pass over the run's items in id order, each facet's values coded as they come."""
    import numpy as np  # with the first count, not with the app

    sql, params = build(conn, _base(f))
    cols = "".join(f", ({d.expr})" for d in defs)
    cur = conn.execute(f"SELECT i.id{cols}, {ERROR_SQL} {sql} ORDER BY i.id",
                       [*(p for d in defs for p in d.params), *params])
    ids: list[np.ndarray] = []
    errors: list[np.ndarray] = []
    codes: list[list[np.ndarray]] = [[] for _ in defs]
    seen: list[dict[Any, int]] = [{} for _ in defs]
    while batch := cur.fetchmany(50_000):
        columns = list(zip(*batch, strict=True))  # a column at a time: 3-4x faster than row by row
        ids.append(np.asarray(columns[0], dtype=np.int64))
        errors.append(np.asarray([e or 0 for e in columns[-1]], dtype=np.int64))
        for k, known in enumerate(seen):
            code = known.setdefault  # a new value takes the next code (the size before it is added)
            codes[k].append(np.fromiter((code(v, len(known)) for v in columns[k + 1]), dtype=np.int32,
                                        count=len(batch)))
    frame_codes = {
        _facet_id(d): (_joined(column).astype(np.min_scalar_type(max(len(known) - 1, 0))),
                       list(known))
        for d, known, column in zip(defs, seen, codes, strict=True)
    }
    return FacetFrame(_joined(ids), _joined(errors), frame_codes)


def _joined(parts: list[np.ndarray]) -> np.ndarray:
    import numpy as np  # with the first count, not with the app

    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)


def facet_counts(conn: Any, f: Filter, defs: list[FacetDef]) -> list[Counts] | None:
    """Per facet of `defs`, value → [items, errors] over the items of `f` (only values some item
    has), from the frame and the live facets; None when the frame cannot answer (no file)."""
    import numpy as np  # with the first count, not with the app

    frame = facet_frame(conn, f, defs)
    if frame is None:
        return None
    sql, params = build(conn, f)
    ids = np.fromiter((r[0] for r in conn.execute(f"SELECT i.id {sql}", params)), dtype=np.int64)
    ids.sort()
    at = np.searchsorted(frame.ids, ids)
    if len(ids) and (at[-1] >= len(frame.ids) or not np.array_equal(frame.ids[np.minimum(at, len(frame.ids) - 1)], ids)):
        return None  # an item outside the run's dataset (cannot happen through `build`): count in SQL
    errors = frame.errors[at]
    out: list[Counts] = []
    for d in defs:
        if d.name in LIVE_FACETS:
            out.append(_live(conn, f, d, ids, errors))
            continue
        codes, values = frame.codes[_facet_id(d)]
        picked = codes[at]
        n = np.bincount(picked, minlength=len(values))
        e = np.bincount(picked, weights=errors, minlength=len(values))
        out.append({values[c]: [int(n[c]), int(e[c])] for c in np.flatnonzero(n)})
    return out


def _live(conn: Any, f: Filter, d: FacetDef, ids: np.ndarray, errors: np.ndarray) -> Counts:
    """A journal facet over `ids`: the values of its few items with one (flagged, labelled),
    the default value (not stale: 0; no label: None) for the rest."""
    import numpy as np  # with the first count, not with the app

    if d.name == "stale":  # the flagged items themselves (`i.id IN (…)` is 1 for them, 0 for the rest)
        rows = conn.execute(STALE_ITEMS_SQL).fetchall()
        value_of, default = {r[0]: 1 for r in rows}, 0
    else:
        b = build_parts(conn, _base(f))
        label = column_def("label")
        rows = conn.execute(
            f"SELECT i.id, ({d.expr}) FROM items i LEFT JOIN predictions p ON p.item_id = i.id AND p.run_id = ?"
            f"{b.where_sql(label.sparse or '1')}", [*d.params, b.run, *b.params, f.run, *label.sparse_params]).fetchall()
        value_of, default = {r[0]: r[1] for r in rows if r[1] is not None}, None
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
