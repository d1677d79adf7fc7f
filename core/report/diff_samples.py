"""Two runs compared on their samples: pass@1 (the mean over an item's samples) and which items
became flaky (some samples right, some wrong) or stable between run A and run B.

Counted, like the rest of a diff, on the items both runs answer (of the diff's `within`). A run of
one answer per item has pass@1 = whether that answer is right (`run_stats.pass_sql`) and no flaky
item: its items are all stable. When neither run sampled any item there is nothing to say, and
`sample_diff` returns None: the diff of single-answer runs is what it always was.

An item *became flaky* when A was stable on it (all samples right, or all wrong) and B is flaky,
*became stable* the other way round; *still flaky* when both are. `sample_change_filter` gives the item
browser's filter of one of these lists (run A, compare B, the items' keys).
"""

from __future__ import annotations

import sqlite3
from dataclasses import asdict, dataclass
from typing import Any

from qa_inspect.core.query import Filter, run_has_samples
from qa_inspect.core.store import require_run

from .diff_sql import within_clause
from .run_stats import pass_sql

__all__ = ["SAMPLE_CHANGES", "SampleDiff", "sample_change_filter", "sample_change_keys", "sample_diff"]

SAMPLE_CHANGES = ("became_flaky", "became_stable", "still_flaky")
"""The flaky/stable changes of an item from run A to run B, in the order a diff shows them."""

_FLAKY = {"a": "COALESCE(pa.flaky, 0) = 1", "b": "COALESCE(pb.flaky, 0) = 1"}
_CHANGE_SQL = {
    "became_flaky": f"NOT {_FLAKY['a']} AND {_FLAKY['b']}",
    "became_stable": f"{_FLAKY['a']} AND NOT {_FLAKY['b']}",
    "still_flaky": f"{_FLAKY['a']} AND {_FLAKY['b']}",
}
_COMMON = ("FROM items i JOIN predictions pa ON pa.item_id = i.id AND pa.run_id = ?"
           " JOIN predictions pb ON pb.item_id = i.id AND pb.run_id = ? WHERE i.dataset_id = ?")


@dataclass(frozen=True, slots=True)
class SampleDiff:
    """pass@1 of A and B (0–100) on the items both answer, and the flaky/stable changes."""

    items: int
    sampled_a: int
    """Of the common items, how many A answered with several samples (B likewise)."""
    sampled_b: int
    pass1_a: float | None
    pass1_b: float | None
    became_flaky: int
    became_stable: int
    still_flaky: int

    @property
    def delta(self) -> float | None:
        return None if self.pass1_a is None or self.pass1_b is None else self.pass1_b - self.pass1_a

    def count(self, change: str) -> int:
        if change not in SAMPLE_CHANGES:
            raise ValueError(f"unknown sample change {change!r}; choose from {', '.join(SAMPLE_CHANGES)}")
        return int(getattr(self, change))

    def to_dict(self) -> dict[str, Any]:
        return asdict(self) | {"delta": self.delta}


def _ids(conn: sqlite3.Connection, run_a: str, run_b: str) -> tuple[int, int, int | None]:
    a, b = require_run(conn, run_a), require_run(conn, run_b)
    return a.id, b.id, a.dataset_id if a.dataset_id == b.dataset_id else None


def sample_diff(conn: sqlite3.Connection, run_a: str, run_b: str, within: Filter | None = None) -> SampleDiff | None:
    """The samples' side of `diff_runs(run_a, run_b)`; None when neither run sampled an item there
    (or the runs share no dataset)."""
    a_id, b_id, ds = _ids(conn, run_a, run_b)
    if ds is None or not (run_has_samples(conn, run_a) or run_has_samples(conn, run_b)):
        return None  # single-answer runs: no pass over the common items (seconds at a million)
    params: list[Any] = [a_id, b_id, ds]
    restrict = within_clause(conn, within, params)
    row = conn.execute(
        f"SELECT COUNT(*), COALESCE(SUM(pa.samples IS NOT NULL), 0), COALESCE(SUM(pb.samples IS NOT NULL), 0),"
        f" SUM({pass_sql('pa')}), SUM({pass_sql('pb')}),"
        + ", ".join(f"COALESCE(SUM({_CHANGE_SQL[c]}), 0)" for c in SAMPLE_CHANGES)
        + f" {_COMMON}{restrict}", params).fetchone()
    items, sampled_a, sampled_b, pass_a, pass_b, *changes = row
    if not sampled_a and not sampled_b:
        return None
    mean = (lambda total: None if not items else total / items * 100)
    return SampleDiff(items, sampled_a, sampled_b, mean(pass_a), mean(pass_b), *changes)


def sample_change_keys(conn: sqlite3.Connection, run_a: str, run_b: str, change: str,
                       within: Filter | None = None, limit: int | None = None) -> list[str]:
    """Keys of the common items with one flaky/stable `change` (`SAMPLE_CHANGES`), in item order."""
    if change not in _CHANGE_SQL:
        raise ValueError(f"unknown sample change {change!r}; choose from {', '.join(SAMPLE_CHANGES)}")
    a_id, b_id, ds = _ids(conn, run_a, run_b)
    if ds is None:
        return []
    params: list[Any] = [a_id, b_id, ds]
    restrict = within_clause(conn, within, params)
    tail = "" if limit is None else f" LIMIT {int(limit)}"
    return [k for (k,) in conn.execute(
        f"SELECT i.key {_COMMON}{restrict} AND {_CHANGE_SQL[change]} ORDER BY i.id{tail}", params)]


def sample_change_filter(conn: sqlite3.Connection, run_a: str, run_b: str, change: str,
                         within: Filter | None = None) -> Filter:
    """The item browser's filter of one change's items (of `within`'s, as the diff counts them):
    run A with B as compare run, on just those keys."""
    keys = sample_change_keys(conn, run_a, run_b, change, within=within)
    dataset = require_run(conn, run_a).dataset
    return (within or Filter()).with_(dataset=dataset, run=run_a, compare=run_b, keys=tuple(keys))
