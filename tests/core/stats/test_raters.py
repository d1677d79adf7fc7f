"""Agreement coefficients (core.stats.raters) against the reference libraries: sklearn's
`cohen_kappa_score`, statsmodels' `fleiss_kappa`, the `krippendorff` package (test-only)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from qa_inspect.core.stats import (
    StatsError,
    agreement,
    pair_kappa,
    fleiss_kappa,
    krippendorff_alpha,
    pair_items,
)

krippendorff = pytest.importorskip("krippendorff")
inter_rater = pytest.importorskip("statsmodels.stats.inter_rater")
metrics = pytest.importorskip("sklearn.metrics")

CATS = ("stale", "fresh", "unsure")
ANNOTATORS = ("ana", "bo", "cy", "dee")


def table(ratings: dict[str, dict[str, str]], cats: tuple[str, ...] = CATS) -> np.ndarray:
    return np.array([[sum(v == c for v in ratings[i].values()) for c in cats] for i in sorted(ratings)])


def reliability(ratings: dict[str, dict[str, str]], cats: tuple[str, ...] = CATS) -> np.ndarray:
    """annotators × items, NaN where an annotator did not judge (the krippendorff package's layout)."""
    items = sorted(ratings)
    return np.array([[cats.index(ratings[i][a]) if a in ratings[i] else np.nan for i in items] for a in ANNOTATORS])


def close(ours: float | None, theirs: float) -> bool:
    return ours is not None and math.isclose(ours, float(theirs), rel_tol=1e-9, abs_tol=1e-12)


full = st.dictionaries(st.from_regex(r"i[0-9]{1,3}", fullmatch=True),
                       st.fixed_dictionaries({a: st.sampled_from(CATS) for a in ANNOTATORS[:3]}), min_size=2, max_size=40)
partial = st.dictionaries(st.from_regex(r"i[0-9]{1,3}", fullmatch=True),
                          st.dictionaries(st.sampled_from(ANNOTATORS), st.sampled_from(CATS), min_size=1),
                          min_size=2, max_size=40)


@given(full)
def test_fleiss_kappa_is_statsmodels(ratings: dict[str, dict[str, str]]) -> None:
    ours = fleiss_kappa(ratings)
    if ours is None:  # one category only: statsmodels divides 0 by 0
        assert len({v for r in ratings.values() for v in r.values()}) == 1
        return
    assert close(ours, inter_rater.fleiss_kappa(table(ratings)))


@given(partial)
def test_krippendorff_alpha_is_the_krippendorff_package(ratings: dict[str, dict[str, str]]) -> None:
    ours = krippendorff_alpha(ratings)
    pairable = {i: r for i, r in ratings.items() if len(r) >= 2}
    values = {v for r in pairable.values() for v in r.values()}
    if ours is None:  # nothing pairable, or one category only: the package refuses or divides by zero
        assert len(values) <= 1
        return
    assert close(ours, krippendorff.alpha(reliability_data=reliability(ratings), level_of_measurement="nominal"))


@given(partial)
def test_cohen_kappa_is_sklearn_on_the_items_both_judged(ratings: dict[str, dict[str, str]]) -> None:
    a, b = pair_items(ratings, "ana", "bo")
    ours = pair_kappa(a, b)
    if ours is None:
        assert not a or len(set(a) | set(b)) == 1
        return
    assert close(ours, metrics.cohen_kappa_score(a, b))


def test_a_planted_set() -> None:
    """Three annotators on 12 items: perfect on 8, one dissent on 3, all differ on 1."""
    ratings = {f"i{i:02}": {"ana": c, "bo": c, "cy": c} for i, c in enumerate(CATS * 2 + ("stale", "fresh"))}
    ratings.update({"i20": {"ana": "stale", "bo": "stale", "cy": "fresh"},
                    "i21": {"ana": "fresh", "bo": "unsure", "cy": "fresh"},
                    "i22": {"ana": "unsure", "bo": "unsure", "cy": "stale"},
                    "i23": {"ana": "stale", "bo": "fresh", "cy": "unsure"}})
    assert close(fleiss_kappa(ratings), inter_rater.fleiss_kappa(table(ratings)))
    assert close(krippendorff_alpha(ratings),
                 krippendorff.alpha(reliability_data=reliability(ratings), level_of_measurement="nominal"))
    result = agreement(ratings, "planted", resamples=500)
    for (first, second), value in result.pairs.items():
        assert close(value.estimate, metrics.cohen_kappa_score(*pair_items(ratings, first, second)))
        assert value.items == 12
    assert result.fleiss.estimate == fleiss_kappa(ratings) and result.alpha.estimate == krippendorff_alpha(ratings)
    for value in (result.fleiss, result.alpha, *result.pairs.values()):
        assert value.low is not None and value.high is not None
        assert value.low <= (value.estimate or 0) <= value.high <= 1.0


def test_undefined_where_chance_agreement_is_total() -> None:
    same = {"i1": {"ana": "stale", "bo": "stale"}, "i2": {"ana": "stale", "bo": "stale"}}
    assert fleiss_kappa(same) is None and krippendorff_alpha(same) is None
    assert pair_kappa(["stale"] * 2, ["stale"] * 2) is None and pair_kappa([], []) is None
    assert agreement(same, resamples=10).fleiss.estimate is None
    with pytest.raises(ValueError):
        pair_kappa(["a"], [])


@settings(max_examples=20)
@given(partial, st.integers(0, 2**31))
def test_intervals_repeat_exactly_for_a_seed(ratings: dict[str, dict[str, str]], seed: int) -> None:
    first, again = agreement(ratings, "x", seed=seed, resamples=50), agreement(ratings, "x", seed=seed, resamples=50)
    assert first == again


def test_bad_settings_are_a_stats_error() -> None:
    with pytest.raises(StatsError):
        agreement({"i": {"a": "x", "b": "y"}}, resamples=0)
