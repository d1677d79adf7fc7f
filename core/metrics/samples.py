"""Many answers per question: pass@k, majority vote and consistency, as pure functions.

LLM evaluations sample a question several times (Inspect epochs, lm-eval `repeats`, OpenCompass
`n`, self-consistency). The item keeps its official score (the first or the framework's marked
sample); these functions describe the samples beside it. Statistics resample items or passages,
never samples: every run-level number here is a mean over items.

- `pass_at_k`: the unbiased estimator of Chen et al. 2021 (1 − C(n−c, k) / C(n, k)) as a product,
  which neither overflows nor loses precision at n = 64 or 1,000;
- `answer_groups`: samples grouped by equivalent answer (the scorer's normalisation: answers that
  score alike count together), largest first — the majority is the first group;
- `summarise_item`: one item's aggregate row (stored beside the official score);
- `run_sample_metrics`: pass@1, pass@k for k = 2, 4, … ≤ n, majority-vote accuracy and consistency.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from operator import itemgetter
from typing import Any, cast

__all__ = [
    "SAMPLE_F1_THRESHOLD",
    "ItemRow",
    "ItemSamples",
    "SampleCounts",
    "SampleScore",
    "answer_groups",
    "is_flaky",
    "item_row",
    "pass_at_k",
    "pass_ks",
    "run_sample_metrics",
    "sample_correct",
    "summarise_item",
]

SAMPLE_F1_THRESHOLD = 0.5
"""A sample of an F1-recall scorer (CDQA) counts as right at this F1-recall or more (no EM there)."""


def sample_correct(em: int | None, f1_recall: float | None, f1_scorer: bool) -> bool:
    """Whether one sample is right: EM, or F1-recall at the threshold for F1-recall scorers."""
    if f1_scorer:
        return f1_recall is not None and f1_recall >= SAMPLE_F1_THRESHOLD
    return bool(em)


def pass_at_k(n: int, c: int, k: int) -> float:
    """The unbiased pass@k of one item with `c` right of `n` samples: the chance that k samples
    drawn without replacement hold a right one. 1 − Π_{i=n−c+1}^{n} (1 − k/i) (Chen et al. 2021)."""
    if not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"pass@k needs 0 ≤ c ≤ n and 1 ≤ k ≤ n (n={n}, c={c}, k={k})")
    if n - c < k:
        return 1.0
    miss = 1.0
    for i in range(n - c + 1, n + 1):
        miss *= 1.0 - k / i
    return 1.0 - miss


def pass_ks(n: int) -> list[int]:
    """The k a report shows for runs of at least `n` samples an item: 2, 4, 8, … ≤ n (pass@1 apart)."""
    out, k = [], 2
    while k <= n:
        out.append(k)
        k *= 2
    return out


def answer_groups(answers: Sequence[str], key: Callable[[str], str]) -> list[list[int]]:
    """Sample indices grouped by `key(answer)` (equal forms are one answer), largest group first,
    ties in order of first appearance — so the majority answer is the first group's."""
    groups: dict[str, list[int]] = {}
    for i, answer in enumerate(answers):
        groups.setdefault(key(answer), []).append(i)
    return sorted(groups.values(), key=lambda g: (-len(g), g[0]))


def is_flaky(correct: int, n: int) -> bool:
    """Some of an item's `n` samples right and some wrong."""
    return 0 < correct < n


@dataclass(frozen=True, slots=True)
class ItemSamples:
    """One item's samples summed up: what `predictions` stores beside the official score."""

    n: int
    correct: int
    mean_em: float | None
    mean_f1: float | None
    majority: str
    majority_share: float
    majority_correct: bool
    distinct: int

    @property
    def flaky(self) -> bool:
        """Some samples right and some wrong."""
        return is_flaky(self.correct, self.n)


SampleScore = tuple[int | None, float | None, bool]
"""(EM, F1 — or F1-recall for F1-recall scorers —, right) of one sampled answer."""
ItemRow = tuple[int, int, float | None, float | None, str, float, int, int, int]
"""An item's aggregate as `predictions` stores it: `ItemSamples`' fields in order, then `flaky`,
the booleans as 0/1."""


def _mean(values: Sequence[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return sum(known) / len(known) if known else None


def summarise_item(answers: Sequence[str], scores: Mapping[str, SampleScore], key: Callable[[str], str]) -> ItemSamples:
    """The aggregate of one item's samples, `scores` giving each distinct answer's (a sample's
    score is its text's): equal forms (`key`) are one answer, the majority the largest group, ties
    to the group seen first (`answer_groups`). See `item_row`, which computes it."""
    if not answers:
        raise ValueError("an item's samples cannot be empty")
    row = item_row(answers, {text: (scores[text], key(text), None) for text in dict.fromkeys(answers)})
    return ItemSamples(*row[:6], majority_correct=bool(row[6]), distinct=row[7])


def item_row(answers: Sequence[str], distinct: Mapping[str, tuple[SampleScore, str, Any]]) -> ItemRow:
    """`summarise_item` as the stored row, for a load's many items: `distinct` maps each distinct
    answer, in order of first appearance, to (its score, its form, anything the caller keeps
    beside them), so nothing is looked up twice. Computed over the distinct answers and their
    counts — samples repeat a few —; the mean F1 sums the samples' in sample order, as the mean
    of the per-sample list does."""
    n = len(answers)
    groups: dict[str, list[Any]] = {}  # form → [count, its first answer]; in order of first appearance
    correct = em_sum = em_known = 0
    f1_of: dict[str, float | None] = {}
    for text, ((em, f1, right), form, _) in distinct.items():
        count = answers.count(text)
        correct += count * right
        if em is not None:
            em_sum += count * em
            em_known += count
        f1_of[text] = f1
        group = groups.get(form)
        if group is None:
            groups[form] = [count, text]
        else:
            group[0] += count
    if None in f1_of.values():
        mean_f1 = _mean(list(map(f1_of.__getitem__, answers)))
    else:
        mean_f1 = sum(cast(Iterable[float], map(f1_of.__getitem__, answers))) / n
    top_count, majority = max(groups.values(), key=itemgetter(0))  # the first of the largest
    return (n, correct, em_sum / em_known if em_known else None, mean_f1, majority, top_count / n,
            int(distinct[majority][0][2]), len(groups), int(is_flaky(correct, n)))


@dataclass(frozen=True, slots=True)
class SampleCounts:
    """What the run-level numbers need of one item (or of `count` alike items)."""

    n: int
    correct: int
    majority_correct: bool
    majority_share: float
    count: int = 1


def run_sample_metrics(items: Iterable[SampleCounts]) -> dict[str, float | int]:
    """Means over items: pass@1, pass@k for k = 2, 4, … up to the fewest samples any item has,
    majority-vote accuracy (`maj`) and consistency (the majority answer's share); with the item
    and sample counts they are over. Empty when no item has samples."""
    rows = [r for r in items if r.count > 0]
    total = sum(r.count for r in rows)
    if total == 0:
        return {}
    least = min(r.n for r in rows)
    out: dict[str, float | int] = {"items": total, "samples": sum(r.n * r.count for r in rows),
                                   "min_samples": least, "max_samples": max(r.n for r in rows)}
    for k in [1, *pass_ks(least)]:
        out[f"pass@{k}"] = sum(pass_at_k(r.n, r.correct, k) * r.count for r in rows) / total
    out["maj"] = sum(r.count for r in rows if r.majority_correct) / total
    out["consistency"] = sum(r.majority_share * r.count for r in rows) / total
    return out
