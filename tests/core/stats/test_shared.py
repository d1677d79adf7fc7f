"""The all-pairs engine (`core.stats.shared`): every pair's bootstrap Δ distribution is the pairwise
one on the same index matrix, the tests are counted as `paired_bootstrap` counts them, and a
pair's numbers depend on its two runs and the stream only."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from qa_inspect.core import stats

F1_LIKE = [0.0, 0.25, 1 / 3, 0.5, 2 / 3, 0.8, 1.0]


@st.composite
def score_matrices(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Runs × items scores in points, which items each run is counted over, and maybe passages."""
    runs = draw(st.integers(2, 5))
    items = draw(st.integers(1, 30))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    values = rng.choice(F1_LIKE, size=(runs, items)) * 100
    if draw(st.booleans()):
        values[1] = values[0]  # a twin run
    masked = draw(st.booleans())
    over = rng.random((runs, items)) < 0.8 if masked else np.ones((runs, items), dtype=bool)
    clusters = rng.integers(0, max(1, items // 3), size=items) if draw(st.booleans()) else None
    return values, over, clusters


def _units(clusters: np.ndarray | None, items: int) -> int:
    return items if clusters is None else len(np.unique(clusters))


def _pairwise_draws(a: np.ndarray, b: np.ndarray, both: np.ndarray, clusters: np.ndarray | None,
                    indices: np.ndarray) -> np.ndarray:
    """The pairwise bootstrap with a given index matrix over the dataset's units: per resample, the
    drawn units' total of b − a over the items both count, over their number of such items."""
    labels = np.arange(len(a)) if clusters is None else clusters
    sums = stats.unit_sums(np.where(both, b - a, 0.0), labels)
    counts = stats.unit_sums(both.astype(float), labels)
    with np.errstate(invalid="ignore", divide="ignore"):
        return sums[:, 0][indices].sum(axis=1) / counts[:, 0][indices].sum(axis=1)


@settings(max_examples=60, deadline=None)
@given(score_matrices(), st.integers(0, 2**32 - 1))
def test_every_pair_resamples_as_the_pairwise_engine_on_the_same_index_matrix(data, seed) -> None:
    values, over, clusters = data
    units = _units(clusters, values.shape[1])
    indices = np.random.default_rng(seed).integers(0, units, size=(40, units))
    pairs = [(a, b) for a, b in combinations(range(len(values)), 2)] + [(1, 0)]
    num, den = stats.pair_totals(values, over, pairs, clusters, lambda: iter([stats.counts_from_indices(indices, units)]))
    with np.errstate(invalid="ignore", divide="ignore"):
        shared = num / den
    for k, (a, b) in enumerate(pairs):
        expected = _pairwise_draws(values[a], values[b], over[a] & over[b], clusters, indices)
        np.testing.assert_allclose(shared[k], expected, rtol=1e-12, atol=1e-9, equal_nan=True)


@settings(max_examples=40, deadline=None)
@given(score_matrices(), st.integers(0, 2**32 - 1), st.booleans())
def test_tests_are_counted_as_the_pairwise_tests_count_them(data, seed, randomisation) -> None:
    values, over, clusters = data
    pairs = list(combinations(range(len(values)), 2))
    got = stats.paired_all(values, over, pairs, clusters, resamples=300, rng=np.random.default_rng(seed),
                           randomisation=randomisation)
    boot_rng, flip_rng = np.random.default_rng(seed).spawn(2)
    units = _units(clusters, values.shape[1])
    blocks = list(stats.count_blocks(units, 300, boot_rng))
    signs = list(stats.sign_blocks(units, 300, flip_rng))
    for (a, b), t in zip(pairs, got, strict=True):
        both = over[a] & over[b]
        if not both.any():
            assert t is None
            continue
        ref = stats.paired_bootstrap(values[a][both], values[b][both], None if clusters is None else clusters[both],
                                     resamples=50, randomisation=randomisation)
        assert (t.n, t.units) == (ref.n, ref.units)
        assert t.delta == pytest.approx(ref.delta, abs=1e-9)
        labels = np.arange(len(both)) if clusters is None else clusters
        sums = stats.unit_sums(np.where(both, values[b] - values[a], 0.0), labels)[:, 0]
        counts = stats.unit_sums(both.astype(float), labels)[:, 0]
        with np.errstate(invalid="ignore", divide="ignore"):
            draws = np.concatenate([(c @ sums) / (c @ counts) for c in blocks])
        draws = draws[~np.isnan(draws)]
        assert (t.low, t.high) == pytest.approx(tuple(np.quantile(draws, [0.025, 0.975])), abs=1e-7)
        if t.method == "bootstrap":
            far = np.abs(draws - t.delta) >= abs(t.delta) - 1e-9 * np.abs(values[b] - values[a])[both].max()
        else:
            far = np.abs(np.concatenate([s @ sums for s in signs])) >= abs(sums.sum()) - 1e-6
        assert t.method == ("randomisation" if randomisation or ref.units < stats.MIN_BOOTSTRAP_UNITS else "bootstrap")
        assert t.p == pytest.approx((1 + int(far.sum())) / 301, abs=2 / 301)


def test_twins_give_nothing_and_swapping_mirrors() -> None:
    rng = np.random.default_rng(3)
    values = rng.choice(F1_LIKE, size=(3, 400)) * 100
    values[2] = values[0]
    over = np.ones_like(values, dtype=bool)
    clusters = np.arange(400) // 4
    tests = stats.paired_all(values, over, [(0, 2), (0, 1), (1, 0)], clusters, resamples=500,
                             rng=np.random.default_rng(1))
    twin, ab, ba = tests
    assert twin is not None and (twin.delta, twin.low, twin.high, twin.p, twin.se) == (0.0, 0.0, 0.0, 1.0, 0.0)
    assert ab is not None and ba is not None
    assert (ba.delta, ba.low, ba.high, ba.p) == pytest.approx((-ab.delta, -ab.high, -ab.low, ab.p))
    assert ab.units == 100 and ab.n == 400


@settings(max_examples=25, deadline=None)
@given(score_matrices(), st.integers(0, 2**32 - 1))
def test_adding_a_run_changes_no_other_pair(data, seed) -> None:
    values, over, clusters = data
    rng = np.random.default_rng(seed)
    extra = rng.choice(F1_LIKE, size=(1, values.shape[1])) * 100
    more_values = np.concatenate([values, extra * 0.9 + 3.7])
    more_over = np.concatenate([over, rng.random((1, values.shape[1])) < 0.5])
    pairs = list(combinations(range(len(values)), 2))
    before = stats.paired_all(values, over, pairs, clusters, resamples=200, rng=np.random.default_rng(seed))
    after = stats.paired_all(more_values, more_over, [*pairs, (0, len(values))], clusters, resamples=200,
                             rng=np.random.default_rng(seed))
    assert after[:len(pairs)] == before


def test_memory_stays_in_blocks() -> None:
    units = 50_000
    blocks = list(stats.count_blocks(units, 100, np.random.default_rng(0)))
    assert all(b.nbytes <= 17 * 2**20 for b in blocks) and sum(len(b) for b in blocks) == 100
    assert all(b.sum(axis=1).tolist() == [units] * len(b) for b in blocks)  # every row draws `units` units


@pytest.mark.parametrize(("units", "resamples"), [(7, 50), (300_000, 20)])
def test_count_rows_are_the_blocks_rows(units: int, resamples: int) -> None:
    """The rows the compare screen's tests gather into their own buffers (`count_rows`) are the
    count blocks' rows, drawn from the same stream (300,000 units: blocks of 6 rows, the last cut)."""
    rows = np.array(list(stats.count_rows(units, resamples, np.random.default_rng(5))))
    blocks = np.concatenate(list(stats.count_blocks(units, resamples, np.random.default_rng(5))))
    assert rows.shape == blocks.shape == (resamples, units)
    assert np.array_equal(rows, blocks) and rows.sum(axis=1).tolist() == [units] * resamples


def test_bad_settings_refused() -> None:
    values = np.zeros((2, 5))
    with pytest.raises(stats.StatsError):
        stats.paired_all(values, values == 0, [(0, 1)], resamples=0, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="one label per item"):
        stats.paired_all(values, values == 0, [(0, 1)], np.zeros(3), resamples=10, rng=np.random.default_rng(0))


@settings(max_examples=30, deadline=None)
@given(score_matrices(), st.integers(0, 2**32 - 1))
def test_means_rest_on_the_pairs_resampling_and_ignore_other_rows(data, seed) -> None:
    values, over, clusters = data
    got = stats.means_all(values, over, clusters, resamples=200, rng=np.random.default_rng(seed))
    boot_rng, _ = np.random.default_rng(seed).spawn(2)
    units = _units(clusters, values.shape[1])
    blocks = list(stats.count_blocks(units, 200, boot_rng))
    labels = np.arange(values.shape[1]) if clusters is None else clusters
    for r, ci in enumerate(got):
        if not over[r].any():
            assert ci is None
            continue
        ref = stats.bootstrap_mean(values[r][over[r]], None if clusters is None else clusters[over[r]], resamples=20)
        assert ci is not None and (ci.n, ci.units) == (ref.n, ref.units)
        assert ci.estimate == pytest.approx(ref.estimate, abs=1e-9)
        sums = stats.unit_sums(np.where(over[r], values[r], 0.0), labels)[:, 0]
        counts = stats.unit_sums(over[r].astype(float), labels)[:, 0]
        with np.errstate(invalid="ignore", divide="ignore"):
            draws = np.concatenate([(c @ sums) / (c @ counts) for c in blocks])
        draws = draws[~np.isnan(draws)]
        assert (ci.low, ci.high) == pytest.approx(tuple(np.quantile(draws, [0.025, 0.975])), abs=1e-7)
    alone = stats.means_all(values[:1], over[:1], clusters, resamples=200, rng=np.random.default_rng(seed))
    assert alone[0] == got[0]


def test_batches_of_pairs_change_no_number(monkeypatch: pytest.MonkeyPatch) -> None:
    """Big datasets test fewer pairs at a time (memory); every batch reads the same weights."""
    from qa_inspect.core.stats import shared

    rng = np.random.default_rng(11)
    values = rng.choice(F1_LIKE, size=(6, 90)) * 100
    over = rng.random((6, 90)) < 0.9
    pairs = list(combinations(range(6), 2))
    whole = stats.paired_all(values, over, pairs, np.arange(90) // 3, resamples=300, rng=np.random.default_rng(4))
    monkeypatch.setattr(shared, "_PAIR_CELLS", 2 * 90)  # two pairs a batch
    assert stats.paired_all(values, over, pairs, np.arange(90) // 3, resamples=300,
                            rng=np.random.default_rng(4)) == whole


@settings(max_examples=30, deadline=None)
@given(score_matrices(), st.integers(0, 2**32 - 1))
def test_mean_totals_are_the_draws_means_all_takes_percentiles_of(data, seed) -> None:
    """`mean_totals` / `mean_bounds` (a table adds them across datasets) give `means_all`'s bounds."""
    values, over, clusters = data
    num, den = stats.mean_totals(values, over, clusters, resamples=150, rng=np.random.default_rng(seed))
    assert num.shape == den.shape == (len(values), 150)
    low, high = stats.mean_bounds(num, den)
    for r, ci in enumerate(stats.means_all(values, over, clusters, resamples=150, rng=np.random.default_rng(seed))):
        if ci is None:
            assert not over[r].any()
        else:
            assert (ci.low, ci.high) == (low[r], high[r])
