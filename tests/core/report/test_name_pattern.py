"""The linear file-name pattern matcher gives the lazy regex's answers, without its backtracking."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st
from qa_inspect.core.report.name_pattern import match_pattern
from qa_inspect.core.report.run_settings import pattern_settings


def _regex(pattern: str) -> re.Pattern[str]:
    """The matcher this module replaced (exponential on recurring separators), as the reference."""
    out = []
    for part in re.split(r"(\{[A-Za-z_][A-Za-z0-9_]*\}|\*)", pattern):
        if part == "*":
            out.append(".*?")
        elif part.startswith("{") and part.endswith("}"):
            out.append(f"(?P<{part[1:-1]}>[^/]+?)")
        else:
            out.append(re.escape(part))
    return re.compile("^" + "".join(out) + "$")


_PIECES = st.sampled_from(["_", "-", "/", ".json", "shot", "a", "{a}", "{b}", "{c}", "{d}", "*"])


@st.composite
def _pattern(draw: st.DrawFn) -> str:
    """Patterns with each key at most once (the regex's back-references are not compared)."""
    pieces = draw(st.lists(_PIECES, min_size=1, max_size=7))
    seen: set[str] = set()
    kept = []
    for piece in pieces:
        if piece.startswith("{"):
            if piece in seen:
                continue
            seen.add(piece)
        kept.append(piece)
    return "".join(kept)


@settings(max_examples=400, deadline=None)
@given(_pattern(), st.text(alphabet="ab_-/.jsonht", max_size=14))
def test_same_answers_as_the_lazy_regex(pattern: str, name: str) -> None:
    expected = _regex(pattern).match(name)
    assert match_pattern(pattern, name) == (expected.groupdict() if expected else None)


def test_ordinary_patterns() -> None:
    assert pattern_settings("runs/bert_cot_3shot.jsonl", ["{model}_{prompt}_{shots}shot.jsonl"]) == {
        "model": "bert", "prompt": "cot", "shots": "3"}
    assert pattern_settings("a/b/m_x.json", ["*/{model}_{k}.json"]) == {"model": "m", "results": "x"}
    assert match_pattern("{m}-{m}.json", "x-x.json") == {"m": "x"}
    assert match_pattern("{m}-{m}.json", "x-y.json") is None
    assert match_pattern("{m}.json", "a/b.json") is None


def test_twenty_placeholders_on_a_long_name_are_linear() -> None:
    """The shape that backtracked for minutes: many keys between a recurring separator, no match."""
    pattern = "_".join(f"{{k{i}}}" for i in range(20)) + ".jsonl"
    name = "_".join("x" * 3 for _ in range(60)) + ".json"
    assert match_pattern(pattern, name) is None
    found = match_pattern(pattern, "_".join(str(i) for i in range(25)) + ".jsonl")
    assert found is not None and found["k0"] == "0" and found["k19"] == "_".join(str(i) for i in range(19, 25))
