"""Corrections for testing many slices or pairs at once, so one "significant" slice out of 40 is
not a coin flip.

- `holm`: Holm–Bonferroni step-down adjusted p-values (controls the family-wise error rate under
  any dependence between the tests);
- `benjamini_hochberg`: BH step-up adjusted p-values (controls the false discovery rate).

`None` marks a test that could not be run (no items); it stays `None` and is not counted in the
family. An adjusted p-value below α is a rejection at level α.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["benjamini_hochberg", "holm"]


def _tested(pvalues: Sequence[float | None]) -> tuple[np.ndarray, np.ndarray]:
    index = np.array([i for i, p in enumerate(pvalues) if p is not None], dtype=np.int64)
    values = np.array([pvalues[i] for i in index], dtype=np.float64)
    if ((values < 0) | (values > 1)).any():
        raise ValueError("p-values must lie in 0…1")
    return index, values


def _place(pvalues: Sequence[float | None], index: np.ndarray, adjusted: np.ndarray) -> list[float | None]:
    out: list[float | None] = [None] * len(pvalues)
    for i, p in zip(index.tolist(), adjusted.tolist(), strict=True):
        out[i] = p
    return out


def holm(pvalues: Sequence[float | None]) -> list[float | None]:
    """Holm-adjusted p-values, in the order given: the j-th smallest is max over i ≤ j of
    min(1, (m − i + 1)·p₍ᵢ₎)."""
    index, values = _tested(pvalues)
    m = len(values)
    if m == 0:
        return [None] * len(pvalues)
    order = np.argsort(values, kind="stable")
    scaled = np.minimum(1.0, (m - np.arange(m)) * values[order])
    adjusted = np.empty(m)
    adjusted[order] = np.maximum.accumulate(scaled)
    return _place(pvalues, index, adjusted)


def benjamini_hochberg(pvalues: Sequence[float | None]) -> list[float | None]:
    """BH-adjusted p-values (q-values), in the order given: the j-th smallest is min over i ≥ j of
    min(1, m·p₍ᵢ₎ / i)."""
    index, values = _tested(pvalues)
    m = len(values)
    if m == 0:
        return [None] * len(pvalues)
    order = np.argsort(values, kind="stable")
    scaled = np.minimum(1.0, m * values[order] / np.arange(1, m + 1))
    adjusted = np.empty(m)
    adjusted[order] = np.minimum.accumulate(scaled[::-1])[::-1]
    return _place(pvalues, index, adjusted)
