"""Human performance estimate from an item's own golds (CMRC 2018 style).

Each gold in turn plays the prediction and is scored (official EM/F1) against the other golds;
the item's estimate is the mean. With fewer than two golds there is nobody to agree with, so the
item contributes nothing (neither to the sum nor to the count). Identical golds are kept: their
agreement is exactly what the estimate measures.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from . import cmrc

__all__ = ["HumanScore", "aggregate_human", "human_score"]


@dataclass(slots=True)
class HumanScore:
    """Mean EM and F1 (both in [0, 1]) of each gold against the rest; `per_gold[i]` is
    gold i's (EM, F1). Same attribute names as `CmrcScore`, but `em` is a mean, not 0/1."""

    em: float
    f1: float
    per_gold: list[tuple[int, float]] = field(default_factory=list)
    best_gold: int | None = None


def human_score(golds: Sequence[str]) -> HumanScore | None:
    """Leave-one-out agreement of the golds; None when there are fewer than two."""
    if len(golds) < 2:
        return None
    per_gold: list[tuple[int, float]] = []
    for k, gold in enumerate(golds):
        s = cmrc.score(gold, [g for j, g in enumerate(golds) if j != k])
        per_gold.append((s.em, s.f1))
    best = max(range(len(per_gold)), key=lambda k: (per_gold[k][1], -k))
    n = len(per_gold)
    return HumanScore(
        em=sum(e for e, _ in per_gold) / n,
        f1=sum(f for _, f in per_gold) / n,
        per_gold=per_gold,
        best_gold=best,
    )


def aggregate_human(scores: Iterable[HumanScore | None]) -> dict[str, float | int]:
    """Mean over items that have an estimate, in percent and '%.3f'-rounded like the official
    output; `items` is how many items contributed (0 → all scores 0.0)."""
    em_sum = 0.0
    f1_sum = 0.0
    items = 0
    for s in scores:
        if s is None:
            continue
        items += 1
        em_sum += s.em
        f1_sum += s.f1
    em = 100.0 * em_sum / items if items else 0.0
    f1 = 100.0 * f1_sum / items if items else 0.0
    return {
        "em": float("%.3f" % em),
        "f1": float("%.3f" % f1),
        "average": float("%.3f" % ((em + f1) * 0.5)),
        "items": items,
    }
