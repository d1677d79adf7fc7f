"""The resampling engine: bootstrap totals and random sign flips, exact in distribution and fast.

A bootstrap resample draws `m` units with replacement; all any statistic here needs is the total
of each unit's features over the draws. Drawing `m` indices per resample costs 10⁹ draws for
10,000 resamples of 100,000 items. Scores take few distinct values, though (EM is 0/1, a paired
EM difference −1/0/1, F1 a ratio of small integers), so units are grouped by their feature row:

- the number of draws landing in each group that holds at least `FREQUENT` units is one
  multinomial draw per resample (all units of a group add the same row);
- the draws landing in the remaining units (the rare values) are drawn one by one, in chunks.

Conditional on how many draws fall in that remainder, they are uniform over its units, so the
totals have exactly the distribution of index resampling; only the order of random numbers
differs. Sign flips (approximate randomisation) use the same split: a binomial per group of equal
values, a coin per remaining unit; units that add 0 are skipped, flipping them changes nothing.
"""

from __future__ import annotations

import numpy as np

__all__ = ["FREQUENT", "bootstrap_totals", "signflip_totals"]

FREQUENT = 24
"""A group of equal units at least this large is drawn as one count (a binomial costs about as
much as this many index draws)."""

_CHUNK = 1 << 21
"""Index draws (or coins) handled at once: bounds memory to some tens of MB at any data size."""


def _check(features: np.ndarray) -> np.ndarray:
    """A float (m, S) array of finite numbers; a NaN would poison every total silently."""
    arr = np.asarray(features, dtype=np.float64)
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.ndim != 2:
        raise ValueError("features must be one row of numbers per unit")
    if not np.isfinite(arr).all():
        raise ValueError("features must be finite numbers (a missing score is 0, not NaN)")
    return arr


def _groups(arr: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows of the frequent groups, their sizes, and the units outside them (one row each)."""
    rows, inverse, counts = np.unique(arr, axis=0, return_inverse=True, return_counts=True)
    frequent = counts >= FREQUENT
    rare = ~frequent[inverse.reshape(-1)]
    return rows[frequent], counts[frequent], arr[rare]


def bootstrap_totals(features: np.ndarray, resamples: int, rng: np.random.Generator) -> np.ndarray:
    """`(resamples, S)`: per resample, the total of the features of `m` units drawn with
    replacement from the `m` rows of `features` (a 1-D array is one feature)."""
    arr = _check(features)
    m, width = arr.shape
    if m == 0:
        return np.zeros((resamples, width))
    rows, sizes, rare = _groups(arr)
    probs = np.append(sizes, len(rare)) / m
    counts = rng.multinomial(m, probs, size=resamples)
    totals = counts[:, :-1].astype(np.float64) @ rows
    if len(rare):
        totals += _rare_totals(rare, counts[:, -1], rng)
    return totals


def _rare_totals(rare: np.ndarray, draws: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Per resample, the total of `draws[r]` rows drawn uniformly from `rare`."""
    out = np.zeros((len(draws), rare.shape[1]))
    # 1-D gathers are fastest; a pair of features (a clustered sum and its item count) travels as
    # one complex number: one gather and one sum for both, each part added exactly as on its own.
    columns: list[np.ndarray] = (
        [rare[:, 0] + 1j * rare[:, 1]] if rare.shape[1] == 2 else [np.ascontiguousarray(c) for c in rare.T]
    )
    ends = np.cumsum(draws)
    start = 0
    while start < len(draws):
        base = ends[start] - draws[start]
        stop = max(int(np.searchsorted(ends, base + _CHUNK, side="right")), start + 1)
        block = draws[start:stop]
        picks = rng.integers(0, len(rare), size=int(block.sum()), dtype=np.int32)
        nonzero = np.flatnonzero(block)
        if len(nonzero):
            offsets = (np.cumsum(block) - block)[nonzero]
            for j, column in enumerate(columns):
                sums = np.add.reduceat(column[picks], offsets)
                if np.iscomplexobj(sums):
                    out[start + nonzero, 0], out[start + nonzero, 1] = sums.real, sums.imag
                else:
                    out[start + nonzero, j] = sums
        start = stop
    return out


def signflip_totals(values: np.ndarray, rounds: int, rng: np.random.Generator) -> np.ndarray:
    """`(rounds,)`: per round, Σ sᵤ·valuesᵤ with each sign sᵤ = ±1 by a fair coin (swapping A and
    B within a unit negates its difference)."""
    arr = _check(values)[:, 0]
    arr = arr[arr != 0]
    totals = np.zeros(rounds)
    if len(arr) == 0:
        return totals
    rows, sizes, rare = _groups(arr[:, None])
    if len(rows):
        kept = rng.binomial(sizes, 0.5, size=(rounds, len(sizes)))  # how many keep their sign
        totals += (2 * kept - sizes).astype(np.float64) @ rows[:, 0]
    rare = rare[:, 0]
    if len(rare):
        per = max(1, _CHUNK // len(rare))
        for start in range(0, rounds, per):
            n = min(per, rounds - start)
            coins = rng.random((n, len(rare))) < 0.5
            totals[start:start + n] += rare.sum() - 2.0 * (coins @ rare)
    return totals
