"""Error categories: one rule at a time on small hand-made cases, then the properties every
category must keep (exactly one category per prediction; `exact` iff EM = 1 for span scorers)."""

from __future__ import annotations

import os
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from qa_inspect.core.metrics import (
    CATEGORIES,
    CATEGORY_CODES,
    CDQA_F1_RECALL,
    CMRC_OFFICIAL,
    SCORERS,
    SQUAD_V2,
    SQUAD_V11,
    categories,
    error_category,
    score_prediction,
)
from tests.paths import REPO

SETTINGS = settings(max_examples=int(os.environ.get("QA_METRICS_EXAMPLES", "150")), deadline=None)
SPAN_SCORERS = (CMRC_OFFICIAL, SQUAD_V11, SQUAD_V2)

EN = ("The Normans were the people who gave their name to Normandy, a region in France. "
      "They were descended from Norse raiders from Denmark, Iceland and Norway. "
      "Their leader Rollo swore fealty to King Charles III.")
ZH = "潘均顺于1916年前往俄国从事劳动业。起先居住于莫斯科，1936年搬至乌克兰哈尔科夫。最后于1974年去世。"


def cat(prediction: str, golds: list[str], passage: str | None = EN, scorer: str = SQUAD_V2, **kw: object) -> categories.Category:
    return error_category(prediction, golds, passage, scorer, **kw)  # type: ignore[arg-type]


# --- the table ---------------------------------------------------------------------------------


def test_table_is_the_module_docstring_and_the_docs() -> None:
    """One documented table: every code once, in the docstring table and in the docs' page."""
    assert len(CATEGORY_CODES) == len(set(CATEGORY_CODES)) == len(CATEGORIES) == 15
    doc = categories.__doc__ or ""
    page = (REPO / "docs" / "error-categories.md").read_text(encoding="utf-8")
    for c in CATEGORIES:
        assert c.runs in ("all", "span", "llm") and c.description
        assert f"| `{c.code}` |" in doc, c.code
        assert f"| `{c.code}` |" in page, c.code


def test_unknown_scorer_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown scorer"):
        error_category("x", ["x"], None, "bleu")


# --- span runs ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("prediction", "code", "reason"), [
    ("France", "exact", "full credit: the gold as the scorer reads it"),
    ("a region in France", "boundary-long", "contains the gold plus 3 words before it"),
    ("region in France. They", "boundary-long", "contains the gold plus 2 words before and 1 word after it"),
    ("Fran", "boundary-short", "inside the gold, missing 2 characters at its end"),  # cut inside a word
    ("Normandy, a region", "wrong-span-same-sentence", "another span of sentence 1 of 3, which holds the gold: 1 word before it"),
    ("Rollo", "wrong-span-other-sentence", "a span of sentence 3 of 3; the gold is in sentence 1"),
    ("The Normans came from France", "not-in-passage",
     "does not occur in the passage (generated, not extracted); it contains the gold"),
    ("ＦＲＡＮＣＥ", "format-only", "the gold written differently (width, case); scored EM 0, F1 0.00"),
])
def test_span_rules(prediction: str, code: str, reason: str) -> None:
    got = cat(prediction, ["France"])
    assert (got.code, got.reason) == (code, reason)


def test_boundary_shifted_both_ways() -> None:
    golds = ["Denmark, Iceland and Norway"]
    early = cat("raiders from Denmark, Iceland", golds)
    late = cat("Iceland and Norway. Their leader", golds)
    assert early.code == late.code == "boundary-shifted"
    assert early.reason == "overlaps the gold: starts 2 words before it and stops 2 words short of its end"
    assert late.reason == "overlaps the gold: starts 1 word into it and runs 2 words past its end"  # '.' is no word


def test_chinese_amounts_are_characters() -> None:
    assert cat("于1974年去世", ["1974年"], ZH, CMRC_OFFICIAL).reason == (
        "contains the gold plus 1 character before and 2 characters after it")
    assert cat("于1974", ["于1974年去世"], ZH, CMRC_OFFICIAL).reason == "inside the gold, missing 3 characters at its end"
    # a measure word after a number is format (`core.metrics.equivalence`), not a boundary
    assert cat("1974", ["1974年"], ZH, CMRC_OFFICIAL).code == "format-only"


def test_empty_and_abstention_follow_the_scorer() -> None:
    assert cat("", ["France"], scorer=SQUAD_V2).code == "false-abstain"
    assert cat("", ["France"], scorer=SQUAD_V11).code == "empty"
    assert cat("the", ["France"], scorer=SQUAD_V11).reason == "no answer (nothing the scorer counts) to an answerable question"
    assert cat("。", ["1974年"], ZH, CMRC_OFFICIAL).code == "empty"
    assert cat("   ", ["1974年"], ZH, CMRC_OFFICIAL).reason == "no answer (only whitespace) to an answerable question"


def test_unanswerable_items() -> None:
    assert cat("", [], unanswerable=True).code == "exact"  # squad-v2 credits the abstention
    assert cat("Normandy", [], unanswerable=True).code == "false-answer"
    assert cat("Normandy", ["France"], unanswerable=True).code == "false-answer"  # the flag decides
    no_credit = cat("", [], scorer=SQUAD_V11, unanswerable=True)
    assert no_credit.code == "empty" and "squad-v1.1 gives no credit" in no_credit.reason
    assert cat("Rollo", ["  "]).code == "false-answer"  # no non-blank gold: nothing to answer


def test_gold_spans_pick_the_occurrence() -> None:
    """With the stored span, a prediction at another occurrence of the gold's text is related by
    text; without it, every occurrence of the gold counts."""
    passage = "France is big. The Normans lived in France."
    at_end = (passage.rindex("France"), len(passage) - 1)
    assert cat("the Normans lived in France", ["France"], passage, SQUAD_V11, gold_spans=[at_end]).code == "boundary-long"
    first = cat("France is big", ["France"], passage, SQUAD_V11, gold_spans=[at_end])
    assert first.code == "boundary-long" and "where the passage repeats it" in first.reason
    assert cat("France is big", ["France"], passage, SQUAD_V11).reason == "contains the gold plus 2 words after it"


def test_occurrences_prefer_whole_words_and_tolerate_case_spacing_and_end_punctuation() -> None:
    passage = "The Normans founded Normandy. Later a Norman king ruled. The  End."
    assert cat("Norman", ["Normandy"], passage).code == "wrong-span-other-sentence"  # not inside 'Normans'
    assert cat("later A NORMAN", ["king"], passage).code == "wrong-span-same-sentence"
    assert cat("the end", ["Normandy"], passage).code == "wrong-span-other-sentence"  # double space in passage
    assert cat("Normandy!", ["Normans"], passage).code == "wrong-span-same-sentence"  # '!' not in passage


def test_best_gold_first_then_any_gold() -> None:
    passage = "It was bounded by the river Epte and the Atlantic coast. Later the Seine was its border."
    golds = ["Seine", "Epte", "Seine"]
    epte = cat("the river Epte", golds, passage)
    assert (epte.code, epte.gold) == ("boundary-long", 1)
    coast = cat("Atlantic coast", golds, passage)
    assert (coast.code, coast.gold) == ("wrong-span-same-sentence", 1)  # Epte's sentence counts too


def test_gold_that_is_no_passage_span_uses_the_nearest_sentence() -> None:
    passage = "巫医起源甚早。神医又称巫医，是行医治病的人。今日医学昌明。"
    got = cat("今日医学昌明", ["行医之人"], passage, CMRC_OFFICIAL)
    assert got.code == "wrong-span-other-sentence" and "not a passage span" in got.reason
    same = cat("神医", ["行医之人"], passage, CMRC_OFFICIAL)
    assert same.code == "wrong-span-same-sentence"
    nothing = cat("今日医学昌明", ["完全无关"], passage, CMRC_OFFICIAL)
    assert nothing.code == "wrong-span-other-sentence" and "shares no words" in nothing.reason


def test_no_passage_judges_as_text() -> None:
    assert cat("in northern France", ["France"], None).code == "verbose-contains-gold"
    assert cat("New York", ["New York City"], None).code == "partial"
    assert cat("York City New", ["New York City"], None).code == "partial"  # F1 1.0 as a bag, not the same text
    assert cat("Fran", ["France"], None).code == "wrong"  # not a word of the gold
    assert cat("300", ["30,000"], None, CMRC_OFFICIAL).code == "wrong"


# --- LLM / CDQA runs ---------------------------------------------------------------------------


@pytest.mark.parametrize(("prediction", "golds", "code"), [
    ("蓉江新区", ["蓉江新区"], "exact"),
    ("蓉江新区。", ["蓉江新区"], "exact"),
    ("答案是蓉江新区", ["蓉江新区"], "verbose-contains-gold"),
    ("蓉江", ["蓉江新区"], "partial"),
    ("抱歉，我不知道", ["蓉江新区"], "refused"),
    ("", ["蓉江新区"], "empty"),
    ("北京", ["蓉江新区"], "wrong"),
    ("H₂O", ["H2O"], "format-only"),  # subscript digits: the metric's fault
    ("第五十九届", ["第59届"], "format-only"),
    ("《远山的灯》", ["远山的灯"], "exact"),  # CDQA drops 《》: full credit, the gold itself
    ("远山的灯", ["“远山的灯”"], "format-only"),  # but not “”: the gold's quote tokens are missed
    ("5场", ["五"], "format-only"),  # a measure word after the number: the same answer
])
def test_cdqa_rules(prediction: str, golds: list[str], code: str) -> None:
    assert cat(prediction, golds, None, CDQA_F1_RECALL).code == code


def test_refusal_flag_wins_and_can_be_given() -> None:
    assert cat("蓉江新区", ["蓉江新区"], None, CDQA_F1_RECALL, refused=True).reason == "a refusal (flagged by the run)"
    assert cat("抱歉", ["蓉江新区"], None, CDQA_F1_RECALL, refused=False).code == "wrong"
    assert cat("France", ["France"], refused=True).code == "refused"


def test_cdqa_exact_needs_the_gold_itself() -> None:
    """F1-recall 1 with other words around the gold is verbose, not exact; a second gold that
    the answer equals makes it exact."""
    assert cat("蓉江新区和章贡区", ["蓉江新区"], None, CDQA_F1_RECALL).code == "verbose-contains-gold"
    assert cat("蓉江新区和章贡区", ["蓉江新区", "蓉江新区和章贡区"], None, CDQA_F1_RECALL).code == "exact"


# --- properties --------------------------------------------------------------------------------

_ALPHABET = "中国北京大学江新区年月日的是在一二三四五十1234567890abcxyzABC ，。！？；,.!?-“”《》…"
texts = st.text(st.sampled_from(_ALPHABET), max_size=30)


@st.composite
def span_case(draw: st.DrawFn) -> tuple[str, list[str], str]:
    """A passage, golds that are mostly its spans, and a prediction that is mostly a span near them."""
    passage = draw(st.text(st.sampled_from(_ALPHABET), min_size=1, max_size=60))
    n = len(passage)

    def span() -> str:
        a = draw(st.integers(0, n))
        return passage[a : draw(st.integers(a, n))]

    golds = draw(st.lists(st.one_of(st.builds(span), texts), min_size=0, max_size=3))
    prediction = draw(st.one_of(st.builds(span), texts, st.sampled_from(golds or [""])))
    return passage, golds, prediction


@SETTINGS
@given(span_case(), st.sampled_from(SPAN_SCORERS), st.booleans())
def test_exact_iff_em_one_for_span_scorers(case: tuple[str, list[str], str], scorer: str, unanswerable: bool) -> None:
    passage, golds, prediction = case
    got = error_category(prediction, golds, passage, scorer, unanswerable=unanswerable)
    assert (got.code == "exact") == (score_prediction(scorer, prediction, golds).em == 1)


@SETTINGS
@given(span_case(), st.sampled_from(SCORERS), st.booleans(), st.booleans(), st.sampled_from([None, True, False]))
def test_exactly_one_category_per_prediction(
    case: tuple[str, list[str], str], scorer: str, with_passage: bool, unanswerable: bool, refused: bool | None
) -> None:
    passage, golds, prediction = case
    context = passage if with_passage else None
    got = error_category(prediction, golds, context, scorer, unanswerable=unanswerable, refused=refused)
    assert got.code in CATEGORY_CODES and got.reason.strip()
    assert got.gold is None or 0 <= got.gold < len(golds)
    runs = next(c.runs for c in CATEGORIES if c.code == got.code)
    if scorer in SPAN_SCORERS and context and context.strip() and not refused:
        assert runs in ("all", "span"), got  # a span run with a passage gets span categories
    elif scorer == CDQA_F1_RECALL:
        assert got.code not in ("not-in-passage", "boundary-long", "boundary-short", "boundary-shifted",
                                "wrong-span-same-sentence", "wrong-span-other-sentence", "false-abstain"), got
    # the same answer with the stored score, and again (pure)
    row = score_prediction(scorer, prediction, golds)
    assert error_category(prediction, golds, context, scorer, unanswerable=unanswerable, refused=refused,
                          score=row) == got


@SETTINGS
@given(span_case())
def test_boundary_reasons_count_what_they_say(case: tuple[str, list[str], str]) -> None:
    """A boundary-long reason's character counts add up to the prediction's extra length."""
    passage, golds, prediction = case
    got = error_category(prediction, golds, passage + "中", CMRC_OFFICIAL, gold_spans=None)
    exact_spans = prediction.strip() and prediction in passage and got.gold is not None and golds[got.gold] in passage
    if got.code == "boundary-long" and exact_spans and "repeats" not in got.reason and "by its text" not in got.reason:
        counts = [int(n) for n in re.findall(r"(\d+) characters?", got.reason)]
        gold = golds[got.gold or 0]
        assert sum(counts) == len("".join(prediction.split())) - len("".join(gold.split()))
