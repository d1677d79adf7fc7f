"""`relation`'s partial test tries a gold equal to an earlier one only once (CMRC repeats its golds):
the answer is the same as trying every gold in turn, as it first did."""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st
from qa_inspect.core.metrics.equivalence import (
    Equivalence,
    Relation,
    _partial,
    _wide_inside,
    alternatives,
    remainder,
)


def partial_every_gold(answer: str, golds: Sequence[str]) -> Equivalence | None:
    """The partial test over every gold, repeats included."""
    for contains in (True, False):
        for k, gold in enumerate(golds):
            for part in (gold, *alternatives(gold)):
                outer, inner = (answer, part) if contains else (part, answer)
                if remainder(outer, inner) is not None or _wide_inside(outer, inner):
                    return Equivalence(Relation.PARTIAL, k, gold, None if part == gold else part, contains)
    return None


WORDS = st.sampled_from(["绍兴", "绍兴市", "二〇二三年", "2023", "France", "Fran", "臺灣", "台湾大学", "/", " ", "第十七届"])
TEXTS = st.lists(WORDS, min_size=1, max_size=3).map("".join)


@settings(max_examples=300, deadline=None)
@given(TEXTS, st.lists(TEXTS, min_size=1, max_size=3), st.lists(st.integers(0, 2), max_size=3))
def test_repeated_golds_give_what_every_gold_gives(answer: str, golds: list[str], repeats: list[int]) -> None:
    golds = golds + [golds[k % len(golds)] for k in repeats]  # some golds again, as CMRC gives them
    assert _partial(answer, golds) == partial_every_gold(answer, golds)
