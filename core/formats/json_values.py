"""JSON text → values, the one way every reader parses JSON: float literals kept (`JSONFloat`),
repeated keys noted (`duplicate_keys`), nesting bounded (`max_json_depth`), lone surrogate escapes
mended (`mend_surrogates`); and the small helpers that describe values in messages.

Split from `textio` so the archive reader (`_archive`) parses members the same way without an
import circle.
"""

from __future__ import annotations

import json
import math
import re
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from .limits import active

__all__ = [
    "MAX_PARSER_DEPTH",
    "JSONFloat",
    "JSONObject",
    "duplicate_keys",
    "loads",
    "loads_lines",
    "mend_surrogates",
    "number_text",
    "plain",
    "repeats_a_key",
    "shown",
    "surrogate_note",
    "type_name",
    "watch_repeats",
]


class JSONFloat(float):
    """A float that remembers how the file wrote it (`1.50`, `39764.0`, `1e3`)."""

    __slots__ = ("literal",)
    literal: str


def _parse_float(literal: str) -> JSONFloat:
    value = JSONFloat(literal)
    value.literal = literal
    return value


class JSONObject(dict[str, Any]):
    """A JSON object that repeats keys; `duplicates` holds each repeat in file order (the value
    kept is the last one, as JSON parsers do). Only such objects get this type: a plain object
    is a plain `dict`."""

    __slots__ = ("duplicates",)
    duplicates: list[str]


_REPEATS = threading.local()
"""Whether a parse running on this thread met a repeated key (`watch_repeats`)."""


@contextmanager
def watch_repeats() -> Iterator[Callable[[], bool]]:
    """Watch the parses on this thread inside the block: the function yielded says whether any
    object repeated a key, so readers look for repeats (`_repeats`) only in files that have them."""
    _REPEATS.seen = False
    yield lambda: bool(getattr(_REPEATS, "seen", False))


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) == len(pairs):
        return obj
    _REPEATS.seen = True
    seen: set[str] = set()
    repeats = [k for k, _ in pairs if k in seen or seen.add(k)]  # type: ignore[func-returns-value]
    out = JSONObject(obj)
    out.duplicates = repeats
    return out


_DECODER = json.JSONDecoder(parse_float=_parse_float, object_pairs_hook=_object)
"""One decoder for every parse: `json.loads` with hooks builds a new one per call (a quarter of
the cost of a short JSONL record)."""
_SCAN: Callable[[str, int], tuple[Any, int]] = vars(_DECODER)["scan_once"]  # what its `raw_decode` calls (the C scanner)


def duplicate_keys(value: Any) -> list[str]:
    """The keys a parsed JSON object repeats (each repeat once, in file order); [] for others."""
    return list(value.duplicates) if isinstance(value, JSONObject) else []


def loads(text: str, max_depth: int | None = None) -> Any:
    """`json.loads` keeping float literals and noting repeated keys (`duplicate_keys`); the one
    JSON entry point of the readers.

    Limits, each a `json.JSONDecodeError` (so the caller names the file and line): nesting deeper
    than Python's parser can follow (about 1,000 levels) and integers longer than Python converts
    (4,300 digits)."""
    depth = active().max_json_depth if max_depth is None else max_depth  # callers in loops pass it
    try:
        value = _scanned(text)
    except RecursionError:
        raise json.JSONDecodeError(_too_deep(min(depth, MAX_PARSER_DEPTH)), text, 0) from None
    except ValueError as exc:
        if isinstance(exc, json.JSONDecodeError) or "digits" not in str(exc):
            raise
        raise json.JSONDecodeError("a number longer than 4,300 digits", text, 0) from None
    if depth < MAX_PARSER_DEPTH and _deeper_than(value, depth):
        raise json.JSONDecodeError(_too_deep(depth), text, 0)
    return value


_PLAIN_SCAN: Callable[[str, int], tuple[Any, int]] = vars(json.JSONDecoder(parse_float=_parse_float))["scan_once"]
"""The C scanner building objects itself (no Python call per object); floats still keep their literal."""
PLAIN_MAX = 1 << 16
"""Text up to this many characters (a record) is first parsed without the object hook."""
_WALK_MAX = 256
"""Containers a plain parse is checked through at most; a record with more is parsed with the hook."""
_MISS = object()


def _plain(text: str) -> Any:
    """The value of a record parsed without the object hook when that provably loses no repeated
    key, else `_MISS` (the caller parses again with the hook, which also says what is wrong).

    The proof is on the text: every key of the text is followed by one `:`, so the text holds at
    most as many key-value pairs as `:` outside strings. When that bound is the number of keys the
    parsed value kept, no key was repeated (`_unrepeated`)."""
    try:
        value, end = _PLAIN_SCAN(text, 0)
    except (StopIteration, ValueError, RecursionError):
        return _MISS
    if end != len(text) and text[end:].strip(" \t\n\r"):
        return _MISS
    return value if _unrepeated(text, 0, end, value) else _MISS


def _unrepeated(text: str, start: int, end: int, value: Any, limit: int = _WALK_MAX) -> bool:
    """Whether `value`, parsed without the object hook from `text[start:end]`, kept every key the
    text gave (see `_plain`). The colons inside strings are counted in the parsed strings; an
    escaped colon (`\\u003a`) is in a parsed string but not in the text, so each such escape in
    the text is taken off that count (a false one only sends the record to the hook). Past `limit`
    containers the answer is False (the hook is cheaper than walking on)."""
    colons = text.count(":", start, end)
    if colons <= (len(value) if type(value) is dict else 0):
        return True  # as many keys at the top as the text can hold (a flat record), or no key at all
    counted = _keys_and_colons(value, colons, limit)
    if counted is None:
        return False
    keys, in_strings = counted
    if in_strings and text.find("\\u", start, end) >= 0:
        escaped = text.count("\\u003a", start, end) + text.count("\\u003A", start, end)
        in_strings = max(0, in_strings - escaped)
    return colons - in_strings <= keys


def loads_lines(
    text: str, newline: str, out: list[tuple[int, Any]], max_depth: int, max_bytes: int
) -> Iterator[tuple[int, str]]:
    """JSONL records parsed straight from the file's text, each appended to `out` as (line number,
    value) exactly as `loads` of its line would give it; the lines this cannot vouch for are
    yielded as (number, line) instead, in order, for the caller to read as before (blank lines,
    a BOM or whitespace around the value, longer than `PLAIN_MAX` or than a quarter of
    `max_bytes` (the record limit, which the caller checks), a repeated key, an error) — the
    caller appends what it makes of each before taking the next.

    Why: a sampled run has millions of short records. The scanner reads each in place (no line
    string, no strip, no call per line into `loads`), so only the C parse and a count of colons
    remain per record. Lines end at `newline` alone, as `text.split(newline)` cuts them. A value
    must end exactly at its line's end; one the scanner read past the line (JSON allows a newline
    between tokens) is yielded, and its line alone then fails as it always did."""
    scan, find, count, size = _PLAIN_SCAN, text.find, text.count, len(text)
    deep = max_depth < MAX_PARSER_DEPTH
    longest = min(PLAIN_MAX, max_bytes // 4)  # UTF-8 takes at most 4 bytes a character
    pos, number = 0, 0
    while pos < size:
        number += 1
        stop = find(newline, pos)
        if stop < 0:
            stop = size
        if stop - pos <= longest:
            try:
                value, end = scan(text, pos)
            except (StopIteration, ValueError, RecursionError):
                end = -1
            if end == stop and (
                count(":", pos, end) <= (len(value) if type(value) is dict else 0)  # `_unrepeated`'s first test, inline
                or _unrepeated(text, pos, end, value)
            ) and not (deep and _deeper_than(value, max_depth)):
                out.append((number, value))
                pos = stop + 1
                continue
        yield number, text[pos:stop]
        pos = stop + 1


def _keys_and_colons(value: Any, colons: int, limit: int = _WALK_MAX) -> tuple[int, int] | None:
    """(keys of every object in `value`, colons in its keys and strings — 0 when the keys alone
    account for `colons`, as in a record without a colon in its text); None past `limit`
    containers."""
    keys = 0
    strings: list[str] = []
    stack = [value]
    walked = 0
    while stack:
        node = stack.pop()
        walked += 1
        if walked > limit:
            return None
        items: Iterable[Any]
        if type(node) is dict:
            keys += len(node)
            strings.extend(node)
            items = node.values()
        elif type(node) is list:
            items = node
        else:
            if type(node) is str:  # a record that is one string
                strings.append(node)
            continue
        for item in items:
            if type(item) is str:
                strings.append(item)
            elif type(item) is dict or type(item) is list:
                stack.append(item)
    if keys >= colons:
        return keys, 0
    return keys, sum(s.count(":") for s in strings)


def repeats_a_key(value: Any, text: str, start: int, end: int) -> bool:
    """Whether `text[start:end]`, parsed without the object hook into `value`, may have repeated
    a key: `_unrepeated`'s proof over the whole value, however many containers (a big file's
    article, say). False is certain; True sends the text to the hooked parse, which names the key."""
    return not _unrepeated(text, start, end, value, limit=1 << 62)


def _scanned(text: str) -> Any:
    """`json.loads(text)` with the hooks: a record without a repeated key parsed without the
    object hook (`_plain`); else the C scanner with the hooks straight away for text that starts
    with its value and ends with it or with JSON whitespace (a JSONL record), else the decoder,
    which also says what is wrong (`json.loads` for a BOM, which it names)."""
    if len(text) <= PLAIN_MAX:
        value = _plain(text)
        if value is not _MISS:
            return value
    try:
        value, end = _SCAN(text, 0)
    except (StopIteration, ValueError, RecursionError):
        pass  # the decoder below parses again and raises what `json.loads` would
    else:
        if end == len(text) or not text[end:].strip(" \t\n\r"):
            return value
    return _DECODER.decode(text) if not text.startswith("\ufeff") else json.loads(text)


MAX_PARSER_DEPTH = 900
"""About the nesting Python's JSON parser follows (its recursion limit, less the caller's stack)."""


def _too_deep(depth: int) -> str:
    hint = active().hint("max_json_depth") if depth < MAX_PARSER_DEPTH else "the JSON reader's own limit"
    return f"nested deeper than {depth:,} levels ({hint})"


def _deeper_than(value: Any, depth: int) -> bool:
    """Whether `value` nests more than `depth` levels (an explicit stack: no recursion to run out of)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, level = stack.pop()
        children = node.values() if isinstance(node, dict) else node if isinstance(node, list) else ()
        for child in children:
            if isinstance(child, (dict, list)):
                if level + 1 > depth:
                    return True
                stack.append((child, level + 1))
    return False


_SURROGATE = re.compile(r"(?<!\\)((?:\\\\)*)\\u([dD][89a-fA-F][0-9a-fA-F]{2})(\\u[dD][c-fC-F][0-9a-fA-F]{2})?")


def mend_surrogates(text: str) -> tuple[str, int]:
    """JSON text with every lone surrogate escape (`\\ud800` without its pair) replaced by `\\ufffd`,
    and how many there were: a lone surrogate is not Unicode text and cannot be stored, and one
    must not refuse a whole file."""
    if "\\u" not in text or _SURROGATE.search(text) is None:
        return text, 0
    count = 0

    def mend(match: re.Match[str]) -> str:
        nonlocal count
        slashes, first, pair = match.groups()
        if pair is not None and 0xD800 <= int(first, 16) < 0xDC00:
            return match.group(0)
        count += 1 + (pair is not None)
        return slashes + "\\ufffd" + ("\\ufffd" if pair is not None else "")

    return _SURROGATE.sub(mend, text), count


def surrogate_note(count: int) -> str:
    """The warning for `count` lone surrogates replaced."""
    return f"{count:,} lone surrogate escape{'s' if count != 1 else ''} (\\ud800-\\udfff without a pair) replaced with U+FFFD"


def number_text(value: Any) -> str | None:
    """Text of a scalar answer/prediction as the file wrote it; None for non-scalars.

    Strings pass through; JSON numbers become their literal (`39764.0` stays "39764.0", `7` is
    "7"); booleans, null, lists and objects are not answers (None, the caller raises).
    """
    if isinstance(value, str):
        return value
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, JSONFloat):
        return value.literal
    if isinstance(value, float) and not math.isfinite(value):
        return None  # NaN / Infinity (JSON extensions) are not an answer: the caller names the record
    if isinstance(value, (int, float)):
        return str(value)
    return None


def plain(value: Any) -> Any:
    """Strip `JSONFloat` (and `JSONObject`) from a value bound for `meta`, so consumers see builtin
    types only. Containers take a round trip through the C JSON codec rather than a Python
    recursion, which gives out long before nesting the parser accepts (a raw model output can be
    deep): every value read from JSON can be kept."""
    if isinstance(value, JSONFloat):
        return float(value)
    if isinstance(value, (dict, list)):
        return json.loads(json.dumps(value))
    return value


def type_name(value: Any) -> str:
    """JSON-ish name of a value's type for messages ("a list", "an object", "null", "NaN")."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("-Infinity" if value < 0 else "Infinity")
    return "a number"


def shown(text: str, limit: int = 60) -> str:
    """`repr(text)` for a message, cut to about `limit` characters (a 1 MB key stays one short line)."""
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}… ({len(text):,} characters)"
