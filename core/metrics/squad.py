"""SQuAD v1.1 and v2.0 official EM/F1 (evaluate-v1.1.py, evaluate-v2.0.py), reproduced exactly.

Both scripts normalise with `normalize_answer`: `str.lower()`, drop every char of ASCII
`string.punctuation`, replace the articles matched by `\\b(a|an|the)\\b` with a space, then
collapse whitespace with `' '.join(s.split())`. F1 is over bags of whitespace tokens of that.

QUIRKS — what the official scripts do that one might not expect, reproduced on purpose and
pinned by tests in `tests/core/metrics/test_squad.py`.

1. Only ASCII punctuation is dropped: "“quoted”" vs "quoted" and "—dash—" vs "dash" score 0;
   "naïve" is not "naive". Punctuation is removed without splitting, so "state-of-the-art" is
   one token "stateoftheart" (0 against "state of the art"), "1,000" is "1000".
2. Articles are removed after lowercasing, anywhere: "An apple a day" equals "apple day"; an
   articles-only string ("the", "a a") normalises to "".
3. v1.1: F1 is 0 whenever no token is shared, so an empty (or articles-only) prediction scores
   EM 1 but F1 0 against an empty gold. v2.0: F1 is `int(gold_toks == pred_toks)` when either
   side is empty, so both-empty scores 1.
4. v2.0 drops golds that normalise to "" and gives an item with no gold left the single gold
   "": only a prediction that normalises to "" scores on it ("the" scores EM 1, F1 1 on an
   unanswerable question). `has_answer` is still `bool(raw answers)`, so an item whose golds
   are all articles is counted under HasAns yet scored as a no-answer.
5. EM and F1 are each the max over golds, independently; `best_gold` is the first gold with
   the maximal F1 (index into the golds as given).
6. v2.0 threshold: a question whose no-answer probability is *strictly* above `na_prob_thresh`
   scores `float(not has_answer)` whatever was predicted. The default 1.0 never fires.
7. `find_best_thresh` starts from "abstain everywhere" (one point per unanswerable question),
   walks ids sorted by probability (a stable sort, so ties keep the `na_probs` mapping's order,
   not the dataset's) and moves the threshold only on a strict gain, so it may stop inside a
   group of equal probabilities: a threshold that cannot actually be applied. It charges -1
   for an unanswerable question whose *raw* prediction is non-empty, even one that
   normalises to "" (e.g. "the") and scores 1 when answered. Its thresh starts at 0.0.
8. Aggregates are `100.0 * sum / total` as raw floats, summed in dataset order (v1.1 with `+=`,
   v2.0 with `sum()`, as the scripts do), with no rounding.

Missing predictions (`prediction=None`). v1.1 counts a missing prediction as 0 over all
questions. The v2.0 script leaves missing ids out of `total` and of the best-threshold
denominator, but then raises KeyError building HasAns/NoAns for any missing id, so it has no
answer to reproduce (none of the conformance runs has a missing v2 id). We follow the v1.1
convention for v2.0 too: a missing prediction scores EM 0 and F1 0 (even on an unanswerable
question, unlike an empty answer), stays in every total, is never flipped by the threshold, and
in `find_best_thresh` earns nothing (the starting score counts only answered unanswerable
questions) while staying in the denominator. With no missing ids this is exactly the script.

Deviations where the scripts would crash: no golds under v1.1 → EM 0, F1 0, best_gold None;
total 0 → scores 0.0; a no-answer probability missing for an answered id → ValueError.
"""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

__all__ = [
    "SquadScore",
    "V11Item",
    "V2Item",
    "aggregate_v11",
    "aggregate_v2",
    "apply_no_ans_threshold",
    "compute_f1_v11",
    "compute_f1_v2",
    "find_all_best_thresh",
    "find_best_thresh",
    "get_tokens",
    "normalize_answer",
    "score_v11",
    "score_v2",
    "cache_clear",
]

_ARTICLES = re.compile(r"\b(a|an|the)\b", re.UNICODE)
_PUNCT = frozenset(string.punctuation)


@dataclass(frozen=True, slots=True)
class SquadScore:
    """One prediction against its golds; `best_gold` indexes the golds as given (first max F1),
    None when no given gold was scored (v1.1 without golds, v2.0 with every gold dropped)."""

    em: int
    f1: float
    best_gold: int | None = None


@dataclass(frozen=True, slots=True)
class V11Item:
    """A v1.1 question: its gold texts and the prediction (None = no prediction)."""

    id: str
    golds: Sequence[str]
    prediction: str | None
    scored: SquadScore | None = None
    """`score_v11(prediction, golds)` when the caller has it already (not scored twice)."""


@dataclass(frozen=True, slots=True)
class V2Item:
    """A v2.0 question. `has_answer` is `bool(qa["answers"])` (raw, before normalisation, as the
    script's `make_qid_to_has_ans`); `prediction` None = no prediction."""

    id: str
    golds: Sequence[str]
    has_answer: bool
    prediction: str | None
    scored: SquadScore | None = None
    """`score_v2(prediction, golds)` when the caller has it already (not scored twice)."""


@lru_cache(maxsize=1 << 16)
def normalize_answer(s: str) -> str:
    """Lowercase, drop ASCII punctuation, drop articles, collapse whitespace (official order:
    the calls nest as white_space_fix(remove_articles(remove_punc(lower(s))))). Kept for the
    last 65,536 texts: scoring one answer normalises it and each gold about five times, and
    sampled runs give the same golds (and often the same answer) again and again."""
    text = "".join(ch for ch in s.lower() if ch not in _PUNCT)
    text = _ARTICLES.sub(" ", text)
    return " ".join(text.split())


def get_tokens(s: str) -> list[str]:
    """v2.0's `get_tokens`: the normalised string's whitespace tokens ([] for "")."""
    if not s:
        return []
    return normalize_answer(s).split()


def _f1_from_counts(num_same: int, n_pred: int, n_gold: int) -> float:
    """The scripts' arithmetic, operation for operation, so floats agree bit for bit."""
    precision = 1.0 * num_same / n_pred
    recall = 1.0 * num_same / n_gold
    return (2 * precision * recall) / (precision + recall)


def compute_f1_v11(prediction: str, gold: str) -> float:
    """v1.1 `f1_score`: 0 when no token is shared (so also when both are empty)."""
    pred_toks = normalize_answer(prediction).split()
    gold_toks = normalize_answer(gold).split()
    num_same = sum((Counter(pred_toks) & Counter(gold_toks)).values())
    if num_same == 0:
        return 0.0
    return _f1_from_counts(num_same, len(pred_toks), len(gold_toks))


def compute_f1_v2(gold: str, prediction: str) -> float:
    """v2.0 `compute_f1` (gold first, as in the script): 1 iff both token lists are empty, 0 if
    only one is."""
    gold_toks = get_tokens(gold)
    pred_toks = get_tokens(prediction)
    if not gold_toks or not pred_toks:
        return float(gold_toks == pred_toks)
    num_same = sum((Counter(gold_toks) & Counter(pred_toks)).values())
    if num_same == 0:
        return 0.0
    return _f1_from_counts(num_same, len(pred_toks), len(gold_toks))


def _best(f1s: Sequence[float]) -> int:
    """Index of the first maximal F1."""
    best = 0
    for k in range(1, len(f1s)):
        if f1s[k] > f1s[best]:
            best = k
    return best


def score_v11(prediction: str, golds: Sequence[str]) -> SquadScore:
    """v1.1 EM and F1, each the max over golds (`metric_max_over_ground_truths`)."""
    if not golds:
        return SquadScore(em=0, f1=0.0, best_gold=None)
    pred = normalize_answer(prediction)
    em = int(any(normalize_answer(g) == pred for g in golds))
    f1s = [compute_f1_v11(prediction, g) for g in golds]
    best = _best(f1s)
    return SquadScore(em=em, f1=f1s[best], best_gold=best)


def score_v2(prediction: str, golds: Sequence[str]) -> SquadScore:
    """v2.0 EM and F1: golds normalising to "" are dropped; none left → the single gold ""."""
    kept = [k for k, g in enumerate(golds) if normalize_answer(g)]
    if not kept:
        empty = normalize_answer(prediction) == ""
        return SquadScore(em=int(empty), f1=compute_f1_v2("", prediction), best_gold=None)
    pred = normalize_answer(prediction)
    em = int(any(normalize_answer(golds[k]) == pred for k in kept))
    f1s = [compute_f1_v2(golds[k], prediction) for k in kept]
    best = _best(f1s)
    return SquadScore(em=em, f1=f1s[best], best_gold=kept[best])


def aggregate_v11(items: Iterable[V11Item]) -> dict[str, float]:
    """v1.1 `evaluate`: {exact_match, f1} = 100 * sum / number of questions; a missing
    prediction adds 0 but stays in the denominator. Summed with `+=` in the given order."""
    total = 0
    exact: float = 0
    f1: float = 0
    for item in items:
        total += 1
        if item.prediction is None:
            continue
        s = item.scored or score_v11(item.prediction, item.golds)
        exact += s.em
        f1 += s.f1
    if total == 0:
        return {"exact_match": 0.0, "f1": 0.0}
    return {"exact_match": 100.0 * exact / total, "f1": 100.0 * f1 / total}


def apply_no_ans_threshold(
    scores: Mapping[str, float],
    na_probs: Mapping[str, float],
    has_answer: Mapping[str, bool],
    na_prob_thresh: float,
) -> dict[str, float]:
    """The script's function: an id whose probability is strictly above the threshold scores
    `float(not has_answer)`; other ids keep their score. Ids absent from `scores` stay absent."""
    out: dict[str, float] = {}
    for qid, s in scores.items():
        out[qid] = float(not has_answer[qid]) if na_probs[qid] > na_prob_thresh else s
    return out


def find_best_thresh(
    predictions: Mapping[str, str],
    scores: Mapping[str, float],
    na_probs: Mapping[str, float],
    has_answer: Mapping[str, bool],
    total: int | None = None,
) -> tuple[float, float]:
    """(100 * best score / total, best threshold) as the script's `find_best_thresh` (QUIRK 7).

    `scores` and `predictions` hold the answered ids only. The start counts the unanswerable
    ids that were answered (the script counts all; they agree when nothing is missing) and
    `total` defaults to `len(scores)`, the script's denominator.
    """
    cur: float = sum(1 for qid in scores if not has_answer[qid])
    best_score: float = cur
    best_thresh = 0.0
    for qid in sorted(na_probs, key=lambda k: na_probs[k]):
        if qid not in scores:
            continue
        if has_answer[qid]:
            diff: float = scores[qid]
        else:
            diff = -1 if predictions[qid] else 0
        cur += diff
        if cur > best_score:
            best_score = cur
            best_thresh = na_probs[qid]
    denominator = len(scores) if total is None else total
    return (100.0 * best_score / denominator if denominator else 0.0), best_thresh


def find_all_best_thresh(
    predictions: Mapping[str, str],
    exact_raw: Mapping[str, float],
    f1_raw: Mapping[str, float],
    na_probs: Mapping[str, float],
    has_answer: Mapping[str, bool],
    total: int | None = None,
) -> dict[str, float]:
    """{best_exact, best_exact_thresh, best_f1, best_f1_thresh} from the *raw* (unthresholded)
    scores, as the script computes them."""
    best_exact, exact_thresh = find_best_thresh(predictions, exact_raw, na_probs, has_answer, total)
    best_f1, f1_thresh = find_best_thresh(predictions, f1_raw, na_probs, has_answer, total)
    return {
        "best_exact": best_exact,
        "best_exact_thresh": exact_thresh,
        "best_f1": best_f1,
        "best_f1_thresh": f1_thresh,
    }


def _eval_dict(
    exact: Sequence[float], f1: Sequence[float], prefix: str = ""
) -> dict[str, float | int]:
    """`make_eval_dict` (+ `merge_eval` prefix): 100 * sum() / total, 0.0 when total is 0."""
    total = len(exact)
    return {
        f"{prefix}exact": 100.0 * sum(exact) / total if total else 0.0,
        f"{prefix}f1": 100.0 * sum(f1) / total if total else 0.0,
        f"{prefix}total": total,
    }


def _raw_scores(
    items: Sequence[V2Item],
) -> tuple[dict[str, str], dict[str, float], dict[str, float]]:
    """`get_raw_scores`: (predictions, exact, f1) for the answered ids, in dataset order."""
    predictions: dict[str, str] = {}
    exact: dict[str, float] = {}
    f1: dict[str, float] = {}
    for it in items:
        if it.prediction is not None:
            s = it.scored or score_v2(it.prediction, it.golds)
            predictions[it.id], exact[it.id], f1[it.id] = it.prediction, s.em, s.f1
    return predictions, exact, f1


def aggregate_v2(
    items: Sequence[V2Item],
    na_probs: Mapping[str, float] | None = None,
    na_prob_thresh: float = 1.0,
) -> dict[str, float | int]:
    """What evaluate-v2.0.py prints, for `items` in dataset order.

    Keys: exact, f1, total, then HasAns_* and NoAns_* (each only when that group is non-empty,
    as in the script), then best_exact, best_exact_thresh, best_f1, best_f1_thresh when
    `na_probs` is given (the script's `--na-prob-file`). Without `na_probs` no threshold
    applies. Missing predictions follow the rule in the module docstring.
    """
    has_answer = {it.id: bool(it.has_answer) for it in items}
    predictions, exact_raw, f1_raw = _raw_scores(items)
    exact, f1 = exact_raw, f1_raw
    if na_probs is not None:
        absent = [qid for qid in predictions if qid not in na_probs]
        if absent:
            raise ValueError(
                f"{len(absent)} answered ids have no no-answer probability, e.g. {absent[0]!r}"
            )
        exact = apply_no_ans_threshold(exact_raw, na_probs, has_answer, na_prob_thresh)
        f1 = apply_no_ans_threshold(f1_raw, na_probs, has_answer, na_prob_thresh)

    def column(scores: Mapping[str, float], group: bool | None) -> list[float]:
        """Scores of the group's ids in dataset order; a missing prediction counts 0."""
        return [scores.get(qid, 0) for qid, has in has_answer.items() if group in (None, has)]

    out = _eval_dict(column(exact, None), column(f1, None))
    for group, prefix in ((True, "HasAns_"), (False, "NoAns_")):
        if group in has_answer.values():
            out.update(_eval_dict(column(exact, group), column(f1, group), prefix))
    if na_probs is not None:
        total = len(has_answer)
        out.update(find_all_best_thresh(predictions, exact_raw, f1_raw, na_probs, has_answer, total))
    return out


def cache_clear() -> None:
    """Empty the cache of normalised answers: `clear_score_caches`."""
    normalize_answer.cache_clear()
