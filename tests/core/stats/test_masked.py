"""Every row of one pair's diff on one resampling (`core.stats.masked_tests`): each row's bootstrap
Δ distribution, interval and p are what that row alone gives on the same count matrix, and a row's
numbers depend on the stream and its own items only, never on the rows beside it."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from qa_inspect.core import stats

F1_LIKE = [0.0, 0.25, 1 / 3, 0.5, 2 / 3, 0.8, 1.0]
RESAMPLES = 300


@st.composite
def diffs_and_rows(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, list[tuple[int, int]], np.ndarray]:
    """b − a per item for 1–3 metrics, 1–4 item masks, the rows (metric, mask), each item's unit."""
    items = draw(st.integers(1, 40))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    metrics = draw(st.integers(1, 3))
    diffs = (rng.choice(F1_LIKE, size=(metrics, items)) - rng.choice(F1_LIKE, size=(metrics, items))) * 100
    masks = rng.random((draw(st.integers(1, 4)), items)) < draw(st.sampled_from([0.2, 0.6, 1.0]))
    rows = [(d, m) for d in range(metrics) for m in range(len(masks))]
    clusters = rng.integers(0, max(1, items // draw(st.sampled_from([1, 3]))), size=items)
    _, units = np.unique(clusters, return_inverse=True)
    return diffs, masks, rows, units.reshape(-1)


def _direct(diff: np.ndarray, mask: np.ndarray, units: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """One row alone: per resample, the drawn units' total of its diff over its items, over their
    number (a unit drawn k times counts k times), unit by unit in a loop."""
    out = np.empty(len(counts))
    for r, row in enumerate(counts):
        num = den = 0.0
        for i in np.flatnonzero(mask):
            num += row[units[i]] * diff[i]
            den += row[units[i]]
        out[r] = num / den if den > 0 else np.nan
    return out


@settings(max_examples=40, deadline=None)
@given(diffs_and_rows(), st.integers(0, 2**32 - 1), st.booleans())
def test_every_row_is_the_row_alone_on_the_same_count_matrix(data, seed, randomisation) -> None:
    diffs, masks, rows, units = data
    got = stats.masked_tests(diffs, masks, rows, units, resamples=RESAMPLES, rng=np.random.default_rng(seed),
                             randomisation=randomisation)
    assert got is not None and len(got) == len(rows)
    boot_rng, flip_rng = np.random.default_rng(seed).spawn(2)
    count = int(units.max()) + 1
    counts = np.concatenate(list(stats.count_blocks(count, RESAMPLES, boot_rng)))
    signs = np.concatenate(list(stats.sign_blocks(count, RESAMPLES, flip_rng)))
    for (d, m), t in zip(rows, got, strict=True):
        mask = masks[m]
        if not mask.any():
            assert t is None
            continue
        assert t is not None
        diff = diffs[d][mask]
        assert (t.n, t.units) == (int(mask.sum()), len(np.unique(units[mask])))
        assert t.delta == pytest.approx(diff.mean(), abs=1e-9)
        draws = _direct(diffs[d], mask, units, counts)
        kept = draws[~np.isnan(draws)]
        assert (t.low, t.high) == pytest.approx(tuple(np.quantile(kept, [0.025, 0.975])), abs=1e-7)
        assert t.se == pytest.approx(kept.std(), abs=1e-7)
        if randomisation or t.units < stats.MIN_BOOTSTRAP_UNITS:
            per_unit = np.bincount(units[mask], weights=diff, minlength=count)
            far = np.abs(signs @ per_unit) >= abs(per_unit.sum()) - 1e-6
            assert t.method == "randomisation"
        else:
            far = np.abs(kept - t.delta) >= abs(t.delta) - 1e-9 * np.abs(diff).max()
            assert t.method == "bootstrap"
        assert t.p == pytest.approx((1 + int(far.sum())) / (1 + RESAMPLES), abs=2 / (1 + RESAMPLES))


@settings(max_examples=30, deadline=None)
@given(diffs_and_rows(), st.integers(0, 2**32 - 1))
def test_adding_a_row_changes_no_other_row(data, seed) -> None:
    diffs, masks, rows, units = data
    rng = np.random.default_rng(seed)
    before = stats.masked_tests(diffs, masks, rows, units, resamples=200, rng=np.random.default_rng(seed))
    more_diffs = np.concatenate([diffs, rng.choice(F1_LIKE, size=(1, diffs.shape[1])) * 37.3])
    more_masks = np.concatenate([masks, rng.random((1, masks.shape[1])) < 0.5])
    more_rows = [(len(diffs), len(masks)), *rows, (0, len(masks))]
    after = stats.masked_tests(more_diffs, more_masks, more_rows, units, resamples=200,
                               rng=np.random.default_rng(seed))
    assert after is not None and after[1:len(rows) + 1] == before


def test_a_fixed_seed_reproduces_and_another_seed_differs() -> None:
    rng = np.random.default_rng(5)
    diffs = (rng.choice(F1_LIKE, size=(2, 600)) - rng.choice(F1_LIKE, size=(2, 600))) * 100
    masks = np.array([np.ones(600, bool), rng.random(600) < 0.4])
    units = np.arange(600) // 3
    rows = [(0, 0), (1, 0), (0, 1), (1, 1)]
    one = stats.masked_tests(diffs, masks, rows, units, resamples=500, rng=np.random.default_rng(7))
    assert one == stats.masked_tests(diffs, masks, rows, units, resamples=500, rng=np.random.default_rng(7))
    other = stats.masked_tests(diffs, masks, rows, units, resamples=500, rng=np.random.default_rng(8))
    assert one is not None and other is not None
    assert [t.delta for t in one if t] == [t.delta for t in other if t]
    assert [(t.low, t.high) for t in one if t] != [(t.low, t.high) for t in other if t]


def test_zero_differences_give_zero_interval_and_p_one_and_stop_abandons() -> None:
    diffs, masks, units = np.zeros((1, 50)), np.ones((1, 50), bool), np.arange(50) // 2
    for randomisation in (False, True):
        [t] = stats.masked_tests(diffs, masks, [(0, 0)], units, resamples=200, rng=np.random.default_rng(0),
                                 randomisation=randomisation) or [None]
        assert t is not None and (t.delta, t.low, t.high, t.p, t.se) == (0.0, 0.0, 0.0, 1.0, 0.0)
    assert stats.masked_tests(diffs, masks, [(0, 0)], units, resamples=200, rng=np.random.default_rng(0),
                              stop=lambda: True) is None


def test_passes_and_gathered_blocks_change_no_number(monkeypatch: pytest.MonkeyPatch) -> None:
    """Features applied a few columns per pass, weights gathered a few rows per product: the same
    numbers as all at once (the totals are exact, whatever the grouping)."""
    from qa_inspect.core.stats import masked

    rng = np.random.default_rng(11)
    diffs = (rng.choice(F1_LIKE, size=(2, 900)) - rng.choice(F1_LIKE, size=(2, 900))) * 100
    masks = np.array([np.ones(900, bool), rng.random(900) < 0.3, rng.random(900) < 0.01])
    rows = [(d, m) for d in range(2) for m in range(3)]
    units = np.arange(900) // 2
    whole = stats.masked_tests(diffs, masks, rows, units, resamples=400, rng=np.random.default_rng(2))
    monkeypatch.setattr(masked, "_FEATURE_CELLS", 2 * 450)
    monkeypatch.setattr(masked, "_WEIGHT_CELLS", 7 * 450)  # 7 rows: blocks split across products
    assert stats.masked_tests(diffs, masks, rows, units, resamples=400, rng=np.random.default_rng(2)) == whole
