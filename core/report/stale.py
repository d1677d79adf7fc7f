"""Metrics with stale golds left out, beside the stored all-golds numbers.

A stale gold no longer counts: predictions on its item are re-scored against the golds left and
items left with no scored gold are dropped, so a release's outdated answers do not blur a run's score.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from qa_inspect.core.metrics import human_score, score_prediction
from qa_inspect.core.query import dimension_columns, feature_columns
from qa_inspect.core.store import STALE_GOLDS_SQL, require_run, sqlite_connection

from .metrics import HUMAN, item_frame, slice_table

if TYPE_CHECKING:
    import polars as pl

__all__ = ["ALL_GOLDS", "EXCLUDE_STALE", "StaleRescore", "item_frame_excluding_stale", "rescore_excluding_stale"]


EXCLUDE_STALE = "stale golds excluded"
ALL_GOLDS = "all golds"


@dataclass(slots=True)
class _StaleItem:
    dataset: str
    key: str
    stale: set[str]
    remaining: list[str]
    """Scored gold texts that are not stale, in dataset order (duplicates kept, as scorers want them)."""


def _stale_items(conn: sqlite3.Connection) -> dict[int, _StaleItem]:
    """item id → its stale gold texts and the scored golds left, for items with a stale gold now."""
    out: dict[int, _StaleItem] = {}
    for item_id, dataset, key, text in conn.execute(
        # the flagged golds first (MATERIALIZED: else SQLite walks every gold to join them, seconds at 1M)
        f"WITH s AS MATERIALIZED ({STALE_GOLDS_SQL}) SELECT DISTINCT s.item_id, d.name, i.key, g.text FROM s"
        " JOIN golds g ON g.id = s.gold_id JOIN items i ON i.id = s.item_id JOIN datasets d ON d.id = i.dataset_id"
    ):
        out.setdefault(item_id, _StaleItem(dataset, key, set(), [])).stale.add(text)
    for item_id, st in out.items():
        st.remaining = [
            t for (t,) in conn.execute(
                "SELECT text FROM golds WHERE item_id = ? AND superseded = 0 ORDER BY idx", (item_id,))
            if t not in st.stale
        ]
    return out


def item_frame_excluding_stale(conn: Any, runs: Sequence[str] | None = None, *, human: bool = True,
                               only_stale: bool = False) -> pl.DataFrame:
    """`core.report.item_frame` with stale golds left out.

    Same columns, so `core.report.slice_table` aggregates it exactly like the normal report.
    Predictions on items with a stale gold are re-scored against the golds left (with
    `core.metrics.registry.score_prediction`, the run's scorer); items left with no scored gold are
    dropped (from every run and from the human estimate, which is recomputed from the golds left).
    Extra columns: `stale_golds` (the item's stale gold texts) and `mode` (= `EXCLUDE_STALE`).
    `only_stale`: the rows of the items with a stale gold alone (what differs from the stored
    scores: a few hundred rows where the whole frame holds a million).
    """
    import polars as pl

    raw = sqlite_connection(conn)
    stale = _stale_items(raw)
    frame = item_frame(raw, runs, human=False, items=sorted(stale) if only_stale else None)
    by_key = {(st.dataset, st.key): (iid, st) for iid, st in stale.items()}
    schema = dict(frame.schema)
    rows: list[dict[str, Any]] = []
    if stale:
        sql = (
            "SELECT r.name, p.item_id, p.text, COALESCE(p.scorer, r.scorer) FROM predictions p"
            f" JOIN runs r ON r.id = p.run_id WHERE p.item_id IN ({', '.join('?' * len(stale))})"
        )
        params: list[Any] = list(stale)
        if runs is not None:
            sql += f" AND r.name IN ({', '.join('?' * len(runs))})" if runs else " AND 0"
            params += list(runs)
        rescored = {}
        for run, iid, text, scorer in raw.execute(sql, params):
            if stale[iid].remaining:
                rescored[(run, iid)] = score_prediction(scorer, text, stale[iid].remaining)
        for rec in frame.iter_rows(named=True):
            hit = by_key.get((rec["dataset"], rec["item_key"]))
            if hit is None:
                continue
            iid, st = hit
            if not st.remaining:
                continue
            score = rescored.get((rec["run"], iid))
            if score is not None:
                rec.update(em=None if score.em is None else float(score.em), f1=score.f1,
                           refused=score.refused, f1_recall=score.f1_recall)
            rows.append(rec)
        touched = pl.DataFrame(list(by_key), schema={"dataset": pl.String, "item_key": pl.String}, orient="row")
        frame = frame.join(touched, on=["dataset", "item_key"], how="anti")
        if rows:
            frame = pl.concat([frame, pl.DataFrame(rows, schema=schema)], how="vertical")
    if human:
        hum = []
        for ds, family, key, *labels, iid, hem, hf1, scorer in raw.execute(  # labels: dimensions, category, label
            f"SELECT d.name, d.family, i.key, {dimension_columns()}, {feature_columns()}, NULL, NULL, i.id, i.human_em,"
            " i.human_f1, d.scorer"
            " FROM items i JOIN datasets d ON d.id = i.dataset_id WHERE i.human_f1 IS NOT NULL"
            + (" AND i.id IN (SELECT value FROM json_each(?))" if only_stale else "") + " ORDER BY i.id",
            [json.dumps(sorted(stale))] if only_stale else [],
        ):
            if iid in stale:
                est = human_score(stale[iid].remaining)
                if est is None:
                    continue
                hem, hf1 = est.em, est.f1
            hum.append((ds, family, HUMAN, key, *labels, True, hem, hf1, None, None, scorer))
        if hum:
            frame = pl.concat([frame, pl.DataFrame(hum, schema=schema, orient="row")], how="vertical")
    counts = pl.DataFrame(
        [(st.dataset, st.key, len(st.stale)) for st in stale.values()],
        schema={"dataset": pl.String, "item_key": pl.String, "stale_golds": pl.Int64}, orient="row",
    )
    return frame.join(counts, on=["dataset", "item_key"], how="left").with_columns(
        pl.col("stale_golds").fill_null(0), pl.lit(EXCLUDE_STALE).alias("mode")
    )


@dataclass(slots=True)
class StaleRescore:
    """One run's overall numbers with every gold and with stale golds excluded (`core.report` units: percent)."""

    run: str
    dataset: str
    family: str
    stale_golds: int
    """Stale gold texts in the run's dataset."""
    items_dropped: int
    """Items left with no scored gold (not counted in `excluding_stale`)."""
    items_rescored: int
    """Items still counted whose golds lost a stale one (their predictions were re-scored)."""
    all_golds: dict[str, Any]
    excluding_stale: dict[str, Any]
    mode: str = EXCLUDE_STALE

    def to_dict(self) -> dict[str, Any]:
        return {
            "run": self.run, "dataset": self.dataset, "family": self.family, "mode": self.mode,
            "stale_golds": self.stale_golds, "items_dropped": self.items_dropped,
            "items_rescored": self.items_rescored, "all_golds": self.all_golds,
            "excluding_stale": self.excluding_stale,
        }


def rescore_excluding_stale(conn: Any, run: str) -> StaleRescore:
    """Overall metrics of `run` in both modes: all golds (the stored scores) and stale golds excluded."""
    raw = sqlite_connection(conn)
    ref = require_run(raw, run, linked=True)
    dataset, family = ref.dataset, ref.family
    assert dataset is not None and family is not None  # linked=True: a dataset (family NOT NULL) or an error
    metrics = ("items", "predicted", "em", "f1", "answered", "f1_recall", "answer_rate", "errors")
    base = item_frame(raw, [run], human=False)
    excl = item_frame_excluding_stale(raw, [run], human=False)

    def overall(frame: Any) -> dict[str, Any]:
        if frame.height == 0:
            return {"items": 0}
        table = slice_table(frame.select(base.columns), None)
        return {m: v for m, v in table.select(metrics).to_dicts()[0].items() if v is not None}

    here = [st for st in _stale_items(raw).values() if st.dataset == dataset]
    return StaleRescore(
        run=run, dataset=dataset, family=family, stale_golds=sum(len(st.stale) for st in here),
        items_dropped=sum(1 for st in here if not st.remaining),
        items_rescored=sum(1 for st in here if st.remaining),
        all_golds=overall(base), excluding_stale=overall(excl),
    )
