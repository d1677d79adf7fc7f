"""The one rule for repeated JSON keys (`core.formats._repeats`): wherever an object repeats a key,
in any file shape, one warning says where (path or line, the item's id), which key and, where the
value decides what is scored, the value kept; nothing else is reported."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from qa_inspect.core.formats import find_repeats, read_source, repeat_warning
from qa_inspect.core.formats.textio import loads, read_document
from qa_inspect.core.model import Dataset, Run


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


SQUAD = ('{"data": [{"title": "t", "paragraphs": [{"context": "The fox", "qas": ['
         '{"id": "A1", "question": "What?", "answers": [{"text": "fox", "answer_start": 4}],'
         ' "answers": [{"text": "The", "answer_start": 0}]}]}]}]}')


def test_a_repeated_answers_key_in_a_squad_record_is_named_with_its_id_and_the_kept_value(tmp_path: Path) -> None:
    ds = read_source(_write(tmp_path, "dev.json", SQUAD))
    assert isinstance(ds, Dataset)
    assert [g.text for g in ds.items[0].golds] == ["The"]  # the last value, as every JSON parser keeps it
    assert ds.meta["warnings"] == ["repeated JSON key: data[0].paragraphs[0].qas[0] (id 'A1'): key 'answers' "
                                   "repeated, the last value kept (a list of 1)"]


def test_jsonl_records_are_named_by_line(tmp_path: Path) -> None:
    text = '{"id": "a", "prediction": "x"}\n{"id": "b", "prediction": "y", "prediction": "z"}\n'
    run = read_source(_write(tmp_path, "p.jsonl", text))
    assert isinstance(run, Run) and [p.text for p in run.predictions] == ["x", "z"]
    assert run.meta["warnings"] == ["repeated JSON key: line 2 (id 'b'): key 'prediction' repeated, "
                                    "the last value kept ('z')"]


def test_a_key_whose_value_is_not_scored_is_named_without_its_value(tmp_path: Path) -> None:
    doc = read_document(_write(tmp_path, "d.json", '{"a": [{"x": 1, "note": "p", "note": "q"}]}'))
    assert repeat_warning(doc) == "repeated JSON key: a[0]: key 'note' repeated, the last value kept"


def test_files_without_repeats_say_nothing(tmp_path: Path) -> None:
    ds = read_source(_write(tmp_path, "dev.json", SQUAD.replace(', "answers": [{"text": "The", "answer_start": 0}]', "")))
    assert isinstance(ds, Dataset) and "warnings" not in ds.meta


def test_a_prediction_map_counts_its_own_ids_once(tmp_path: Path) -> None:
    run = read_source(_write(tmp_path, "predictions.json", '{"a": "1", "b": "2", "a": "3"}'))
    assert isinstance(run, Run)
    assert run.meta["warnings"] == ["1 duplicate id; the last of each was kept (e.g. 'a': '3')"]


def test_deep_nesting_is_walked_without_recursion() -> None:
    depth = 5000  # deeper than Python's recursion limit
    nested: object = loads('{"x": 1, "x": 2}')
    for _ in range(depth):
        nested = [nested]
    found = list(find_repeats("", nested))
    assert [(r.key, r.kept) for r in found] == [("x", 2)]
    assert found[0].place == "[0]" * depth


_keys = st.text(alphabet="abcxyz", min_size=1, max_size=3)
_leaf = st.one_of(st.integers(-5, 5), st.text(max_size=4), st.none())


@st.composite
def _objects(draw: st.DrawFn, depth: int = 0) -> tuple[str, int]:
    """JSON text of an object (keys possibly repeated) and how many repeats it holds."""
    keys = draw(st.lists(_keys, max_size=5))
    parts, repeats = [], len(keys) - len(set(keys))
    for key in keys:
        if depth < 3 and draw(st.booleans()):
            text, inner = draw(_objects(depth + 1))
            repeats += inner
        else:
            text = json.dumps(draw(_leaf))
        parts.append(f"{json.dumps(key)}: {text}")
    return "{" + ", ".join(parts) + "}", repeats


class _Counted(dict):  # type: ignore[type-arg]
    repeated = 0


def _distinct(text: str) -> int:
    """Distinct repeated keys per object kept in the parsed value (a key given three times counts
    once; repeats inside a value that a later one replaced are gone with it), counted recursively."""

    def hook(pairs: list[tuple[str, object]]) -> _Counted:
        out = _Counted(pairs)
        seen = [k for k, _ in pairs]
        out.repeated = len({k for k in seen if seen.count(k) > 1})
        return out

    def count(value: object) -> int:
        if isinstance(value, _Counted):
            return value.repeated + sum(count(v) for v in value.values())
        return 0

    return count(json.loads(text, object_pairs_hook=hook))


@settings(max_examples=200, deadline=None)
@given(_objects())
def test_every_repeated_key_is_found_once_and_only_those(case: tuple[str, int]) -> None:
    text, _ = case
    found = list(find_repeats("", loads(text)))
    assert len(found) == _distinct(text)
    assert all(isinstance(r.key, str) for r in found)
