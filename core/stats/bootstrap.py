"""Confidence intervals for a mean and paired tests of a difference, by bootstrap or randomisation.

The resampling unit is the item, or, given `clusters` (one label per item, e.g. its passage), the
cluster: questions on one passage stand or fall together, so resampling them one by one
understates the noise. A clustered mean is a ratio (the items' total over their number, both
summed over the drawn clusters).

- `bootstrap_mean`: percentile interval of a mean.
- `paired_bootstrap`: Δ = mean(b − a) on the same items, its percentile interval and a two-sided
  p-value: the share of resamples whose Δ* lies at least |Δ| from Δ (the bootstrap distribution
  shifted to the null, Efron & Tibshirani §16.4), counted as (1 + k) / (1 + B) so it is never 0.
- `randomisation_p`: approximate randomisation (swap A and B within each unit by a coin), the
  p-value counted the same way.

Below `MIN_BOOTSTRAP_UNITS` resampling units the bootstrap's p-value is meaningless (one item that
B gets right and A wrong resamples to Δ* = Δ every time: p ≈ 0), so there the p-value is always
randomisation's (one such item: p = 1), and `PairedTest.method` says so.

Identical inputs give Δ 0, interval [0, 0] and p = 1 exactly.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .resample import bootstrap_totals, signflip_totals
from .seeds import DEFAULT_LEVEL, DEFAULT_RESAMPLES, DEFAULT_SEED, check_settings, rng_for

__all__ = [
    "MIN_BOOTSTRAP_UNITS", "Interval", "PairedTest", "bootstrap_mean", "paired_bootstrap", "randomisation_p", "unit_sums",
]

MIN_BOOTSTRAP_UNITS = 20
"""Fewer resampling units than this: the p-value comes from randomisation, not the bootstrap."""


@dataclass(frozen=True, slots=True)
class Interval:
    """A mean with its bootstrap interval; `se` is the bootstrap standard error."""

    estimate: float
    low: float
    high: float
    se: float
    n: int  # items
    units: int  # resampling units (items, or clusters)


@dataclass(frozen=True, slots=True)
class PairedTest:
    """B − A on the same items: Δ, its interval, a two-sided p-value and the bootstrap SE."""

    delta: float
    low: float
    high: float
    p: float
    se: float
    n: int
    units: int
    method: str  # "bootstrap" | "randomisation" (the p-value's; the interval is always bootstrap)


def unit_sums(values: np.ndarray, clusters: np.ndarray | None) -> np.ndarray:
    """`(units, 2)`: per unit the sum of `values` and the number of items (1 without clusters)."""
    vals = np.asarray(values, dtype=np.float64)
    if clusters is None:
        return np.column_stack([vals, np.ones_like(vals)])
    labels = np.asarray(clusters)
    if labels.shape != vals.shape:
        raise ValueError("clusters must give one label per value")
    _, inverse = np.unique(labels, return_inverse=True)
    inverse = inverse.reshape(-1)
    return np.column_stack([np.bincount(inverse, weights=vals), np.bincount(inverse).astype(np.float64)])


def _means(values: np.ndarray, clusters: np.ndarray | None, resamples: int, rng: np.random.Generator) -> tuple[np.ndarray, int]:
    """Bootstrap means of `values` (resampling units), and the number of units."""
    units = unit_sums(values, clusters)
    if clusters is None:  # every unit is one item: the denominator is fixed, one feature suffices
        return bootstrap_totals(units[:, 0], resamples, rng)[:, 0] / len(units), len(units)
    totals = bootstrap_totals(units, resamples, rng)
    return totals[:, 0] / totals[:, 1], len(units)


def _bounds(draws: np.ndarray, level: float) -> tuple[float, float]:
    low, high = np.quantile(draws, [(1 - level) / 2, (1 + level) / 2])
    return float(low), float(high)


def _tolerance(values: np.ndarray) -> float:
    """Float sums in another order may differ in the last bits: ties within this count as ties."""
    return 1e-9 * (float(np.abs(values).max()) if len(values) else 0.0)


def bootstrap_mean(
    values: np.ndarray,
    clusters: np.ndarray | None = None,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    level: float = DEFAULT_LEVEL,
    rng: np.random.Generator | None = None,
) -> Interval:
    """The mean of `values` with a percentile bootstrap interval (by item, or by cluster)."""
    check_settings(0, resamples, level)
    vals = np.asarray(values, dtype=np.float64)
    if len(vals) == 0:
        raise ValueError("a mean of no values has no interval")
    draws, units = _means(vals, clusters, resamples, rng or rng_for(DEFAULT_SEED))
    low, high = _bounds(draws, level)
    return Interval(float(vals.mean()), low, high, float(draws.std()), len(vals), units)


def paired_bootstrap(
    a: np.ndarray,
    b: np.ndarray,
    clusters: np.ndarray | None = None,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    level: float = DEFAULT_LEVEL,
    rng: np.random.Generator | None = None,
    randomisation: bool = False,
) -> PairedTest:
    """Δ = mean(b − a) over paired items, its interval and p-value (see the module doc);
    `randomisation=True` (or fewer than `MIN_BOOTSTRAP_UNITS` units) takes the p-value from
    approximate randomisation instead."""
    check_settings(0, resamples, level)
    diff = np.asarray(b, dtype=np.float64) - np.asarray(a, dtype=np.float64)
    if len(diff) == 0:
        raise ValueError("a paired test needs at least one item")
    rng = rng or rng_for(DEFAULT_SEED)
    delta = float(diff.mean())
    draws, units = _means(diff, clusters, resamples, rng)
    low, high = _bounds(draws, level)
    if randomisation or units < MIN_BOOTSTRAP_UNITS:
        p, method = randomisation_p(diff, clusters, rounds=resamples, rng=rng), "randomisation"
    else:
        far = np.abs(draws - delta) >= abs(delta) - _tolerance(diff)
        p, method = (1 + int(far.sum())) / (1 + resamples), "bootstrap"
    return PairedTest(delta, low, high, p, float(draws.std()), len(diff), units, method)


def randomisation_p(
    diff: np.ndarray,
    clusters: np.ndarray | None = None,
    *,
    rounds: int = DEFAULT_RESAMPLES,
    rng: np.random.Generator | None = None,
) -> float:
    """Two-sided p of approximate randomisation on paired differences `b − a`: each unit's
    difference keeps or flips its sign by a coin; p = (1 + #{|Σ*| ≥ |Σ|}) / (1 + rounds)."""
    units = unit_sums(diff, clusters)[:, 0]
    observed = abs(float(units.sum()))
    flipped = np.abs(signflip_totals(units, rounds, rng or rng_for(DEFAULT_SEED)))
    far = flipped >= observed - _tolerance(units) * max(1, len(units))
    return (1 + int(far.sum())) / (1 + rounds)
