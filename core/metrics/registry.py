"""Scorer names, the default scorer for what the data is, and the entry points the store and CLI call.

Any scorer may be used on any dataset (a CMRC-style set scored with cdqa-f1-recall and vice
versa); what the data is only picks the default (`default_scorer`):

| data | default scorer |
|---|---|
| Chinese span extraction (CMRC 2018, DRCD) | `cmrc2018-official` |
| English span extraction, every question answerable (SQuAD 1.x) | `squad-v1.1` |
| English with unanswerable questions (SQuAD 2.0: `is_impossible`, empty answers) | `squad-v2` |
| CDQA (LLM answers, refusals) | `cdqa-f1-recall` |
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from qa_inspect.core.errors import unknown_name

from . import cdqa, cmrc, segment, squad

__all__ = [
    "CDQA_F1_RECALL", "CMRC_OFFICIAL", "SCORERS", "SQUAD_V11", "SQUAD_V2", "RunItem", "ScoreRow", "aggregate",
    "aggregate_run", "answer_rate", "default_scorer", "metrics_of", "score_prediction",
    "uses_f1_recall",
]

CMRC_OFFICIAL = "cmrc2018-official"
SQUAD_V11 = "squad-v1.1"
SQUAD_V2 = "squad-v2"
CDQA_F1_RECALL = "cdqa-f1-recall"
SCORERS: tuple[str, ...] = (CMRC_OFFICIAL, SQUAD_V11, SQUAD_V2, CDQA_F1_RECALL)

_DEFAULTS = {"cmrc": CMRC_OFFICIAL, "squad": SQUAD_V11, "cdqa": CDQA_F1_RECALL}


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
        raise ValueError(unknown_name("scorer", scorer, SCORERS))


_METRICS = {
    CMRC_OFFICIAL: ("em", "f1"),
    SQUAD_V11: ("em", "f1"),
    SQUAD_V2: ("em", "f1"),
    CDQA_F1_RECALL: ("f1_recall", "answer_rate"),
}


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


def answer_rate(answered: int, responses: int) -> float | None:
    """CDQA's answer rate in percent: answered (not refused) / the run's responses, as
    `cdqa_eval.py` divides; None without a response. The one definition every report uses."""
    return 100.0 * answered / responses if responses else None


def default_scorer(family: str, *, unanswerable: bool = False) -> str:
    """The scorer for what the data is (see the module docstring): cmrc → cmrc2018-official,
    squad → squad-v1.1, or squad-v2 when some question has no answer, cdqa → cdqa-f1-recall."""
    try:
        scorer = _DEFAULTS[family]
    except KeyError:
        raise ValueError(unknown_name("dataset family", family, _DEFAULTS)) from None
    return SQUAD_V2 if scorer == SQUAD_V11 and unanswerable else scorer


def score_prediction(
    scorer: str,
    prediction: str,
    golds: Sequence[str],
    refusal_phrases: Sequence[str] = cdqa.DEFAULT_REFUSAL_PHRASES,
) -> ScoreRow:
    """Score one prediction with the named scorer (`refusal_phrases` only matter for CDQA)."""
    if scorer == CMRC_OFFICIAL:  # the common case first: one call per prediction of every load
        c = cmrc.score(prediction, golds)
        return ScoreRow(scorer, c.em, c.f1, None, None, c.best_gold)
    _check(scorer)
    if scorer in (SQUAD_V11, SQUAD_V2):
        s = (squad.score_v11 if scorer == SQUAD_V11 else squad.score_v2)(prediction, golds)
        return ScoreRow(scorer=scorer, em=s.em, f1=s.f1, best_gold=s.best_gold)
    d = cdqa.score(prediction, golds, phrases=refusal_phrases)
    return ScoreRow(scorer=scorer, refused=d.refused, f1_recall=d.f1_recall, best_gold=d.best_gold)


def aggregate(scorer: str, rows: Iterable[ScoreRow | None], total: int) -> dict[str, Any]:
    """Dataset-level numbers as the official scorer reports them (None row = no prediction).

    cmrc2018-official → {em, f1, average, total, skip}; cdqa-f1-recall → {f1_recall,
    answer_rate, total, answered, responses}. The SQuAD scorers need more than the rows (ids,
    which questions have answers, no-answer probabilities): use `aggregate_run`.
    """
    _check(scorer)
    if scorer in (SQUAD_V11, SQUAD_V2):
        raise ValueError(f"{scorer} aggregates whole runs: use aggregate_run")
    if scorer == CMRC_OFFICIAL:  # rows carry em and f1 as cmrc.aggregate reads them; a missing one counts 0
        return cmrc.aggregate(
            (None if r is None else cmrc.CmrcScore(em=r.em or 0, f1=r.f1 or 0.0, best_gold=r.best_gold)
             for r in rows),
            total,
        )
    return cdqa.aggregate(
        (None if r is None else cdqa.CdqaScore(bool(r.refused), r.f1_recall, r.best_gold) for r in rows),
        total,
    )


class RunItem(NamedTuple):
    """One dataset question in a whole-run aggregate: its id, scored golds, and the prediction
    (None = the run has none) with its score row and no-answer probability where known.
    Immutable; a NamedTuple because a run of 100k questions makes 100k of them per slice."""

    id: str
    golds: Sequence[str]
    prediction: str | None
    row: ScoreRow | None = None
    na_prob: float | None = None


def _squad(it: RunItem, scorer: str) -> squad.SquadScore | None:
    """The row `score_prediction` already computed with this scorer, as the SQuAD aggregates take it."""
    r = it.row
    if r is None or r.scorer != scorer or r.em is None or r.f1 is None or it.prediction is None:
        return None
    return squad.SquadScore(em=r.em, f1=r.f1, best_gold=r.best_gold)


def aggregate_run(
    scorer: str, items: Sequence[RunItem], *, na_prob_thresh: float = 1.0, use_na_probs: bool = True
) -> dict[str, Any]:
    """What the scorer's official script prints for a whole run, `items` in dataset order.

    squad-v1.1 → {exact_match, f1}; squad-v2 → {exact, f1, total, HasAns_*, NoAns_*} plus
    best_exact/best_f1 and their thresholds when every answered item has a no-answer probability
    (`use_na_probs=False` leaves them out); the others as `aggregate`.
    """
    _check(scorer)
    if scorer == SQUAD_V11:
        return squad.aggregate_v11([squad.V11Item(it.id, list(it.golds), it.prediction, _squad(it, scorer)) for it in items])
    if scorer == SQUAD_V2:
        probs = {it.id: it.na_prob for it in items if it.prediction is not None and it.na_prob is not None}
        answered = sum(1 for it in items if it.prediction is not None)
        na_probs = probs if use_na_probs and probs and len(probs) == answered else None
        v2 = [squad.V2Item(it.id, list(it.golds), bool(it.golds), it.prediction, _squad(it, scorer)) for it in items]
        return squad.aggregate_v2(v2, na_probs, na_prob_thresh)
    rows = [it.row if it.prediction is not None else None for it in items]
    return aggregate(scorer, rows, len(items))
