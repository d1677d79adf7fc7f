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
(`core.store.frame_store`, as BLOBs) for a dataset of `core.store.LARGE_DATASET` items or more, so a new
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
from qa_inspect.core import store
from qa_inspect.core.store import (
    DATASET_PART,
    StoredColumn,
    frame_stamp,
    frame_stored,
    store_frame,
    stored_frame,
)

from .data_stamp import data_stamp as _data_stamp
from .filters import Filter
from .frame_read import RUN_SQL, FacetId, facet_id, read_codes
from .sql import ERROR_SQL, FACETS, FacetDef, run_ids

if TYPE_CHECKING:
    import numpy as np

__all__ = ["LIVE_FACETS", "FacetFrame", "facet_frame", "kept_frame", "store_frames",
           "warm_frames"]

LIVE_FACETS = ("stale", "label")
"""Facets the annotation journal changes: counted per filter from their few items with a value."""

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
        codes, values = self.codes[facet_id(FACETS[name])]
        return codes, {v: k for k, v in enumerate(values)}


_KEEP = 2
"""Frames kept in this process (about 50 MB each at a million items)."""
_FRAMES: dict[tuple[Any, ...], FacetFrame] = {}
_LOCK = threading.Lock()
_READING = threading.Lock()
_P_COLUMN = re.compile(r"(?<![\w.])p\.")


def _fixed() -> tuple[list[FacetDef], list[FacetDef]]:
    """The facets every frame holds: (those of the item alone, those of run A's prediction)."""
    defs = [d for d in FACETS.values() if d.name not in LIVE_FACETS]
    items = [d for d in defs if not d.needs_run and not _P_COLUMN.search(d.expr)]
    return items, [d for d in defs if d not in items]


def _salt() -> str:
    """What the stored arrays code: every fixed facet's expression, the error's, the scores' SQL."""
    return hashlib.sha256(repr([[facet_id(d) for d in part] for part in _fixed()] + [ERROR_SQL, RUN_SQL])
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
        missing = [d for d in defs if d.name not in LIVE_FACETS and facet_id(d) not in frame.codes]
        if missing:
            frame.codes.update(read_codes(conn, f, missing, with_run=True)[1])
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
        if len(frame.ids) >= store.LARGE_DATASET:  # smaller ones are read in well under a second
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
    min_items = store.LARGE_DATASET if min_items is None else min_items
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
            codes[facet_id(d)] = (arrays[name], list(columns[name].values or []))
    return FacetFrame(arrays["ids"], arrays["errors"], codes, *(arrays[s] for s in SCORES))


def _read(conn: Any, f: Filter, items: dict[str, StoredColumn] | None = None) -> tuple[FacetFrame, dict[str, StoredColumn]]:
    """The frame from the rows: the item columns (unless given, from another run of the dataset),
    then run A's; with the arrays as they are stored."""
    import numpy as np  # with the first count, not with the app

    item_defs, run_defs = _fixed()
    if items is None:
        ids, item_codes, _ = read_codes(conn, f, item_defs, with_run=False)
    else:
        ids = np.frombuffer(items["ids"].data, dtype=np.dtype(items["ids"].dtype))
        item_codes = {facet_id(d): (np.frombuffer(items["item:" + d.name].data, np.dtype(items["item:" + d.name].dtype)),
                                     list(items["item:" + d.name].values or [])) for d in item_defs}
    _, run_codes, (packed, f1, f1_recall) = read_codes(conn, f, run_defs, with_run=True, ids=ids)
    errors, predicted = (packed & 1).astype(np.int8), (packed >> 1 & 1).astype(bool)
    em, refused = ((packed >> 2 & 3) - 1).astype(np.int8), ((packed >> 4 & 3) - 1).astype(np.int8)
    frame = FacetFrame(ids, errors, {**item_codes, **run_codes}, predicted, em, refused, f1, f1_recall)
    columns = {"ids": _column(ids), "errors": _column(errors)}
    columns.update({s: _column(getattr(frame, s)) for s in SCORES})
    for prefix, defs in (("item:", item_defs), ("run:", run_defs)):
        for d in defs:
            codes, values = frame.codes[facet_id(d)]
            columns[prefix + d.name] = _column(codes, values)
    return frame, columns


def _column(a: np.ndarray, values: list[Any] | None = None) -> StoredColumn:
    return StoredColumn(a.dtype.str, a.tobytes(), values)
