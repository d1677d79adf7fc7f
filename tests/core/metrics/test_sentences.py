"""Sentence boundaries (Chinese and English) and the "written the same way" normal form."""

from __future__ import annotations

import os
import sys
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from qa_inspect.core.metrics.sentences import sentence_index, sentence_of, split_sentences
from qa_inspect.core.metrics import textnorm
from qa_inspect.core.metrics.textnorm import (
    content_units,
    folds_needed,
    nfkc,
    plain,
    strip_ends,
    zh_numbers_to_digits,
)

SETTINGS = settings(max_examples=int(os.environ.get("QA_METRICS_EXAMPLES", "150")), deadline=None)


def pieces(text: str) -> list[str]:
    return [text[a:b] for a, b in split_sentences(text)]


@pytest.mark.parametrize(("text", "want"), [
    ("潘均顺于1916年前往俄国。起先居住于莫斯科！他去世了吗？是的；", ["潘均顺于1916年前往俄国。", "起先居住于莫斯科！", "他去世了吗？", "是的；"]),
    ("他说：“你好！”然后走了。", ["他说：“你好！”", "然后走了。"]),  # the closing quote stays
    ("巫彭、巫姑……十巫从此升降。", ["巫彭、巫姑……", "十巫从此升降。"]),
    ("第一行\n第二行", ["第一行\n", "第二行"]),
    ("系列1.由于乡里大辅先生因故去世。", ["系列1.由于乡里大辅先生因故去世。"]),  # '1.' inside Chinese
    ("好!然后我们走了。", ["好!", "然后我们走了。"]),
])
def test_chinese(text: str, want: list[str]) -> None:
    assert pieces(text) == want


@pytest.mark.parametrize(("text", "want"), [
    ("It was big. Then it fell. ", ["It was big. ", "Then it fell. "]),
    ("Mr. Smith paid 3.5 dollars. He left.", ["Mr. Smith paid 3.5 dollars. ", "He left."]),
    ("The U.S. Army came, e.g. in spring. A. Lincoln spoke.", ["The U.S. Army came, e.g. in spring. ", "A. Lincoln spoke."]),
    ('They called it "Franks." Then came 1066.', ['They called it "Franks." ', "Then came 1066."]),
    ("Wow! eye Taiwan is a contest? Yes.", ["Wow! eye Taiwan is a contest? ", "Yes."]),
    ("Lugdunensis II (part of the former Gallia).", ["Lugdunensis II (part of the former Gallia)."]),
])
def test_english(text: str, want: list[str]) -> None:
    assert pieces(text) == want


def test_empty_and_lookups() -> None:
    assert split_sentences("") == ((0, 0),)
    text = "一二三。四五六。七八九"
    assert [sentence_index(text, k) for k in (0, 3, 4, 8, 99, -5)] == [0, 0, 1, 2, 2, 0]
    assert sentence_of(text, 2, 6) == (0, 1)
    assert sentence_of(text, 5, 5) == (1,)


@SETTINGS
@given(st.text(st.sampled_from("中文句子ab Mr.3!?。！？；…”」)\n "), max_size=40))
def test_sentences_cover_the_text_in_order(text: str) -> None:
    spans = split_sentences(text)
    assert spans[0][0] == 0 and spans[-1][1] == len(text)
    assert all(a < b for a, b in spans) or text == ""
    assert all(spans[k][1] == spans[k + 1][0] for k in range(len(spans) - 1))
    for k, (a, b) in enumerate(spans):
        assert all(sentence_index(text, i) == k for i in range(a, b))


# --- textnorm ----------------------------------------------------------------------------------


def test_no_letter_or_digit_is_punctuation_or_symbol() -> None:
    """`strip_ends` keeps a text with `str.isalnum` chars at both ends as it is: none is P* or S*."""
    bad = [hex(c) for c in range(sys.maxunicode + 1) if chr(c).isalnum() and unicodedata.category(chr(c))[0] in "PS"]
    assert not bad, bad[:20]


@SETTINGS
@given(st.text(st.sampled_from("a1中。，!？$ _-") | st.characters(), max_size=6))
def test_strip_ends_drops_p_and_s_at_both_ends(text: str) -> None:
    kept = [k for k, ch in enumerate(text) if unicodedata.category(ch)[0] not in "PS"]
    assert strip_ends(text) == (text[kept[0]:kept[-1] + 1] if kept else "")


def test_nfkc_shortcut_equals_unicodedata_on_every_char() -> None:
    """The fast path must be NFKC exactly: checked on every code point of the first three planes."""
    bad = [hex(c) for c in range(0x30000) if not 0xD800 <= c < 0xE000
           and nfkc(chr(c)) != unicodedata.normalize("NFKC", chr(c))]
    assert not bad, bad[:20]


@SETTINGS
@given(st.text(max_size=12) | st.text(st.sampled_from("中文ａｂ１２…\u3000\u302a\u302b\u0301e。，“”"), max_size=12))
def test_nfkc_shortcut_equals_unicodedata_on_strings(text: str) -> None:
    assert nfkc(text) == unicodedata.normalize("NFKC", text)


@pytest.mark.parametrize(("text", "want"), [
    ("五场", "5场"), ("第十二届", "第12届"), ("十七届", "17届"), ("一百零五", "105"), ("二〇二三年", "2023年"),
    ("三万五千", "35000"), ("两千零二十三", "2023"), ("万里长城", "万里长城"), ("十", "10"), ("一亿二千万", "120000000"),
])
def test_chinese_numerals(text: str, want: str) -> None:
    assert zh_numbers_to_digits(text) == want


def test_plain_and_the_folds_it_needed() -> None:
    assert plain("ＦＲＡＮＣＥ") == plain("France") == "france"
    assert plain(" 30,000 ") == plain("30000") and plain("H₂O") == plain("h2o")
    assert plain("《红楼梦》。") == "红楼梦" and plain("3.5 亿元") == plain("3.5亿元")
    assert folds_needed("ＦＲＡＮＣＥ", "France") == ["width", "case"]
    assert folds_needed("第五十九届", "第59届") == ["numerals"]
    assert folds_needed("“quoted”", "quoted") == ["end punctuation"]
    assert strip_ends("“…e心五联…”") == "e心五联"


def test_content_units() -> None:
    assert content_units("青木广彰的探险") == {"青木", "木广", "广彰", "彰的", "的探", "探险"}
    assert content_units("When did the Normans arrive in 911?") == {"normans", "arrive", "911"}
    assert content_units("。") == frozenset()
    assert content_units("他于1974年去世") == {"他于", "1974", "年去", "去世"}  # digits end where CJK starts


@SETTINGS
@given(st.text(st.sampled_from("中文ａｂ１２…\u3000\u302a\u0301e。，“”（）二〇1,000 ") | st.characters(), max_size=12))
def test_plain_applies_every_fold_in_order(text: str) -> None:
    """`plain` hands a text NFKC changes to its NFKC form's entry: the folds applied in full still."""
    folded = text
    for step in textnorm._STEPS:
        folded = step(folded)
    assert plain(text) == folded
