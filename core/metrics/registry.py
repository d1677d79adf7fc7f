"""Scorer names, per-family defaults, and one entry point the store and CLI call.

Any scorer may be used on any dataset (a CMRC-style set scored with cdqa-f1-recall and vice
versa); the family only picks the default.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from . import cdqa, cmrc

__all__ = [
    "CDQA_F1_RECALL", "CMRC_OFFICIAL", "SCORERS", "ScoreRow", "aggregate", "default_scorer", "metrics_of",
    "score_prediction", "uses_f1_recall",
]

CMRC_OFFICIAL = "cmrc2018-official"
CDQA_F1_RECALL = "cdqa-f1-recall"
SCORERS: tuple[str, ...] = (CMRC_OFFICIAL, CDQA_F1_RECALL)

_DEFAULTS = {"cmrc": CMRC_OFFICIAL, "squad": CMRC_OFFICIAL, "cdqa": CDQA_F1_RECALL}


@dataclass(slots=True)
class ScoreRow:
    """One prediction's scores; the fields of the other scorer's family are None."""

    scorer: str
    em: int | None = None
    f1: float | None = None
    refused: bool | None = None
    f1_recall: float | None = None
    best_gold: int | None = None


def _check(scorer: str) -> None:
    if scorer not in SCORERS:
        raise ValueError(f"unknown scorer {scorer!r}; known scorers: {', '.join(SCORERS)}")


_METRICS = {CMRC_OFFICIAL: ("em", "f1"), CDQA_F1_RECALL: ("f1_recall", "answer_rate")}


def metrics_of(scorer: str) -> tuple[str, ...]:
    """The headline metrics a scorer gives (the names of `core.report` columns), in display order."""
    _check(scorer)
    return _METRICS[scorer]


def uses_f1_recall(scorer: str | None = None, family: str | None = None) -> bool:
    """Whether F1-recall and answer rate (not EM/F1) are the numbers: the stored scorer decides,
    else the dataset family's default scorer. The one answer to "is this run CDQA-scored"."""
    if not scorer and family:
        scorer = _DEFAULTS.get(family)
    return scorer is not None and "f1_recall" in _METRICS.get(scorer, ())


def default_scorer(family: str) -> str:
    """cmrc/squad → cmrc2018-official, cdqa → cdqa-f1-recall."""
    try:
        return _DEFAULTS[family]
    except KeyError:
        raise ValueError(
            f"unknown dataset family {family!r}; known families: {', '.join(_DEFAULTS)}"
        ) from None


def score_prediction(
    scorer: str,
    prediction: str,
    golds: Sequence[str],
    refusal_phrases: Sequence[str] = cdqa.DEFAULT_REFUSAL_PHRASES,
) -> ScoreRow:
    """Score one prediction with the named scorer (`refusal_phrases` only matter for CDQA)."""
    _check(scorer)
    if scorer == CMRC_OFFICIAL:
        s = cmrc.score(prediction, golds)
        return ScoreRow(scorer=scorer, em=s.em, f1=s.f1, best_gold=s.best_gold)
    c = cdqa.score(prediction, golds, phrases=refusal_phrases)
    return ScoreRow(scorer=scorer, refused=c.refused, f1_recall=c.f1_recall, best_gold=c.best_gold)


def aggregate(scorer: str, rows: Iterable[ScoreRow | None], total: int) -> dict[str, Any]:
    """Dataset-level numbers as the official scorer reports them (None row = no prediction).

    cmrc2018-official → {em, f1, average, total, skip}; cdqa-f1-recall → {f1_recall,
    answer_rate, total, answered}.
    """
    _check(scorer)
    if scorer == CMRC_OFFICIAL:
        return cmrc.aggregate(
            (None if r is None else cmrc.CmrcScore(em=r.em or 0, f1=r.f1 or 0.0, best_gold=r.best_gold)
             for r in rows),
            total,
        )
    return cdqa.aggregate(
        (None if r is None else cdqa.CdqaScore(bool(r.refused), r.f1_recall, r.best_gold) for r in rows),
        total,
    )
