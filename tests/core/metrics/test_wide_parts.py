"""The wide form's numerals step transforms a text part by part (`cn2an_digits`): it must give
exactly what one call of cn2an on the whole text gives, and so the same wide form, on any text."""

from __future__ import annotations

import json
import re
import warnings
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from qa_inspect.core.metrics import equivalence
from qa_inspect.core.metrics.equivalence import cn2an_digits

_ZH_NUMERAL = re.compile("[零〇一二两三四五六七八九十百千万亿]")


def cn2an_whole(text: str) -> str:
    """The numerals step as one library call on the whole text (as the wide form was first written)."""
    if _ZH_NUMERAL.search(text) is None:
        return text
    import cn2an

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return str(cn2an.transform(text, "cn2an"))
        except Exception:  # noqa: BLE001 - as the wide form: a failure leaves the text as it was
            return text


def wide_whole(text: str) -> str:
    """`wide_form` computed with `cn2an_whole` in place of the part-by-part transform."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(equivalence, "cn2an_digits", cn2an_whole)
        return equivalence._wide(text)


# Numerals and units (Simplified, Traditional, upper case), what cn2an's dates, fractions,
# percentages, temperatures and halves look for, measure words, Traditional text for OpenCC,
# plain Chinese, digits, Latin letters, punctuation and spaces.
ALPHABET = (
    "零〇一二两三四五六七八九十百千万亿壹贰叁肆伍陆柒捌玖拾佰仟萬億貳兩參陸幺廿半"
    "点负年月日分之摄氏度下第届个名次元斤克米公里小时钟秒天角"
    "臺灣們長這個說國體學門開關"
    "的是在统了有和人中大"
    "0123456789.-/%℃,，。：、 aZ"
)
TEXTS = st.text(alphabet=ALPHABET, max_size=24)


@settings(max_examples=600, deadline=None)
@given(TEXTS)
@example("统一")
@example("二〇二三年十月一日")
@example("百分之五十")
@example("三分之二")
@example("零下五摄氏度")
@example("半斤八两")
@example("廿一世纪第十七届")
@example("万一")
@example("负一点五")
@example("3万人")
@example("两个")
def test_numerals_part_by_part_equal_one_call(text: str) -> None:
    assert cn2an_digits(text) == cn2an_whole(text)


@settings(max_examples=300, deadline=None)
@given(TEXTS)
@example("第十七屆")
@example("二〇二三年")
def test_wide_form_part_by_part_equals_one_call(text: str) -> None:
    assert equivalence._wide(text) == wide_whole(text)


def _texts(path: Path) -> list[str]:
    """Golds and questions of a SQuAD-style dataset that hold a Chinese numeral."""
    data = json.loads(path.read_text(encoding="utf-8"))
    out = []
    for article in data["data"]:
        for para in article["paragraphs"]:
            for qa in para["qas"]:
                out += [qa["question"], *(str(a["text"]) for a in qa["answers"])]
    return [t for t in out if _ZH_NUMERAL.search(t)]


@pytest.mark.parametrize("name", ["cmrc2018_dev.json", "DRCD_dev.json"])
def test_real_texts_part_by_part_equal_one_call(shared_data: Path, name: str) -> None:
    texts = _texts(shared_data / name)
    assert texts
    differ = [t for t in texts if cn2an_digits(t) != cn2an_whole(t)]
    assert differ == []
