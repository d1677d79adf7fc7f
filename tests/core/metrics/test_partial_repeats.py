"""`relation` tries a gold equal to an earlier one only once (CMRC repeats its golds): golds given
again, anywhere after their first place, never change its answer."""

from __future__ import annotations

from hypothesis import assume, given, settings
from hypothesis import strategies as st
from qa_inspect.core.metrics.equivalence import (
    Relation,
    alternatives,
    relation,
    remainder,
    wide_form,
)
from qa_inspect.core.metrics.textnorm import has_cjk

WORDS = st.sampled_from(["绍兴", "绍兴市", "二〇二三年", "2023", "France", "Fran", "臺灣", "台湾大学", "/", " ", "第十七届",
                        "，", "30,000", "300", "ＦＲＡＮＣＥ"])
TEXTS = st.lists(WORDS, min_size=1, max_size=3).map("".join)


@settings(max_examples=300, deadline=None)
@given(TEXTS, st.lists(TEXTS, min_size=1, max_size=3), st.lists(st.integers(0, 2), max_size=3),
       st.sampled_from([None, "cmrc2018", "squad"]))
def test_repeated_golds_give_what_the_golds_give(answer: str, golds: list[str], repeats: list[int],
                                                 scorer: str | None) -> None:
    again = golds + [golds[k % len(golds)] for k in repeats]  # some golds again, as CMRC gives them
    assert relation(answer, again, scorer=scorer) == relation(answer, golds, scorer=scorer)


def test_a_cut_of_a_repeated_gold_is_partial_of_its_first_place() -> None:
    found = relation("绍兴", ["绍兴市", "台湾大学", "绍兴市"], scorer="cmrc2018")
    assert (found.relation, found.index, found.text, found.contains) == (Relation.PARTIAL, 0, "绍兴市", False)


def _partial_by_definition(answer: str, golds: list[str]) -> tuple[int, str | None, bool] | None:
    """The partial rule read off its definition, with no shortcut: every gold, every part, both
    tests in full (`remainder`, then the wide forms), contained golds before containing ones."""
    for contains in (True, False):
        for k, gold in enumerate(golds):
            for part in (gold, *alternatives(gold)):
                outer, inner = (answer, part) if contains else (part, answer)
                o, i = wide_form(outer), wide_form(inner)
                if remainder(outer, inner) is not None or (i and i != o and i in o and has_cjk(o)):
                    return k, None if part == gold else part, contains
    return None


@settings(max_examples=400, deadline=None)
@given(TEXTS, st.lists(TEXTS, min_size=1, max_size=3))
def test_partial_is_its_definition(answer: str, golds: list[str]) -> None:
    """The partial rule tests a part by `remainder` only when the plain forms contain one another,
    and keeps the golds' forms per gold tuple: neither changes which gold, part or direction it finds."""
    found = relation(answer, golds, scorer=None)
    assume(found.relation in (Relation.PARTIAL, Relation.DIFFERENT))  # partial is asked only then
    got = (found.index, found.alternative, found.contains) if found.relation == Relation.PARTIAL else None
    assert got == _partial_by_definition(answer, golds)
