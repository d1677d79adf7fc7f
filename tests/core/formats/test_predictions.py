"""Prediction readers on small fixtures, side files, look-alikes and bad input."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from qa_inspect.core.errors import FormatError
from qa_inspect.core.formats import Skip, read_source
from qa_inspect.core.model import Candidate, Run

from tests.helpers import FORMAT_FIXTURES as FIXTURES
from tests.helpers import error_of, write

HF_RUN = FIXTURES / "hf_run"


def run_of(path: Path, **hints: Any) -> Run:
    result = read_source(path, as_kind="run", hints=hints or None)
    assert isinstance(result, Run), result
    return result


# ------------------------------------------------------------------------------------------- maps


def test_hf_predictions_with_nbest() -> None:
    run = run_of(HF_RUN / "eval_predictions.json", name="bert", model="bert-base-chinese")
    assert (run.format, run.name, run.model) == ("prediction-map", "bert", "bert-base-chinese")
    assert len(run.predictions) == 10 and all(p.ref_kind == "id" for p in run.predictions)
    by_ref = {p.ref: p for p in run.predictions}
    assert by_ref["DEV_10_QUERY_2"].text == "39764.0", "numbers as written"
    assert "DEV_101_QUERY_1" in by_ref, "keys are stripped"
    assert by_ref["DEV_0_QUERY_0"].candidates == [
        Candidate("光荣和ω-force", 0.75, 13.75),
        Candidate("光荣", 0.25, 12.5),
    ]
    assert by_ref["DEV_0_QUERY_2"].candidates == []
    assert run.extra_paths == [str(HF_RUN / "eval_nbest_predictions.json")]
    assert run.meta["nbest"]["without_candidates"] == 8
    assert [p.line for p in run.predictions][:3] == [1, 2, 3]


def test_nbest_beside_its_predictions_is_a_side_file() -> None:
    result = read_source(HF_RUN / "eval_nbest_predictions.json")
    assert result == Skip(HF_RUN / "eval_nbest_predictions.json", "n-best side file of eval_predictions.json")


def test_nbest_alone_is_skipped_with_reason(tmp_path: Path) -> None:
    shutil.copy(HF_RUN / "eval_nbest_predictions.json", tmp_path / "eval_nbest_predictions.json")
    result = read_source(tmp_path / "eval_nbest_predictions.json")
    assert isinstance(result, Skip)
    assert result.reason == "n-best predictions without a predictions file (expected eval_predictions.json beside it)"


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("all_results.json", "all values are numbers: a metrics or scores file, not predictions"),
        ("config.json", "settings or metadata, not predictions (keys such as 'architectures', 'model_type', 'hidden_size')"),
    ],
)
def test_hf_side_outputs_are_skipped(name: str, reason: str) -> None:
    assert read_source(HF_RUN / name) == Skip(HF_RUN / name, reason)


def test_special_tokens_map_is_not_a_run(tmp_path: Path) -> None:
    result = read_source(write(tmp_path, "special_tokens_map.json", {"unk_token": "[UNK]", "sep_token": "[SEP]"}))
    assert isinstance(result, Skip) and result.reason.startswith("settings or metadata")


def test_map_list_value_names_the_key(tmp_path: Path) -> None:
    path = write(tmp_path, "predictions.json", {"DEV_0": "a", "DEV_1": ["b"], "DEV_2": "c"})
    err = error_of(path)
    assert err.record == "key 'DEV_1'" and err.message == "value is a list, expected the predicted text"


def test_map_duplicate_after_strip_keeps_the_last_and_says_so(tmp_path: Path) -> None:
    run = run_of(write(tmp_path, "predictions.json", '{"DEV_0": "a", " DEV_0": "b"}'))
    assert [(p.ref, p.text) for p in run.predictions] == [("DEV_0", "b")]
    assert run.meta["warnings"] == ["1 duplicate id; the last of each was kept (e.g. 'DEV_0': 'b')"]


def test_map_repeated_keys_are_counted_not_silently_kept(tmp_path: Path) -> None:
    text = '{"A": "1", "B": "2", "A": "3", "C": "4", "B": "5", "A": "6"}'
    run = run_of(write(tmp_path, "predictions.json", text))
    assert [(p.ref, p.text) for p in run.predictions] == [("A", "6"), ("B", "5"), ("C", "4")]
    assert run.meta["warnings"] == ["3 duplicate ids; the last of each was kept (e.g. 'A': '6')"]


def test_map_without_repeats_has_no_warnings(tmp_path: Path) -> None:
    assert "warnings" not in run_of(write(tmp_path, "predictions.json", {"A": "1", "B": "2"})).meta


def test_map_blank_key_names_the_key(tmp_path: Path) -> None:
    err = error_of(write(tmp_path, "predictions.json", {"A": "1", " ": "2"}))
    assert err.record == "key ' '" and err.message == "empty id (a blank key)"


def test_map_huge_key_is_shown_short(tmp_path: Path) -> None:
    key = "Q" + "7" * 99_999
    err = error_of(write(tmp_path, "predictions.json", {"Q1": "1", key: ["2"]}))
    assert err.record == f"key {key[:60]!r}… (100,000 characters)"


def test_side_file_number_too_large_names_the_key(tmp_path: Path) -> None:
    write(tmp_path, "predictions.json", {"A": "1"})
    odds = write(tmp_path, "null_odds.json", '{"A": ' + "9" * 400 + "}")
    with pytest.raises(FormatError) as info:
        read_source(tmp_path / "predictions.json")
    assert (info.value.path, info.value.record) == (str(odds), "key 'A'")
    assert info.value.message == "null odds is a number too large to read"


def test_bad_nbest_names_the_nbest_file(tmp_path: Path) -> None:
    write(tmp_path, "predictions.json", {"DEV_0": "a"})
    nbest = write(tmp_path, "nbest_predictions.json", {"DEV_0": [{"probability": 1.0}]})
    with pytest.raises(FormatError) as info:
        read_source(tmp_path / "predictions.json")
    assert info.value.path == str(nbest) and info.value.record == "key 'DEV_0'"


def test_gb18030_map(tmp_path: Path) -> None:
    path = tmp_path / "submission.json"
    path.write_bytes('{"TEST_0_QUERY_0": "一九九八年"}'.encode("gb18030"))
    run = run_of(path)
    assert run.encoding == "gb18030" and run.predictions[0].text == "一九九八年"


# ---------------------------------------------------------------------------------------- records


def test_llm_records() -> None:
    run = run_of(FIXTURES / "llm_answers.jsonl")
    assert (run.format, run.model, run.name) == ("prediction-records", "demo-7b", "llm_answers")
    first, refusal, by_id = run.predictions
    assert (first.ref_kind, first.ref, first.text, first.raw) == (
        "question", "示例市最近哪个新区开始收割晚稻？", "东湖新区", "答案是东湖新区。")
    assert first.meta == {"latency_ms": 812} and first.line == 1
    assert refusal.text == "对不起，我无法确定。" and refusal.raw is None
    assert (by_id.ref_kind, by_id.ref, by_id.text) == ("id", "q:0000000000000000", "42")
    assert by_id.meta == {"question": "示例是什么意思"}, "question kept for matching by text"
    assert by_id.raw == '{"choices": ["一个例子"]}'


def test_records_aliases_and_varying_models(tmp_path: Path) -> None:
    path = write(tmp_path, "out.json", [
        {"query_id": "A", "pred": "x", "model": "m1"},
        {"question_id": 5, "answer": None, "model": "m2"},
    ])
    run = run_of(path)
    assert [(p.ref, p.text, p.line) for p in run.predictions] == [("A", "x", 1), ("5", "", 2)]
    assert run.model is None and run.meta["models"] == ["m1", "m2"]


def test_records_missing_id_and_question_names_line(tmp_path: Path) -> None:
    err = error_of(write(tmp_path, "p.jsonl", '{"id": "a", "prediction": "x"}\n{"prediction": "y"}\n'))
    assert err.record == "line 2" and "no id" in err.message and "no question" in err.message


def test_records_duplicate_ids_name_both_lines(tmp_path: Path) -> None:
    err = error_of(write(tmp_path, "p.jsonl", '{"id": "a", "prediction": "x"}\n{"id": "b", "prediction": "x"}\n{"id": "a", "prediction": "z"}\n'))
    assert str(err) == f"{tmp_path / 'p.jsonl'}, line 3: duplicate id 'a' (first at line 1)"


def test_records_missing_prediction_field(tmp_path: Path) -> None:
    err = error_of(write(tmp_path, "p.jsonl", '{"id": "a", "prediction": "x"}\n{"id": "b", "text": "y"}\n'))
    assert err.record == "line 2" and "no prediction" in err.message


def test_records_dict_prediction(tmp_path: Path) -> None:
    err = error_of(write(tmp_path, "p.jsonl", '{"id": "a", "response": {"text": "x"}}\n'))
    assert err.record == "line 1" and err.message == "response is an object, expected text"


def test_records_non_object_line(tmp_path: Path) -> None:
    err = error_of(write(tmp_path, "p.jsonl", '{"id": "a", "prediction": "x"}\n[1, 2]\n'))
    assert err.record == "line 2" and "record is a list" in err.message


def test_repeated_question_refs_are_counted(tmp_path: Path) -> None:
    run = run_of(write(tmp_path, "p.jsonl", '{"question": "谁？", "response": "甲"}\n{"question": "谁？", "response": "乙"}\n'))
    assert run.meta == {"repeated_questions": 1}


@pytest.mark.parametrize("values", [
    ["a", "b", "c"], ["a", 1, 2], ["a", 1, 2, 3], [1, 2], [["x", None], ["y", 0.5], 3, 4], [[None, None], 1],
    ["a", {"k": 1}], [], ["a", ["x", None], 1, 2], [None, None, "a"], [["x", "y"], ["x", None]],
])
def test_an_answer_map_is_sniffed_as_counted_value_by_value(values: list[Any]) -> None:
    """The map sniff counts its strings at C speed first; what it decides is what counting every
    value (a string, or an answer pair) decides."""
    from qa_inspect.core.formats import prediction_map
    from qa_inspect.core.formats.textio import Document

    value = {f"q{k}": v for k, v in enumerate(values)}
    strings = sum(isinstance(v, str) or prediction_map._is_pair(v) for v in value.values())
    expected = bool(value) and strings >= 1 and strings * 2 >= len(value)
    assert prediction_map.sniff(Document(Path("p.json"), "utf-8", value=value)) is expected
