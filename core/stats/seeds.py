"""Where every random number comes from: a fixed default seed, and one stream per named test.

Each test draws from its own stream, derived from the seed and the test's labels (run names,
slice, metric), so a number depends only on the seed and on what is tested: adding a run to a
leaderboard or a slice to a diff leaves every other figure exactly as it was.
"""

from __future__ import annotations

import zlib
from typing import TYPE_CHECKING

from qa_inspect.core.errors import QAInspectError

if TYPE_CHECKING:
    import numpy as np

__all__ = ["DEFAULT_LEVEL", "DEFAULT_RESAMPLES", "DEFAULT_SEED", "StatsError", "check_settings", "rng_for"]

DEFAULT_SEED = 20180
"""The seed used when none is given (any fixed number would do; printed beside every result)."""

DEFAULT_RESAMPLES = 10_000
"""Bootstrap resamples (and randomisation rounds) when none are given."""

DEFAULT_LEVEL = 0.95
"""Confidence level of every interval unless asked otherwise."""

MAX_RESAMPLES = 1_000_000


class StatsError(QAInspectError):
    """Settings a user chose that no test can run with (a negative seed, zero resamples …)."""


def check_settings(seed: int, resamples: int, level: float = DEFAULT_LEVEL) -> None:
    """One clear line for settings no test can use, before any work starts."""
    if seed < 0:
        raise StatsError(f"seed {seed}: must be 0 or more")
    if not 1 <= resamples <= MAX_RESAMPLES:
        raise StatsError(f"resamples {resamples}: must be between 1 and {MAX_RESAMPLES:,}")
    if not 0.0 < level < 1.0:
        raise StatsError(f"confidence level {level}: must be between 0 and 1 (e.g. 0.95)")


def rng_for(seed: int, *labels: str) -> np.random.Generator:
    """A generator of its own for one test: the seed plus a stable hash of each label. (numpy is
    imported here: the defaults above are read by modules the app starts with.)"""
    import numpy as np

    check_settings(seed, 1)
    key = tuple(zlib.crc32(label.encode("utf-8")) for label in labels)
    return np.random.default_rng(np.random.SeedSequence(entropy=seed, spawn_key=key))
