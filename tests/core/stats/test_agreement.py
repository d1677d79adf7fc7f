"""Cohen's κ against the reference implementation, and its bootstrap interval."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import cohen_kappa_score

from qa_inspect.core.stats import cohen_kappa, confusion_matrix, kappa_interval, rng_for

pairs = st.integers(2, 4).flatmap(lambda k: st.tuples(
    st.just(k), st.lists(st.tuples(st.integers(0, k - 1), st.integers(0, k - 1)), min_size=1, max_size=60)))


@given(pairs)
def test_kappa_is_sklearns(case: tuple[int, list[tuple[int, int]]]) -> None:
    k, rated = case
    a = np.array([x for x, _ in rated])
    b = np.array([y for _, y in rated])
    ours = float(cohen_kappa(confusion_matrix(a, b, k)))
    if len(set(a) | set(b)) == 1:  # chance agreement 1: undefined in both
        assert math.isnan(ours)
        return
    assert math.isclose(ours, cohen_kappa_score(a, b), rel_tol=1e-9, abs_tol=1e-12)


@settings(max_examples=25, deadline=None)
@given(pairs, st.integers(0, 2**31))
def test_the_interval_holds_the_estimate_and_repeats_by_seed(case: tuple[int, list[tuple[int, int]]], seed: int) -> None:
    k, rated = case
    a = np.array([x for x, _ in rated])
    b = np.array([y for _, y in rated])
    first = kappa_interval(a, b, k, resamples=200, rng=rng_for(seed, "t"))
    again = kappa_interval(a, b, k, resamples=200, rng=rng_for(seed, "t"))
    assert (first.low, first.high) == (again.low, again.high) or math.isnan(first.low)
    if math.isfinite(first.estimate) and math.isfinite(first.low):
        assert first.low - 1e-9 <= first.high and -1.0 - 1e-9 <= first.low and first.high <= 1.0 + 1e-9
    assert first.n == len(rated)


def test_a_stack_of_matrices_at_once() -> None:
    stack = np.array([[[5, 1], [2, 4]], [[3, 0], [0, 3]], [[4, 0], [0, 0]]], dtype=float)
    got = cohen_kappa(stack)
    a = [0] * 6 + [1] * 6
    b = [0] * 5 + [1] + [0] * 2 + [1] * 4
    assert math.isclose(got[0], cohen_kappa_score(a, b)) and got[1] == 1.0 and math.isnan(got[2])
