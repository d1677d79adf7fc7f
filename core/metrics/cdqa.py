"""CDQA F1-recall and refusals, as CDQA's `compute_acc` (cdqa_eval.py) computes them.

Tokens: `' '.join(jieba.cut(s)).split()` with jieba 0.42.1 in its default mode (accurate, HMM on),
then dropped when `token in '，、。 ,.《》'` — a *substring* test. The space and the empty string
never survive `.split()`, and jieba cuts those chars one by one ('《》' → 《 》), so in practice
it drops exactly the single chars; '..' (one jieba token) is kept, being no substring.
Score: |gold ∩ pred| / |gold| over token multisets, max over golds.

QUIRKS (pinned in tests/test_metrics_quirks.py):
- an empty prediction string scores 0, but a non-empty prediction with no tokens left (e.g. "。")
  scores 1 against a gold with no tokens left and 0 otherwise (`float(gold_toks == pred_toks)`)
  [test_cdqa_empty_string_vs_no_tokens]; the drop rule [test_cdqa_drop_is_substring_test];
- it is recall, not F1: extra words in the prediction cost nothing ("答案是蓉江新区" → 0.5 only
  because jieba splits "蓉江新区" differently in context) [test_cdqa_is_recall];
- case and digit forms are not normalised ("Yes" vs "yes" → 0, "5场" vs "五场" → 0)
  [test_cdqa_no_normalisation];
- refusal is a plain substring test on the raw response ("抱歉" anywhere refuses) and refused
  answers are left out of F1-recall but count against the answer rate [test_cdqa_refusal_substring].

CDQA's script first passes responses and golds through `cut_and_normalize_strs` from an
unpublished module; we score the text as given, which is what the conformance file encodes.

Deviations where the original would crash: no golds → 0.0 (best_gold None); no answered item →
F1-recall None in `aggregate`.
"""

from __future__ import annotations

import os
import warnings
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

__all__ = [
    "DEFAULT_REFUSAL_PHRASES",
    "DROP_CHARS",
    "CdqaScore",
    "aggregate",
    "cache_clear",
    "f1_recall",
    "is_refusal",
    "per_gold",
    "score",
    "tokens",
    "token_spans",
    "warm_up",
]

DEFAULT_REFUSAL_PHRASES: tuple[str, ...] = ("对不起", "抱歉", "无法确定", "没有提及")
DROP_CHARS = "，、。 ,.《》"
"""A token is dropped when it is a substring of this string (the official `not in` test)."""

_jieba: Any = None


def _cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "qa-inspect"


def _get_jieba() -> Any:
    """Import jieba on first use, silence its logging and keep its dictionary cache in a stable
    user cache dir (so the ~1 s dictionary build happens once per machine, not per /tmp wipe)."""
    global _jieba
    if _jieba is None:
        import logging  # jieba's own; not worth importing at every start

        with warnings.catch_warnings():  # jieba imports the deprecated pkg_resources
            warnings.simplefilter("ignore")
            import jieba

        jieba.setLogLevel(logging.CRITICAL)
        try:
            cache_dir = _cache_dir()
            cache_dir.mkdir(parents=True, exist_ok=True)
            if os.access(cache_dir, os.W_OK):
                jieba.dt.tmp_dir = str(cache_dir)
                jieba.dt.cache_file = "jieba.cache"
        except OSError:
            pass  # jieba falls back to its default cache in the temp dir
        _jieba = jieba
    return _jieba


def warm_up() -> None:
    """Load jieba's dictionary now (~0.7 s from its cache) — e.g. in a worker before scoring."""
    _get_jieba().initialize()


def cache_clear() -> None:
    """Empty the per-text token cache."""
    _token_tuple.cache_clear()


@lru_cache(maxsize=100_000)
def _token_tuple(text: str) -> tuple[str, ...]:
    words = " ".join(_get_jieba().cut(text)).split()
    return tuple(w for w in words if w not in DROP_CHARS)


def tokens(text: str) -> list[str]:
    """The official `process_string`: jieba tokens minus those that are substrings of DROP_CHARS."""
    return list(_token_tuple(text))


def token_spans(text: str) -> list[tuple[str, int, int]]:
    """`tokens(text)` with [start, end) offsets in `text` (jieba tokens are contiguous pieces;
    a token holding inner whitespace, which `.split()` breaks up, is located piece by piece)."""
    out: list[tuple[str, int, int]] = []
    pos = 0
    for piece in _get_jieba().cut(text):
        start = pos
        pos += len(piece)
        offset = 0
        for word in piece.split():
            at = piece.index(word, offset)
            offset = at + len(word)
            if word not in DROP_CHARS:
                out.append((word, start + at, start + offset))
    return out


def is_refusal(text: str, phrases: Sequence[str] = DEFAULT_REFUSAL_PHRASES) -> bool:
    """True if the response contains any refusal phrase (plain substring test, as CDQA does)."""
    return any(p in text for p in phrases)


def _acc_single(gold_toks: tuple[str, ...], pred_toks: tuple[str, ...]) -> float:
    """`compute_acc_single`: multiset recall of gold tokens; empty token lists compare equal."""
    if not gold_toks or not pred_toks:
        return float(gold_toks == pred_toks)
    common = Counter(gold_toks) & Counter(pred_toks)
    num_same = sum(common.values())
    if num_same == 0:
        return 0.0
    return num_same / len(gold_toks)


def per_gold(prediction: str, golds: Sequence[str]) -> list[float]:
    """F1-recall against each gold in turn (all 0 for an empty prediction)."""
    if prediction == "":
        return [0.0] * len(golds)
    pred_toks = _token_tuple(prediction)
    return [_acc_single(_token_tuple(g), pred_toks) for g in golds]


def f1_recall(prediction: str, golds: Sequence[str]) -> float:
    """`compute_acc`: max over golds of the token recall; 0 for an empty prediction or no golds."""
    values = per_gold(prediction, golds)
    return max(values) if values else 0.0


@dataclass(slots=True)
class CdqaScore:
    """`f1_recall` and `best_gold` (first on ties) are None for a refusal."""

    refused: bool
    f1_recall: float | None
    best_gold: int | None


def score(
    prediction: str, golds: Sequence[str], phrases: Sequence[str] = DEFAULT_REFUSAL_PHRASES
) -> CdqaScore:
    """Refusal check first (refusals are not scored), then F1-recall."""
    if is_refusal(prediction, phrases):
        return CdqaScore(refused=True, f1_recall=None, best_gold=None)
    values = per_gold(prediction, golds)
    if not values:
        return CdqaScore(refused=False, f1_recall=0.0, best_gold=None)
    best = max(range(len(values)), key=lambda k: (values[k], -k))
    return CdqaScore(refused=False, f1_recall=values[best], best_gold=best)


def aggregate(scores: Iterable[CdqaScore | None], total: int) -> dict[str, float | int | None]:
    """As CDQA's `cdqa_eval.py`: F1-recall averaged over answered items (percent, '.4f' as CDQA
    prints it) and answer rate = answered / the run's responses (percent, rounded to 2 places).
    None = no prediction: it counts in `total` (the dataset's questions) but is not a response.
    `f1_recall` is None when nothing was answered."""
    values: list[float] = []
    seen = responses = 0
    for item in scores:
        seen += 1
        if item is None:
            continue
        responses += 1
        if item.refused or item.f1_recall is None:
            continue
        values.append(item.f1_recall)
    if total < seen:
        raise ValueError(f"total ({total}) is smaller than the number of scores ({seen})")
    answered = len(values)
    f1 = float(format(sum(values) / answered * 100, ".4f")) if answered else None
    rate = round(100 * answered / responses, 2) if responses else 0.0
    return {"f1_recall": f1, "answer_rate": rate, "total": total, "answered": answered, "responses": responses}
