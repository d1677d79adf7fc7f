"""pass@k, majority vote and consistency (core.metrics.samples) against their definitions."""

from __future__ import annotations

from itertools import combinations
from math import comb

import pytest
from hypothesis import given
from hypothesis import strategies as st

from qa_inspect.core.metrics import (
    SampleCounts,
    answer_groups,
    pass_at_k,
    pass_ks,
    run_sample_metrics,
    sample_correct,
    summarise_item,
)

n_c = st.integers(1, 64).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n)))


@given(n_c)
def test_pass_at_k_bounded_and_monotone(nc: tuple[int, int]) -> None:
    n, c = nc
    values = [pass_at_k(n, c, k) for k in range(1, n + 1)]
    assert all(0.0 <= v <= 1.0 for v in values)
    assert all(a <= b + 1e-12 for a, b in zip(values, values[1:]))


@given(n_c)
def test_pass_at_n_is_any_correct_and_pass_at_1_the_mean(nc: tuple[int, int]) -> None:
    n, c = nc
    assert pass_at_k(n, c, n) == (1.0 if c else 0.0)
    assert pass_at_k(n, c, 1) == pytest.approx(c / n)


@given(st.integers(1, 30).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n), st.integers(1, n))))
def test_pass_at_k_is_the_binomial_formula(nck: tuple[int, int, int]) -> None:
    n, c, k = nck
    assert pass_at_k(n, c, k) == pytest.approx(1 - comb(n - c, k) / comb(n, k), abs=1e-12)


def test_pass_at_k_counts_subsets() -> None:
    """The estimator is the share of k-subsets of the samples that hold a right one."""
    right = [True, False, False, True, False]
    for k in range(1, 6):
        subsets = list(combinations(right, k))
        assert pass_at_k(5, 2, k) == pytest.approx(sum(any(s) for s in subsets) / len(subsets))


def test_pass_at_k_refuses_impossible_counts() -> None:
    with pytest.raises(ValueError):
        pass_at_k(4, 5, 1)
    with pytest.raises(ValueError):
        pass_at_k(4, 2, 5)


def test_pass_ks_are_powers_of_two_up_to_n() -> None:
    assert pass_ks(1) == []
    assert pass_ks(4) == [2, 4]
    assert pass_ks(12) == [2, 4, 8]


def test_answer_groups_majority_first_ties_by_first_seen() -> None:
    groups = answer_groups(["b", "A", "a", "b", "c"], str.lower)
    assert groups == [[0, 3], [1, 2], [4]]


def test_summarise_item_counts_equivalent_answers_together() -> None:
    answers = ["Paris", "paris.", "London", "Paris"]
    scores = {"Paris": (1, 1.0, True), "paris.": (1, 1.0, True), "London": (0, 0.0, False)}
    item = summarise_item(answers, scores, lambda a: a.lower().strip("."))
    assert (item.n, item.correct, item.distinct) == (4, 3, 2)
    assert item.majority == "Paris" and item.majority_share == 0.75 and item.majority_correct
    assert item.mean_em == 0.75 and item.flaky


_TEXTS = st.sampled_from(["Paris", "paris.", "PARIS", "London", "london", "Rome", " rome ", ""])
_SCORES = st.tuples(st.none() | st.integers(0, 1), st.none() | st.floats(0, 1), st.booleans())


@given(st.lists(_TEXTS, min_size=1, max_size=20), st.dictionaries(_TEXTS, _SCORES, min_size=8))
def test_summarise_item_is_its_per_sample_definition(answers: list[str], scores: dict[str, tuple]) -> None:
    """Computed over the distinct answers and their counts, the aggregate is the per-sample one:
    sums and means over the samples in order, the majority the first of the largest groups."""
    key = lambda a: a.strip().lower().strip(".")  # noqa: E731
    em = [scores[a][0] for a in answers]
    f1 = [scores[a][1] for a in answers]
    right = [scores[a][2] for a in answers]
    top = answer_groups(answers, key)[0]
    known_em = [float(e) for e in em if e is not None]
    known_f1 = [f for f in f1 if f is not None]
    item = summarise_item(answers, scores, key)
    assert (item.n, item.correct, item.majority, item.majority_share, item.majority_correct, item.distinct) == (
        len(answers), sum(right), answers[top[0]], len(top) / len(answers), right[top[0]],
        len(answer_groups(answers, key)))
    assert item.mean_em == (sum(known_em) / len(known_em) if known_em else None)
    assert item.mean_f1 == (sum(known_f1) / len(known_f1) if known_f1 else None)  # bit for bit


def test_sample_correct_uses_the_threshold_for_f1_recall() -> None:
    assert sample_correct(None, 0.5, True) and not sample_correct(None, 0.4, True)
    assert sample_correct(1, 0.0, False) and not sample_correct(0, 1.0, False)


@given(st.lists(n_c, min_size=1, max_size=20))
def test_run_metrics_are_item_means(items: list[tuple[int, int]]) -> None:
    rows = [SampleCounts(n, c, c * 2 > n, max(c, n - c) / n) for n, c in items]
    out = run_sample_metrics(rows)
    assert out["items"] == len(items)
    assert out["pass@1"] == pytest.approx(sum(c / n for n, c in items) / len(items))
    assert out["maj"] == pytest.approx(sum(c * 2 > n for n, c in items) / len(items))
    least = min(n for n, _ in items)
    assert [k for k in out if k.startswith("pass@")] == [f"pass@{k}" for k in [1, *pass_ks(least)]]


def test_run_metrics_weight_grouped_rows_by_count() -> None:
    one = run_sample_metrics([SampleCounts(4, 1, False, 0.5, count=3), SampleCounts(4, 4, True, 1.0)])
    each = run_sample_metrics([SampleCounts(4, 1, False, 0.5)] * 3 + [SampleCounts(4, 4, True, 1.0)])
    assert one == each
    assert run_sample_metrics([]) == {}
