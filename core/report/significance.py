"""Is a Δ between two runs more than noise? Intervals, p-values and corrections for a diff.

On the items both runs answer (the diff's base), for every slice × metric of the diff:

- Δ = B − A in points with a paired bootstrap interval and a two-sided p-value (or the p-value of
  approximate randomisation, `StatOptions.test`), the bootstrap standard error, and the minimum
  detectable effect at that many items (`core.stats.minimum_detectable_effect`);
- exact McNemar on the discordant pairs for EM, for answer rate (answered vs refused), and for
  "right at the F1 threshold" (the diff's outcome table);
- per metric, Holm- and BH-adjusted p-values over the slices tested (the overall row is the
  primary test and is not part of that family).

Every row is tested on one resampling of the comparison's units (`stats.masked_tests` on
`comparison_stream`: seed, the two runs, the unit), so ~30 rows cost one pass and adding a slice
changes no other row (docs/scoring.md says how this differs from a stream per row).

Resampling unit: the passage when some passage holds several of the compared items (questions on
one passage are not independent; `unit="auto"`), else the item; `unit` forces either.
CDQA: F1-recall is tested on the items **both** runs answered (the displayed per-run F1-recall uses
each run's own answered items, so the tested Δ can differ from it; both are reported), and answer
rate separately, on every common response.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
from qa_inspect.core import stats
from qa_inspect.core.errors import unknown_name
from qa_inspect.core.stats import (
    DEFAULT_ALPHA,
    DEFAULT_LEVEL,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    StatsError,
)

from .pair_arrays import PairArrays

if TYPE_CHECKING:  # a frame is only named here: importing polars cost 0.12 s of every `table --ci`
    import polars as pl

__all__ = [
    "TESTS",
    "UNITS",
    "DeltaTest",
    "PairSignificance",
    "PairTests",
    "StatOptions",
    "clusters_for",
    "comparison_stream",
    "pair_significance",
    "pair_tests",
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


def _pairs(data: PairArrays, metric: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, str]:
    """A's and B's per-item values (points) of `metric`, the items they are defined on, the base."""
    if metric == "answer_rate":
        return data.answered_a * 100.0, data.answered_b * 100.0, np.ones(data.size, dtype=bool), "common items"
    a = np.nan_to_num(data.scores[f"{metric}_a"], nan=0.0) * 100
    b = np.nan_to_num(data.scores[f"{metric}_b"], nan=0.0) * 100
    if metric == "f1_recall":
        return a, b, data.answered_a & data.answered_b, "items both answered"
    return a, b, np.ones(data.size, dtype=bool), "common items"


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


def _delta_test(
    t: stats.PairedTest | None, flip: bool, key: tuple[str, str, str], base: str, mcnemar: float | None,
    options: StatOptions,
) -> DeltaTest:
    """One row's DeltaTest from its test in the runs' sorted order (mirrored when A, B came the
    other way round: Δ and the interval negate exactly, p and SE stay)."""
    dimension, value, metric = key
    if t is None:
        return DeltaTest(dimension, value, metric, base, 0, 0, None, None, None, None, None, None, options.test)
    if flip:
        t = stats.PairedTest(-t.delta + 0.0, -t.high + 0.0, -t.low + 0.0, t.p, t.se, t.n, t.units, t.method)
    return DeltaTest(
        dimension, value, metric, base, t.n, t.units, t.delta, t.low, t.high, t.p, t.se,
        _mde(t, options.alpha), t.method, mcnemar,
    )


def comparison_stream(options: StatOptions, names: tuple[str, str], unit: str) -> np.random.Generator:
    """The one random stream every row of a comparison resamples on: named by the two runs (in
    sorted order) and the unit, never by a row, so adding a slice changes no other row."""
    return stats.rng_for(options.seed, *sorted(names), "one resampling", unit)


def _units(unit: str, data: PairArrays) -> tuple[np.ndarray, int]:
    """Each item's resampling unit (0 … U − 1) and U."""
    clusters = clusters_for(unit, data.contexts, data.item_ids)
    if clusters is None:
        return np.arange(data.size, dtype=np.int64), data.size
    uniq, index = np.unique(clusters, return_inverse=True)
    return index.reshape(-1).astype(np.int64), len(uniq)


def _mcnemar(right_a: np.ndarray, right_b: np.ndarray, mask: np.ndarray) -> float | None:
    """Exact McNemar on a row's discordant pairs (EM and answer rate: who is right)."""
    if not mask.any():
        return None
    ra, rb = right_a[mask], right_b[mask]
    return stats.mcnemar_exact(int((~ra & rb).sum()), int((ra & ~rb).sum()))


@dataclass(frozen=True, slots=True)
class PairTests:
    """Every row's test of one comparison before the Holm/BH step: what `pair_significance`
    computes once, so a caller can pick the rows a diff shows (`for_slices`) after computing
    more rows than it shows (the compare screen starts on every slice the diff can have while
    the counts are summed). A row's numbers never depend on the rows beside it."""

    options: StatOptions
    names: tuple[str, str]  # run A, run B, as asked
    unit: str
    units: int
    rows: Mapping[tuple[str, str, str], DeltaTest]  # (dimension, value, metric) → test, unadjusted

    def for_slices(
        self, slices: Sequence[tuple[str, str, str]], discordant: Mapping[str, tuple[int, int]],
    ) -> PairSignificance | None:
        """The significance of `slices` (McNemar of each `discordant` outcome, Holm and BH over
        those slices), or None when some slice was not tested here."""
        if any(key not in self.rows for key in slices):
            return None
        out = PairSignificance(self.options, self.unit, self.units)
        out.outcomes = {k: stats.mcnemar_exact(f, b) for k, (f, b) in discordant.items()}
        out.tests = _adjusted([self.rows[key] for key in slices])
        return out


def pair_significance(
    data: pl.DataFrame | PairArrays,
    slices: Sequence[tuple[str, str, str]],
    *,
    discordant: Mapping[str, tuple[int, int]],
    options: StatOptions,
    names: tuple[str, str] = ("A", "B"),
    stop: Callable[[], bool] | None = None,
) -> PairSignificance | None:
    """Tests for a diff's common items (`PairArrays`, or a frame with columns `item_id`,
    `context_id`, the dimensions, `em_a` … `f1_recall_b`): one per (dimension, value, metric) in
    `slices`, all on one resampling of the comparison's units (`stats.masked_tests` on
    `comparison_stream`); `discordant` maps an outcome criterion to its (fixed, broken) counts for
    McNemar. Computed in the sorted order of `names` (run A, run B) and mirrored, so swapping A
    and B mirrors every number exactly. `stop` is asked before and during the resampling (a UI
    worker that was cancelled): True abandons the work, returning None."""
    tests = pair_tests(data, slices, options=options, names=names, stop=stop)
    return None if tests is None else tests.for_slices(slices, discordant)


def pair_tests(
    data: pl.DataFrame | PairArrays,
    slices: Sequence[tuple[str, str, str]],
    *,
    options: StatOptions,
    names: tuple[str, str] = ("A", "B"),
    stop: Callable[[], bool] | None = None,
) -> PairTests | None:
    """`pair_significance` of `slices` without the step over the rows (McNemar of the outcomes,
    Holm and BH): each row's own test, to pick rows from later (`PairTests.for_slices`)."""
    options.check()
    dims = list(dict.fromkeys(s[0] for s in slices if s[0] != "overall"))
    arrays = data if isinstance(data, PairArrays) else PairArrays.from_frame(data, dims)
    unit = resampling_unit(options.unit, arrays.contexts)
    index, count = _units(unit, arrays)
    flip = list(names) != sorted(names)
    metrics = list(dict.fromkeys(s[2] for s in slices))
    diffs = np.empty((len(metrics), arrays.size))
    defined: dict[str, tuple[np.ndarray, str]] = {}
    right: dict[str, tuple[np.ndarray, np.ndarray]] = {}  # who is right, for McNemar
    for k, metric in enumerate(metrics):  # one metric's values at a time: only b − a is kept
        a, b, over, base = _pairs(arrays, metric)
        diffs[k] = a - b if flip else b - a  # in the runs' sorted order
        defined[metric] = over, base
        if metric in ("em", "answer_rate"):
            right[metric] = a > 0, b > 0
        del a, b, over  # a million items' values each: gone before the next metric's and the features
    masks: dict[tuple[str, str, str], int] = {}
    rows: list[tuple[int, int]] = []
    for dimension, value, metric in slices:
        key = (dimension, value, defined[metric][1])
        rows.append((metrics.index(metric), masks.setdefault(key, len(masks))))
    mask_rows = np.empty((len(masks), arrays.size), dtype=bool)
    for (dimension, value, base), m in masks.items():
        over = next(o for o, b in defined.values() if b == base)
        np.logical_and(over, arrays.mask(dimension, value), out=mask_rows[m])
    del data, arrays  # only the rows' values and masks are resampled: a caller's handed-over arrays go now
    if stop is not None and stop():
        return None
    tests = stats.masked_tests(
        diffs, mask_rows, rows, index,
        resamples=options.resamples, level=options.level, rng=comparison_stream(options, names, unit),
        randomisation=options.test == "randomisation", stop=stop,
    )
    if tests is None:
        return None
    out: dict[tuple[str, str, str], DeltaTest] = {}
    for key, (_, m), t in zip(slices, rows, tests, strict=True):
        mcnemar = _mcnemar(*right[key[2]], mask_rows[m]) if key[2] in right else None
        out[key] = _delta_test(t, flip, key, defined[key[2]][1], mcnemar, options)
    return PairTests(options, (names[0], names[1]), unit, count, out)


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
