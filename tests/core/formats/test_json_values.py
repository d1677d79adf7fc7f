"""`json_values.loads` (the C scanner straight away for a plain record, the decoder otherwise)
against `json.loads` with the same hooks: the same values, the same errors."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st
from qa_inspect.core.formats.json_values import loads, loads_lines, repeats_a_key

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


def _text_of(node: object, ascii_only: bool) -> str:
    """JSON text of a tree whose objects are lists of pairs (`("obj", pairs)`), so keys may repeat."""
    if isinstance(node, tuple) and node[0] == "obj":
        return "{" + ", ".join(f"{json.dumps(k, ensure_ascii=ascii_only)}: {_text_of(v, ascii_only)}"
                               for k, v in node[1]) + "}"
    if isinstance(node, list):
        return "[" + ", ".join(_text_of(v, ascii_only) for v in node) + "]"
    return json.dumps(node, ensure_ascii=ascii_only)


_KEYS = st.sampled_from(["a", "b", "a:b", ":", "é", "ключ"])
_LEAVES = (st.none() | st.integers() | st.sampled_from([1.5, 1e3, -0.0])
           | st.text(alphabet=st.sampled_from(["x", ":", '"', "\\", "é", "\u2028"]), max_size=4))
_TREES = st.recursive(
    _LEAVES,
    lambda inner: st.lists(inner, max_size=3) | st.lists(st.tuples(_KEYS, inner), max_size=4).map(lambda p: ("obj", p)),
    max_leaves=10,
)


def _shape(value: object) -> object:
    """The value with what the hooks add made visible: repeated keys and float literals."""
    if isinstance(value, dict):
        return ("object", getattr(value, "duplicates", []), [(k, _shape(v)) for k, v in value.items()])
    if isinstance(value, list):
        return [_shape(v) for v in value]
    if isinstance(value, float):
        return ("float", getattr(value, "literal", None))
    return value


def _hooked_shape(text: str) -> object:
    """What a parse with both hooks on every object gives, in `_shape`'s terms."""
    def pairs(items: list[tuple[str, object]]) -> object:
        seen: set[str] = set()
        repeats = [k for k, _ in items if k in seen or seen.add(k)]  # type: ignore[func-returns-value]
        return ("object", repeats, list(dict(items).items()))

    return json.loads(text, object_pairs_hook=pairs, parse_float=lambda literal: ("float", literal))


@settings(max_examples=400, deadline=None)
@given(tree=_TREES, ascii_only=st.booleans())
def test_a_record_parsed_without_the_object_hook_loses_no_repeated_key(tree: object, ascii_only: bool) -> None:
    """`loads` parses short text without the object hook when the text's colons prove no key
    repeats (colons inside strings, escaped or not, counted): the result must be a hooked
    parse's, repeats and float literals included."""
    text = _text_of(tree, ascii_only)
    assert _shape(loads(text)) == _hooked_shape(text)


def test_an_escaped_colon_does_not_hide_a_repeated_key() -> None:
    value = loads('{"a": "x\\u003ay", "a": 2}')
    assert value.duplicates == ["a"]
    assert loads('{"a": "x\\u003ay", "b": 2}') == {"a": "x:y", "b": 2}
    assert loads('[{"k": 1}, {"k": 2, "k": 3}]')[1].duplicates == ["k"]


@settings(max_examples=200, deadline=None)
@given(st.recursive(st.none() | st.text(alphabet=":ab\\\"{}", max_size=6) | st.integers(),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(alphabet=":ab", max_size=3), inner, max_size=3),
                    max_leaves=12),
       st.booleans())
def test_repeats_a_key_is_never_wrong_when_it_says_no(value: object, repeat: bool) -> None:
    """The colon proof over a whole value: text with a key written twice is never passed as clean,
    and text written by `json.dumps` (no repeat) is passed unless a colon hides in an escape."""
    text = json.dumps(value)
    if repeat and isinstance(value, dict) and value:
        key = json.dumps(next(iter(value)))
        text = "{" + f"{key}: 0, " + text[1:]
    parsed = json.loads(text)
    repeated = text != json.dumps(value)
    if repeated:
        assert repeats_a_key(parsed, "  " + text, 2, 2 + len(text))
    else:
        assert not repeats_a_key(parsed, text, 0, len(text))


_LINES = st.lists(
    st.one_of(
        _VALUES.map(lambda v: json.dumps(v, ensure_ascii=False)),
        st.sampled_from(['{"a": 1, "a": 2}', '{"t": "12:30", "b": {"c": ":"}}', '{"k\\u003a": 1, "k:": 2}',
                         '{"x": 1.50, "y": [1e3, {"z": 39764.0}]}', "", "  ", "\ufeff{}", '{"a":\n1}', "[1,", "1 2"]),
    ).flatmap(lambda line: st.tuples(st.just(line), _PADS.filter(lambda p: p not in ("\n", " \r\n")))
              .map(lambda pair: pair[0] + pair[1])),
    max_size=6,
)


def _typed(value: object) -> object:
    """A value with what `==` does not see: object types, repeats noted, float literals."""
    if isinstance(value, dict):
        return (type(value).__name__, getattr(value, "duplicates", None), [(k, _typed(v)) for k, v in value.items()])
    if isinstance(value, list):
        return [_typed(v) for v in value]
    return (type(value).__name__, getattr(value, "literal", None), value)


def _per_line(text: str, depth: int) -> list[tuple[int, object]]:
    """What `textio` did before `loads_lines`: `loads` of each line that is not blank (BOM dropped)."""
    out: list[tuple[int, object]] = []
    for number, line in enumerate(text.split("\n"), start=1):
        line = line.removeprefix("\ufeff")
        if line.strip():
            out.append((number, loads(line, depth)))
    return out


@settings(max_examples=300, deadline=None)
@given(lines=_LINES, end=st.sampled_from(["", "\n"]), depth=st.sampled_from([2, 900]), max_bytes=st.sampled_from([40, 1 << 20]))
def test_loads_lines_reads_each_line_as_loads_does(lines: list[str], end: str, depth: int, max_bytes: int) -> None:
    text = "\n".join(lines) + end
    try:
        expected = _per_line(text, depth)
    except json.JSONDecodeError:
        expected = None
    out: list[tuple[int, object]] = []
    handed: set[int] = set()
    try:
        for number, line in loads_lines(text, "\n", out, depth, max_bytes):  # what textio does with the rest
            handed.add(number)
            line = line.removeprefix("\ufeff")
            if line.strip():
                out.append((number, loads(line, depth)))
    except json.JSONDecodeError:
        assert expected is None
        return
    assert expected is not None
    assert [(n, _typed(v)) for n, v in out] == [(n, _typed(v)) for n, v in expected]
    raw = text.split("\n")
    assert all(len(raw[n - 1]) * 4 <= max_bytes for n, _ in out if n not in handed)  # textio checks the rest's size
