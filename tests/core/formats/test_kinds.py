"""Dataset or run? Records are told apart by their fields (`answer` is the ambiguous one)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from qa_inspect.core.formats import Skip, read_source
from qa_inspect.core.keys import question_key
from qa_inspect.core.model import Dataset, Run

from tests.helpers import error_of, write

INSPECT_EXAMPLE = (
    '{"id": "q1", "question": "What is the powerhouse of the cell?", "answer": "mitochondria"}\n'
    '{"id": "q2", "question": "Which molecule carries genetic information?", "answer": "DNA"}\n'
)
"""Inspect AI's `biology_qa.jsonl` shape: a dataset that used to load as a run scoring 100."""


def jsonl(records: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)


def test_inspect_example_dataset_is_a_dataset(tmp_path: Path) -> None:
    ds = read_source(write(tmp_path, "biology_qa.jsonl", INSPECT_EXAMPLE))
    assert isinstance(ds, Dataset), ds
    assert ds.format == "jsonl-dataset" and [i.key for i in ds.items] == ["q1", "q2"]
    assert [[g.text for g in i.golds] for i in ds.items] == [["mitochondria"], ["DNA"]]
    assert ds.items[0].meta == {}, "the gold field is not repeated in meta"


def test_inspect_example_is_not_a_run(tmp_path: Path) -> None:
    result = read_source(write(tmp_path, "biology_qa.jsonl", INSPECT_EXAMPLE), as_kind="run")
    assert result == Skip(tmp_path / "biology_qa.jsonl", "a dataset (jsonl-dataset), not a run")


@pytest.mark.parametrize(
    ("record", "golds"),
    [
        ({"question": "Who?", "answer": ["A", "B"]}, ["A", "B"]),
        ({"question": "How many?", "answer": 7}, ["7"]),
        ({"question": "Who?", "target": "A"}, ["A"]),
        ({"question": "Who?", "target": ["A", "a"]}, ["A", "a"]),
        ({"question": "Who?", "answer": None}, []),
    ],
)
def test_answer_and_target_golds_without_ids(tmp_path: Path, record: dict[str, Any], golds: list[str]) -> None:
    ds = read_source(write(tmp_path, "qa.json", [record]))
    assert isinstance(ds, Dataset), ds
    item = ds.items[0]
    assert item.key == question_key(record["question"]), "no id: keyed by the question"
    assert [g.text for g in item.golds] == golds


@pytest.mark.parametrize(
    "records",
    [
        [{"id": "q1", "question": "Who?", "answer": "A", "prediction": "B"}],
        [{"id": "q1", "question": "Who?", "response": "B"}],
        [{"id": "q1", "question": "Who?", "answer": "B", "model": "m"}],
        [{"id": "q1", "question": "Who?", "answer": "B", "raw": "The answer is B."}],
        [{"id": "q1", "question": "Who?", "answers": ["A"], "answer": "B"}],
        [{"question_id": "q1", "answer": "B"}],
        [{"id": "q1", "prediction_text": "B"}],
        [{"id": "q1", "question": "Who?", "answer": "A"}, {"id": "q2", "question": "Why?", "pred": "B"}],  # mixed: a run
    ],
    ids=["prediction", "response", "model", "raw", "answers-and-answer", "no-question", "evaluate",
         "second-record"],
)
def test_records_with_a_prediction_stay_runs(tmp_path: Path, records: list[dict[str, Any]]) -> None:
    run = read_source(write(tmp_path, "out.jsonl", jsonl(records)))
    assert isinstance(run, Run), run
    assert run.format == "prediction-records" and run.predictions[-1].text == "B"


def test_gold_beside_a_prediction_is_kept_in_meta(tmp_path: Path) -> None:
    run = read_source(write(tmp_path, "out.jsonl", jsonl([{"id": "q1", "question": "Who?", "target": "A", "pred": "B"}])))
    assert isinstance(run, Run)
    assert run.predictions[0].meta == {"question": "Who?", "target": "A"}


def test_inspect_native_input_target_is_not_claimed(tmp_path: Path) -> None:
    """`{input, target}` has no question: not a dataset we can read, so a skip, not an error."""
    result = read_source(write(tmp_path, "native.jsonl", jsonl([{"input": "Who?", "target": "A"}])))
    assert isinstance(result, Skip) and result.reason.startswith("not QA data")


def test_answer_dataset_errors_name_the_line(tmp_path: Path) -> None:
    err = error_of(write(tmp_path, "qa.jsonl", INSPECT_EXAMPLE + '{"id": "q3", "question": "Who?", "answer": {"x": 1}}\n'))
    assert err.record == "line 3" and err.message == "answer object has no 'text'"
