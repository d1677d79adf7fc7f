"""`category_and_relation` (what a load stores, the relation asked once) against its two
definitions asked apart: `error_category` and `relation` with the superseded golds."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from qa_inspect.core.metrics import (
    SCORERS,
    category_and_relation,
    error_category,
    relation,
    score_prediction,
)

_PASSAGE = "第十七届全国运动会于二〇二三年在萬里長城脚下举行，France 1974年 郝鹏出席。共100余项比赛。"
_WORDS = ["郝鹏", "第十七届", "二〇二三年", "萬里長城", "万里长城", "100多/100余项", "France", "1974年", "。", " ",
          "17届", "2023年", "france.", "郝鹏出席", "鹏"]


@st.composite
def _span(draw: st.DrawFn) -> str:
    a = draw(st.integers(0, len(_PASSAGE) - 1))
    return _PASSAGE[a : a + draw(st.integers(0, 12))]


_TEXT = _span() | st.sampled_from(_WORDS) | st.text(
    alphabet=st.characters(blacklist_categories=("Cs",)), max_size=8)


@settings(max_examples=300, deadline=None)
@given(answer=_TEXT, golds=st.lists(_TEXT, max_size=3), superseded=st.lists(_TEXT, max_size=2),
       scorer=st.sampled_from(SCORERS), passage=st.sampled_from([_PASSAGE, None]), scored=st.booleans())
def test_equals_the_two_asked_apart(answer: str, golds: list[str], superseded: list[str], scorer: str,
                                    passage: str | None, scored: bool) -> None:
    row = score_prediction(scorer, answer, golds) if scored else None
    both = category_and_relation(answer, golds, passage, scorer, score=row, superseded=superseded)
    assert both == (error_category(answer, golds, passage, scorer, score=row),
                    relation(answer, golds, scorer=scorer, superseded=superseded).relation)


@settings(max_examples=200, deadline=None)
@given(answer=_TEXT, golds=st.lists(_TEXT, max_size=4), scorer=st.sampled_from(SCORERS), data=st.data())
def test_the_order_of_golds_names_another_gold_never_another_relation(
    answer: str, golds: list[str], scorer: str, data: st.DataObject
) -> None:
    """What `category_and_relation` relies on: the category asks the golds best first."""
    shuffled = data.draw(st.permutations(golds))
    assert relation(answer, shuffled, scorer=scorer).relation == relation(answer, golds, scorer=scorer).relation
