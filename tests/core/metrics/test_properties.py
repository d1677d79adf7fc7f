"""Property tests: score ranges, EM/F1 consistency, symmetry, fast paths against NLTK and the
official O(n·m) LCS, and alignment offsets against the raw strings."""

from __future__ import annotations

import os
from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st
from qa_inspect.core.metrics import align, cdqa, cmrc
from qa_inspect.core.metrics.segment import (
    SP_CHARS,
    fast_path_applies,
    nltk_tokenize,
    prepared,
    remove_punctuation,
    segment,
    segment_reference,
    segment_spans,
)

SETTINGS = settings(max_examples=int(os.environ.get("QA_METRICS_EXAMPLES", "150")), deadline=None)

_CJK = "中国的北京大学江新区蓉马楠年月日亿元㐀龦〇"
_ASCII = "abcxyzABCXYZ0123456789"
_OTHER = "éωıİſKßµ²٣１ａ"  # folds to ASCII, changes length when lowered, non-ASCII digits/letters
_PUNCT = SP_CHARS + ",.?!()'\"…‘«»$%&@#;[]{}<>"
_SPACE = "  \t\n\u3000\x1c"
_WORDS = ["cannot", "Gonna", "wanna", "gimme", "lemme", "gotta", "it's", "can't", "d'ye",
          "more'n", "'tis", "u.s.", "3.5", "1,000", "--", "...", "``", "''", "ω-force", "İ", "ｆｕｌｌ",
          "a.cannot", "3,a", "1,000.5", "7.7km", "x.y.", "gımme", "CANNOT", "wanna go", "a..b"]

_piece = st.one_of(
    st.sampled_from(_WORDS),
    st.text(st.sampled_from(_CJK + _ASCII + _OTHER + _PUNCT + _SPACE), max_size=6),
    st.text(max_size=3),  # anything at all, including astral and combining chars
)
texts = st.lists(_piece, max_size=8).map("".join)
word_runs = st.lists(
    st.one_of(st.sampled_from(_WORDS), st.text(st.sampled_from(_ASCII + _OTHER + " \t\x0b\x1c\x1f'.,-"), max_size=8)),
    max_size=6,
).map(" ".join)


def _official_find_lcs(s1: Sequence[str], s2: Sequence[str]) -> tuple[int, int, int]:
    """The official table, also reporting where the run starts in s2 (first max in loop order)."""
    m = [[0] * (len(s2) + 1) for _ in range(len(s1) + 1)]
    mmax = p = q = 0
    for i in range(len(s1)):
        for j in range(len(s2)):
            if s1[i] == s2[j]:
                m[i + 1][j + 1] = m[i][j] + 1
                if m[i + 1][j + 1] > mmax:
                    mmax = m[i + 1][j + 1]
                    p, q = i + 1, j + 1
    return mmax, p - mmax, q - mmax


@SETTINGS
@given(texts, st.booleans())
def test_fast_segmentation_equals_nltk_everywhere(text: str, rm_punc: bool) -> None:
    assert segment(text, rm_punc) == segment_reference(text, rm_punc)


@SETTINGS
@given(word_runs)
def test_fast_path_only_where_nltk_returns_split(run: str) -> None:
    if fast_path_applies(run):
        assert run.split() == nltk_tokenize(run)


@SETTINGS
@given(texts, st.lists(texts, min_size=1, max_size=3))
def test_f1_in_unit_interval_and_em_implies_f1(pred: str, golds: list[str]) -> None:
    s = cmrc.score(pred, golds)
    assert 0.0 <= s.f1 <= 1.0 and s.em in (0, 1)
    assert s.f1 == max(f for _, f in s.per_gold) == s.per_gold[s.best_gold][1]
    for (em, f1), gold in zip(s.per_gold, golds):
        if em and segment(gold, rm_punc=True):
            assert f1 == 1.0


@SETTINGS
@given(st.text(st.sampled_from("中国北京龥龦〇㐀，。 a1-"), max_size=10) | texts)
def test_prepared_is_its_segments(text: str) -> None:
    """`prepared` (with its shortcut for text of CJK chars only) against NLTK on every run."""
    segs = tuple(segment_reference(text, rm_punc=True))
    got = prepared.__wrapped__(text)
    assert (got.em_text, got.segs, got.n) == (remove_punctuation(text), segs, len(segs))
    assert (got.joined is None) == any(len(x) != 1 for x in segs)


@SETTINGS
@given(texts, st.lists(texts, min_size=1, max_size=3), st.lists(st.integers(0, 2), max_size=3))
def test_golds_scored_together_as_one_by_one(pred: str, golds: list[str], repeats: list[int]) -> None:
    """Scoring the distinct golds once (kept per gold tuple) gives each gold its own score, EM of
    any, and the first gold of the best F1, also when golds repeat (CMRC's do)."""
    golds = golds + [golds[k % len(golds)] for k in repeats]
    s = cmrc.score(pred, golds)
    alone = [cmrc.score(pred, [g]).per_gold[0] for g in golds]
    assert s.per_gold == alone and s.em == max(em for em, _ in alone)
    assert s.best_gold == next(k for k, (_, f1) in enumerate(alone) if f1 == s.f1)


@SETTINGS
@given(texts, texts)
def test_f1_symmetric(a: str, b: str) -> None:
    assert cmrc.f1(a, [b]) == cmrc.f1(b, [a])
    assert cmrc.exact_match(a, [b]) == cmrc.exact_match(b, [a])


@SETTINGS
@given(st.lists(st.sampled_from("abcdx"), max_size=12), st.lists(st.sampled_from("abcdy"), max_size=12))
def test_fast_lcs_matches_official_table(gold: list[str], pred: list[str]) -> None:
    got = cmrc.longest_common_run(gold, pred)
    want = _official_find_lcs(gold, pred)
    assert got[0] == want[0]
    if want[0]:
        assert got == want


@SETTINGS
@given(texts, st.booleans())
def test_segment_spans_tokens_and_bounds(text: str, rm_punc: bool) -> None:
    spans = segment_spans(text, rm_punc)
    assert [t for t, _, _ in spans] == segment(text, rm_punc)
    for _, a, b in spans:
        assert 0 <= a <= b <= len(text)


def _tokens_inside(text: str, ranges: list[tuple[int, int]]) -> list[str]:
    return [t for t, a, b in segment_spans(text, True) if any(s <= a and b <= e for s, e in ranges)]


@SETTINGS
@given(texts, texts)
def test_align_f1_ranges_match_scored_run(pred: str, gold: str) -> None:
    al = align.align_f1(pred, gold)
    for ranges, text in ((al.pred_ranges, pred), (al.gold_ranges, gold)):
        for a, b in ranges:
            assert 0 <= a < b <= len(text)
    lcs_len = cmrc.longest_common_run(segment(gold, True), segment(pred, True))[0]
    assert len(al.matched) == lcs_len
    if lcs_len and all(b > a for _, a, b in segment_spans(pred, True) + segment_spans(gold, True)):
        assert _tokens_inside(pred, al.pred_ranges) == al.matched
        assert _tokens_inside(gold, al.gold_ranges) == al.matched


@SETTINGS
@given(texts, texts)
def test_align_chars_is_common_subsequence(pred: str, gold: str) -> None:
    al = align.align_chars(pred, gold)
    picked_pred = "".join(pred[a:b] for a, b in al.pred_ranges)
    picked_gold = "".join(gold[a:b] for a, b in al.gold_ranges)
    assert picked_pred == picked_gold == "".join(al.matched)


@SETTINGS
@given(texts, texts)
def test_find_in_context_finds_inserted_text(left: str, needle: str) -> None:
    context = left + needle + left
    span = align.find_in_context(context, needle)
    if needle.strip():
        assert span == (context.find(needle), context.find(needle) + len(needle))
    else:
        assert span is None


_cdqa_text = st.lists(st.one_of(st.sampled_from(["张海燕", "蓉江新区", "抱歉", "2023年", "《孤注一掷》", "。", " "]),
                                st.text(st.sampled_from(_CJK + _ASCII + "，、。 ,.《》"), max_size=5)),
                      max_size=5).map("".join)


@SETTINGS
@given(_cdqa_text, st.lists(_cdqa_text, min_size=1, max_size=3))
def test_cdqa_recall_in_unit_interval(pred: str, golds: list[str]) -> None:
    s = cdqa.score(pred, golds)
    if s.refused:
        assert s.f1_recall is None
    else:
        assert s.f1_recall is not None and 0.0 <= s.f1_recall <= 1.0
        assert [t for t, _, _ in cdqa.token_spans(pred)] == cdqa.tokens(pred)
        for _, a, b in cdqa.token_spans(pred):
            assert 0 <= a < b <= len(pred)
