"""The minimum detectable effect at a run's size (Card et al., EMNLP 2020: most NLP comparisons
are underpowered).

MDE = (z₁₋α/₂ + z_power) · SE(Δ): the smallest true difference a two-sided test at level α would
find with the given power, for the standard error the paired bootstrap measured on these very
items (so it reflects how often A and B disagree, and the passages items share). A Δ inside ±MDE
cannot be told from noise with any confidence at this run size.
"""

from __future__ import annotations

from statistics import NormalDist

__all__ = ["DEFAULT_ALPHA", "DEFAULT_POWER", "minimum_detectable_effect"]

DEFAULT_ALPHA = 0.05
DEFAULT_POWER = 0.8


def minimum_detectable_effect(se: float, *, alpha: float = DEFAULT_ALPHA, power: float = DEFAULT_POWER) -> float:
    """(z₁₋α/₂ + z_power) · se, for a standard error `se` of the difference."""
    if se < 0:
        raise ValueError("a standard error is 0 or more")
    if not 0 < alpha < 1 or not 0 < power < 1:
        raise ValueError("alpha and power lie strictly between 0 and 1")
    z = NormalDist()
    return (z.inv_cdf(1 - alpha / 2) + z.inv_cdf(power)) * se
