"""Do the runs agree on an answer that is not the gold? Pure (no I/O).

- **Normalisation** follows the run's scorer: CDQA (`cdqa-f1-recall`) compares jieba tokens
  without the dropped punctuation, SQuAD its `normalize_answer`, CMRC its `remove_punctuation`.
  Tokens the question already holds, and a few fillers ("是", "答案", "为"), are dropped first, so
  "澜州市最近开通的地铁线路是6号线。" and "6号线" are the same answer ("6号线").
- **Weights**: newer runs count more. A run dated `days` before the newest run weighs
  0.5 ** (days / HALF_LIFE_DAYS): the newest weighs 1, a run half a year older 0.5.
- **Against the gold**: a run disagrees when its score against the item's scored golds (F1-recall
  for CDQA, F1 otherwise) is below `DISAGREE_BELOW` (0.75: "蓉江新区" vs "章贡新区" shares one of two
  gold tokens, 0.5, and is a different answer), it did not refuse, and it answered.
- **Consensus**: the disagreeing answer with the largest total weight, when at least
  `MIN_AGREEING` (2) runs give it; its share is its weight over the weight of every run that
  answered or refused the item.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

from qa_inspect.core.metrics.cdqa import tokens as cdqa_tokens
from qa_inspect.core.metrics.segment import remove_punctuation
from qa_inspect.core.metrics.squad import normalize_answer

__all__ = [
    "DISAGREE_BELOW",
    "HALF_LIFE_DAYS",
    "MIN_AGREEING",
    "Consensus",
    "RunAnswer",
    "consensus",
    "normalise",
    "run_weights",
]

DISAGREE_BELOW = 0.75
HALF_LIFE_DAYS = 180.0
MIN_AGREEING = 2
_FILLERS = frozenset({"是", "为", "答案", "答", "叫", "叫做", "：", ":", "了"})


@dataclass(frozen=True, slots=True)
class RunAnswer:
    """One run's answer to one item, with what the store computed for it."""

    run: str
    text: str
    score: float | None
    """F1-recall (CDQA) or F1 against the item's scored golds, 0–1; None for a refusal."""
    refused: bool
    weight: float = 1.0


@dataclass(frozen=True, slots=True)
class Consensus:
    """The answer most (weighted) runs give that is not the gold."""

    answer: str
    """The shortest answer text of the group, as a run wrote it (what the reasons show and the
    stale form proposes)."""
    key: str
    """The normalised answer the group shares ("6号线")."""
    runs: tuple[str, ...]
    count: int
    total: int
    """Runs that answered or refused the item."""
    share: float
    """Weighted share of `total` (0–1)."""


def normalise(text: str, scorer: str | None, question: str = "") -> str:
    """The answer as the scorer compares it, less what the question already says (see module doc)."""
    if scorer in (None, "cdqa-f1-recall"):
        asked = set(cdqa_tokens(question)) if question else set()
        kept = [t for t in cdqa_tokens(text) if t not in asked and t not in _FILLERS]
        return "".join(kept).lower()
    if scorer.startswith("squad"):
        asked_words = set(normalize_answer(question).split())
        return " ".join(w for w in normalize_answer(text).split() if w not in asked_words)
    return remove_punctuation(text)


def run_weights(dates: dict[str, date | None]) -> dict[str, float]:
    """Per run: 0.5 ** (days before the newest run / HALF_LIFE_DAYS); undated runs weigh 1."""
    known = [d for d in dates.values() if d is not None]
    newest = max(known) if known else None
    return {
        run: 1.0 if d is None or newest is None else 0.5 ** ((newest - d).days / HALF_LIFE_DAYS)
        for run, d in dates.items()
    }


def consensus(answers: Sequence[RunAnswer], scorer: str | None, question: str = "") -> Consensus | None:
    """The weighted-largest group of same normalised, disagreeing answers; None when fewer than
    MIN_AGREEING runs give one."""
    groups: dict[str, list[RunAnswer]] = {}
    for a in answers:
        if a.refused or not a.text.strip() or (a.score is not None and a.score >= DISAGREE_BELOW):
            continue
        key = normalise(a.text, scorer, question)
        if key:
            groups.setdefault(key, []).append(a)
    if not groups:
        return None
    key, members = max(groups.items(), key=lambda kv: (sum(a.weight for a in kv[1]), len(kv[1]), kv[0]))
    if len(members) < MIN_AGREEING:
        return None
    total_weight = sum(a.weight for a in answers) or 1.0
    return Consensus(
        answer=min((a.text.strip() for a in members), key=lambda t: (len(t), t)), key=key,
        runs=tuple(a.run for a in members), count=len(members), total=len(answers),
        share=sum(a.weight for a in members) / total_weight,
    )
