"""Many tests of one pair of runs at once: every row (slice × metric) on one resampling of the
comparison's units.

A diff tests Δ = B − A on ~30 rows (overall, each slice, each metric). Resampling each row on a
stream of its own costs ~30 bootstraps over up to a million items. Here the comparison's units
(passages, or items) are resampled once: the count matrix C (resamples × units, `shared.count_blocks`)
is applied to a feature matrix F holding, per unit, each row's total of b − a over its items and
each distinct item mask's number of items; a row's resampled Δ* is (C F)[:, num] / (C F)[:, den].
That is exactly what resampling the row alone with the same index matrix over all the units gives
(a resample drawing none of the row's units is left out, as in `shared`); the interval is the same
percentiles and the p-value counted as `bootstrap.paired_bootstrap` counts it. The sign matrix of
approximate randomisation is shared the same way.

F's columns are rounded to a grid so fine that every product is exact (`shared._on_grid`), so a
row's numbers never depend on which other rows share the product: the stream is named by the
caller from the seed and the comparison, never from the number of rows.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterator, Sequence
from copy import deepcopy
from dataclasses import dataclass

import numpy as np
from threadpoolctl import threadpool_limits

from .bootstrap import MIN_BOOTSTRAP_UNITS, PairedTest
from .heap import give_back_free_memory
from .seeds import DEFAULT_LEVEL, DEFAULT_RESAMPLES, check_settings
from .shared import _bounds, _on_grid, _one, _ratio, count_rows, sign_blocks

__all__ = ["masked_tests"]


@dataclass(slots=True)
class _Facts:
    """Per row: its items, Δ, units, and the tie tolerances (what `shared._one` reads)."""

    n: np.ndarray
    delta: np.ndarray
    units: np.ndarray
    observed: np.ndarray
    flip_tol: np.ndarray
    tol: np.ndarray


_FEATURE_CELLS = 1 << 24
"""Feature cells (units × columns) held at once, 128 MB of float64: more columns than fit are
applied in several passes over the same count matrix (drawn again from a copy of the stream)."""

_WEIGHT_CELLS = 1 << 23
"""Cells of count (or sign) rows in the two buffers together (64 MB): a product reads all the
features, so a few tall products cost far less than many short ones (at 250,000 passages and 45
columns, one core: 1.9 s for 1,000 resamples 8 rows at a time, 1.24 s at 16, 0.81 s at 64), and
16 rows a product keep pace with the drawing of the counts (1.2 s) beside them."""


class _FactsFrom:
    """Each row's facts gathered from the feature columns as `_features` computes them (before
    the grid), so every per-unit sum is counted once: a row's column gives Δ and the tolerance of
    a flip, its mask's count column the items and units. `tol` (the largest |b − a| of the row)
    is read from the items directly."""

    def __init__(self, diffs: np.ndarray, masks: np.ndarray, rows: Sequence[tuple[int, int]]) -> None:
        k = len(rows)
        self.facts = _Facts(*(np.zeros(k) for _ in range(6)))
        self.rows = list(rows)
        self.sums: dict[int, tuple[float, float]] = {}  # row → (Σ of its unit sums, largest |unit sum|)
        for r, (d, m) in enumerate(rows):
            self.facts.tol[r] = 1e-9 * float(np.max(np.abs(diffs[d]), where=masks[m], initial=0.0))

    def column(self, j: int, raw: np.ndarray) -> None:
        """Column `j` of `[*rows, *((None, m) for m in used)]` before the grid."""
        k, f = len(self.rows), self.facts
        if j < k:
            total = raw.sum()
            f.delta[j], f.observed[j] = total, abs(total)
            f.flip_tol[j] = np.abs(raw).max(initial=0.0)
            return
        used = sorted({m for _, m in self.rows})
        m = used[j - k]
        n, units = int(raw.sum()), int((raw > 0).sum())
        for r, (_, rm) in enumerate(self.rows):
            if rm == m:
                f.n[r], f.units[r] = n, units

    def done(self) -> _Facts:
        """The facts once every column was seen: Δ a mean, the flip tolerance scaled by units."""
        f = self.facts
        f.delta = f.delta / np.maximum(f.n, 1)
        f.flip_tol = 1e-9 * f.flip_tol * np.maximum(f.units, 1)
        f.n, f.units = f.n.astype(np.int64), f.units.astype(np.int64)
        return f


def _features(columns: Sequence[tuple[int | None, int]], diffs: np.ndarray, masks: np.ndarray,
              units: np.ndarray, count: int, seen: Callable[[int, np.ndarray], None] | None = None) -> np.ndarray:
    """`(units, columns)` on the exact grid (`shared._on_grid`, column by column: no second copy):
    a column (d, m) is the per-unit total of `diffs[d]` over `masks[m]`, (None, m) its item count.
    `seen(j, column)` is shown each column before the grid. A mask's items are picked once for
    the columns after one another that share it (a slice's metrics)."""
    out = np.empty((count, len(columns)), order="F")
    picked: tuple[int, np.ndarray, np.ndarray] | None = None  # (mask, its items' positions, their units)
    for j, (d, m) in enumerate(columns):
        if picked is None or picked[0] != m:
            where = np.flatnonzero(masks[m])
            picked = (m, where, units[where])
        weights = None if d is None else diffs[d][picked[1]]
        out[:, j] = np.bincount(picked[2], weights=weights, minlength=count)
        if seen is not None:
            seen(j, out[:, j])
        out[:, j] = _on_grid(out[:, j:j + 1])[:, 0]
    return out


def _products(weights: Iterator[np.ndarray], features: np.ndarray, resamples: int,
              stop: Callable[[], bool] | None) -> np.ndarray | None:
    """`(columns, resamples)`: the `weights` rows times the features, gathered into tall blocks
    (`_WEIGHT_CELLS` in two buffers); None if `stop` (asked between blocks) says so. A thread
    draws the weights into one buffer while the other is multiplied (the product releases the
    GIL): the two take a core each, so BLAS is held to one thread meanwhile (OpenBLAS's second
    thread busy-waits: beside the drawer it tripled the CPU under load). The products are exact
    (`_on_grid`), so how rows are gathered changes no number."""
    out = np.empty((features.shape[1], resamples))
    rows = min(resamples, max(1, _WEIGHT_CELLS // 2 // max(features.shape[0], 1)))
    filled: queue.Queue[tuple[np.ndarray, int] | BaseException | None] = queue.Queue()
    free: queue.Queue[np.ndarray | None] = queue.Queue()
    for _ in range(2):
        free.put(np.empty((rows, features.shape[0])))
    drawer = threading.Thread(target=_gather, args=(weights, free, filled), daemon=True)
    drawer.start()
    at = 0
    try:
        with threadpool_limits(limits=1, user_api="blas"):
            while (item := filled.get()) is not None:
                if isinstance(item, BaseException):
                    raise item
                if stop is not None and stop():
                    return None
                tall, held = item
                out[:, at:at + held] = (tall[:held] @ features).T
                at += held
                free.put(tall)
    finally:
        free.put(None)  # the drawer stops at its next buffer
        drawer.join()
    return out


def _gather(rows: Iterator[np.ndarray], free: queue.Queue[np.ndarray | None],
            filled: queue.Queue[tuple[np.ndarray, int] | BaseException | None]) -> None:
    """In a thread: the weight rows written into free buffers as they are drawn (no block of
    their own between: at 250,000 units a bootstrap block was 16 MB more and a copy of every
    row), each full buffer handed over; None at the end (or a failure), and nothing more once a
    None comes from `free`."""
    try:
        tall = free.get()
        held = 0
        for row in rows:
            if tall is None:
                return
            tall[held] = row
            held += 1
            if held == len(tall):
                filled.put((tall, held))
                tall, held = free.get(), 0
        if tall is None:
            return
        if held:
            filled.put((tall, held))
        filled.put(None)
    except Exception as exc:  # noqa: BLE001 - any failure is handed to the caller's thread, raised there
        filled.put(exc)


def _sign_rows(count: int, resamples: int, rng: np.random.Generator) -> Iterator[np.ndarray]:
    """`shared.sign_blocks`' rows one by one."""
    for block in sign_blocks(count, resamples, rng):
        yield from block


def _totals(columns: Sequence[tuple[int | None, int]], diffs: np.ndarray, masks: np.ndarray, units: np.ndarray,
            count: int, weights: Callable[[], Iterator[np.ndarray]], resamples: int,
            stop: Callable[[], bool] | None, seen: Callable[[int, np.ndarray], None] | None = None,
            ) -> np.ndarray | None:
    """`(columns, resamples)` weighted totals, `_FEATURE_CELLS` of features per pass (`seen`: as
    `_features`, with the column's index among all `columns`)."""
    step = max(1, _FEATURE_CELLS // max(count, 1))
    parts = []
    for start in range(0, len(columns), step):
        shown = None if seen is None else (lambda j, col, at=start: seen(at + j, col))
        give_back_free_memory()  # what the caller's steps freed, before the features …
        features = _features(columns[start:start + step], diffs, masks, units, count, shown)
        give_back_free_memory()  # … and what theirs freed, before the weight buffers
        part = _products(weights(), features, resamples, stop)
        if part is None:
            return None
        parts.append(part)
    return np.concatenate(parts) if parts else np.zeros((0, resamples))


def masked_tests(
    diffs: np.ndarray,
    masks: np.ndarray,
    rows: Sequence[tuple[int, int]],
    units: np.ndarray,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    level: float = DEFAULT_LEVEL,
    rng: np.random.Generator,
    randomisation: bool = False,
    stop: Callable[[], bool] | None = None,
) -> list[PairedTest | None] | None:
    """Δ = mean(b − a) of every row with its bootstrap interval and two-sided p-value, all rows on
    one resampling of the units (see the module doc). `diffs`: `(d, items)` b − a per item;
    `masks`: `(m, items)` bool; a row (i, j) tests `diffs[i]` over the items of `masks[j]`;
    `units`: each item's unit, 0 … U − 1 (every unit is drawn, whether a row holds it or not).
    `rng` gives the counts, a stream spawned from it the signs of approximate randomisation
    (`randomisation=True`, and rows with fewer than `MIN_BOOTSTRAP_UNITS` units). None per row:
    no item; None in all: `stop` (asked between blocks of resamples) said so."""
    check_settings(0, resamples, level)
    index = np.asarray(units, dtype=np.int64)
    count = int(index.max()) + 1 if len(index) else 0
    bool_masks = np.asarray(masks, dtype=bool)
    values = np.asarray(diffs, np.float64)
    gather = _FactsFrom(values, bool_masks, rows)
    used = sorted({m for _, m in rows})
    columns: list[tuple[int | None, int]] = [*rows, *((None, m) for m in used)]
    boot_rng, flip_rng = rng.spawn(2)
    totals = _totals(columns, values, bool_masks, index, count,
                     lambda: count_rows(count, resamples, deepcopy(boot_rng)), resamples, stop, gather.column)
    if totals is None:
        return None
    facts = gather.done()
    k = len(rows)
    draws = _ratio(totals[:k], totals[[k + used.index(m) for _, m in rows]])
    low, high = _bounds(draws, level) if k else (np.zeros(0), np.zeros(0))
    flipped = None
    if k and (randomisation or bool((facts.units < MIN_BOOTSTRAP_UNITS).any())):
        signs = _totals(rows, values, bool_masks, index, count,
                        lambda: _sign_rows(count, resamples, deepcopy(flip_rng)), resamples, stop)
        if signs is None:
            return None
        flipped = np.abs(signs)
    return [_one(draws[r], float(low[r]), float(high[r]), facts, r, flipped, randomisation) for r in range(k)]
