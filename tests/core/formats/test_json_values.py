"""`json_values.loads` (the C scanner straight away for a plain record, the decoder otherwise)
against `json.loads` with the same hooks: the same values, the same errors."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st
from qa_inspect.core.formats.json_values import loads

_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=8,
)
_PADS = st.sampled_from(["", " ", "\n", "\r", "\t", " \r\n", "\u3000", "\ufeff", "x", ",", "}", "1"])


def _reference(text: str) -> object:
    return json.loads(text)  # the hooks change the types of values, never what parses


@settings(max_examples=300, deadline=None)
@given(value=_VALUES, before=_PADS, after=_PADS)
def test_loads_is_json_loads_with_its_hooks(value: object, before: str, after: str) -> None:
    text = before + json.dumps(value, ensure_ascii=False) + after
    try:
        expected = _reference(text)
    except json.JSONDecodeError as exc:
        try:
            loads(text)
        except json.JSONDecodeError as mine:
            assert (mine.msg, mine.pos) == (exc.msg, exc.pos)
        else:
            raise AssertionError(f"{text!r} parsed") from None
    else:
        got = loads(text)
        assert got == expected and json.dumps(got) == json.dumps(expected)


def test_literals_and_repeated_keys_survive_the_quick_path() -> None:
    value = loads('{"a": 1.50, "a": 2, "b": [1e3]}\r\n')
    assert value.duplicates == ["a"] and value["b"][0].literal == "1e3"
