"""Statistics for comparing runs: confidence intervals, paired tests, corrections, power.

Pure and vectorised (numpy); no I/O, no database, no knowledge of runs or scorers: arrays of
per-item scores in, numbers out. `core.report` decides what is compared on which items.

Holds: `bootstrap` (percentile intervals for a mean, by item or clustered by passage; paired
bootstrap Δ with interval and p; approximate randomisation), `exact` (exact McNemar on the
discordant pairs), `correction` (Holm, Benjamini–Hochberg), `power` (minimum detectable effect),
`kappa` (Cohen's κ of two raters from their confusion matrix, with a bootstrap interval),
`raters` (several annotators: pairwise Cohen's κ, Fleiss' κ, Krippendorff's α, bootstrapped over items),
`resample` (the engine: bootstrap totals and sign flips, exact in distribution, memory-bounded),
`shared` (every pair of many runs at once on one resampling of the units), `masked` (every row of
one pair's diff — slice × metric — on one resampling of its units), `heap` (freed memory
handed back to the system before a big step) and `seeds` (the fixed
default seed, resample count, and one random stream per named test).

May import: numpy and `core.errors` only (and the C library's allocator, `heap`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from qa_inspect.core.faces import lazy_face

__all__ = [
    "DEFAULT_ALPHA",
    "DEFAULT_LEVEL",
    "DEFAULT_POWER",
    "DEFAULT_RESAMPLES",
    "DEFAULT_SEED",
    "MIN_BOOTSTRAP_UNITS",
    "Agreement",
    "AgreementInterval",
    "Interval",
    "PairedTest",
    "Ratings",
    "StatsError",
    "agreement",
    "benjamini_hochberg",
    "binomial_tail",
    "bootstrap_mean",
    "bootstrap_totals",
    "check_settings",
    "cohen_kappa",
    "confusion_matrix",
    "fleiss_kappa",
    "give_back_free_memory",
    "count_blocks",
    "count_rows",
    "counts_from_indices",
    "holm",
    "kappa_interval",
    "krippendorff_alpha",
    "pair_kappa",
    "mcnemar_exact",
    "mean_bounds",
    "mean_totals",
    "means_all",
    "minimum_detectable_effect",
    "pair_items",
    "pair_totals",
    "paired_all",
    "paired_bootstrap",
    "randomisation_p",
    "masked_tests",
    "rng_for",
    "sign_blocks",
    "shared_tests",
    "signflip_totals",
    "unit_sums",
]

if TYPE_CHECKING:  # where each name lives; loaded on first use at run time (core/faces.py)
    from .kappa import (
        cohen_kappa,
        confusion_matrix,
        kappa_interval,
    )
    from .raters import (
        Agreement,
        agreement,
        AgreementInterval,
        fleiss_kappa,
        krippendorff_alpha,
        pair_items,
        pair_kappa,
        Ratings,
    )
    from .bootstrap import (
        bootstrap_mean,
        Interval,
        MIN_BOOTSTRAP_UNITS,
        paired_bootstrap,
        PairedTest,
        randomisation_p,
        unit_sums,
    )
    from .correction import (
        benjamini_hochberg,
        holm,
    )
    from .exact import (
        binomial_tail,
        mcnemar_exact,
    )
    from .power import (
        DEFAULT_ALPHA,
        DEFAULT_POWER,
        minimum_detectable_effect,
    )
    from .resample import (
        bootstrap_totals,
        signflip_totals,
    )
    from .heap import give_back_free_memory
    from .masked import masked_tests
    from .shared import (
        count_blocks,
        count_rows,
        counts_from_indices,
        mean_bounds,
        mean_totals,
        means_all,
        pair_totals,
        paired_all,
        shared_tests,
        sign_blocks,
    )
    from .seeds import (
        check_settings,
        DEFAULT_LEVEL,
        DEFAULT_RESAMPLES,
        DEFAULT_SEED,
        rng_for,
        StatsError,
    )

lazy_face(__name__)
