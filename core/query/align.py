"""Per-gold scores and display alignments for the detail view, delegated to `core.metrics`.

The detail view shows a prediction against *each* gold with the characters the metric matched.
Scores come from the metric modules (`cmrc.score`, `cdqa.per_gold`), matched ranges from
`core.metrics.align`, so what is highlighted is exactly what the scorer compared.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from qa_inspect.core.metrics import (
    SQUAD_V2,
    SQUAD_V11,
    align,
    cdqa,
    cmrc,
    squad,
    uses_f1_recall,
)

__all__ = ["CHARS_LIMIT", "TOO_LONG", "Match", "Range", "in_context", "is_cdqa", "per_gold"]

Range = tuple[int, int]


@dataclass(slots=True)
class Match:
    gold_idx: int
    em: int | None
    f1: float | None
    f1_recall: float | None
    gold_ranges: list[Range] = field(default_factory=list)
    pred_ranges: list[Range] = field(default_factory=list)
    gold_subseq: list[Range] = field(default_factory=list)
    pred_subseq: list[Range] = field(default_factory=list)
    best: bool = False
    """The best-scoring gold (set by `core.detail`, which knows the stored best gold)."""
    matched: int = 0
    """Segments (CMRC) or tokens (CDQA) the metric counted as common."""
    pred_units: int = 0
    gold_units: int = 0
    em_pred: str | None = None
    """CMRC: the strings EM compared (`cmrc.remove_punctuation`), to explain EM 0 at F1 100."""
    em_gold: str | None = None
    note: str | None = None
    """Why a view is missing (texts too long to align character by character in time)."""
    unit: str = "common contiguous segments"
    """What `matched` counts, in words (CMRC: one contiguous run of segments; SQuAD: a bag of words)."""

    @property
    def score(self) -> float:
        return self.f1 if self.f1 is not None else (self.f1_recall or 0.0)


def is_cdqa(scorer: str | None, family: str) -> bool:
    """Which metric scored this prediction: the stored scorer name, else the dataset family."""
    return uses_f1_recall(scorer, family)


def per_gold(scorer: str | None, family: str, prediction: str, golds: Sequence[str]) -> list[Match]:
    """One `Match` per gold, in gold order (superseded golds included: the caller marks them)."""
    if is_cdqa(scorer, family):
        return _cdqa(prediction, golds)
    if scorer in (SQUAD_V11, SQUAD_V2):
        return _squad(scorer, prediction, golds)
    return _cmrc(prediction, golds)


def _squad(scorer: str, prediction: str, golds: Sequence[str]) -> list[Match]:
    """Each gold scored alone as the SQuAD script does, its counted words highlighted."""
    one = squad.score_v11 if scorer == SQUAD_V11 else squad.score_v2
    pred_units = len(squad.get_tokens(prediction))
    out: list[Match] = []
    for k, gold in enumerate(golds):
        s = one(prediction, [gold])
        words = align.align_squad(prediction, gold)
        chars, note = _chars(prediction, gold)
        out.append(Match(
            k, s.em, s.f1, None, words.gold_ranges, words.pred_ranges, chars.gold_ranges, chars.pred_ranges,
            matched=len(words.matched), pred_units=pred_units, gold_units=len(squad.get_tokens(gold)),
            em_pred=squad.normalize_answer(prediction), em_gold=squad.normalize_answer(gold), note=note,
            unit="normalised words in common (as a bag)",
        ))
    return out


CHARS_LIMIT = 250_000
"""Largest len(prediction) × len(gold) aligned character by character (the `a` view): the
subsequence search grows faster than quadratically on repetitive text (1,440 × 1,200 English
characters: 4 s; 500 × 500: 0.02–0.04 s), so longer pairs keep the official alignment only and
say so."""
TOO_LONG = "too long to align character by character: the official alignment is shown"


def _chars(prediction: str, gold: str) -> tuple[align.Alignment, str | None]:
    if len(prediction) * len(gold) > CHARS_LIMIT:
        return align.Alignment(), TOO_LONG
    return align.align_chars(prediction, gold), None


def _cmrc(prediction: str, golds: Sequence[str]) -> list[Match]:
    pairs = cmrc.score(prediction, list(golds)).per_gold if golds else []
    pred_units = len(cmrc.segment(prediction, True))
    pred_norm = cmrc.remove_punctuation(prediction)
    out: list[Match] = []
    for k, (gold, (em, f1)) in enumerate(zip(golds, pairs)):
        official = align.align_f1(prediction, gold) if f1 > 0 else align.Alignment()
        chars, note = _chars(prediction, gold)
        out.append(Match(
            k, em, f1, None, official.gold_ranges, official.pred_ranges, chars.gold_ranges, chars.pred_ranges,
            matched=len(official.matched), pred_units=pred_units, gold_units=len(cmrc.segment(gold, True)),
            em_pred=pred_norm, em_gold=cmrc.remove_punctuation(gold), note=note,
        ))
    return out


def _cdqa(prediction: str, golds: Sequence[str]) -> list[Match]:
    values = cdqa.per_gold(prediction, list(golds))
    pred_units = len(cdqa.tokens(prediction)) if prediction else 0
    out: list[Match] = []
    for k, (gold, value) in enumerate(zip(golds, values)):
        tokens = align.align_cdqa(prediction, gold)
        chars, note = _chars(prediction, gold)
        out.append(Match(
            k, None, None, value, tokens.gold_ranges, tokens.pred_ranges, chars.gold_ranges, chars.pred_ranges,
            matched=len(tokens.matched), pred_units=pred_units, gold_units=len(cdqa.tokens(gold)), note=note,
        ))
    return out


def in_context(prediction: str, context: str, gold_spans: Sequence[Range | None] = ()) -> Range | None:
    """Where the prediction occurs in the passage (`align.find_in_context`), preferring an
    occurrence that touches a gold span when the exact text occurs more than once."""
    found = align.find_in_context(context, prediction)
    if found is None:
        return None
    needle = context[found[0] : found[1]]
    at = found[0]
    while at >= 0:
        end = at + len(needle)
        if any(s and at < s[1] and s[0] < end for s in gold_spans):
            return (at, end)
        at = context.find(needle, at + 1)
    return found
