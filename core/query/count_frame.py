"""A new filter's count and metrics from per-item arrays of its run, not a pass over its items.

`metrics_ab` is one SQL pass over the items a filter selects, each looked up in run A's covering
index: 0.3–1.3 s at a million items, for every new filter. What most filters select by (an item
label: split, tag, answer type; run A's EM, F1 range, refusal, error category) and what the
metrics sum (run A's scores) change only when a load writes items or scores. So a run's
`CountFrame` holds them for every item of its dataset, read once per run and process under the
facet frame's stamp of the loaded data (`core.query.facet_frame`); a filter made of those
conditions alone is then a boolean mask and its count and metrics are sums over it
(milliseconds). Other filters (a search, stale flags, run B, an expression …) keep the SQL pass.

The frame is used only when it is already there (`cached_count_frame`): reading it costs a few
SQL passes, so the browser reads it in the background once a big run's first count is shown
(`count_frame`, from `tui.screens.item_counts`). Every count equals the SQL count and every
metric equals it to rounding (tests compare them, hypothesis over filters). numpy is imported
where a frame is read or counted, never when the app starts.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any

from .data_stamp import data_stamp
from .filters import Filter
from .sql import CATEGORY, FACETS, run_ids

if TYPE_CHECKING:
    import numpy as np

__all__ = ["COUNT_FRAME_MIN_ITEMS", "CountFrame", "cached_count_frame", "count_frame", "frame_metric_row"]

COUNT_FRAME_MIN_ITEMS = 50_000
"""Datasets smaller than this are counted by SQL alone (under 50 ms): no frame is worth its memory."""
LABELS = {"splits": "split", "tags": "tag", "answer_types": "answer_type"}
"""Filter field → item label column the frame holds codes of (fixed names: the only way a column enters SQL)."""
EXPRESSIBLE = frozenset({"dataset", "run", "sort", "descending", "outcome_threshold", "refused", "em", "f1_min",
                         "f1_max", "facets", *LABELS})
"""Filter fields a frame answers (sort and threshold change no count; facets: the error category alone)."""
_DEFAULT = Filter()
_KEEP = 2
"""Frames kept in this process (about 35 MB each at a million items)."""
_FRAMES: dict[tuple[Any, ...], CountFrame] = {}
_LOCK = threading.Lock()
_READING = threading.Lock()


@dataclass(slots=True)
class CountFrame:
    """Per item of a run's dataset (in no particular order): label and category codes, scores."""

    codes: dict[str, tuple[np.ndarray, dict[Any, int]]]
    """Label column (and `error_category`) → (code per item, value → code)."""
    predicted: np.ndarray
    em: np.ndarray
    """-1 where NULL (no prediction, or no EM: CDQA); likewise `refused`."""
    refused: np.ndarray
    f1: np.ndarray
    """NaN where NULL; likewise `f1_recall`."""
    f1_recall: np.ndarray


def _key(conn: Any, f: Filter) -> tuple[Any, ...] | None:
    """(data stamp, dataset id, run id) of `f`'s run; None without a loaded run or a file stamp."""
    ds, run, _ = run_ids(conn, f)
    if run is None or ds is None or ds == -1:
        return None
    stamp = data_stamp(conn)
    return None if stamp is None else (stamp, ds, run)


def cached_count_frame(conn: Any, f: Filter) -> CountFrame | None:
    """The frame of `f`'s run when this process read it for the data as it is now, else None."""
    key = _key(conn, f)
    with _LOCK:
        return _FRAMES.get(key) if key is not None else None


def count_frame(conn: Any, f: Filter, min_items: int = COUNT_FRAME_MIN_ITEMS) -> CountFrame | None:
    """The frame of `f`'s run, read now when not kept (one reader at a time: a second asker waits
    for it); None without a run or when its dataset holds fewer than `min_items` items."""
    key = _key(conn, f)
    if key is None:
        return None
    n = conn.execute("SELECT COUNT(*) FROM items WHERE dataset_id = ?", (key[1],)).fetchone()[0]
    if n < min_items:
        return None
    with _READING:
        with _LOCK:
            if key in _FRAMES:
                return _FRAMES[key]
        frame = _read(conn, key[1], key[2])
        with _LOCK:
            _FRAMES[key] = frame
            while len(_FRAMES) > _KEEP:
                del _FRAMES[next(iter(_FRAMES))]
        return frame


def _read(conn: Any, dataset: int, run: int) -> CountFrame:
    """One pass over the dataset's items with run A's prediction, in chunks (bounded memory)."""
    import numpy as np

    category = FACETS[CATEGORY]
    cur = conn.execute(
        f"SELECT i.split, i.tag, i.answer_type, ({category.expr}), p.id IS NOT NULL, COALESCE(p.em, -1),"
        " COALESCE(p.refused, -1), p.f1, p.f1_recall FROM items i"
        " LEFT JOIN predictions p ON p.item_id = i.id AND p.run_id = ? WHERE i.dataset_id = ?",
        [*category.params, run, dataset])
    names = ["split", "tag", "answer_type", CATEGORY]
    index: list[dict[Any, int]] = [{} for _ in names]
    parts: list[list[np.ndarray]] = [[] for _ in range(9)]
    while rows := cur.fetchmany(65_536):
        columns = list(zip(*rows))
        for k in range(4):
            seen = index[k]
            parts[k].append(np.fromiter((seen.setdefault(v, len(seen)) for v in columns[k]), np.int32,
                                        len(rows)))
        parts[4].append(np.array(columns[4], dtype=bool))
        parts[5].append(np.array(columns[5], dtype=np.int8))
        parts[6].append(np.array(columns[6], dtype=np.int8))
        parts[7].append(np.array(columns[7], dtype=np.float64))  # None → NaN
        parts[8].append(np.array(columns[8], dtype=np.float64))
    dtypes = [np.int32] * 4 + [bool, np.int8, np.int8, np.float64, np.float64]
    cols = [np.concatenate(p) if p else np.zeros(0, dtype=t) for p, t in zip(parts, dtypes)]
    return CountFrame({name: (cols[k], index[k]) for k, name in enumerate(names)}, *cols[4:])


def expressible(f: Filter) -> bool:
    """Whether a frame answers `f`: every field it sets is one the frame holds (facets: the error category)."""
    changed = {fl.name for fl in fields(Filter) if getattr(f, fl.name) != getattr(_DEFAULT, fl.name)}
    return bool(f.run) and changed <= EXPRESSIBLE and all(name == CATEGORY for name, _ in f.facets)


def _mask(frame: CountFrame, f: Filter) -> np.ndarray:
    """The items `f` selects, as `core.query.sql.build_parts` words each condition."""
    import numpy as np

    mask = np.ones(len(frame.predicted), dtype=bool)
    wanted = [(LABELS[field], getattr(f, field)) for field in LABELS if getattr(f, field)]
    if f.facets:
        wanted.append((CATEGORY, tuple(v for _, v in f.facets)))  # one facet: its values OR-ed
    for column, values in wanted:  # `IN (…)`: NULL never matches
        codes, index = frame.codes[column]
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


def frame_metric_row(frame: CountFrame, f: Filter) -> tuple[Any, ...] | None:
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
