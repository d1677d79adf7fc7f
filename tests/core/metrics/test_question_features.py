"""Question and item features: question types on real questions (each checked by reading it),
buckets, gold agreement and cross-sentence reasoning on real CMRC 2018 and SQuAD items."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from qa_inspect.core.formats import read_source
from qa_inspect.core.metrics import QUESTION_TYPES, question_features, question_type
from qa_inspect.core.metrics.question_features import text_units
from qa_inspect.core.model import Item

SETTINGS = settings(max_examples=int(os.environ.get("QA_METRICS_EXAMPLES", "150")), deadline=None)
CMRC, SQ2, CDQA = "cmrc2018_dev.json", "squad2_dev_normans.json", "CDQA_v1.json"

# (file, item id, expected type); the CDQA questions are not quoted (the release has no licence)
REAL_TYPES: list[tuple[str, str, str]] = [
    (CMRC, "DEV_1055_QUERY_0", "how"),  # …有着怎样的职责？
    (CMRC, "DEV_327_QUERY_1", "how"),  # …通常是怎么产生的？
    (CMRC, "DEV_638_QUERY_3", "how-many"),  # …总共攻入了几球？
    (CMRC, "DEV_1576_QUERY_2", "how-many"),  # …以多少美元并购…
    (CMRC, "DEV_221_QUERY_1", "how-many"),  # …在家里排第几？ (an ordinal is a number too)
    (CMRC, "DEV_125_QUERY_0", "other"),  # 乙二醛是有机还是无机化合物？ (a choice, no interrogative)
    (CMRC, "DEV_78_QUERY_0", "what"),  # 西巴丹岛以什么闻名世界？
    (CMRC, "DEV_573_QUERY_4", "what"),  # 青木广彰因什么活动成为知名的探险家？
    (CMRC, "DEV_1525_QUERY_1", "when"),  # 零食物语创立于哪一年？ (哪一年 before 哪)
    (CMRC, "DEV_182_QUERY_1", "when"),  # …在什么时候开始盛行？ (什么时候 before 什么)
    (CMRC, "DEV_74_QUERY_3", "when"),  # 潘均顺哪年去世？
    (CMRC, "DEV_136_QUERY_0", "where"),  # …驻地在哪？
    (CMRC, "DEV_545_QUERY_3", "where"),  # 决赛是在哪里举行的？
    (CMRC, "DEV_469_QUERY_0", "which"),  # 意大利大道属于哪个国家？
    (CMRC, "DEV_221_QUERY_0", "which"),  # 派西·卫斯理是哪个作家笔下的人物？
    (CMRC, "DEV_1859_QUERY_0", "which"),  # …在哪个方面… (在哪个 is not 在哪)
    (CMRC, "DEV_1004_QUERY_1", "who"),  # 邓飏和哪些人并称为「四聪」？
    (CMRC, "DEV_549_QUERY_0", "who"),  # 《长眠不醒》的作者是谁？
    (CMRC, "DEV_1686_QUERY_2", "why"),  # 绿党为什么对协定持反对态度？
    (CMRC, "DEV_346_QUERY_1", "why"),  # 为什么要改派…
    (SQ2, "5ad3fe0d604f3c001a3ffc1b", "how"),  # How has British art survived in Normandy?
    (SQ2, "56de3efccffd8e1900b4b6fe", "how-many"),  # How long did Western Europe control Cyprus?
    (SQ2, "56de4a474396321400ee2787", "how-many"),  # How many customaries does …
    (SQ2, "5ad3fe91604f3c001a3ffc47", "what"),  # What is the oldest work of Norman art?
    (SQ2, "56ddde6b9a695914005b9628", "what"),  # In what country is Normandy located?
    (SQ2, "56de4b5c4396321400ee2799", "when"),  # When did the church reform begin?
    (SQ2, "56ddde6b9a695914005b962c", "when"),  # What century did the Normans first gain …
    (SQ2, "56de1563cffd8e1900b4b5c4", "where"),  # Where was Dyrrachium located?
    (SQ2, "56ddde6b9a695914005b962a", "which"),  # From which countries did the Norse originate?
    (SQ2, "56de17f9cffd8e1900b4b5e0", "who"),  # Who was Margaret's brother?
    (CDQA, "q:f32d0f096db4d2dc", "how"),  # …的表现如何？
    (CDQA, "q:5233867ecea21593", "how-many"),  # …推出了多少场…
    (CDQA, "q:efd3f60c4aa8cced", "what"),  # …叫什么？
    (CDQA, "q:9a43629ff3f15788", "what"),  # …因何事件导致… (asks for the event)
    (CDQA, "q:13e0b2b68d3ecf8a", "when"),  # …是在哪一年举行的？
    (CDQA, "q:882400d41ec6ddc9", "where"),  # …在哪里举行？
    (CDQA, "q:fea791bc5b96602b", "which"),  # …讨论了哪个产业…
    (CDQA, "q:a973c5a460c36e92", "who"),  # 谁是…
    (CDQA, "q:5f514f029b1ea6d1", "yes-no"),  # …能透传…吗 (no question mark)
    (CDQA, "q:8df709e281b05664", "yes-no"),  # …是越老越好吗
    (CDQA, "q:196e2d8d3d21cafc", "other"),  # 解释一下… (a request, not a question)
]


@pytest.fixture(scope="module")
def items(shared_data: Path) -> dict[tuple[str, str], Item]:
    return {(name, it.key): it for name in (CMRC, SQ2, CDQA) for it in read_source(shared_data / name).items}


@pytest.mark.parametrize(("name", "key", "expected"), REAL_TYPES, ids=[f"{c[1]}-{c[2]}" for c in REAL_TYPES])
def test_real_question_types(items: dict, name: str, key: str, expected: str) -> None:
    assert question_type(items[(name, key)].question) == expected


@pytest.mark.parametrize(("question", "expected"), [
    ("茶几是什么？", "what"), ("几内亚在哪里？", "where"), ("他几乎做了什么？", "what"),  # 几 that is no number
    ("哪吒的父亲是谁？", "who"), ("这座桥名为什么？", "what"), ("该湖被称为什么？", "what"),
    ("为什么名为什么？", "why"), ("谁在什么时候来的？", "who"), ("什么人发明了它？", "who"),
    ("巴沟站因何而得名？", "why"), ("这座山有多高？", "how-many"), ("他是否去过北京？", "yes-no"),
    ("他的职业是？", "what"), ("可以么？", "yes-no"), ("", "other"), ("。", "other"),
    ("Why did the Normans leave?", "why"), ("Whom did Rollo marry?", "who"), ("Whose castle was it?", "who"),
    ("How old was he?", "how-many"), ("How much did it cost?", "how-many"), ("Which year saw the treaty?", "when"),
    ("Did the Normans speak French?", "yes-no"), ("The Normans were from which country?", "which"),
    ("Name the Norse leader.", "other"), ("《哈利·波特》的作者 is who?", "who"),
    ("Do As Infinity的主唱是谁？", "who"), ("《What's Up》是哪年发行的？", "when"),  # English titles do not decide
])
def test_question_type_rules(question: str, expected: str) -> None:
    assert question_type(question) == expected


@SETTINGS
@given(st.text(max_size=40) | st.text(st.sampled_from("谁什么哪里几多少为何怎么吗是？whowhatwhich how many ?"), max_size=20))
def test_question_type_is_a_total_function(question: str) -> None:
    assert question_type(question) in QUESTION_TYPES


# (file, item id, gold_length, passage_length, answer_position, gold_count, agreement, cross, overlap)
REAL_FEATURES = [
    # 现今露天操场普遍存在于什么地方? The gold's sentence repeats the question almost word for word.
    (CMRC, "DEV_70_QUERY_2", "6-10", "401-800", "0-25%", 3, "agree", False, "high"),
    # 派西·卫斯理在家里排第几? The gold's sentence (在卫斯理家排行第三) does not name 派西: the
    # sentences that do name him are other sentences, so the answer needs the link across them.
    (CMRC, "DEV_221_QUERY_1", "1-2", "401-800", "25-50%", 3, "agree", True, "low"),
    # 新西兰鸲鹟身体呈什么颜色? The gold's sentence (羽毛呈深灰黑色…) names only the colour; the bird
    # is named in the sentence before.
    (CMRC, "DEV_164_QUERY_3", "21+", "201-400", "50-75%", 3, "agree", True, "low"),
    # golds 搭乘热气球横越太平洋 ⊂ 1982年搭乘热气球横越太平洋; the gold's sentence (…探险家) ties with
    # sentence 1 (青木广彰…), and a tie counts as the same sentence
    (CMRC, "DEV_573_QUERY_4", "6-10", "401-800", "75-100%", 3, "nested", False, "low"),
    (SQ2, "56ddde6b9a695914005b9628", "1-2", "101-200", "0-25%", 4, "agree", False, "medium"),
    (SQ2, "56dddf4066d3e219004dad5f", "3-5", "201-400", "50-75%", 3, "agree", False, "high"),  # duke … Hastings
    (SQ2, "56dde0ba66d3e219004dad77", "1-2", "101-200", "50-75%", 3, "differ", False, "medium"),  # Seine / Epte
    # unanswerable: nothing about a gold can be told
    (SQ2, "5ad39d53604f3c001a3fe8d2", None, "101-200", None, 0, "none", None, None),
    (CDQA, "q:1d118f2435d02df7", "1-2", None, None, 1, "one", None, None),  # no passage
]


@pytest.mark.parametrize(("name", "key", "gold_length", "passage_length", "position", "count", "agreement", "cross",
                          "overlap"), REAL_FEATURES, ids=[c[1] for c in REAL_FEATURES])
def test_real_item_features(items: dict, name: str, key: str, gold_length: str | None, passage_length: str | None,
                            position: str | None, count: int, agreement: str, cross: bool | None,
                            overlap: str | None) -> None:
    item = items[(name, key)]
    kept = [g for g in item.golds if not g.superseded]
    spans = [(g.span_start, g.span_end) if g.span_start is not None and g.span_end is not None else None for g in kept]
    f = question_features(item.question, [g.text for g in kept], item.context, gold_spans=spans)
    got = (f.gold_length, f.passage_length, f.answer_position, f.gold_count, f.gold_agreement, f.cross_sentence,
           f.question_overlap)
    assert got == (gold_length, passage_length, position, count, agreement, cross, overlap)
    # found by text, the spans give the same features
    assert question_features(item.question, [g.text for g in kept], item.context) == f


def test_units_and_buckets() -> None:
    assert text_units("1916年") == 2 and text_units("in France") == 2 and text_units("。") == 0
    f = question_features("谁？", ["。"], "一二三。")
    assert f.gold_length == "0" and f.passage_length == "0-100" and f.gold_agreement == "one"
    assert question_features("谁？", ["甲" * 21], None).gold_length == "21+"
    assert question_features("谁？", ["甲乙", "甲乙丙", "乙丙"], None).gold_agreement == "nested"
    assert question_features("谁？", ["甲乙", "丙丁"], None).gold_agreement == "differ"
    assert question_features("谁？", ["France", "ＦＲＡＮＣＥ"], None).gold_agreement == "agree"


def test_cross_sentence_and_overlap_rules() -> None:
    passage = "潘均顺于1916年前往俄国。潘均顺住在莫斯科。最后他于1974年去世。"
    f = question_features("潘均顺哪年去世？", ["1974年"], passage)
    assert f.cross_sentence is True  # the gold's sentence says 他: 潘均顺 is named elsewhere
    assert f.question_overlap == "medium" and f.answer_position == "75-100%"  # 去世: 1 of 3 units
    named = passage.replace("最后他", "最后潘均顺")
    g = question_features("潘均顺哪年去世？", ["1974年"], named)
    assert (g.cross_sentence, g.question_overlap) == (False, "high")
    tie = question_features("他哪年在俄国去世？", ["1974年"], "他去了俄国。他于1974年去世。")
    assert (tie.cross_sentence, tie.question_overlap) == (False, "low")  # 俄国 against 去世: a tie is no cross
    h = question_features("潘均顺住在哪里？", ["1974年"], passage)
    assert h.cross_sentence is True and h.question_overlap == "none"
    assert question_features("哪年？", ["1974年"], passage).cross_sentence is None  # no content words
    assert question_features("谁？", ["不在文中"], passage).answer_position is None  # gold not found
