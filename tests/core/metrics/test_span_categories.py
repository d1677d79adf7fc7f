"""The span rules' search for the closest occurrences: the same choice as trying every pair."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from qa_inspect.core.metrics.span_categories import Located, Span, closest_pair, occurrences

STARTS = st.lists(st.integers(0, 60), max_size=8, unique=True).map(sorted)
OCCS = st.lists(st.integers(0, 60), max_size=3)


def _every_pair(preds: list[Span], found: list[tuple[Located, list[Span]]]) -> tuple[Span, Span, Located] | None:
    pairs = [(abs(p[0] - o[0]), p, o, g) for g, occs in found for o in occs for p in preds]
    return min(pairs, key=lambda t: t[0])[1:] if pairs else None


@settings(max_examples=400, deadline=None)
@given(STARTS, st.lists(OCCS, min_size=1, max_size=3))
def test_closest_is_the_first_closest_pair(starts: list[int], golds: list[list[int]]) -> None:
    preds = [(a, a + 2) for a in starts]
    found = [(Located(k, f"g{k}", None, True), [(a, a + 1) for a in occs]) for k, occs in enumerate(golds)]
    assert closest_pair(preds, found) == _every_pair(preds, found)


@settings(max_examples=200, deadline=None)
@given(st.text(st.sampled_from("ab 中文,."), max_size=30), st.text(st.sampled_from("ab中 ."), min_size=1, max_size=3))
def test_occurrences_come_in_passage_order(passage: str, text: str) -> None:
    """What `closest_pair` relies on: the prediction's occurrences start strictly later one by one."""
    starts = [a for a, _ in occurrences(passage, text)]
    assert starts == sorted(set(starts))
