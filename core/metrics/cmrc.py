"""CMRC 2018 official EM/F1 (cmrc2018_evaluate.py v5, SQuAD-style), reproduced to the last digit.

English runs are tokenised with NLTK's Treebank word tokenizer exactly as
`nltk.word_tokenize(run, preserve_line=True)` (NLTK 3.10; its rules carried in `treebank.py`);
see `segment.py` for the fast path.

QUIRKS — what the official script does that one might not expect. Each is reproduced on purpose
and pinned by a test in `tests/test_metrics_quirks.py` (test name in brackets).

1. F1's LCS is the longest common *contiguous* run of segments, not a subsequence, so word order
   matters: "cd ab ef" vs gold "ab cd ef" scores 1/3, not 2/3. [test_lcs_is_contiguous]
2. '…' is never punctuation: the list holds '……' as one entry and chars are tested one at a
   time. "A……B" vs "A…B" has F1 0. [test_ellipsis_never_dropped]
3. ASCII `, . ? ! ( )` and `'` `"` are not in the list: they stay as segments and lower F1 and
   break EM ("hello world" vs "Hello, World!": EM 0, F1 1/3). [test_ascii_punctuation_kept]
4. The list has '’' but not '‘' (nor '"' '«' '»'): "‘abc’" vs "abc" is EM 0, F1 2/3.
   [test_left_single_quote_kept]
5. Punctuation is removed *without* splitting the run around it, so "co-founder" becomes one
   token "cofounder" and scores 0 against "co founder"; "C++" becomes "c". [test_punct_joins_words]
6. EM compares strings after removing punctuation, whitespace included, while F1 ignores
   whitespace around CJK: "3.5 亿元" vs "3.5亿元" is EM 0, F1 1. [test_em_sees_spaces]
7. `strip()` runs *before* punctuation removal, so "， 中国" keeps a leading space: EM 0 against
   "中国" (F1 1). Trailing punctuation alone is harmless ("…日，" EM 1). [test_strip_before_punc]
8. An empty (or all-punctuation) gold and prediction give EM 1 but F1 0, because F1 is 0 when
   the LCS is empty. [test_empty_gold_em1_f1_0]
9. Nothing is Unicode-normalised: full-width letters ("ｆｕｌｌ" vs "full") score 0, "Ⅲ" is not
   "III". Full-width '－' *is* in the list and is dropped. [test_fullwidth_not_normalised]
10. Only U+4E00–U+9FA5 are single-char segments. Other CJK (Extension A '㐀', U+9FA6+, '〇')
   and kana/hangul join their neighbours into one Treebank token. [test_cjk_range_only]
11. English goes through Treebank rules: contractions split ("it's" → it 's, "cannot" →
   can not), quotes become `` and '', and every non-CJK run is tokenised on its own, so the
   sentence-final-period rule fires at the end of each run ("u.s.中" → u.s . 中).
   [test_treebank_contractions, test_final_period_per_run]
12. Repetition is punished through precision: "马楠马楠" vs "马楠" is 2/3. [test_repetition]
13. EM and F1 take their maxima over golds independently; they may come from different golds.
   [test_em_f1_independent_golds]
14. Aggregation: every dataset question is in the denominator; a question without a prediction
   adds 0 and counts as SKIP, while an empty-string prediction is scored normally. Results
   are '%.3f' strings in the official output; `aggregate` returns them as floats.
   [test_aggregate_*]
15. Case is folded with `str.lower()` only (no casefold/NFKC): 'İ' becomes two chars.
   [test_lowercase_is_str_lower]

Deviations, where the official script would crash: no golds → EM 0, F1 0, best_gold None;
total 0 → all scores 0.0. [test_no_golds_deviation]
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from .segment import prepared, remove_punctuation, segment, segment_spans

__all__ = [
    "CmrcScore",
    "aggregate",
    "exact_match",
    "f1",
    "longest_common_run",
    "remove_punctuation",
    "score",
    "segment",
    "segment_spans",
]

@dataclass(slots=True)
class CmrcScore:
    """One prediction scored against its golds. `per_gold[i]` is (EM, F1) against gold i."""

    em: int
    f1: float
    best_gold: int | None
    per_gold: list[tuple[int, float]] = field(default_factory=list)


def longest_common_run(gold: Sequence[str], pred: Sequence[str]) -> tuple[int, int, int]:
    """(length, gold_start, pred_start) of the longest common contiguous run of segments.

    Same choice as the official `find_lcs(gold, pred)`: among maximal runs, the one ending
    first in `gold`, then first in `pred`. Each distinct pred segment becomes one char so that
    C-level substring search does the work: O(len(gold)) searches instead of an O(n·m) table.
    """
    if not gold or not pred:
        return 0, 0, 0
    if len(gold) == len(pred) and tuple(gold) == tuple(pred):
        return len(gold), 0, 0
    codes: dict[str, int] = {}
    enc_pred = "".join([chr(codes.setdefault(s, len(codes) + 1)) for s in pred])
    enc_gold = "".join([chr(codes.get(s, 0)) for s in gold])  # chr(0) never occurs in enc_pred
    return _encoded_run(enc_gold, enc_pred)


def _encoded_run(enc_gold: str, enc_pred: str) -> tuple[int, int, int]:
    """`longest_common_run` on encoded strings (one char per segment)."""
    at = enc_pred.find(enc_gold)
    if at >= 0:
        return len(enc_gold), 0, at
    best = 0
    start = 0
    i = 0
    n = len(enc_gold)
    while i + best < n:
        # a longer run starting at i exists iff its prefix one longer than `best` occurs
        if enc_gold[i : i + best + 1] in enc_pred:
            best += 1
            start = i
        else:
            i += 1
    if best == 0:
        return 0, 0, 0
    return best, start, enc_pred.find(enc_gold[start : start + best])


def _f1_from_lcs(lcs_len: int, pred_len: int, gold_len: int) -> float:
    """The official arithmetic, operation for operation, so floats agree bit for bit."""
    if lcs_len == 0:
        return 0.0
    precision = 1.0 * lcs_len / pred_len
    recall = 1.0 * lcs_len / gold_len
    return (2 * precision * recall) / (precision + recall)


def exact_match(prediction: str, golds: Sequence[str]) -> int:
    """1 if the prediction equals any gold after `remove_punctuation`, else 0."""
    pred = remove_punctuation(prediction)
    return int(any(remove_punctuation(g) == pred for g in golds))


def f1(prediction: str, golds: Sequence[str]) -> float:
    """Official F1: max over golds of the contiguous-LCS F1 of rm_punc segments (0 if no golds)."""
    return score(prediction, golds).f1


def score(prediction: str, golds: Sequence[str]) -> CmrcScore:
    """EM, F1, the best-F1 gold (first on ties) and per-gold scores. Duplicate golds are scored once.

    The hot path of every load and `score` (one call per prediction): segments come cached from
    `prepared`, and EM and the best gold are kept while walking the golds."""
    if not golds:
        return CmrcScore(em=0, f1=0.0, best_gold=None, per_gold=[])
    pred = prepared(prediction)
    n_pred, pred_em, pred_joined, pred_multi = pred.n, pred.em_text, pred.joined, pred.multi
    enc_pred: str | None = None
    codes: dict[str, int] = {}
    seen: dict[str, tuple[int, float]] = {}
    per_gold: list[tuple[int, float]] = []
    em_any, best, best_f1 = 0, 0, -1.0
    for k, text in enumerate(golds):
        pair = seen.get(text)
        if pair is None:
            gold = prepared(text)
            em = 1 if gold.em_text == pred_em else 0
            n_gold = gold.n
            if not n_gold or not n_pred:
                value = 0.0
            elif em or (gold.joined == pred_joined and gold.multi == pred_multi):
                value = 1.0  # the official arithmetic on lcs = n_pred = n_gold gives exactly 1.0
            elif gold.joined is not None and pred_joined is not None:
                value = _f1_from_lcs(_encoded_run(gold.joined, pred_joined)[0], n_pred, n_gold)
            else:
                if enc_pred is None:
                    enc_pred = "".join([chr(codes.setdefault(s, len(codes) + 1)) for s in pred.segs])
                enc_gold = "".join([chr(codes.get(s, 0)) for s in gold.segs])
                value = _f1_from_lcs(_encoded_run(enc_gold, enc_pred)[0], n_pred, n_gold)
            pair = seen[text] = (em, value)
        per_gold.append(pair)
        em_any |= pair[0]
        if pair[1] > best_f1:
            best, best_f1 = k, pair[1]
    return CmrcScore(em_any, best_f1, best, per_gold)


def _official_round(value: float) -> float:
    """The official output is '%.3f' % value; keep that rounding, as a float."""
    return float("%.3f" % value)


def aggregate(scores: Iterable[CmrcScore | None], total: int) -> dict[str, float | int]:
    """Official totals: EM/F1 = 100 * sum / total, AVERAGE = (EM + F1) / 2, each '%.3f'-rounded.

    `scores` holds one entry (anything with `em` and `f1`: a `CmrcScore`, a registry `ScoreRow`)
    per answered question in dataset order (None = no prediction,
    counted as SKIP); `total` is the number of dataset questions, answered or not, so questions
    missing from `scores` altogether are skipped too. Sums run in the given order, as the
    official loop does, so the last digit agrees.
    """
    f1_sum: float = 0
    em_sum = 0
    answered = 0
    seen = 0
    for item in scores:
        seen += 1
        if item is None:
            continue
        answered += 1
        f1_sum += item.f1
        em_sum += item.em
    if total < seen:
        raise ValueError(f"total ({total}) is smaller than the number of scores ({seen})")
    if total == 0:
        f1_score = em_score = 0.0
    else:
        f1_score = 100.0 * f1_sum / total
        em_score = 100.0 * em_sum / total
    return {
        "em": _official_round(em_score),
        "f1": _official_round(f1_score),
        "average": _official_round((em_score + f1_score) * 0.5),
        "total": total,
        "skip": total - answered,
    }
