"""`core.errors.unknown_name`: the one wording of an unknown name, and every core place that uses it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from qa_inspect.core.errors import KNOWN_SHOWN, UnknownNameError, suggest, unknown_name
from qa_inspect.core.metrics import default_scorer, metrics_of, score_prediction
from qa_inspect.core.query import export_format
from qa_inspect.core.report import StatOptions


def test_the_wording_names_kind_name_and_known() -> None:
    assert unknown_name("run", "x", ["a", "b"]) == "unknown run 'x'; known: a, b"
    assert unknown_name("run", "x", ["a"], hint=" linked to a dataset") == "unknown run 'x' linked to a dataset; known: a"
    assert unknown_name("slice", "x", [], none="none saved") == "unknown slice 'x'; known: none saved"


def test_a_close_name_is_suggested() -> None:
    line = unknown_name("run", "qwen-7b-chta", ["bert", "qwen-7b-chat"])
    assert line == "unknown run 'qwen-7b-chta'; known: bert, qwen-7b-chat (did you mean 'qwen-7b-chat'?)"
    assert suggest("zzz", ["bert"]) == ""


def test_a_long_list_is_cut_and_says_how_many_more() -> None:
    names = [f"run-{i:03d}" for i in range(KNOWN_SHOWN + 7)]
    line = unknown_name("run", "nope", names)
    assert line.endswith(f"{names[KNOWN_SHOWN - 1]} … and 7 more")
    assert names[KNOWN_SHOWN] not in line


@given(st.text(min_size=1), st.lists(st.text(alphabet="abc-_0123", min_size=1), max_size=30))
def test_always_one_line_with_the_name_quoted(name: str, known: list[str]) -> None:
    line = unknown_name("dataset", name.replace("\n", " "), known)
    assert "\n" not in line and line.startswith(f"unknown dataset {name.replace(chr(10), ' ')!r}; known: ")


def test_unknown_name_error_keeps_the_names_for_callers() -> None:
    exc = UnknownNameError("dataset", "x", ("a", "b"))
    assert exc.known == ["a", "b"] and str(exc) == "unknown dataset 'x'; known: a, b"
    assert str(UnknownNameError("run", "x", [])) == "unknown run 'x'; known: none loaded"


@pytest.mark.parametrize(
    ("call", "line"),
    [
        (lambda: default_scorer("bleu"), "unknown dataset family 'bleu'; known: cmrc, "),
        (lambda: score_prediction("bleu", "a", ["a"]), "unknown scorer 'bleu'; known: cmrc2018-official, "),
        (lambda: metrics_of("bleu"), "unknown scorer 'bleu'; known: cmrc2018-official, "),
        (lambda: export_format(Path("x.xlsx")), "x.xlsx: unknown export format '.xlsx'; known: .csv, .jsonl, "),
        (lambda: StatOptions(unit="atom").check(), "unknown unit 'atom'; known: "),
        (lambda: StatOptions(test="t").check(), "unknown test 't'; known: "),
    ],
)
def test_core_places_word_it_the_same_way(call: Callable[[], object], line: str) -> None:
    with pytest.raises(Exception) as info:
        call()
    assert str(info.value).startswith(line)
