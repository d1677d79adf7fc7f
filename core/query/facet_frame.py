"""A run's frame: every item's facet value codes and run A's scores, read once per run, stored.

Counting every facet of a new filter used to evaluate every facet expression for every item it
selects (ten seconds at a million items, for each filter), and a new filter's count and metrics
were a pass over its items too. The values of most facets and the scores change only when a load
writes items or scores, so a run's `FacetFrame` holds, for every item of its dataset in id order,
the code of its value of each such facet, whether it is an error (`ERROR_SQL`) and run A's
scores (`core.query.count_frame` counts filters from them as masks; `facet_counts` there counts
the facets with `numpy.bincount`).

It is read by two passes (the dataset's item columns, shared by its runs; the run's prediction
columns), each one SQL statement whose every column comes back as one comma-joined text of
integers that numpy parses (about 1 s a part at a million items; rows into Python cost 5 s), and
kept three ways: in this process under a stamp of the loaded data; in the database
(`core.store.frame_store`, as BLOBs) for a dataset of `STORE_MIN_ITEMS` items or more, so a new
process reads a few blobs instead of a million rows; and `warm_frames` stores every big run's
frame after a load that changed something (the CLI and the app run it after their load). The facets the
annotation journal moves (stale, the run's labels) are never in a frame: `facet_counts` asks for
their few items per filter, so a flag or label written touches nothing kept or stored.
"""

from __future__ import annotations

import hashlib
import re
import sqlite3
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from qa_inspect.core.errors import QAInspectError
from qa_inspect.core.store import (
    DATASET_PART,
    LARGE_DATASET,
    StoredColumn,
    frame_stamp,
    frame_stored,
    store_frame,
    stored_frame,
)

from .columns import run_has_samples
from .data_stamp import data_stamp as _data_stamp
from .filters import Filter
from .sql import ERROR_SQL, FACETS, FacetDef, build_parts, run_ids

if TYPE_CHECKING:
    import numpy as np

__all__ = ["LIVE_FACETS", "STORE_MIN_ITEMS", "FacetFrame", "facet_frame", "kept_frame", "store_frames",
           "warm_frames"]

LIVE_FACETS = ("stale", "label")
"""Facets the annotation journal changes: counted per filter from their few items with a value."""
STORE_MIN_ITEMS = LARGE_DATASET
"""Datasets of this many items or more have their runs' frames stored (smaller ones read in well under a second)."""

FacetId = tuple[str, str, tuple[Any, ...]]
"""A facet as a frame knows it: name, expression, parameters (a judge's threshold is one)."""
SAMPLE_FACETS = ("pass_band", "distinct_answers", "flaky")
"""Facets of a run's sample aggregates (`core.load`'s columns, NULL on every prediction without
samples): a run that never sampled has no value of them, and no pass reads one."""
SCORES = ("predicted", "em", "refused", "f1", "f1_recall")
"""Run A's columns a frame holds besides the facets (`core.query.count_frame` reads them)."""


@dataclass(slots=True)
class FacetFrame:
    """Per item of a run's dataset (ids ascending): its error, each facet's value code, run A's scores."""

    ids: np.ndarray
    errors: np.ndarray
    codes: dict[FacetId, tuple[np.ndarray, list[Any]]]
    """Facet → (code per item, the values the codes index); a facet first asked for is added."""
    predicted: np.ndarray
    em: np.ndarray
    """-1 where NULL (no prediction, or no EM: CDQA); likewise `refused`."""
    refused: np.ndarray
    f1: np.ndarray
    """NaN where NULL; likewise `f1_recall`."""
    f1_recall: np.ndarray

    def label_codes(self, name: str) -> tuple[np.ndarray, dict[Any, int]]:
        """A fixed facet's codes and value → code (what a filter's mask selects by)."""
        codes, values = self.codes[_facet_id(FACETS[name])]
        return codes, {v: k for k, v in enumerate(values)}


_KEEP = 2
"""Frames kept in this process (about 50 MB each at a million items)."""
_FRAMES: dict[tuple[Any, ...], FacetFrame] = {}
_LOCK = threading.Lock()
_READING = threading.Lock()
_P_COLUMN = re.compile(r"(?<![\w.])p\.")


def _facet_id(d: FacetDef) -> FacetId:
    return d.name, d.expr, tuple(d.params)


def _fixed() -> tuple[list[FacetDef], list[FacetDef]]:
    """The facets every frame holds: (those of the item alone, those of run A's prediction)."""
    defs = [d for d in FACETS.values() if d.name not in LIVE_FACETS]
    items = [d for d in defs if not d.needs_run and not _P_COLUMN.search(d.expr)]
    return items, [d for d in defs if d not in items]


def _salt() -> str:
    """What the stored arrays code: every fixed facet's expression, the error's, the scores' SQL."""
    return hashlib.sha256(repr([[_facet_id(d) for d in part] for part in _fixed()] + [ERROR_SQL, _RUN_SQL])
                          .encode()).hexdigest()


def _key(conn: Any, f: Filter) -> tuple[tuple[Any, ...], int | None, int | None] | None:
    """(process key, dataset id, run id) of `f`'s frame; None for a database without a file."""
    stamp = _data_stamp(conn)
    if stamp is None:
        return None
    ds, run, _ = run_ids(conn, f)
    return (stamp, f.dataset if f.run is None else None, f.run), ds, run


def kept_frame(conn: Any, f: Filter) -> FacetFrame | None:
    """The frame of `f`'s run without reading any row: kept in this process, else stored in the
    database under the current stamp (then kept); None when neither, or while another thread
    reads a frame (the caller's SQL pass is quicker than waiting for it)."""
    key = _key(conn, f)
    if key is None or key[2] is None:
        return None
    with _LOCK:
        frame = _FRAMES.get(key[0])
    # never waits: while another thread reads a frame (seconds from the rows), the caller counts in SQL
    if frame is None and key[1] not in (None, -1) and key[2] != -1 and _READING.acquire(blocking=False):
        try:
            with _LOCK:
                frame = _FRAMES.get(key[0])
            if frame is None and (frame := _stored(conn, key[1], key[2])) is not None:
                _remember(key[0], frame)
        finally:
            _READING.release()
    return frame


def facet_frame(conn: Any, f: Filter, defs: list[FacetDef]) -> FacetFrame | None:
    """The frame of `f`'s dataset and run holding every facet of `defs` but the live ones: kept,
    else stored, else read (and stored when the dataset is big); a facet it lacks (a judge's) is
    read and added. None for a database without a file (nothing to stamp it by)."""
    key = _key(conn, f)
    if key is None:
        return None
    with _READING:  # one reader at a time: a second asker waits for the frame instead of reading it too
        with _LOCK:
            frame = _FRAMES.get(key[0])
        if frame is None:
            frame = _load(conn, f, key[1], key[2])
            _remember(key[0], frame)
        missing = [d for d in defs if d.name not in LIVE_FACETS and _facet_id(d) not in frame.codes]
        if missing:
            frame.codes.update(_read_codes(conn, f, missing, with_run=True)[1])
        return frame


def _remember(key: tuple[Any, ...], frame: FacetFrame) -> None:
    with _LOCK:
        _FRAMES[key] = frame
        while len(_FRAMES) > _KEEP:
            _FRAMES.pop(next(iter(_FRAMES)))


def _load(conn: Any, f: Filter, ds: int | None, run: int | None) -> FacetFrame:
    """The stored frame of a run, else read from the rows (and stored for a big dataset)."""
    storable = ds not in (None, -1) and run not in (None, -1)
    if storable:
        assert ds is not None and run is not None
        frame = _stored(conn, ds, run)
        if frame is not None:
            return frame
        frame, columns = _read(conn, f)
        if len(frame.ids) >= STORE_MIN_ITEMS:
            _store(conn, ds, run, columns)
        return frame
    return _read(conn, f)[0]


def warm_frames(conn: Any, min_items: int | None = None) -> int:
    """Store the frame of every run whose dataset holds `min_items` items or more and whose
    stored frame is missing or out of date (after a load: the first panel of each run then reads
    blobs). The dataset's item part is read once for all its runs. Best effort, like the stored
    frames: a database that cannot be written is skipped. Returns how many runs' frames it read.
    The CLI and the app run it after a load that changed something (`store_frames`); a Python
    caller of `core.load.load_runs` calls it after the load (the loader sits below this layer)."""
    min_items = STORE_MIN_ITEMS if min_items is None else min_items
    done = 0
    datasets = conn.execute("SELECT d.id, d.name FROM datasets d WHERE (SELECT COUNT(*) FROM items i"
                            " WHERE i.dataset_id = d.id) >= ?", (min_items,)).fetchall()
    for ds, name in datasets:
        stamp = frame_stamp(conn, ds, _salt())
        items: dict[str, StoredColumn] | None = None
        for run, run_name in conn.execute("SELECT id, name FROM runs WHERE dataset_id = ? ORDER BY id", (ds,)).fetchall():
            if frame_stored(conn, ds, run, stamp) and frame_stored(conn, ds, DATASET_PART, stamp):
                continue
            _, columns = _read(conn, Filter(dataset=name, run=run_name), items)
            items = {k: v for k, v in columns.items() if k == "ids" or k.startswith("item:")}
            if not _store(conn, ds, run, columns, stamp):
                return done
            done += 1
    return done


def store_frames(db: Path) -> int:
    """`warm_frames` on the database at `db`, opened for it and closed; nothing on an error of the
    database (busy, read-only): each run's first panel then reads and stores its own frame."""
    from qa_inspect.core.store import open_db

    try:
        handle = open_db(db)
    except (OSError, sqlite3.Error, QAInspectError):
        return 0
    try:
        return warm_frames(handle.conn)
    except sqlite3.Error:
        return 0
    finally:
        handle.conn.close()


def _store(conn: Any, ds: int, run: int, columns: dict[str, StoredColumn], stamp: str | None = None) -> bool:
    """The dataset's item columns and the run's columns stored under the current stamp."""
    stamp = stamp or frame_stamp(conn, ds, _salt())
    items = {k: v for k, v in columns.items() if k == "ids" or k.startswith("item:")}
    runs = {k: v for k, v in columns.items() if k not in items}
    if not frame_stored(conn, ds, DATASET_PART, stamp) and not store_frame(conn, ds, DATASET_PART, stamp, items):
        return False
    return store_frame(conn, ds, run, stamp, runs)


def _stored(conn: Any, ds: int, run: int) -> FacetFrame | None:
    """The frame from its stored arrays, when both parts are stored under the current stamp."""
    import numpy as np  # with the first count, not with the app

    stamp = frame_stamp(conn, ds, _salt())
    items = stored_frame(conn, ds, DATASET_PART, stamp)
    runs = stored_frame(conn, ds, run, stamp) if items is not None else None
    if items is None or runs is None:
        return None
    columns = {**items, **runs}
    arrays = {k: np.frombuffer(c.data, dtype=np.dtype(c.dtype)) for k, c in columns.items()}
    if len({len(a) for a in arrays.values()}) != 1:  # parts of different reads: read the rows again
        return None
    item_defs, run_defs = _fixed()
    codes: dict[FacetId, tuple[np.ndarray, list[Any]]] = {}
    for prefix, defs in (("item:", item_defs), ("run:", run_defs)):
        for d in defs:
            name = prefix + d.name
            if name not in columns:
                return None
            codes[_facet_id(d)] = (arrays[name], list(columns[name].values or []))
    return FacetFrame(arrays["ids"], arrays["errors"], codes, *(arrays[s] for s in SCORES))


_RUN_SQL = (f"COALESCE({ERROR_SQL}, 0) | ((p.id IS NOT NULL) << 1) | ((COALESCE(p.em, -1) + 1) << 2)"
            " | ((COALESCE(p.refused, -1) + 1) << 4)")
"""Run A's error, predicted, EM and refused packed in one integer (2 bits each, -1 = NULL as 0);
F1 and F1-recall (`SCORES`) follow it as scaled integers (`_score_sql`)."""
SCALE = 1 << 62
"""A score in 0…1 times this is an integer that SQLite and numpy hold exactly whenever the score is
at least 2⁻¹⁰ (its last bit is then worth 2⁻⁶² or more): scores travel as texts of integers and
come back bit for bit. A score the integer does not hold (tiny, negative, above 2) is listed by
its item and read again as a float (`_exact`)."""


def _read(conn: Any, f: Filter, items: dict[str, StoredColumn] | None = None) -> tuple[FacetFrame, dict[str, StoredColumn]]:
    """The frame from the rows: the item columns (unless given, from another run of the dataset),
    then run A's; with the arrays as they are stored."""
    import numpy as np  # with the first count, not with the app

    item_defs, run_defs = _fixed()
    if items is None:
        ids, item_codes, _ = _read_codes(conn, f, item_defs, with_run=False)
    else:
        ids = np.frombuffer(items["ids"].data, dtype=np.dtype(items["ids"].dtype))
        item_codes = {_facet_id(d): (np.frombuffer(items["item:" + d.name].data, np.dtype(items["item:" + d.name].dtype)),
                                     list(items["item:" + d.name].values or [])) for d in item_defs}
    _, run_codes, (packed, f1, f1_recall) = _read_codes(conn, f, run_defs, with_run=True, ids=ids)
    errors, predicted = (packed & 1).astype(np.int8), (packed >> 1 & 1).astype(bool)
    em, refused = ((packed >> 2 & 3) - 1).astype(np.int8), ((packed >> 4 & 3) - 1).astype(np.int8)
    frame = FacetFrame(ids, errors, {**item_codes, **run_codes}, predicted, em, refused, f1, f1_recall)
    columns = {"ids": _column(ids), "errors": _column(errors)}
    columns.update({s: _column(getattr(frame, s)) for s in SCORES})
    for prefix, defs in (("item:", item_defs), ("run:", run_defs)):
        for d in defs:
            codes, values = frame.codes[_facet_id(d)]
            columns[prefix + d.name] = _column(codes, values)
    return frame, columns


def _column(a: np.ndarray, values: list[Any] | None = None) -> StoredColumn:
    return StoredColumn(a.dtype.str, a.tobytes(), values)


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


def _read_codes(conn: Any, f: Filter, defs: list[FacetDef], *, with_run: bool, ids: np.ndarray | None = None
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
        codes[_facet_id(d)] = (raw.astype(np.min_scalar_type(max(len(values) - 1, 0))), values)
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


def _score_sql(column: str, key: str) -> tuple[str, str]:
    """A score's SQL for the texts read: its scaled integer (NULL → −1), and the item `key` of a
    row whose score the integer does not hold exactly (else NULL, which `group_concat` skips)."""
    scaled = f"{column} * {SCALE}"
    return (f"COALESCE(CAST({scaled} AS INTEGER), -1)",
            f"CASE WHEN {column} < 0 OR CAST({scaled} AS INTEGER) != {scaled} THEN {key} END")


def _select(exprs: list[str], key: str, with_run: bool) -> tuple[list[str], list[str]]:
    """(per-row integer expressions: the packed codes, then with the run its packed scores, F1 and
    F1-recall scaled; the listed-key expressions: the items whose F1, F1-recall did not scale)."""
    if not with_run:
        return exprs, []
    (f1, f1_odd), (f1r, f1r_odd) = _score_sql("p.f1", key), _score_sql("p.f1_recall", key)
    return [*exprs, _RUN_SQL, f1, f1r], [f1_odd, f1r_odd]


def _texts(conn: Any, per_row: list[str], listed: list[str], rest: str, params: list[Any]
           ) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Each expression over the rows of `rest` (FROM … WHERE …) as one comma-joined text of
    integers, in one pass, parsed by numpy: `per_row` ones (never NULL, so aligned: the texts
    follow one scan) and `listed` ones (NULL but for a few rows)."""
    import numpy as np  # with the first count, not with the app

    texts = conn.execute(f"SELECT {', '.join(f'group_concat({e})' for e in [*per_row, *listed])} {rest}",
                         params).fetchone()
    parsed = [np.fromstring(t, dtype=np.int64, sep=",") if t else np.zeros(0, dtype=np.int64) for t in texts]
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
    items' read again as floats: `_exact`)."""
    import numpy as np  # with the first count, not with the app

    out = columns[:n_codes + 1]
    for raw, listed, name in zip(columns[n_codes + 1:], odd, ("f1", "f1_recall"), strict=True):
        score = np.where(raw < 0, np.nan, raw / SCALE)
        if len(listed) and run is not None:
            items, values = _exact(conn, run, name, listed)
            score[np.searchsorted(ids, items)] = values
        out.append(score)
    return out


def _exact(conn: Any, run: int, column: str, items: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(item, `column` of run `run`) as floats for the listed items, ids ascending."""
    import numpy as np  # with the first count, not with the app

    if column not in SCORES:  # the only way a name enters this SQL: a fixed one
        raise ValueError(column)
    found: dict[int, float] = {}
    listed = sorted(set(items.tolist()))
    for start in range(0, len(listed), 500):  # within SQLite's parameter limit
        part = listed[start:start + 500]
        found.update(conn.execute(f"SELECT item_id, {column} FROM predictions WHERE run_id = ? AND item_id IN"
                                  f" ({', '.join('?' * len(part))})", [run, *part]).fetchall())
    keys = np.fromiter(found, dtype=np.int64, count=len(found))
    return keys, np.array([found[k] for k in keys.tolist()], dtype=np.float64)


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
