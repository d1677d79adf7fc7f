"""Is a Δ between two runs more than noise? Intervals, p-values and corrections for a diff.

On the items both runs answer (the diff's base), for every slice × metric of the diff:

- Δ = B − A in points with a paired bootstrap interval and a two-sided p-value (or the p-value of
  approximate randomisation, `StatOptions.test`), the bootstrap standard error, and the minimum
  detectable effect at that many items (`core.stats.minimum_detectable_effect`);
- exact McNemar on the discordant pairs for EM, for answer rate (answered vs refused), and for
  "right at the F1 threshold" (the diff's outcome table);
- per metric, Holm- and BH-adjusted p-values over the slices tested (the overall row is the
  primary test and is not part of that family).

Resampling unit: the passage when some passage holds several of the compared items (questions on
one passage are not independent; `unit="auto"`), else the item; `unit` forces either.
CDQA: F1-recall is tested on the items **both** runs answered (the displayed per-run F1-recall uses
each run's own answered items, so the tested Δ can differ from it; both are reported), and answer
rate separately, on every common response.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import polars as pl
from qa_inspect.core import stats
from qa_inspect.core.errors import unknown_name
from qa_inspect.core.stats import DEFAULT_ALPHA, DEFAULT_LEVEL, DEFAULT_RESAMPLES, DEFAULT_SEED, StatsError

__all__ = [
    "TESTS",
    "UNITS",
    "DeltaTest",
    "PairSignificance",
    "StatOptions",
    "clusters_for",
    "pair_significance",
    "paired_test",
    "resampling_unit",
    "shared_stream",
]

UNITS = ("auto", "passage", "item")
"""What a bootstrap resamples: by passage where items share one (auto), always passages, or items."""

TESTS = ("bootstrap", "randomisation")
"""Where a Δ's p-value comes from: the paired bootstrap, or approximate randomisation."""


@dataclass(frozen=True, slots=True)
class StatOptions:
    """How significance is computed; every result carries these, and every output prints them."""

    seed: int = DEFAULT_SEED
    resamples: int = DEFAULT_RESAMPLES
    level: float = DEFAULT_LEVEL
    unit: str = "auto"
    test: str = "bootstrap"
    alpha: float = DEFAULT_ALPHA

    def check(self) -> StatOptions:
        """Itself, or one `StatsError` line naming the setting no test can use."""
        stats.check_settings(self.seed, self.resamples, self.level)
        if self.unit not in UNITS:
            raise StatsError(unknown_name("unit", self.unit, UNITS))
        if self.test not in TESTS:
            raise StatsError(unknown_name("test", self.test, TESTS))
        if not 0.0 < self.alpha < 1.0:
            raise StatsError(f"alpha {self.alpha}: must be between 0 and 1")
        return self

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class DeltaTest:
    """One metric on one slice: B − A in points on `n` paired items, and how sure we can be."""

    dimension: str  # "overall" or a dimension, as in `RunDiff.slices`
    value: str
    metric: str  # "em" | "f1" | "f1_recall" | "answer_rate"
    base: str  # "common items" | "items both answered"
    n: int  # paired items the test rests on
    units: int  # resampling units among them (passages or items)
    delta: float | None  # None: no item to test on
    low: float | None
    high: float | None
    p: float | None  # two-sided, from `method`
    se: float | None
    mde: float | None  # minimum detectable effect (80% power, two-sided α)
    method: str
    p_mcnemar: float | None = None  # exact McNemar (EM and answer rate)
    p_holm: float | None = None  # adjusted over the slices of this metric (None on the overall row)
    p_bh: float | None = None
    family: int = 0  # how many slice tests of this metric the adjustment is over

    @property
    def primary(self) -> bool:
        return self.dimension == "overall"

    def significant(self, alpha: float = DEFAULT_ALPHA) -> bool:
        """Below α: the overall row by its own p, a slice by its Holm-adjusted p."""
        p = self.p if self.primary else self.p_holm
        return p is not None and p < alpha


@dataclass(slots=True)
class PairSignificance:
    options: StatOptions
    unit: str  # the unit used: "passage" | "item"
    units: int  # resampling units over all common items
    outcomes: dict[str, float] = field(default_factory=dict)  # criterion → exact McNemar p
    tests: list[DeltaTest] = field(default_factory=list)

    def test(self, dimension: str, value: str, metric: str) -> DeltaTest | None:
        for t in self.tests:
            if (t.dimension, t.value, t.metric) == (dimension, value, metric):
                return t
        return None

    def family(self, metric: str) -> int:
        """How many slice tests of `metric` the correction is over."""
        return sum(1 for t in self.tests if t.metric == metric and not t.primary and t.p is not None)

    def to_dict(self) -> dict[str, Any]:
        return {
            "options": self.options.to_dict(), "unit": self.unit, "units": self.units,
            "outcomes_mcnemar_p": dict(self.outcomes),
            "tests": [asdict(t) | {"significant": t.significant(self.options.alpha)} for t in self.tests],
        }


def resampling_unit(option: str, contexts: np.ndarray) -> str:
    """"passage" or "item" for `option` (see `UNITS`); `contexts` holds each item's passage id
    (negative: none). Auto clusters when some passage holds more than one of these items; items
    without any passage (CDQA) are resampled as items whatever was asked."""
    known = contexts[contexts >= 0]
    if option != "auto":
        return option if len(known) else "item"
    return "passage" if len(known) > len(np.unique(known)) else "item"


def clusters_for(unit: str, contexts: np.ndarray, item_ids: np.ndarray) -> np.ndarray | None:
    """Cluster labels for a bootstrap: passage ids (an item without one is its own cluster), or
    None for the item bootstrap."""
    if unit == "item":
        return None
    return np.where(contexts >= 0, contexts, -1 - item_ids)


def _column(frame: pl.DataFrame, name: str, fill: float = 0.0) -> np.ndarray:
    return frame[name].cast(pl.Float64).fill_null(fill).to_numpy()


def _answered(frame: pl.DataFrame, side: str) -> np.ndarray:
    return (~frame[f"refused_{side}"].fill_null(False)).to_numpy()


def _pairs(frame: pl.DataFrame, metric: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, str]:
    """A's and B's per-item values (points) of `metric`, the items they are defined on, the base."""
    if metric == "answer_rate":
        a, b = _answered(frame, "a"), _answered(frame, "b")
        return a * 100.0, b * 100.0, np.ones(frame.height, dtype=bool), "common items"
    if metric == "f1_recall":
        both = _answered(frame, "a") & _answered(frame, "b")
        return _column(frame, "f1_recall_a") * 100, _column(frame, "f1_recall_b") * 100, both, "items both answered"
    return _column(frame, f"{metric}_a") * 100, _column(frame, f"{metric}_b") * 100, np.ones(frame.height, bool), "common items"


def _slice_mask(frame: pl.DataFrame, dimension: str, value: str) -> np.ndarray:
    if dimension == "overall":
        return np.ones(frame.height, dtype=bool)
    return (frame[dimension].fill_null("—") == value).to_numpy()


def paired_test(
    a: np.ndarray, b: np.ndarray, clusters: np.ndarray | None, options: StatOptions, names: tuple[str, str],
    context: Sequence[str] = (),
) -> stats.PairedTest:
    """B − A by `options` (bootstrap interval; bootstrap or randomisation p), on a random stream
    named by the two runs' `names` in sorted order plus `context` (slice, metric): computed in the
    sorted order and mirrored when A, B come the other way, so swapping two runs negates Δ and
    its interval exactly and leaves p as it was."""
    flip = list(names) != sorted(names)
    first, second = (b, a) if flip else (a, b)
    t = stats.paired_bootstrap(
        first, second, clusters, resamples=options.resamples, level=options.level,
        rng=stats.rng_for(options.seed, *sorted(names), *context), randomisation=options.test == "randomisation",
    )
    if not flip:
        return t
    return stats.PairedTest(-t.delta + 0.0, -t.high + 0.0, -t.low + 0.0, t.p, t.se, t.n, t.units, t.method)


def shared_stream(options: StatOptions, dataset: str, unit: str) -> np.random.Generator:
    """The one random stream a dataset's runs are resampled on together (the leaderboard's pairs
    and per-run intervals): named by the dataset and the unit only, never by a run, so adding
    or removing a run changes no other run's or pair's numbers."""
    return stats.rng_for(options.seed, dataset, "shared resampling", unit)


def _mde(t: stats.PairedTest, alpha: float) -> float | None:
    """The minimum detectable effect, or None where the SE says nothing: no disagreement at all
    (SE 0), or too few units for the bootstrap to measure it."""
    if t.se <= 0 or t.units < stats.MIN_BOOTSTRAP_UNITS:
        return None
    return stats.minimum_detectable_effect(t.se, alpha=alpha)


def _one_test(
    a: np.ndarray, b: np.ndarray, clusters: np.ndarray | None, key: tuple[str, str, str], base: str,
    options: StatOptions, names: tuple[str, str],
) -> DeltaTest:
    dimension, value, metric = key
    if len(a) == 0:
        return DeltaTest(dimension, value, metric, base, 0, 0, None, None, None, None, None, None, options.test)
    t = paired_test(a, b, clusters, options, names, (dimension, value, metric))
    mcnemar = None
    if metric in ("em", "answer_rate"):
        right_a, right_b = a > 0, b > 0
        mcnemar = stats.mcnemar_exact(int((~right_a & right_b).sum()), int((right_a & ~right_b).sum()))
    return DeltaTest(
        dimension, value, metric, base, t.n, t.units, t.delta, t.low, t.high, t.p, t.se,
        _mde(t, options.alpha), t.method, mcnemar,
    )


def pair_significance(
    frame: pl.DataFrame,
    slices: Sequence[tuple[str, str, str]],
    *,
    discordant: Mapping[str, tuple[int, int]],
    options: StatOptions,
    names: tuple[str, str] = ("A", "B"),
    stop: Callable[[], bool] | None = None,
) -> PairSignificance | None:
    """Tests for a diff's common-item `frame` (columns `item_id`, `context_id`, the dimensions,
    `em_a` … `f1_recall_b`): one per (dimension, value, metric) in `slices`; `discordant` maps an
    outcome criterion to its (fixed, broken) counts for McNemar. `names` (run A, run B) name the
    random streams (see `paired_test`: swapping A and B mirrors every number exactly). `stop` is
    asked between tests (a UI worker that was cancelled): True abandons the work, returning None."""
    options.check()
    contexts = _column(frame, "context_id", -1.0).astype(np.int64)
    item_ids = frame["item_id"].to_numpy().astype(np.int64)
    unit = resampling_unit(options.unit, contexts)
    all_clusters = clusters_for(unit, contexts, item_ids)
    units = frame.height if all_clusters is None else len(np.unique(all_clusters))
    out = PairSignificance(options, unit, units)
    out.outcomes = {k: stats.mcnemar_exact(f, b) for k, (f, b) in discordant.items()}
    values = {m: _pairs(frame, m) for m in {s[2] for s in slices}}
    for key in slices:
        if stop is not None and stop():
            return None
        a, b, defined, base = values[key[2]]
        mask = defined & _slice_mask(frame, key[0], key[1])
        clusters = None if all_clusters is None else all_clusters[mask]
        out.tests.append(_one_test(a[mask], b[mask], clusters, key, base, options, names))
    out.tests = _adjusted(out.tests)
    return out


def _adjusted(tests: list[DeltaTest]) -> list[DeltaTest]:
    """Holm and BH over the slice tests of each metric; the overall rows stay unadjusted."""
    out = list(tests)
    for metric in dict.fromkeys(t.metric for t in tests):
        index = [i for i, t in enumerate(tests) if t.metric == metric and not t.primary]
        ps = [tests[i].p for i in index]
        family = sum(p is not None for p in ps)
        for i, holm, bh in zip(index, stats.holm(ps), stats.benjamini_hochberg(ps), strict=True):
            t = tests[i]
            out[i] = DeltaTest(**{**asdict(t), "p_holm": holm, "p_bh": bh, "family": family})
    return out
