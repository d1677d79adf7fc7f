"""The load's last step: the overview's first-paint rows summed and stored for every dataset whose
stored rows are out of date, so the first open after a load paints from them (a second at a million
predictions, better spent once by the load than at every open).

It is part of the load (`load_runs` calls it) rather than of a command, so a Python caller of
`load_runs` leaves the same database as `qa-inspect load`.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from qa_inspect.core.metrics import uses_f1_recall
from qa_inspect.core.store import (
    LARGE_DATASET,
    OverviewRows,
    cached_rows,
    index_texts,
    index_meta_keys,
    overview_rows,
    passage_firsts,
)

__all__ = ["warm_app", "warm_overview"]


def warm_app(conn: sqlite3.Connection, with_meta: list[int] | None = None) -> None:
    """What a load that changed something leaves ready for the app: the overview's stored rows,
    an index for each new `meta` key of the runs `with_meta` (default: every run; a load passes
    the runs it stored with `meta`: looking for keys reads every row of a run without any, 0.5 s
    of a 100-run load) (`core.store.meta_index`) and, once a dataset is
    large, the answers' index (`core.store.text_indexes`), so the browser sorts by them down an
    index, and which of its passages share one text (`core.store.passages`: the resampling unit
    of the first comparison, 1.3 s at 250,000 passages), best effort too: a database that cannot
    be written sorts and compares slower."""
    warm_overview(conn)
    try:
        index_meta_keys(conn, with_meta)
        index_texts(conn)
        for (dataset_id,) in conn.execute("SELECT id FROM datasets WHERE item_count >= ?", (LARGE_DATASET,)).fetchall():
            passage_firsts(conn, dataset_id)
    except sqlite3.OperationalError:
        pass


def warm_overview(conn: Any) -> int:
    """Store the overview's first-paint rows (each run's overall sums, no slices) of every dataset
    whose stored rows are out of date. The slices are grouped by the app in the background, once,
    and stored too. Returns how many datasets it computed.

    Best effort, like the cache itself: a database that cannot be written now (busy, read-only)
    is summed at the next open instead, so an `sqlite3.Error` here never fails a load."""
    computed: list[int] = []
    try:
        datasets = conn.execute("SELECT id, family, scorer FROM datasets ORDER BY id").fetchall()
        for ds_id, family, scorer in datasets:
            cdqa = uses_f1_recall(scorer, family)

            def compute(ds_id: int = ds_id, cdqa: bool = cdqa) -> OverviewRows:
                computed.append(ds_id)
                return overview_rows(conn, ds_id, False, cdqa)

            cached_rows(conn, ds_id, False, compute)
    except sqlite3.Error:
        pass
    return len(computed)
