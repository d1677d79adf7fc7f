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

from collections.abc import Callable, Iterator, Sequence
from copy import deepcopy
from dataclasses import dataclass

import numpy as np

from .bootstrap import MIN_BOOTSTRAP_UNITS, PairedTest
from .seeds import DEFAULT_LEVEL, DEFAULT_RESAMPLES, check_settings
from .shared import _bounds, _on_grid, _one, _ratio, count_blocks, sign_blocks

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


def _features(diffs: np.ndarray, masks: np.ndarray, rows: Sequence[tuple[int, int]], units: np.ndarray,
              count: int) -> tuple[np.ndarray, _Facts]:
    """`(units, rows + masks)` on the exact grid: each row's per-unit total of its diff over its
    mask, then each mask's per-unit item count; and the rows' facts (before rounding)."""
    k = len(rows)
    out = np.empty((count, k + len(masks)), order="F")
    facts = {name: np.zeros(k) for name in ("n", "delta", "units", "observed", "flip_tol", "tol")}
    for j, mask in enumerate(masks):
        out[:, k + j] = np.bincount(units[mask], minlength=count)
    for r, (d, m) in enumerate(rows):
        mask = masks[m]
        values = diffs[d][mask]
        sums = np.bincount(units[mask], weights=values, minlength=count)
        n = int(mask.sum())
        facts["n"][r], facts["delta"][r] = n, sums.sum() / max(n, 1)
        facts["units"][r] = int((out[:, k + m] > 0).sum())
        facts["observed"][r] = abs(sums.sum())
        facts["flip_tol"][r] = 1e-9 * np.abs(sums).max(initial=0.0) * max(facts["units"][r], 1)
        facts["tol"][r] = 1e-9 * np.abs(values).max(initial=0.0)
        out[:, r] = sums
    for j in range(out.shape[1]):  # column by column: no second copy of F
        out[:, j] = _on_grid(out[:, j:j + 1])[:, 0]
    return out, _Facts(facts["n"].astype(np.int64), facts["delta"], facts["units"].astype(np.int64),
                       facts["observed"], facts["flip_tol"], facts["tol"])


def _products(blocks: Iterator[np.ndarray], features: np.ndarray, resamples: int,
              stop: Callable[[], bool] | None) -> np.ndarray | None:
    """`(columns, resamples)`: each block of weights times the features; None if `stop` says so."""
    out = np.empty((features.shape[1], resamples))
    at = 0
    for block in blocks:
        if stop is not None and stop():
            return None
        out[:, at:at + len(block)] = (block @ features).T
        at += len(block)
    return out


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
    features, facts = _features(np.asarray(diffs, np.float64), bool_masks, rows, index, count)
    boot_rng, flip_rng = rng.spawn(2)
    totals = _products(count_blocks(count, resamples, deepcopy(boot_rng)), features, resamples, stop)
    if totals is None:
        return None
    k = len(rows)
    draws = _ratio(totals[:k], totals[[k + m for _, m in rows]])
    low, high = _bounds(draws, level) if k else (np.zeros(0), np.zeros(0))
    flipped = None
    if k and (randomisation or bool((facts.units < MIN_BOOTSTRAP_UNITS).any())):
        signs = _products(sign_blocks(count, resamples, deepcopy(flip_rng)), features[:, :k], resamples, stop)
        if signs is None:
            return None
        flipped = np.abs(signs)
    return [_one(draws[r], float(low[r]), float(high[r]), facts, r, flipped, randomisation) for r in range(k)]
