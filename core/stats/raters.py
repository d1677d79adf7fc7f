"""Agreement among several annotators on nominal judgements: pairwise Cohen's κ, Fleiss' κ, Krippendorff's α.

Input is `Ratings`: per item, the category each annotator gave it (annotators who did not judge
an item are simply absent). The three coefficients, on the usual definitions:

- `pair_kappa(a, b)`: two annotators on the items both judged: Cohen's κ, the one definition in
  `kappa.cohen_kappa` (of their confusion matrix; as `sklearn.metrics.cohen_kappa_score`).
- `fleiss_kappa`: every item with two or more ratings; per-item agreement averaged, chance from
  the pooled category shares (Fleiss 1971). With the same number of ratings on every item it is
  `statsmodels.stats.inter_rater.fleiss_kappa`; with varying numbers, each item's agreement is
  over its own pairs.
- `krippendorff_alpha`: nominal α from the coincidence matrix, any number of ratings per item
  (items with one rating carry no pairs and drop out), as the `krippendorff` package computes it.

A coefficient is undefined (None) when chance agreement is total (every rating one category):
there is nothing to agree beyond chance. `agreement` computes all three with percentile bootstrap
intervals over items (the resampling unit: an item's ratings stay together), each with a stream
of its own (`rng_for`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from .kappa import cohen_kappa, confusion_matrix
from .seeds import (
    DEFAULT_LEVEL,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    check_settings,
    rng_for,
)

__all__ = [
    "Agreement", "AgreementInterval", "Ratings", "agreement", "fleiss_kappa", "krippendorff_alpha", "pair_items",
    "pair_kappa",
]

Ratings = Mapping[str, Mapping[str, str]]
"""item → annotator → category."""


def pair_kappa(a: Sequence[str], b: Sequence[str]) -> float | None:
    """Cohen's κ of two annotators' categories on the same items (paired by position); None where undefined."""
    if len(a) != len(b):
        raise ValueError("pair_kappa needs one category from each annotator per item")
    if not a:
        return None
    index = {c: j for j, c in enumerate(sorted(set(a) | set(b)))}
    kappa = float(cohen_kappa(confusion_matrix(np.array([index[x] for x in a]), np.array([index[y] for y in b]),
                                               len(index))))
    return kappa if np.isfinite(kappa) else None


def pair_items(ratings: Ratings, first: str, second: str) -> tuple[list[str], list[str]]:
    """The two annotators' categories on the items both judged, in item order."""
    items = [i for i in sorted(ratings) if first in ratings[i] and second in ratings[i]]
    return [ratings[i][first] for i in items], [ratings[i][second] for i in items]


def _counts(ratings: Ratings) -> tuple[np.ndarray, list[str]]:
    """items × categories matrix of rating counts (items with two or more ratings), categories sorted."""
    cats = sorted({c for r in ratings.values() for c in r.values()})
    index = {c: j for j, c in enumerate(cats)}
    rows = []
    for item in sorted(ratings):
        given = list(ratings[item].values())
        if len(given) < 2:
            continue
        row = np.zeros(len(cats))
        for c in given:
            row[index[c]] += 1
        rows.append(row)
    return (np.array(rows) if rows else np.zeros((0, len(cats)))), cats


def fleiss_kappa(ratings: Ratings) -> float | None:
    """Fleiss' κ over every item with two or more ratings."""
    table, _ = _counts(ratings)
    return _one(_fleiss(table, np.ones((1, table.shape[0]))))


def krippendorff_alpha(ratings: Ratings) -> float | None:
    """Krippendorff's α for nominal data (coincidence matrix; items with one rating drop out)."""
    table, _ = _counts(ratings)
    return _one(_alpha(table, np.ones((1, table.shape[0]))))


def _one(values: np.ndarray) -> float | None:
    value = float(values[0])
    return None if np.isnan(value) else value


# Each coefficient below is computed for many weightings of the items at once: `weights` is
# (resamples, items), how often each item was drawn (all ones: the coefficient itself). Every
# sum over items is then a matrix product, so a bootstrap costs a few products per block.


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """num / den, NaN where den is 0 (the coefficient is undefined there)."""
    out = np.full(num.shape, np.nan)
    ok = den > 1e-12
    out[ok] = num[ok] / den[ok]
    return out


def _fleiss(table: np.ndarray, weights: np.ndarray) -> np.ndarray:
    if table.shape[0] == 0:
        return np.full(weights.shape[0], np.nan)
    n_i = table.sum(axis=1)
    per_item = ((table * table).sum(axis=1) - n_i) / (n_i * (n_i - 1))
    mean_agree = weights @ per_item / weights.sum(axis=1)
    shares = (weights @ table) / (weights @ n_i)[:, None]
    chance = (shares * shares).sum(axis=1)
    return _ratio(mean_agree - chance, 1.0 - chance)


def _alpha(table: np.ndarray, weights: np.ndarray) -> np.ndarray:
    if table.shape[0] == 0:
        return np.full(weights.shape[0], np.nan)
    m = table.sum(axis=1)
    # Σ over c ≠ k of an item's coincidences o_ck = Σ_c n_uc (m_u − n_uc) / (m_u − 1)
    disagree = (m * m - (table * table).sum(axis=1)) / (m - 1)
    total = weights @ m
    n_c = weights @ table
    expected = total * total - (n_c * n_c).sum(axis=1)
    return 1.0 - _ratio((total - 1) * (weights @ disagree), expected)


def _cohen(pairs: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """κ of (items, 2) category indices under each row of item `weights` (a bootstrap draw's
    counts): the weighted confusion matrices, κ by `kappa.cohen_kappa`."""
    size = int(pairs.max()) + 1 if pairs.size else 1
    first, second = np.eye(size)[pairs[:, 0]], np.eye(size)[pairs[:, 1]]
    return np.asarray(cohen_kappa(np.einsum("ri,ia,ib->rab", weights, first, second)))


@dataclass(frozen=True, slots=True)
class AgreementInterval:
    """A coefficient with its percentile bootstrap interval over items (None where undefined)."""

    estimate: float | None
    low: float | None
    high: float | None
    items: int
    """Items it is computed over."""

    def to_dict(self) -> dict[str, float | int | None]:
        return {"estimate": self.estimate, "low": self.low, "high": self.high, "items": self.items}


@dataclass(frozen=True, slots=True)
class Agreement:
    """Every coefficient of one set of ratings: Fleiss' κ and Krippendorff's α over all items,
    Cohen's κ for each pair of annotators on the items both judged."""

    fleiss: AgreementInterval
    alpha: AgreementInterval
    pairs: dict[tuple[str, str], AgreementInterval]


_BLOCK = 500
"""Resamples weighed at once: memory stays (block × items) floats."""


def _draws(rng: np.random.Generator, n: int, resamples: int) -> Iterator[np.ndarray]:
    """Bootstrap draws over `n` items as (block, n) counts of how often each item was drawn."""
    for start in range(0, resamples, _BLOCK):
        b = min(_BLOCK, resamples - start)
        idx = rng.integers(0, n, size=(b, n)) + np.arange(b)[:, None] * n
        yield np.bincount(idx.ravel(), minlength=b * n).reshape(b, n).astype(np.float64)


def _interval(rows: np.ndarray, statistic: Callable[[np.ndarray, np.ndarray], np.ndarray], rng: np.random.Generator,
              resamples: int, level: float) -> AgreementInterval:
    """`statistic` of `rows` (one per item) and its percentile bootstrap interval over items;
    resamples where it is undefined are left out."""
    n = rows.shape[0]
    estimate = _one(statistic(rows, np.ones((1, n)))) if n else None
    if estimate is None or n < 2:
        return AgreementInterval(estimate, None, None, n)
    values = np.concatenate([statistic(rows, w) for w in _draws(rng, n, resamples)])
    values = values[~np.isnan(values)]
    if values.size == 0:
        return AgreementInterval(estimate, None, None, n)
    tail = (1.0 - level) / 2.0
    low, high = np.quantile(values, [tail, 1.0 - tail])
    return AgreementInterval(estimate, float(low), float(high), n)


def agreement(
    ratings: Ratings, *labels: str, seed: int = DEFAULT_SEED, resamples: int = DEFAULT_RESAMPLES,
    level: float = DEFAULT_LEVEL,
) -> Agreement:
    """Fleiss' κ, Krippendorff's α and pairwise Cohen's κ of `ratings`, each with a bootstrap
    interval over items; `labels` name the random stream (what is measured: `rng_for`)."""
    check_settings(seed, resamples, level)
    table, cats = _counts(ratings)
    index = {c: j for j, c in enumerate(cats)}
    fleiss = _interval(table, _fleiss, rng_for(seed, "fleiss", *labels), resamples, level)
    alpha = _interval(table, _alpha, rng_for(seed, "alpha", *labels), resamples, level)
    annotators = sorted({a for r in ratings.values() for a in r})
    pairs: dict[tuple[str, str], AgreementInterval] = {}
    for i, first in enumerate(annotators):
        for second in annotators[i + 1:]:
            a, b = pair_items(ratings, first, second)
            if not a:
                continue
            rows = np.array([[index[x], index[y]] for x, y in zip(a, b, strict=True)], dtype=np.int64)
            pairs[(first, second)] = _interval(rows, _cohen, rng_for(seed, "cohen", first, second, *labels),
                                               resamples, level)
    return Agreement(fleiss, alpha, pairs)
