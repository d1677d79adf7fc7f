"""`tui.present`: the one rule for each figure on screen (numbers, p-values, intervals, counts, plurals, names)."""

from __future__ import annotations

import math
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from qa_inspect.core.query import FACETS
from qa_inspect.core.report import SLICES
from qa_inspect.tui import present as P

probabilities = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)
finite = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False)


def _p_rank(text: str) -> float:
    """A printed p as a number to compare: "<0.001" below every printed value."""
    return -1.0 if text == "<0.001" else float(text)


@given(probabilities, probabilities)
def test_p_value_formatting_is_monotone(p: float, q: float) -> None:
    low, high = sorted((p, q))
    assert _p_rank(P.p_value(low)) <= _p_rank(P.p_value(high))


@given(probabilities)
def test_p_value_is_three_places_or_below_the_floor(p: float) -> None:
    text = P.p_value(p)
    assert text == "<0.001" if p < P.P_FLOOR else re.fullmatch(r"[01]\.\d{3}", text)
    assert P.p_value(p, mark=True) == text + "*"


def test_p_value_edges() -> None:
    assert [P.p_value(p) for p in (0.0, 0.0009999, 0.001, 0.0395, 1.0)] == ["<0.001", "<0.001", "0.001", "0.040", "1.000"]
    assert P.p_value(None) == P.p_value(math.nan) == P.MISSING


@given(finite, st.integers(min_value=0, max_value=4))
def test_number_rounds_and_never_shows_minus_zero(value: float, places: int) -> None:
    text = P.number(value, places)
    assert float(text) == pytest.approx(round(value, places), abs=10 ** -places)
    assert not re.fullmatch(r"-0\.?0*", text)
    assert len(text.partition(".")[2]) == places


@given(finite)
def test_signed_always_carries_a_sign(delta: float) -> None:
    text = P.signed(delta)
    assert text[0] in "+-" and text != "-0.00"
    assert float(text) == pytest.approx(round(delta, 2), abs=0.01)


def test_percent_share_and_missing() -> None:
    assert P.percent(45.28) == "45.3%" and P.percent(45.28, 0) == "45%"
    assert P.share(0.4528) == "45%" and P.share(0.4528, 1) == "45.3%"
    assert P.percent(None) == P.share(None) == P.number(None) == P.signed(None) == P.MISSING


def test_interval() -> None:
    assert P.interval(0.1234, 0.5) == "[0.12, 0.50]"
    assert P.interval(-0.1, 0.2, 1, sign=True) == "[-0.1, +0.2]"
    assert P.interval(None, 0.2) == P.interval(0.1, math.nan) == P.MISSING


@given(st.integers(min_value=0, max_value=10**12))
def test_count_reads_back_as_the_same_number(n: int) -> None:
    text = P.count(n)
    assert int(text.replace(",", "")) == n
    assert all(len(group) == 3 for group in text.split(",")[1:])


@pytest.mark.parametrize(
    ("n", "word", "want"),
    [(0, "item", "0 items"), (1, "item", "1 item"), (2, "item", "2 items"), (1, "match", "1 match"),
     (3, "match", "3 matches"), (2, "category", "2 categories"), (12_345, "gold", "12,345 golds"),
     (2, "datum", "2 data")],
)
def test_plural(n: int, word: str, want: str) -> None:
    assert P.plural(n, word, "data" if word == "datum" else None) == want


def test_every_facet_and_slice_has_a_human_name_agreeing_with_core() -> None:
    for name, facet in FACETS.items():
        assert P.dimension_name(name) == facet.label, name
    for name in SLICES:
        assert "_" not in P.dimension_name(name), name
    assert P.dimension_name("qword") == "question type"
