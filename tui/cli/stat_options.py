"""The statistics options `diff` and `leaderboard` share, and how their numbers are written.

Defaults are written out here (so `--help` needs no numpy); a test holds them equal to
`core.stats`'. Every result prints the seed, the resamples and the resampling unit it used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer
from qa_inspect.tui.present import count, share

if TYPE_CHECKING:
    from qa_inspect.core.report import StatOptions

__all__ = [
    "DEFAULT_RESAMPLES",
    "DEFAULT_SEED",
    "ResamplesOpt",
    "SeedOpt",
    "TestOpt",
    "UnitOpt",
    "settings_line",
    "stat_options",
]

DEFAULT_SEED = 20180
DEFAULT_RESAMPLES = 10_000

SeedOpt = Annotated[int, typer.Option("--seed", help="Random seed of the resampling (results repeat exactly).")]
ResamplesOpt = Annotated[int, typer.Option("--resamples", help="Bootstrap resamples (and randomisation rounds).")]
UnitOpt = Annotated[
    str,
    typer.Option("--unit", help="Resample by passage, by item, or auto: by passage where questions share one."),
]
TestOpt = Annotated[
    str, typer.Option("--test", help="Where p-values come from: bootstrap, or randomisation (approximate).")
]


def stat_options(seed: int, resamples: int, unit: str, test: str) -> StatOptions:
    """The core options, checked (a `QAInspectError` line for values no test can use)."""
    from qa_inspect.core.report import StatOptions

    return StatOptions(seed=seed, resamples=resamples, unit=unit, test=test).check()


def settings_line(options: StatOptions, unit: str, units: int) -> str:
    """What the intervals and p-values rest on, in one line."""
    over = "passages" if unit == "passage" else "items"
    test = "paired bootstrap" if options.test == "bootstrap" else "approximate randomisation"
    return (
        f"{share(options.level)} CIs by bootstrap over {over} ({count(units)}), p two-sided by {test};"
        f" {count(options.resamples)} resamples, seed {options.seed}"
    )
