"""Exact McNemar: a binomial test on the discordant pairs (Dror et al., ACL 2018, for accuracy).

Of the items where A and B disagree on right/wrong, under "no difference" each is equally likely
to be a fix or a break: the count of fixes is Binomial(fixed + broken, ½). The two-sided p-value
is 2·P(X ≤ min(fixed, broken)), at most 1 (what `scipy.stats.binomtest(k, n).pvalue` gives for
p = ½, whose distribution is symmetric). Items right or wrong for both carry no information.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["binomial_tail", "mcnemar_exact"]

_EXACT_UP_TO = 2_000
"""Up to this many discordant pairs the tail is summed in exact integers, beyond it in logs."""


def binomial_tail(k: int, n: int) -> float:
    """P(X ≤ k) for X ~ Binomial(n, ½)."""
    if n < 0 or k < 0:
        raise ValueError("counts must be 0 or more")
    if k >= n:
        return 1.0
    if n <= _EXACT_UP_TO:
        return sum(math.comb(n, i) for i in range(k + 1)) / 2**n
    i = np.arange(1, k + 1, dtype=np.float64)
    log_pmf = np.concatenate([[0.0], np.cumsum(np.log(n - i + 1) - np.log(i))]) - n * math.log(2)
    top = float(log_pmf.max())
    return float(math.exp(top) * np.exp(log_pmf - top).sum())


def mcnemar_exact(fixed: int, broken: int) -> float:
    """Two-sided exact McNemar p-value from the two discordant counts (1.0 when there are none)."""
    if fixed < 0 or broken < 0:
        raise ValueError("discordant counts must be 0 or more")
    n = fixed + broken
    if n == 0:
        return 1.0
    return min(1.0, 2.0 * binomial_tail(min(fixed, broken), n))
