"""Agreement between two raters: Cohen's κ from a confusion matrix, with a bootstrap interval.

κ = (p_o − p_e) / (1 − p_e): observed agreement against the agreement the two raters' own
marginals would give by chance (Cohen 1960; unweighted, nominal categories — what
`sklearn.metrics.cohen_kappa_score` computes, which the tests compare with). When chance
agreement is already 1 (both raters used one and the same category throughout) κ is undefined:
NaN here, as there.

The interval resamples items: each item is one unit whose features are its one-hot cell of the
confusion matrix, so a resample's totals (`resample.bootstrap_totals`, the same engine as every
other interval) are a resampled confusion matrix; κ of each is vectorised.
"""

from __future__ import annotations

import numpy as np

from .bootstrap import Interval, _bounds
from .resample import bootstrap_totals
from .seeds import DEFAULT_LEVEL, DEFAULT_RESAMPLES, DEFAULT_SEED, check_settings, rng_for

__all__ = ["cohen_kappa", "confusion_matrix", "kappa_interval"]


def confusion_matrix(a: np.ndarray, b: np.ndarray, categories: int) -> np.ndarray:
    """`(K, K)` counts: rows rater a's category code, columns rater b's (codes 0…K−1)."""
    a_codes = np.asarray(a, dtype=np.int64)
    b_codes = np.asarray(b, dtype=np.int64)
    if a_codes.shape != b_codes.shape:
        raise ValueError("both raters must rate the same items")
    out = np.zeros((categories, categories), dtype=np.float64)
    np.add.at(out, (a_codes, b_codes), 1.0)
    return out


def cohen_kappa(confusion: np.ndarray) -> np.ndarray:
    """κ of one `(K, K)` matrix (a 0-d array) or of each of a stack `(R, K, K)` (shape `(R,)`);
    NaN where chance agreement is 1 or there are no items."""
    m = np.asarray(confusion, dtype=np.float64)
    n = m.sum(axis=(-2, -1))
    with np.errstate(invalid="ignore", divide="ignore"):
        observed = np.trace(m, axis1=-2, axis2=-1) / n
        expected = (m.sum(axis=-1) * m.sum(axis=-2)).sum(axis=-1) / (n * n)
        return (observed - expected) / (1.0 - expected)


def kappa_interval(
    a: np.ndarray,
    b: np.ndarray,
    categories: int,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    level: float = DEFAULT_LEVEL,
    rng: np.random.Generator | None = None,
) -> Interval:
    """κ of two raters' codes on the same items with a percentile bootstrap interval over items.
    Resamples where κ is undefined (one category only) are left out of the interval; when all
    are, or κ itself is undefined, the bounds are NaN."""
    check_settings(0, resamples, level)
    a_codes = np.asarray(a, dtype=np.int64)
    b_codes = np.asarray(b, dtype=np.int64)
    if len(a_codes) == 0:
        raise ValueError("κ of no items is undefined")
    estimate = float(cohen_kappa(confusion_matrix(a_codes, b_codes, categories)))
    cells = a_codes * categories + b_codes
    features = np.zeros((len(cells), categories * categories))
    features[np.arange(len(cells)), cells] = 1.0
    totals = bootstrap_totals(features, resamples, rng or rng_for(DEFAULT_SEED, "kappa"))
    draws = cohen_kappa(totals.reshape(resamples, categories, categories))
    draws = draws[np.isfinite(draws)]
    low, high = _bounds(draws, level) if len(draws) and np.isfinite(estimate) else (float("nan"), float("nan"))
    se = float(draws.std()) if len(draws) else float("nan")
    return Interval(estimate, low, high, se, len(a_codes), len(a_codes))
