"""Where a prediction and a gold agree, as character ranges in the *raw* strings, for display.

- `align_f1`: the run of segments the official CMRC F1 matched (same tie-breaking as `find_lcs`).
- `align_chars`: a classic character-level LCS (subsequence), nothing ignored: an alternative view.
- `align_cdqa`: the jieba tokens counted by CDQA F1-recall, on both sides.
- `find_in_context`: locate a text in a passage, exactly, then case- and whitespace-insensitively.

All ranges are half-open `(start, end)`, sorted and merged.
"""

from __future__ import annotations

import difflib
import re
from collections import Counter
from dataclasses import dataclass, field

from . import cdqa, squad
from .cmrc import longest_common_run
from .segment import SP_CHARS, segment_spans

__all__ = ["Alignment", "align_cdqa", "align_chars", "align_f1", "align_squad", "find_in_context", "merge_ranges"]

Range = tuple[int, int]
_IGNORED = frozenset(SP_CHARS)
_CHAR_LCS_LIMIT = 1_000_000  # cells; above this the char view falls back to difflib blocks


@dataclass(slots=True)
class Alignment:
    """Matched ranges in the prediction and in the gold; `matched` are the matched units
    (segments for `align_f1`, tokens for `align_cdqa`, chars for `align_chars`)."""

    pred_ranges: list[Range] = field(default_factory=list)
    gold_ranges: list[Range] = field(default_factory=list)
    matched: list[str] = field(default_factory=list)


def merge_ranges(ranges: list[Range], text: str | None = None) -> list[Range]:
    """Sort, drop empty ranges and merge overlapping or touching ones. With `text`, also bridge
    gaps made only of whitespace and dropped punctuation (what the CMRC scorer ignores)."""
    out: list[Range] = []
    for start, end in sorted(r for r in ranges if r[1] > r[0]):
        if out:
            last_start, last_end = out[-1]
            gap = "" if start <= last_end else (text[last_end:start] if text is not None else None)
            if gap is not None and all(ch.isspace() or ch in _IGNORED for ch in gap):
                out[-1] = (last_start, max(last_end, end))
                continue
        out.append((start, end))
    return out


def align_f1(prediction: str, gold: str) -> Alignment:
    """The longest common contiguous run of rm_punc segments (what official F1 counted),
    mapped back to raw offsets. Empty when F1 is 0."""
    pred = segment_spans(prediction, rm_punc=True)
    gold_spans = segment_spans(gold, rm_punc=True)
    length, g_start, p_start = longest_common_run(
        [t for t, _, _ in gold_spans], [t for t, _, _ in pred]
    )
    if length == 0:
        return Alignment()
    p_run = pred[p_start : p_start + length]
    g_run = gold_spans[g_start : g_start + length]
    return Alignment(
        pred_ranges=merge_ranges([(a, b) for _, a, b in p_run], prediction),
        gold_ranges=merge_ranges([(a, b) for _, a, b in g_run], gold),
        matched=[t for t, _, _ in g_run],
    )


def align_chars(prediction: str, gold: str) -> Alignment:
    """Character-level longest common subsequence (case and punctuation count)."""
    pairs = _char_lcs_pairs(prediction, gold)
    return Alignment(
        pred_ranges=merge_ranges([(i, i + 1) for i, _ in pairs]),
        gold_ranges=merge_ranges([(j, j + 1) for _, j in pairs]),
        matched=[prediction[i] for i, _ in pairs],
    )


def _char_lcs_pairs(a: str, b: str) -> list[tuple[int, int]]:
    """Index pairs of one LCS of `a` and `b` (DP table; difflib blocks when too large)."""
    n, m = len(a), len(b)
    if n == 0 or m == 0:
        return []
    if n * m > _CHAR_LCS_LIMIT:
        sm = difflib.SequenceMatcher(None, a, b, autojunk=False)
        return [(blk.a + k, blk.b + k) for blk in sm.get_matching_blocks() for k in range(blk.size)]
    table = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        row, below = table[i], table[i + 1]
        ch = a[i]
        for j in range(m - 1, -1, -1):
            row[j] = below[j + 1] + 1 if ch == b[j] else max(below[j], row[j + 1])
    pairs: list[tuple[int, int]] = []
    i = j = 0
    while i < n and j < m:
        if a[i] == b[j]:
            pairs.append((i, j))
            i += 1
            j += 1
        elif table[i + 1][j] >= table[i][j + 1]:
            i += 1
        else:
            j += 1
    return pairs


def align_cdqa(prediction: str, gold: str) -> Alignment:
    """Tokens counted by CDQA F1-recall: prediction tokens that hit the gold's token multiset and
    gold tokens that the prediction covers (earliest occurrences first)."""
    if prediction == "":
        return Alignment()
    return _bag_alignment(cdqa.token_spans(prediction), cdqa.token_spans(gold))


def _bag_alignment(pred: list[tuple[str, int, int]], gold_spans: list[tuple[str, int, int]]) -> Alignment:
    """Tokens counted by a bag-of-tokens F1 (CDQA, SQuAD): prediction tokens the gold's multiset
    still holds and gold tokens the prediction covers, earliest occurrences first."""
    gold_left = Counter(t for t, _, _ in gold_spans)
    pred_left = Counter(t for t, _, _ in pred)
    pred_hits = []
    for tok, a, b in pred:
        if gold_left[tok] > 0:
            gold_left[tok] -= 1
            pred_hits.append((a, b))
    gold_hits, matched = [], []
    for tok, a, b in gold_spans:
        if pred_left[tok] > 0:
            pred_left[tok] -= 1
            gold_hits.append((a, b))
            matched.append(tok)
    return Alignment(merge_ranges(pred_hits), merge_ranges(gold_hits), matched)


_WORD = re.compile(r"\S+")


def _squad_token_spans(text: str) -> list[tuple[str, int, int]]:
    """(normalised token, start, end) per whitespace word of the raw text. `normalize_answer`
    removes punctuation without splitting and articles whole, so a raw word is one token or none."""
    out = []
    for m in _WORD.finditer(text):
        tokens = squad.get_tokens(m.group())
        if tokens:
            out.append((tokens[0], m.start(), m.end()))
    return out


def align_squad(prediction: str, gold: str) -> Alignment:
    """Words counted by SQuAD F1 (a bag of normalised tokens): prediction words whose token the
    gold also has, and gold words the prediction covers, earliest occurrences first."""
    return _bag_alignment(_squad_token_spans(prediction), _squad_token_spans(gold))


def find_in_context(context: str, text: str) -> Range | None:
    """Where `text` occurs in `context`: exact first, then ignoring case, then also ignoring
    whitespace (inside the text and between its chars). None if absent or `text` is blank."""
    if not text.strip():
        return None
    at = context.find(text)
    if at >= 0:
        return at, at + len(text)
    m = re.search(re.escape(text), context, re.IGNORECASE)
    if m is None:
        chars = [re.escape(ch) for ch in text if not ch.isspace()]
        m = re.search(r"\s*".join(chars), context, re.IGNORECASE)
    return (m.start(), m.end()) if m is not None else None
