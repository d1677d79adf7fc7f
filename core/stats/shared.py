"""Every pair of runs at once: one resampling of a dataset's units, shared by all its runs.

Testing k runs pair by pair costs k(k−1)/2 bootstraps (4,950 for 100 runs). Here the dataset's
units are resampled once: a count matrix C (resamples × units; how often each unit is drawn in
each resample, from one index draw per unit and resample) is applied to every run's per-unit
sums at once, T = C @ S, so a resample's total for run r is T[:, r] and a pair's Δ* is
(T[:, b] − T[:, a]) / (the resample's item count). k runs cost one resampling pass and a matrix
product, read in blocks of resamples so memory stays bounded at any size.

The statistic is the pairwise one: a pair's bootstrap Δ distribution is exactly what resampling
that pair alone with the same index matrix gives (the same units, the same draws), its interval
the same percentiles, its p-value counted the same way (`bootstrap.paired_bootstrap`). What
changes is where the random numbers come from: one stream per dataset (and unit), not one per
pair, so adding a run still changes no other pair's numbers.

A pair whose runs are counted over different items (CDQA F1-recall: the items *both* answered)
is not a difference of two per-run columns; it gets a column of its own (its per-unit sums of
b − a over the shared items, and their item counts), applied to the same count matrix.
"""

from __future__ import annotations

import hashlib
import warnings
from collections.abc import Callable, Iterator, Sequence
from copy import deepcopy
from typing import Protocol

import numpy as np

from .bootstrap import MIN_BOOTSTRAP_UNITS, Interval, PairedTest
from .seeds import DEFAULT_LEVEL, DEFAULT_RESAMPLES, check_settings

__all__ = [
    "count_blocks", "count_rows", "counts_from_indices", "mean_bounds", "mean_totals", "means_all", "pair_totals",
    "paired_all", "shared_tests", "sign_blocks",
]

_BLOCK = 1 << 21
"""Cells of a count (or sign) block: about 16 MB of float64 at any number of units."""

_PAIRS_AT_ONCE = 256
"""Pairs whose resampled Δs are held at once (resamples × pairs floats) …"""

_PAIR_CELLS = 1 << 23
"""… and at most this many pair × item cells (a batch's item-level differences: 64 MB of float64),
so a million items take 8 pairs at a time. Batching changes no number: every batch reads the same
weights."""

Blocks = Callable[[], Iterator[np.ndarray]]
"""Starts a fresh pass over the same weight blocks (counts or signs), resamples in order."""


def counts_from_indices(indices: np.ndarray, units: int) -> np.ndarray:
    """`(rows, units)` float counts: how often each unit appears in each row of `indices`."""
    rows = indices.shape[0]
    flat = (indices.astype(np.int64) + np.arange(rows, dtype=np.int64)[:, None] * units).ravel()
    return np.bincount(flat, minlength=rows * units).reshape(rows, units).astype(np.float64)


def _block_rows(units: int) -> int:
    """Resamples per block: a function of the unit count only, so the stream never depends on
    anything else (a block size is part of which random number lands where)."""
    return max(1, _BLOCK // max(units, 1))


def count_rows(units: int, resamples: int, rng: np.random.Generator) -> Iterator[np.ndarray]:
    """The bootstrap count matrix row by row (integer counts): each row draws `units` units with
    replacement (one uniform index each) and counts how often each was drawn. The draws are made
    a block of rows at a time (`_block_rows`), so the stream is `count_blocks`' own; a caller
    gathering rows into buffers of its own needs no float block between."""
    rows = _block_rows(units)
    small = np.int32 if units < 2**31 else np.int64  # 32-bit draws cost half as much
    for start in range(0, resamples, rows):
        n = min(rows, resamples - start)
        picks = rng.integers(0, units, size=(n, units), dtype=small)
        for i in range(n):
            yield np.bincount(picks[i], minlength=units)


def count_blocks(units: int, resamples: int, rng: np.random.Generator) -> Iterator[np.ndarray]:
    """The bootstrap count matrix (`count_rows`) in float blocks of `_block_rows` rows."""
    rows = _block_rows(units)
    drawn = count_rows(units, resamples, rng)
    for start in range(0, resamples, rows):
        n = min(rows, resamples - start)
        block = np.empty((n, units))
        for i in range(n):  # row by row into the float block: no flat copy, no cast pass
            block[i] = next(drawn)
        yield block


def sign_blocks(units: int, rounds: int, rng: np.random.Generator) -> Iterator[np.ndarray]:
    """Approximate randomisation's signs in blocks of rows: ±1 per unit and round by a coin."""
    rows = _block_rows(units)
    for start in range(0, rounds, rows):
        n = min(rows, rounds - start)
        yield np.where(rng.random((n, units)) < 0.5, -1.0, 1.0)


def _on_grid(features: np.ndarray) -> np.ndarray:
    """Each column rounded to a power-of-two grid so fine that every weighted total of it (the
    |weights| of a row sum to at most the number of units) is an integer multiple of the grid
    below 2⁵² grids: every partial sum is then exact, whatever order BLAS adds in and however
    many other columns share the product, so a run's totals never depend on the runs beside it.
    Rounding moves a unit's sum by at most half a grid, 2⁻⁵² × units × the column's largest sum."""
    units = max(features.shape[0], 1)
    top = np.abs(features).max(axis=0, initial=0.0) * units
    grid = np.exp2(np.ceil(np.log2(np.where(top > 0, top, 1.0))) - 52)
    return np.round(features / grid) * grid


def _totals(blocks: Blocks, features: np.ndarray) -> np.ndarray:
    """`(k, resamples)`: each block of weights times the `(units, k)` features, side by side."""
    exact = _on_grid(features)
    return np.concatenate([(block @ exact).T for block in blocks()], axis=1)


class _Units:
    """Which unit each item belongs to, and sums over a unit's items (sorted once, then
    `reduceat`: far faster than scattered adds at a million items)."""

    def __init__(self, n_items: int, clusters: np.ndarray | None) -> None:
        self.order: np.ndarray | None = None
        if clusters is None:
            self.index, self.count = np.arange(n_items), n_items
            return
        labels = np.asarray(clusters)
        if labels.shape != (n_items,):
            raise ValueError("clusters must give one label per item")
        uniq, inverse = np.unique(labels, return_inverse=True)
        self.index, self.count = inverse.reshape(-1), len(uniq)
        self.order = np.argsort(self.index, kind="stable")
        self.starts = np.searchsorted(self.index[self.order], np.arange(self.count))

    def sums(self, matrix: np.ndarray) -> np.ndarray:
        """`(k, units)`: per unit the sum of each row of the `(k, items)` `matrix` over its items."""
        rows = np.asarray(matrix, dtype=np.float64)
        if self.order is None:
            return rows
        if rows.shape[1] == 0:
            return np.zeros((rows.shape[0], self.count))
        return np.add.reduceat(rows[:, self.order], self.starts, axis=1)


def _distinct(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows (first occurrences, in order) and each row's position among them: equal
    runs share one column, so their difference is exactly 0 in every resample."""
    seen: dict[bytes, list[int]] = {}  # digest → positions of the distinct rows with it
    firsts: list[int] = []
    where = np.empty(len(rows), dtype=np.int64)
    for k, row in enumerate(rows):
        same = seen.setdefault(hashlib.blake2b(np.ascontiguousarray(row).tobytes()).digest(), [])
        match = next((j for j in same if np.array_equal(rows[firsts[j]], row)), None)  # a digest proves nothing
        if match is None:
            match = len(firsts)
            same.append(match)
            firsts.append(k)
        where[k] = match
    return rows[np.array(firsts, dtype=np.int64)], where


class _Columns:
    """The features the weights are applied to: one column per distinct run vector, one per
    distinct item mask (its item counts), and, for a pair of runs counted over different items,
    a numerator and a denominator of its own (b − a over the items both count, and their number)."""

    def __init__(self, values: np.ndarray, over: np.ndarray, units: _Units) -> None:
        self.values, self.over, self.units = values, over, units
        self.run_rows, self.run_col = _distinct(np.where(over, values, 0.0))
        self.mask_rows, self.mask_col = _distinct(over)
        self._unit_sums: tuple[np.ndarray, np.ndarray] | None = None

    def unit_sums(self) -> tuple[np.ndarray, np.ndarray]:
        """Per distinct run vector its per-unit sums, per distinct mask its per-unit item counts."""
        if self._unit_sums is None:
            self._unit_sums = (self.units.sums(self.run_rows), self.units.sums(self.mask_rows))
        return self._unit_sums

    def shared(self, a: int, b: int) -> bool:
        """Both runs counted over the same items: Δ* is a difference of two run columns."""
        return bool(self.mask_col[a] == self.mask_col[b])

    def base(self) -> np.ndarray:
        """`(units, distinct run vectors + distinct masks)`."""
        return np.concatenate(self.unit_sums(), axis=0).T

    def own(self, pairs: Sequence[tuple[int, int]]) -> np.ndarray:
        """`(units, 2 · pairs)`: each pair's numerators, then each pair's denominators."""
        a, b = [p[0] for p in pairs], [p[1] for p in pairs]
        both = self.over[a] & self.over[b]
        diff = np.where(both, self.values[b] - self.values[a], 0.0)
        return np.concatenate([self.units.sums(diff), self.units.sums(both)], axis=0).T


class _Shared:
    """One dataset's runs on one weight matrix: the per-run and per-mask totals computed once
    ((distinct runs + distinct masks) × resamples, small), a pair's own columns on demand."""

    def __init__(self, cols: _Columns, blocks: Blocks) -> None:
        self.cols, self.blocks = cols, blocks
        self._base: np.ndarray | None = None

    def base(self) -> np.ndarray:
        """`(distinct run vectors + distinct masks, resamples)`: their weighted totals."""
        if self._base is None:
            self._base = _totals(self.blocks, self.cols.base())
        return self._base

    def totals(self, pairs: Sequence[tuple[int, int]]) -> tuple[np.ndarray, np.ndarray]:
        """`(pairs, resamples)` twice: weighted Σ (b − a) over the items both count, and the
        weighted number of those items."""
        cols = self.cols
        base = self.base()
        a = np.array([p[0] for p in pairs], dtype=np.int64)
        b = np.array([p[1] for p in pairs], dtype=np.int64)
        runs = cols.run_rows.shape[0]
        num = base[cols.run_col[b]] - base[cols.run_col[a]]
        den = base[runs + cols.mask_col[a]]
        own = [k for k, (x, y) in enumerate(pairs) if not cols.shared(x, y)]
        if own:
            extra = _totals(self.blocks, cols.own([pairs[k] for k in own]))
            num[own], den[own] = extra[:len(own)], extra[len(own):]
        return num, den


def pair_totals(
    values: np.ndarray, over: np.ndarray, pairs: Sequence[tuple[int, int]], clusters: np.ndarray | None,
    blocks: Blocks,
) -> tuple[np.ndarray, np.ndarray]:
    """`(pairs, resamples)` twice: per weight row (bootstrap counts, or randomisation signs) each
    pair's weighted total of b − a over the items both runs are counted over, and the weighted
    number of those items. `values`, `over`: `(runs, items)`; a pair (a, b) compares runs a, b.
    A bootstrap Δ* is their ratio; from counts of an index matrix it is exactly what resampling
    the pair alone with those indices gives."""
    vals = np.asarray(values, np.float64)
    units = _Units(vals.shape[1], clusters)
    return _Shared(_Columns(vals, np.asarray(over, bool), units), blocks).totals(pairs)


def _bounds(draws: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray]:
    """Percentile bounds of each row; resamples that drew no counted item (0/0) are skipped."""
    q = [(1 - level) / 2, (1 + level) / 2]
    if np.isnan(draws).any():
        with warnings.catch_warnings():  # a pair never drawn in any resample: no interval (NaN)
            warnings.simplefilter("ignore", RuntimeWarning)
            low, high = np.nanquantile(draws, q, axis=1)
    else:
        low, high = np.quantile(draws, q, axis=1)
    return low, high


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)


class _Pairs:
    """Per pair of a batch: the items both runs count, Δ, the units, the tie tolerances. Pairs
    over one mask come from the per-unit run sums; only the others look at items pair by pair."""

    def __init__(self, cols: _Columns, batch: Sequence[tuple[int, int]]) -> None:
        a = np.array([p[0] for p in batch], dtype=np.int64)
        b = np.array([p[1] for p in batch], dtype=np.int64)
        gap = np.abs(cols.values[b] - cols.values[a])
        shared = cols.mask_col[a] == cols.mask_col[b]
        masks = cols.over[a]
        if not shared.all():
            masks = np.where(shared[:, None], masks, masks & cols.over[b])
        run_sums, mask_units = cols.unit_sums()
        sums = run_sums[cols.run_col[b]] - run_sums[cols.run_col[a]]
        per_unit = mask_units[cols.mask_col[a]]
        own = np.flatnonzero(~shared)
        if len(own):
            diff = np.where(masks[own], cols.values[b[own]] - cols.values[a[own]], 0.0)
            sums[own], per_unit[own] = cols.units.sums(diff), cols.units.sums(masks[own])
        self.n = per_unit.sum(axis=1).astype(np.int64)
        self.delta = sums.sum(axis=1) / np.maximum(self.n, 1)
        self.tol = 1e-9 * np.where(masks, gap, 0.0).max(axis=1, initial=0.0)
        self.units = (per_unit > 0).sum(axis=1)
        self.observed = np.abs(sums.sum(axis=1))
        self.flip_tol = 1e-9 * np.abs(sums).max(axis=1, initial=0.0) * np.maximum(self.units, 1)


def shared_tests(
    values: np.ndarray,
    over: np.ndarray,
    pairs: Sequence[tuple[int, int]],
    clusters: np.ndarray | None = None,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    level: float = DEFAULT_LEVEL,
    rng: np.random.Generator,
    randomisation: bool = False,
) -> tuple[list[Interval | None], list[PairedTest | None]]:
    """Every row's mean with its interval (`means_all`) and every pair's test (`paired_all`) from
    one resampling pass: `values`, `over` are `(rows, items)`; a pair (a, b) tests row b − row a."""
    check_settings(0, resamples, level)
    vals = np.asarray(values, np.float64)
    units = _Units(vals.shape[1], clusters)
    cols = _Columns(vals, np.asarray(over, bool), units)
    boot_rng, flip_rng = rng.spawn(2)
    boot = _Shared(cols, lambda: count_blocks(units.count, resamples, deepcopy(boot_rng)))
    flip = _Shared(cols, lambda: sign_blocks(units.count, resamples, deepcopy(flip_rng)))
    return _means(cols, boot, level), _tests(cols, boot, flip, pairs, level, randomisation)


def paired_all(
    values: np.ndarray,
    over: np.ndarray,
    pairs: Sequence[tuple[int, int]],
    clusters: np.ndarray | None = None,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    level: float = DEFAULT_LEVEL,
    rng: np.random.Generator,
    randomisation: bool = False,
) -> list[PairedTest | None]:
    """Δ = mean(b − a) over the items both runs of each pair are counted over, its bootstrap
    interval and two-sided p-value, counted as `paired_bootstrap` counts them, for every pair
    at once on one shared resampling (`rng` gives the counts; a stream spawned from it the signs
    of approximate randomisation, used for `randomisation=True` and for pairs with fewer than
    `MIN_BOOTSTRAP_UNITS` units). `values`, `over`: `(runs, items)`. None: no shared item."""
    return shared_tests(values, over, pairs, clusters, resamples=resamples, level=level, rng=rng,
                        randomisation=randomisation)[1]


def means_all(
    values: np.ndarray,
    over: np.ndarray,
    clusters: np.ndarray | None = None,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    level: float = DEFAULT_LEVEL,
    rng: np.random.Generator,
) -> list[Interval | None]:
    """Each row's mean over the items it is counted over (`over`), with its percentile interval,
    all rows on one shared resampling: the very counts `paired_all` draws from the same `rng`,
    so a run's interval and its pairs' tests rest on the same resamples. None: no item."""
    return shared_tests(values, over, [], clusters, resamples=resamples, level=level, rng=rng)[0]


def mean_totals(
    values: np.ndarray,
    over: np.ndarray,
    clusters: np.ndarray | None = None,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    rng: np.random.Generator,
) -> tuple[np.ndarray, np.ndarray]:
    """`(rows, resamples)` twice: each row's resampled total over the items it is counted over
    (`over`), and the resampled number of those items, on the very counts `means_all` (and the
    leaderboard) draws from the same `rng`: their ratio is a row's bootstrap distribution. Kept
    apart so that rows over several datasets, each resampled on its own stream, add their
    totals before dividing (a bootstrap stratified by dataset)."""
    check_settings(0, resamples, DEFAULT_LEVEL)
    vals = np.asarray(values, np.float64)
    if len(vals) == 0:
        return np.zeros((0, resamples)), np.zeros((0, resamples))
    units = _Units(vals.shape[1], clusters)
    cols = _Columns(vals, np.asarray(over, bool), units)
    boot_rng, _ = rng.spawn(2)  # the split `shared_tests` makes: the counts are the first stream's
    base = _Shared(cols, lambda: count_blocks(units.count, resamples, deepcopy(boot_rng))).base()
    return base[cols.run_col], base[cols.run_rows.shape[0] + cols.mask_col]


def mean_bounds(num: np.ndarray, den: np.ndarray, level: float = DEFAULT_LEVEL) -> tuple[np.ndarray, np.ndarray]:
    """Per row the percentile bounds of its resampled means `num / den` (`mean_totals`), as
    `means_all` takes them: resamples that drew none of the row's items are skipped (NaN bounds
    for a row never drawn)."""
    return _bounds(_ratio(num, den), level)


def _tests(cols: _Columns, boot: _Shared, flip: _Shared, pairs: Sequence[tuple[int, int]], level: float,
           randomisation: bool) -> list[PairedTest | None]:
    """The pairs' tests, `_PAIRS_AT_ONCE` at a time (their resampled Δs held only that long)."""
    out: list[PairedTest | None] = []
    step = max(1, min(_PAIRS_AT_ONCE, _PAIR_CELLS // max(cols.values.shape[1], 1)))
    for start in range(0, len(pairs), step):
        batch = list(pairs[start:start + step])
        draws = _ratio(*boot.totals(batch))
        low, high = _bounds(draws, level)
        info = _Pairs(cols, batch)
        need_flips = randomisation or bool((info.units < MIN_BOOTSTRAP_UNITS).any())
        flipped = np.abs(flip.totals(batch)[0]) if need_flips else None
        for k in range(len(batch)):
            out.append(_one(draws[k], float(low[k]), float(high[k]), info, k, flipped, randomisation))
    return out


def _means(cols: _Columns, boot: _Shared, level: float) -> list[Interval | None]:
    """Every row's mean and percentile interval from the per-run and per-mask totals."""
    if len(cols.values) == 0:
        return []
    base = boot.base()
    draws = _ratio(base[cols.run_col], base[cols.run_rows.shape[0] + cols.mask_col])
    low, high = _bounds(draws, level)
    run_sums, mask_units = cols.unit_sums()
    out: list[Interval | None] = []
    for r in range(len(cols.values)):
        n = int(cols.over[r].sum())
        if n == 0:
            out.append(None)
            continue
        row = draws[r][~np.isnan(draws[r])]
        estimate = float(run_sums[cols.run_col[r]].sum()) / n
        out.append(Interval(estimate, float(low[r]), float(high[r]), float(row.std()), n,
                            int((mask_units[cols.mask_col[r]] > 0).sum())))
    return out


class _Facts(Protocol):
    """What a test is finished from, per row k: items, Δ, units, |observed total|, tie tolerances
    (`_Pairs` here; `masked` builds its own)."""

    n: np.ndarray
    delta: np.ndarray
    units: np.ndarray
    observed: np.ndarray
    flip_tol: np.ndarray
    tol: np.ndarray


def _one(draws: np.ndarray, low: float, high: float, info: _Facts, k: int, flipped: np.ndarray | None,
         randomisation: bool) -> PairedTest | None:
    """One pair's test from its Δ* row (and its |signed totals| where the p is randomisation's)."""
    if info.n[k] == 0:
        return None
    delta, units = float(info.delta[k]), int(info.units[k])
    rounds = len(draws)
    col = draws[~np.isnan(draws)]
    if flipped is not None and (randomisation or units < MIN_BOOTSTRAP_UNITS):
        far = flipped[k] >= info.observed[k] - info.flip_tol[k]
        p, method = (1 + int(far.sum())) / (1 + rounds), "randomisation"
    else:
        far = np.abs(col - delta) >= abs(delta) - info.tol[k]
        p, method = (1 + int(far.sum())) / (1 + rounds), "bootstrap"
    return PairedTest(delta + 0.0, low + 0.0, high + 0.0, p, float(col.std()), int(info.n[k]), units, method)
