"""Many runs of one dataset ranked, with intervals, and which of them cannot be told apart.

Runs are ranked by one metric (F1 for span scorers, F1-recall for CDQA, or the one asked for),
each shown with every headline metric and its interval (`run_stats`). Every pair of runs is
compared on the ranking metric with a paired test on the items both are counted over (span
scorers: every dataset question, missing = 0, so the test is about exactly the ranked number;
F1-recall: the items both answered; answer rate: the items both responded to). The p-values are
Holm-adjusted over all pairs; a run whose adjusted p against the top run is not below α is
*tied with the best*. The human estimate is shown first, and never ranked or tested.

`adjudicated=True` ranks and tests on the adjudicated scores (accepted aliases counted as golds,
`core.report.adjudicated`); the board says so (`numbers`), and the human estimate stays official.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from itertools import combinations
from typing import Any

import numpy as np
from qa_inspect.core import stats
from qa_inspect.core.errors import QAInspectError, unknown_name

from .adjudicated import ADJUDICATED, adjudicated_items
from .run_stats import RunIntervals, dataset_items, intervals_and_pairs
from .significance import StatOptions, clusters_for

__all__ = ["Leaderboard", "LeaderboardError", "PairCell", "leaderboard"]


class LeaderboardError(QAInspectError):
    """A ranking that cannot be made (a metric the dataset's scorer does not give, no datasets)."""


def _neg(v: float | None) -> float | None:
    return None if v is None else -v + 0.0  # + 0.0: no "-0.0"


@dataclass(frozen=True, slots=True)
class PairCell:
    """Run B − run A on the ranking metric, on the `n` items both are counted over."""

    a: str
    b: str
    n: int
    delta: float | None
    low: float | None
    high: float | None
    p: float | None
    p_holm: float | None = None
    method: str = "bootstrap"

    def mirrored(self) -> PairCell:
        """The same test read the other way round: A − B."""
        return PairCell(self.b, self.a, self.n, _neg(self.delta), _neg(self.high), _neg(self.low), self.p,
                        self.p_holm, self.method)

    def significant(self, alpha: float) -> bool:
        return self.p_holm is not None and self.p_holm < alpha


@dataclass(slots=True)
class Leaderboard:
    dataset: str
    family: str
    scorer: str | None
    metric: str  # the ranking metric
    metrics: list[str]  # every metric shown, headline first
    unit: str  # "passage" | "item"
    units: int  # resampling units among the dataset's items (passages, or items)
    options: StatOptions
    items: int
    rows: list[RunIntervals] = field(default_factory=list)  # human estimate first, then by rank
    pairs: list[PairCell] = field(default_factory=list)
    adjudicated: bool = False
    """Ranked on adjudicated scores (accepted aliases as golds), not the official ones."""

    @property
    def numbers(self) -> str:
        """"official" or "adjudicated": which scores every figure of the board is computed from."""
        return ADJUDICATED if self.adjudicated else "official"

    @property
    def ranked(self) -> list[RunIntervals]:
        return [r for r in self.rows if not r.human]

    def pair(self, a: str, b: str) -> PairCell | None:
        """The test of `b` − `a` (either stored orientation), None for a run with itself."""
        for cell in self.pairs:
            if (cell.a, cell.b) == (a, b):
                return cell
            if (cell.a, cell.b) == (b, a):
                return cell.mirrored()
        return None

    def tied_with_best(self, run: str) -> bool:
        """Not distinguishable from the top-ranked run (Holm-adjusted p ≥ α); the best itself is."""
        ranked = self.ranked
        if not ranked or ranked[0].run == run:
            return bool(ranked)
        cell = self.pair(ranked[0].run, run)
        return cell is not None and not cell.significant(self.options.alpha)

    def to_dict(self) -> dict[str, Any]:
        return {
            "dataset": self.dataset, "family": self.family, "scorer": self.scorer, "metric": self.metric,
            "metrics": self.metrics, "unit": self.unit, "units": self.units, "items": self.items,
            "options": self.options.to_dict(), "numbers": self.numbers,
            "rows": [
                r.to_dict() | {"rank": self.rank(r.run), "tied_with_best": None if r.human else self.tied_with_best(r.run)}
                for r in self.rows
            ],
            "pairs": [asdict(c) | {"significant": c.significant(self.options.alpha)} for c in self.pairs],
            "pairs_tested": sum(c.p is not None for c in self.pairs),
        }

    def rank(self, run: str) -> int | None:
        """1 for the best run; None for the human estimate."""
        for i, r in enumerate(self.ranked, start=1):
            if r.run == run and not r.human:
                return i
        return None


def _rank_key(metric: str) -> Callable[[RunIntervals], tuple[bool, float, str]]:
    """Best value first; runs without one last; equal values by name."""

    def key(r: RunIntervals) -> tuple[bool, float, str]:
        value = r.metrics[metric].value if metric in r.metrics else None
        return (value is None, -(value or 0.0), r.run)

    return key


def _cells(pairs: list[tuple[str, str]], tests: list[stats.PairedTest | None], test: str) -> list[PairCell]:
    """The pairs (better run first) from their tests (computed with the runs in name order, so
    either orientation reads the same test: mirrored here where the better run sorts later);
    Holm over all pairs."""
    cells = []
    for (a, b), t in zip(pairs, tests, strict=True):
        if t is None:
            cells.append(PairCell(a, b, 0, None, None, None, None, method=test))
        elif a < b:
            cells.append(PairCell(a, b, t.n, t.delta, t.low, t.high, t.p, method=t.method))
        else:
            cells.append(PairCell(a, b, t.n, _neg(t.delta), _neg(t.high), _neg(t.low), t.p, method=t.method))
    adjusted = stats.holm([c.p for c in cells])
    return [PairCell(**{**asdict(c), "p_holm": p}) for c, p in zip(cells, adjusted, strict=True)]


def _board(conn: sqlite3.Connection, name: str, metric: str | None, options: StatOptions,
           adjudicated: bool = False) -> Leaderboard:
    """Each run's intervals and every pair of runs tested on the ranking metric, all from one
    resampling of the dataset's units (`intervals_and_pairs`, on the dataset's own stream:
    adding a run changes no other run's or pair's numbers); `adjudicated`: on the scores with
    accepted aliases counted as golds."""
    data = adjudicated_items(conn, name) if adjudicated else dataset_items(conn, name)
    metrics = data.metrics
    chosen = metric or ("f1_recall" if data.cdqa else "f1")
    if chosen not in metrics:
        raise LeaderboardError(
            unknown_name("metric", chosen, metrics, hint=f" to rank dataset {name!r} ({data.scorer or data.family}) by")
        )
    in_order = list(combinations(sorted(data.runs), 2))
    unit, rows, tests = intervals_and_pairs(data, options, chosen, in_order)
    human = [r for r in rows if r.human]
    ranked = sorted((r for r in rows if not r.human), key=_rank_key(chosen))
    clusters = clusters_for(unit, data.contexts, data.item_ids)
    units = len(data.item_ids) if clusters is None else len(np.unique(clusters))
    board = Leaderboard(name, data.family, data.scorer, chosen, metrics, unit, units, options, len(data.item_ids),
                        human + ranked, adjudicated=adjudicated)
    by_pair = dict(zip(in_order, tests, strict=True))
    pairs = list(combinations([r.run for r in ranked], 2))
    board.pairs = _cells(pairs, [by_pair[(min(a, b), max(a, b))] for a, b in pairs], options.test)
    return board


def leaderboard(
    conn: sqlite3.Connection, dataset: str | None = None, *, metric: str | None = None, options: StatOptions | None = None,
    adjudicated: bool = False,
) -> list[Leaderboard]:
    """One leaderboard per dataset with runs (or only `dataset`), datasets by name; `adjudicated`:
    on the scores with accepted aliases counted as golds."""
    options = (options or StatOptions()).check()
    if dataset is not None:
        return [_board(conn, dataset, metric, options, adjudicated)]
    names = [r[0] for r in conn.execute(
        "SELECT d.name FROM datasets d WHERE EXISTS (SELECT 1 FROM runs r WHERE r.dataset_id = d.id) ORDER BY d.name"
    )]
    if not names:
        raise LeaderboardError("no dataset with runs is loaded; nothing to rank")
    boards = []
    for name in names:
        try:
            boards.append(_board(conn, name, metric, options, adjudicated))
        except LeaderboardError:
            if len(names) == 1:
                raise
    if not boards:
        raise LeaderboardError(f"no dataset has {metric!r} to rank by")
    return boards
