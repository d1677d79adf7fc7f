"""core.stats: what makes the statistics trustworthy (identical runs, McNemar against scipy, coverage, clustering,
seeds) and the engine's exactness (its totals have the moments of index resampling)."""

from __future__ import annotations

import numpy as np
import pytest
from qa_inspect.core import stats
from qa_inspect.core.stats import (
    StatsError,
    benjamini_hochberg,
    bootstrap_mean,
    bootstrap_totals,
    holm,
    mcnemar_exact,
    minimum_detectable_effect,
    paired_bootstrap,
    randomisation_p,
    rng_for,
    signflip_totals,
    unit_sums,
)

scipy_stats = pytest.importorskip("scipy.stats", reason="scipy is a test dependency ([test] extra)")


def _paired(rng: np.random.Generator, n: int, p_a: float = 0.6, flip: float = 0.15) -> tuple[np.ndarray, np.ndarray]:
    """EM-like paired runs: B copies A except on a share `flip` of items, where it is drawn anew."""
    a = (rng.random(n) < p_a).astype(float)
    fresh = (rng.random(n) < p_a + 0.05).astype(float)
    return a, np.where(rng.random(n) < flip, fresh, a)


# ------------------------------------------------------------------------------- identical runs


@pytest.mark.parametrize("clustered", [False, True])
@pytest.mark.parametrize("randomisation", [False, True])
def test_identical_runs_give_zero_delta_zero_interval_and_p_one(clustered: bool, randomisation: bool) -> None:
    rng = np.random.default_rng(3)
    a = np.round(rng.random(500) * 8) / 8
    clusters = np.arange(500) // 5 if clustered else None
    t = paired_bootstrap(a, a.copy(), clusters, resamples=2000, rng=rng_for(1), randomisation=randomisation)
    assert (t.delta, t.low, t.high, t.p, t.se) == (0.0, 0.0, 0.0, 1.0, 0.0)
    assert t.units == (100 if clustered else 500)


def test_one_item_is_never_significant() -> None:
    # The bootstrap of one B-right, A-wrong item resamples Δ* = Δ every time (its own p would be ~0):
    # below MIN_BOOTSTRAP_UNITS the p-value is randomisation's, which is exact enough here.
    t = paired_bootstrap(np.array([0.0]), np.array([1.0]), resamples=1000, rng=rng_for(1))
    assert (t.delta, t.p, t.method) == (1.0, 1.0, "randomisation")
    three = paired_bootstrap(np.zeros(3), np.ones(3), resamples=20000, rng=rng_for(2))
    assert three.p == pytest.approx(2 / 8, abs=0.01)  # 2 of the 8 sign patterns are as extreme
    many = paired_bootstrap(*_paired(np.random.default_rng(0), 400, flip=0.5), resamples=500, rng=rng_for(3))
    assert many.method == "bootstrap"


# ------------------------------------------------------------------------------------ McNemar


HAND_CHECKED = [  # (fixed, broken, p): 2·P(X ≤ min) for X ~ Bin(n, ½), worked by hand
    (0, 0, 1.0), (1, 0, 1.0), (5, 0, 2 / 32), (0, 6, 2 / 64), (3, 3, 1.0),
    (10, 3, 2 * (1 + 13 + 78 + 286) / 2**13), (1, 7, 2 * (1 + 8) / 256),
]


@pytest.mark.parametrize(("fixed", "broken", "p"), HAND_CHECKED)
def test_mcnemar_hand_checked(fixed: int, broken: int, p: float) -> None:
    assert mcnemar_exact(fixed, broken) == pytest.approx(p, rel=1e-12)
    assert mcnemar_exact(broken, fixed) == mcnemar_exact(fixed, broken)


def test_mcnemar_matches_scipy_binomtest_on_random_counts() -> None:
    rng = np.random.default_rng(2018)
    counts = [tuple(rng.integers(0, 60, 2)) for _ in range(150)]
    counts += [tuple(rng.integers(0, 4000, 2)) for _ in range(60)]  # past the exact-integer range: logs
    counts += [(2500, 2400), (30000, 29500), (1, 5000)]
    for fixed, broken in counts:
        n = int(fixed + broken)
        expected = 1.0 if n == 0 else scipy_stats.binomtest(int(fixed), n, 0.5).pvalue
        assert mcnemar_exact(int(fixed), int(broken)) == pytest.approx(expected, rel=1e-9, abs=1e-300), (fixed, broken)


def test_binomial_tail_edges() -> None:
    assert stats.binomial_tail(3, 3) == 1.0
    assert stats.binomial_tail(0, 1) == 0.5
    with pytest.raises(ValueError):
        mcnemar_exact(-1, 2)


# ------------------------------------------------------------------------------ coverage


def test_paired_bootstrap_interval_covers_the_true_difference_at_the_nominal_rate() -> None:
    """1,000 simulated paired datasets of 300 items (F1-like scores, B better by a known amount):
    the 95% interval must contain the true Δ in 93–97% of them."""
    rng = np.random.default_rng(20)
    support = np.array([0.0, 0.25, 0.5, 2 / 3, 0.8, 1.0])
    p_a = np.array([0.30, 0.05, 0.10, 0.10, 0.10, 0.35])
    true_a = float(support @ p_a)
    hits = 0
    for sim in range(1000):
        a = rng.choice(support, size=300, p=p_a)
        moved = rng.random(300) < 0.3  # 30% of items get a fresh score, better on average
        b = np.where(moved, rng.choice(support, size=300, p=[0.2, 0.05, 0.1, 0.1, 0.1, 0.45]), a)
        true_delta = 0.3 * (float(support @ [0.2, 0.05, 0.1, 0.1, 0.1, 0.45]) - true_a)
        t = paired_bootstrap(a, b, resamples=1000, rng=rng_for(7, str(sim)))
        hits += t.low <= true_delta <= t.high
    assert 930 <= hits <= 970, hits


def test_p_values_reject_a_true_null_about_as_often_as_alpha_says() -> None:
    """400 simulated pairs of exchangeable runs (same base, independent noise): p < 0.05 in about
    5% of them, by bootstrap and by randomisation (discrete EM data make both a little
    conservative)."""
    rng = np.random.default_rng(21)
    rejected = {False: 0, True: 0}
    for sim in range(400):
        base = rng.random(200) < 0.6
        a = np.where(rng.random(200) < 0.2, rng.random(200) < 0.6, base).astype(float)
        b = np.where(rng.random(200) < 0.2, rng.random(200) < 0.6, base).astype(float)
        for randomisation in (False, True):
            t = paired_bootstrap(a, b, resamples=1000, rng=rng_for(8, str(sim)), randomisation=randomisation)
            rejected[randomisation] += t.p < 0.05
    assert all(6 <= n <= 32 for n in rejected.values()), rejected


def test_clustered_interval_is_wider_when_items_share_passages() -> None:
    rng = np.random.default_rng(5)
    passages, per = 200, 5
    effect = np.repeat(rng.random(passages) < 0.3, per)  # B fixes whole passages at a time
    a = (rng.random(passages * per) < 0.5).astype(float)
    b = np.where(effect, 1.0, a)
    clusters = np.repeat(np.arange(passages), per)
    by_item = paired_bootstrap(a, b, resamples=4000, rng=rng_for(1))
    by_passage = paired_bootstrap(a, b, clusters, resamples=4000, rng=rng_for(1))
    assert by_passage.delta == by_item.delta
    assert by_passage.units == passages and by_item.units == passages * per
    assert (by_passage.high - by_passage.low) > 1.3 * (by_item.high - by_item.low)
    m_item, m_passage = bootstrap_mean(b, resamples=4000), bootstrap_mean(b, clusters, resamples=4000)
    assert m_passage.high - m_passage.low > m_item.high - m_item.low


# ------------------------------------------------------------------------------ determinism


def test_a_fixed_seed_reproduces_exactly() -> None:
    a, b = _paired(np.random.default_rng(1), 2000)
    f1 = np.random.default_rng(2).random(2000)  # continuous: the engine's index path
    clusters = np.arange(2000) // 3
    runs = [(paired_bootstrap(a, b + f1, clusters, resamples=3000, rng=rng_for(11, "x")),
             paired_bootstrap(a, b, randomisation=True, resamples=3000, rng=rng_for(11, "x")),
             bootstrap_mean(f1, resamples=3000, rng=rng_for(11, "y"))) for _ in range(2)]
    assert runs[0] == runs[1]
    other = paired_bootstrap(a, b + f1, clusters, resamples=3000, rng=rng_for(12, "x"))
    assert other.delta == runs[0][0].delta and (other.low, other.high) != (runs[0][0].low, runs[0][0].high)
    assert rng_for(11, "x").random() != rng_for(11, "z").random()  # each test its own stream


def test_settings_are_checked_in_one_line() -> None:
    with pytest.raises(StatsError, match="seed -1"):
        rng_for(-1)
    with pytest.raises(StatsError, match="resamples 0"):
        paired_bootstrap(np.ones(3), np.ones(3), resamples=0)
    with pytest.raises(StatsError, match="confidence level"):
        bootstrap_mean(np.ones(3), level=95)
    with pytest.raises(ValueError, match="finite"):
        bootstrap_totals(np.array([1.0, np.nan]), 10, rng_for(1))


# ------------------------------------------------------------------------------ the engine


@pytest.mark.parametrize("frequent", [1, 24, 10**9])  # all grouped, mixed, all drawn one by one
def test_bootstrap_totals_have_the_moments_of_index_resampling(monkeypatch: pytest.MonkeyPatch, frequent: int) -> None:
    from qa_inspect.core.stats import resample

    monkeypatch.setattr(resample, "FREQUENT", frequent)
    rng = np.random.default_rng(9)
    x = np.concatenate([np.zeros(600), np.ones(300), np.round(rng.random(100) * 40) / 40])
    totals = bootstrap_totals(x, 40000, rng_for(4))[:, 0]
    m = len(x)
    assert totals.mean() == pytest.approx(m * x.mean(), rel=2e-3)  # E = m·mean
    assert totals.var() == pytest.approx(m * x.var(), rel=0.03)  # Var = m·(population variance)
    two = bootstrap_totals(np.column_stack([x, np.ones(m)]), 100, rng_for(4))
    assert (two[:, 1] == m).all()  # every resample draws exactly m units


def test_signflip_totals_have_the_moments_of_coin_flips() -> None:
    rng = np.random.default_rng(10)
    d = np.concatenate([np.ones(200), -np.ones(150), np.zeros(500), rng.random(40)])
    totals = signflip_totals(d, 40000, rng_for(5))
    assert abs(totals.mean()) < 0.05 * np.sqrt((d**2).sum())
    assert totals.var() == pytest.approx((d**2).sum(), rel=0.03)
    assert (signflip_totals(np.zeros(10), 5, rng_for(5)) == 0).all()


def test_unit_sums_and_randomisation_by_cluster() -> None:
    units = unit_sums(np.array([1.0, 2.0, 3.0, 4.0]), np.array([7, 7, 9, 1]))
    assert units.tolist() == [[4.0, 1.0], [3.0, 2.0], [3.0, 1.0]]  # labels sorted: 1, 7, 9
    assert unit_sums(np.array([1.0, 2.0]), None).tolist() == [[1.0, 1.0], [2.0, 1.0]]
    # two passages of 30 items each move together: only 4 sign patterns, 2 as extreme as seen
    diff = np.concatenate([np.ones(30), np.ones(30)])
    assert randomisation_p(diff, np.repeat([0, 1], 30), rounds=20000, rng=rng_for(3)) == pytest.approx(0.5, abs=0.02)
    assert randomisation_p(diff, rounds=2000, rng=rng_for(3)) < 0.001


# ----------------------------------------------------------------------- corrections, power


def test_holm_and_bh_adjust_as_the_textbook() -> None:
    ps = [0.01, 0.04, None, 0.03, 0.005]
    assert holm(ps) == pytest.approx([0.03, 0.06, None, 0.06, 0.02])
    assert benjamini_hochberg(ps) == pytest.approx([0.02, 0.04, None, 0.04, 0.02])
    assert holm([None, None]) == [None, None] and holm([]) == []
    assert holm([0.9, 0.8]) == [1.0, 1.0]
    with pytest.raises(ValueError):
        holm([1.5])


def test_minimum_detectable_effect() -> None:
    assert minimum_detectable_effect(1.0) == pytest.approx(1.959964 + 0.841621, rel=1e-6)
    assert minimum_detectable_effect(0.5, alpha=0.01, power=0.9) == pytest.approx(0.5 * (2.575829 + 1.281552), rel=1e-6)
    with pytest.raises(ValueError):
        minimum_detectable_effect(-1)
