"""One test per documented quirk of the official scorers (see the QUIRKS sections of
`core/metrics/cmrc.py` and `core/metrics/cdqa.py`). Expected numbers are what the official code
gives; several are also rows of the conformance file (EDGE_*)."""

from __future__ import annotations

import pytest
from qa_inspect.core.metrics import cdqa, cmrc
from qa_inspect.core.metrics.segment import segment

THIRD = 1 / 3


def _s(pred: str, *golds: str) -> tuple[int, float]:
    s = cmrc.score(pred, list(golds))
    return s.em, s.f1


# --- CMRC 2018 official ----------------------------------------------------------------------


def test_lcs_is_contiguous() -> None:
    # a subsequence LCS would give 2 of 3 segments; the official contiguous run gives 1
    assert _s("cd ab ef", "ab cd ef") == (0, pytest.approx(THIRD))
    assert _s("江新区蓉", "蓉江新区") == (0, pytest.approx(0.75))


def test_ellipsis_never_dropped() -> None:
    assert cmrc.remove_punctuation("A…B") == "a…b"
    assert segment("a…b", rm_punc=True) == ["a…b"]
    assert _s("A……B", "A…B") == (0, 0.0)
    assert _s("a…b", "a b") == (0, 0.0)


def test_ascii_punctuation_kept() -> None:
    assert segment("Hello, World!", rm_punc=True) == ["hello", ",", "world", "!"]
    assert _s("hello world", "Hello, World!") == (0, pytest.approx(THIRD))


def test_left_single_quote_kept() -> None:
    assert cmrc.remove_punctuation("‘abc’") == "‘abc"
    assert _s("‘abc’", "abc") == (0, pytest.approx(2 / 3))


def test_punct_joins_words() -> None:
    assert segment("co-founder", rm_punc=True) == ["cofounder"]
    assert segment("co-founder") == ["co", "-", "founder"]
    assert _s("co founder", "co-founder") == (0, 0.0)
    assert _s("c++ language", "C++") == (0, pytest.approx(2 / 3))


def test_em_sees_spaces() -> None:
    assert _s("3.5 亿元", "3.5亿元") == (0, 1.0)
    assert _s("五 月 天", "五月天") == (0, 1.0)


def test_strip_before_punc() -> None:
    assert _s("， 中国", "中国") == (0, 1.0)
    assert _s("2008年11月12日，", "2008年11月12日") == (1, 1.0)


def test_empty_gold_em1_f1_0() -> None:
    assert _s("", "") == (1, 0.0)
    assert _s("，", "。") == (1, 0.0)
    assert _s("x", "") == (0, 0.0)
    assert _s("   ", "中国") == (0, 0.0)


def test_fullwidth_not_normalised() -> None:
    assert _s("full", "ｆｕｌｌ") == (0, 0.0)
    assert _s("III期", "Ⅲ期") == (0, 0.5)
    assert _s("光荣和ω－force", "光荣和ω-force") == (1, 1.0)  # '－' and '-' are both dropped


def test_cjk_range_only() -> None:
    assert segment("中国") == ["中", "国"]
    assert segment("㐀㐁") == ["㐀㐁"]  # Extension A: one Treebank token
    assert segment("龦龦") == ["龦龦"]  # U+9FA6 is past the official range
    assert _s("㐀㐁", "㐀") == (0, 0.0)
    assert _s("中国", "中") == (0, pytest.approx(2 / 3))


def test_treebank_contractions() -> None:
    assert segment("it's fine") == ["it", "'s", "fine"]
    assert segment("cannot") == ["can", "not"]
    assert segment('"hi"') == ["``", "hi", "''"]
    assert _s("it is fine", "it's fine") == (0, pytest.approx(THIRD))
    assert _s("can not", "cannot") == (0, 1.0)


def test_final_period_per_run() -> None:
    assert segment("u.s. ok") == ["u.s.", "ok"]
    assert segment("u.s.中") == ["u.s", ".", "中"]
    assert _s("U.S.中", "U.S") == (0, 0.5)


def test_repetition() -> None:
    assert _s("马楠马楠", "马楠") == (0, pytest.approx(2 / 3))


def test_em_f1_independent_golds() -> None:
    s = cmrc.score("北京大学", ["北京", "北京大学的人", "北京 大学"])
    assert (s.em, s.f1, s.best_gold) == (0, 1.0, 2)
    s = cmrc.score("abc", ["abc，", "x"])
    assert (s.em, s.f1) == (1, 1.0)
    s = cmrc.score("a b", ["ab", "a  b c"])  # EM needs the exact spacing; F1 does not
    assert s.em == 0 and s.per_gold == [(0, 0.0), (0, pytest.approx(0.8))]


def test_lowercase_is_str_lower() -> None:
    assert _s("ACL 2024", "acl 2024") == (1, 1.0)
    assert cmrc.remove_punctuation("İ") == "i̇"  # two chars after lower()
    assert _s("İ", "i̇") == (1, 1.0)


def test_aggregate_skip_counts_zero() -> None:
    full = cmrc.score("中国", ["中国"])
    out = cmrc.aggregate([full, None, cmrc.score("", ["x"])], total=4)
    assert out == {"em": 25.0, "f1": 25.0, "average": 25.0, "total": 4, "skip": 2}


def test_aggregate_rounding_like_official() -> None:
    third = cmrc.score("cd ab ef", ["ab cd ef"])
    out = cmrc.aggregate([third, third, cmrc.score("a", ["a"])], total=3)
    f1 = 100.0 * (third.f1 + third.f1 + 1.0) / 3
    em = 100.0 * 1 / 3
    assert out["f1"] == float("%.3f" % f1) == 55.556
    assert out["em"] == 33.333
    assert out["average"] == float("%.3f" % ((em + f1) * 0.5)) == 44.444


def test_no_golds_deviation() -> None:
    assert cmrc.score("x", []).best_gold is None
    assert _s("x") == (0, 0.0)
    assert cmrc.aggregate([], 0)["f1"] == 0.0


# --- CDQA F1-recall --------------------------------------------------------------------------


def _r(pred: str, *golds: str) -> float:
    return cdqa.f1_recall(pred, list(golds))


def test_cdqa_empty_string_vs_no_tokens() -> None:
    assert _r("", "x") == 0.0
    assert _r("", "，") == 0.0  # empty string: 0 before tokenising
    assert _r("。", "，") == 1.0  # both token lists empty: equal
    assert _r("。", "x") == 0.0


def test_cdqa_drop_is_substring_test() -> None:
    assert cdqa.tokens("《孤注一掷》。 ,") == ["孤注一掷"]
    assert cdqa.tokens(".") == [] and cdqa.tokens("..") == [".."]  # '..' is no substring
    assert _r("孤注一掷", "《孤注一掷》") == 1.0


def test_cdqa_is_recall() -> None:
    assert _r("我认为是张海燕，但也可能是魏敦瑞。", "张海燕") == 1.0
    assert _r("答案是蓉江新区", "蓉江新区") == 0.5  # jieba cuts 是蓉江 | 新区 in context


def test_cdqa_no_normalisation() -> None:
    assert _r("yes", "Yes") == 0.0
    assert _r("五场", "5场") == 0.0
    assert _r("2023", "2023年") == 0.5


def test_cdqa_refusal_substring() -> None:
    s = cdqa.score("我很抱歉地说是张三", ["张三"])
    assert s.refused and s.f1_recall is None and s.best_gold is None
    assert not cdqa.score("我很抱歉地说是张三", ["张三"], phrases=("无可奉告",)).refused
    out = cdqa.aggregate([s, cdqa.score("张三", ["张三"]), None], total=4)
    # answer rate over the run's responses (2), as cdqa_eval.py: not over the 4 dataset items
    assert out == {"f1_recall": 100.0, "answer_rate": 50.0, "total": 4, "answered": 1, "responses": 2}
