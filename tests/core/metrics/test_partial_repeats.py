"""`relation` tries a gold equal to an earlier one only once (CMRC repeats its golds): golds given
again, anywhere after their first place, never change its answer."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from qa_inspect.core.metrics.equivalence import Relation, relation

WORDS = st.sampled_from(["绍兴", "绍兴市", "二〇二三年", "2023", "France", "Fran", "臺灣", "台湾大学", "/", " ", "第十七届"])
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
