"""The one equivalence judgement: the libraries' outputs pinned, the relations on real-looking
cases (truncations, replaced golds, 繁/简, 中文数字), and properties on arbitrary text."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from qa_inspect.core.metrics import CDQA_F1_RECALL, CMRC_OFFICIAL, SCORERS, SQUAD_V11, Relation, relation
from qa_inspect.core.metrics.equivalence import (
    WIDE_FOLDS, cn2an_digits, t2s, alternatives, wide_folds_needed, wide_form,
)

# What the libraries give for the inputs the wider normalisation relies on: a new release that
# changes one of these changes what counts as "format".
CN2AN = [
    ("二〇二三年", "2023年"),
    ("第十七届", "第17届"),
    ("一九七四年", "1974年"),
    ("一百零五", "105"),
    ("十二", "12"),
    ("五场", "5场"),
    ("17届", "17届"),
    ("万一", "万一"),  # a word, not a number: left alone
    ("2023海口迷笛音乐节", "2023海口迷笛音乐节"),  # no numeral: cn2an is not asked
]
T2S = [
    ("萬里長城", "万里长城"),
    ("臺灣大學", "台湾大学"),
    ("农发行赣县区支行", "农发行赣县区支行"),
]


@pytest.mark.parametrize(("text", "expected"), CN2AN)
def test_cn2an_outputs_are_pinned(text: str, expected: str) -> None:
    assert cn2an_digits(text) == expected


@pytest.mark.parametrize(("text", "expected"), T2S)
def test_opencc_outputs_are_pinned(text: str, expected: str) -> None:
    assert t2s(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("第十七届", "17"), ("17届", "17"), ("二〇二三年", "2023"), ("萬里長城", "万里长城"),
    ("ＦＲＡＮＣＥ。", "france"), ("100多/", "100多"), ("三万", "30000"),
])
def test_wide_form(text: str, expected: str) -> None:
    assert wide_form(text) == expected


CASES = [
    # answer, golds, superseded, aliases, relation, matched text, alternative
    ("蓉江新区", ["蓉江新区"], (), (), Relation.SAME, "蓉江新区", None),
    ("二〇二三年", ["2023年"], (), (), Relation.FORMAT, "2023年", None),
    ("17届", ["第十七届"], (), (), Relation.FORMAT, "第十七届", None),
    ("萬里長城", ["万里长城"], (), (), Relation.FORMAT, "万里长城", None),
    ("100多/", ["100多/100余项"], (), (), Relation.FORMAT, "100多/100余项", "100多"),
    ("100余项", ["100多/100余项"], (), (), Relation.FORMAT, "100多/100余项", "100余项"),
    ("郝", ["郝鹏"], (), (), Relation.PARTIAL, "郝鹏", None),
    ("农发行赣", ["农发行赣县区支行"], (), (), Relation.PARTIAL, "农发行赣县区支行", None),
    ("江西广雅食", ["江西广雅食品有限公司"], (), (), Relation.PARTIAL, "江西广雅食品有限公司", None),
    ("100多", ["100多项/100余项"], (), (), Relation.PARTIAL, "100多项/100余项", None),
    ("答案是蓉江新区。", ["蓉江新区"], (), (), Relation.PARTIAL, "蓉江新区", None),
    ("同程音乐生活节", ["2023海口迷笛音乐节"], ("同程音乐生活节",), (), Relation.SUPERSEDED, "同程音乐生活节", None),
    ("同程音乐生活节。", ["2023海口迷笛音乐节"], ("同程音乐生活节",), (), Relation.SUPERSEDED, "同程音乐生活节", None),
    ("郝", ["郝鹏"], ("郝",), (), Relation.SUPERSEDED, "郝", None),  # the replaced answer beats a part
    ("二〇二三", ["2024"], (), ("2023",), Relation.ALIAS, "2023", None),
    ("章贡新区", ["蓉江新区"], (), (), Relation.DIFFERENT, None, None),
    ("Fran", ["France"], (), (), Relation.DIFFERENT, None, None),  # never a cut Latin word
    ("", ["France"], (), (), Relation.DIFFERENT, None, None),
]


@pytest.mark.parametrize(("answer", "golds", "superseded", "aliases", "rel", "text", "alt"), CASES)
def test_relations(answer: str, golds: list[str], superseded: tuple[str, ...], aliases: tuple[str, ...],
                   rel: Relation, text: str | None, alt: str | None) -> None:
    eq = relation(answer, golds, scorer=CDQA_F1_RECALL, superseded=superseded, aliases=aliases)
    assert (eq.relation, eq.text, eq.alternative) == (rel, text, alt)


def test_which_gold_matched_and_which_way() -> None:
    eq = relation("1974", ["1916年", "1974年"], scorer=CMRC_OFFICIAL)
    assert (eq.relation, eq.index) == (Relation.FORMAT, 1)
    assert relation("于1974年去世", ["1974年"], scorer=CMRC_OFFICIAL).contains
    assert not relation("郝", ["郝鹏"], scorer=CDQA_F1_RECALL).contains


def test_scorer_normalisation_decides_same() -> None:
    assert relation("the France", ["France"], scorer=SQUAD_V11).relation == Relation.SAME  # articles dropped
    assert relation("the France", ["France"], scorer=CMRC_OFFICIAL).relation == Relation.PARTIAL


def test_wide_folds_name_what_was_needed() -> None:
    assert wide_folds_needed("1974", "1974年") == ["measure word"]
    assert wide_folds_needed("萬里長城", "万里长城") == ["script"]
    assert set(wide_folds_needed("x", "y")) <= set(WIDE_FOLDS)


def test_alternatives() -> None:
    assert alternatives("100多/100余项") == ("100多", "100余项")
    assert alternatives("郝鹏") == ()
    assert alternatives("/") == ()


_TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=12) | st.sampled_from(
    ["郝鹏", "第十七届", "二〇二三年", "萬里長城", "100多/100余项", "France", "1974年", "。", " "])


@settings(max_examples=200, deadline=None)
@given(answer=_TEXT, golds=st.lists(_TEXT, max_size=3), superseded=st.lists(_TEXT, max_size=2),
       scorer=st.sampled_from(SCORERS))
def test_never_raises_and_names_a_real_gold(answer: str, golds: list[str], superseded: list[str], scorer: str) -> None:
    eq = relation(answer, golds, scorer=scorer, superseded=superseded)
    assert eq.relation in Relation
    if eq.relation in (Relation.SAME, Relation.FORMAT, Relation.PARTIAL):
        assert eq.index is not None and golds[eq.index] == eq.text
    if eq.relation == Relation.SUPERSEDED:
        assert eq.index is not None and superseded[eq.index] == eq.text


@settings(max_examples=200, deadline=None)
@given(golds=st.lists(_TEXT.filter(lambda t: t.strip() != ""), min_size=1, max_size=3), scorer=st.sampled_from(SCORERS))
def test_a_gold_is_the_same_as_its_own_list(golds: list[str], scorer: str) -> None:
    for k, g in enumerate(golds):
        eq = relation(g, golds, scorer=scorer)
        assert eq.relation == Relation.SAME
        assert eq.index is not None and eq.index <= k


@settings(max_examples=200, deadline=None)
@given(a=_TEXT, b=_TEXT, scorer=st.sampled_from(SCORERS))
def test_equal_relations_are_symmetric(a: str, b: str, scorer: str) -> None:
    ab, ba = relation(a, [b], scorer=scorer).relation, relation(b, [a], scorer=scorer).relation
    if ab in (Relation.SAME, Relation.FORMAT):
        assert ba in (Relation.SAME, Relation.FORMAT)
    if ab == Relation.PARTIAL:
        assert ba == Relation.PARTIAL
        assert relation(a, [b], scorer=scorer).contains != relation(b, [a], scorer=scorer).contains


_FORMS = st.text(st.sampled_from("第十七届二〇二三年17,，000 ABc１２　。…萬個"), max_size=10)


@settings(max_examples=300, deadline=None)
@given(_FORMS)
def test_wide_form_asks_its_regexes_only_where_they_may_match(text: str) -> None:
    """`wide_form` and `plain` skip a substitution whose regex cannot match (no 第 first, no measure
    word last, no comma, no full-width char): the same forms as every step applied in full."""
    from qa_inspect.core.metrics import equivalence, textnorm

    def plain_in_full(s: str) -> str:
        s = unicodedata.normalize("NFKC", s).casefold()
        s = "".join(textnorm.zh_numbers_to_digits(s).split())
        return textnorm.strip_ends(textnorm._SEPARATOR.sub("", s))

    wide = plain_in_full(equivalence._numerals(equivalence._script(unicodedata.normalize("NFKC", text))))
    wide = equivalence._UNIT_AFTER_NUMBER.sub("", equivalence._ORDINAL.sub("", wide))
    assert (textnorm.plain.__wrapped__(text), equivalence._wide(text)) == (plain_in_full(text), wide)
