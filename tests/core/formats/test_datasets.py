"""Dataset readers on small fixtures, and their bad-input cases."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from qa_inspect.core.errors import FormatError
from qa_inspect.core.formats import Skip, read_source
from qa_inspect.core.formats.cdqa import split_qa
from qa_inspect.core.keys import question_key
from qa_inspect.core.model import Dataset

from tests.helpers import FORMAT_FIXTURES as FIXTURES
from tests.helpers import error_of, write_json


def dataset(path: Path, **hints: Any) -> Dataset:
    result = read_source(path, as_kind="dataset", hints=hints or None)
    assert isinstance(result, Dataset), result
    return result


# ------------------------------------------------------------------------------------------ SQuAD


def test_cmrc_excerpt() -> None:
    ds = dataset(FIXTURES / "cmrc2018_dev_excerpt.json")
    assert (ds.format, ds.family, ds.name, ds.encoding) == ("squad", "cmrc", "cmrc2018_dev_excerpt", "utf-8")
    assert [i.key for i in ds.items][:3] == ["DEV_0_QUERY_0", "DEV_0_QUERY_1", "DEV_0_QUERY_2"]
    assert all(len(i.golds) == 3 and i.split == "dev" for i in ds.items)
    assert ds.meta["spans"] == {"given": 26, "recovered": 3, "none": 1}
    first = ds.items[0]
    assert (first.context_id, first.title, first.line) == ("DEV_0", "战国无双3", 1)
    assert [g.text for g in first.golds] == ["光荣和ω-force"] * 3, "duplicated golds kept as given"
    g = first.golds[0]
    assert first.context is not None and first.context[g.span_start : g.span_end] == g.text
    by_key = {i.key: i for i in ds.items}
    number = by_key["DEV_10_QUERY_2"].golds[2]
    assert (number.text, number.answer_start, number.span_start) == ("39764.0", -1, None)
    off = by_key["DEV_101_QUERY_3"].golds[0]
    assert (off.answer_start, off.span_start, off.span_end) == (175, 174, 179)
    assert by_key["DEV_101_QUERY_3"].context[174:179] == "灭司马家族"  # type: ignore[index]


def test_squad_v2() -> None:
    ds = dataset(FIXTURES / "squad_v2_small.json")
    assert (ds.family, ds.meta["version"]) == ("squad", "v2.0")
    founded, impossible, hall = ds.items
    assert founded.golds[1].answer_start == 24 and founded.golds[1].span_start == 25
    assert impossible.is_impossible and impossible.golds == []
    assert impossible.meta == {"plausible_answers": ["river traders"]}
    assert hall.golds[0].span_start == 78, "recovered to the nearest occurrence"
    assert founded.context_id is None and founded.title == "Example_Town"
    assert ds.meta["spans"] == {"given": 1, "recovered": 2, "none": 0}


def test_squad_nearest_occurrence_and_whitespace_ids(tmp_path: Path) -> None:
    context = "甲乙甲乙甲乙"
    path = write_json(tmp_path, "d.json", {"data": [{"paragraphs": [{"context": context, "qas": [
        {"id": "  X_1 ", "question": "q1", "answers": [{"text": "甲", "answer_start": 3}]},
        {"id": 12, "question": "q2", "answers": [{"text": 39764, "answer_start": -1}]},
    ]}]}]})
    ds = dataset(path, name="tiny", split="challenge")
    assert ds.name == "tiny"
    assert [i.key for i in ds.items] == ["X_1", "12"]
    assert ds.items[0].golds[0].span_start == 2 and ds.items[0].split == "challenge"
    assert ds.items[1].golds[0].text == "39764" and ds.items[1].golds[0].span_start is None


@pytest.mark.parametrize(
    ("qa", "message"),
    [
        ({"is_impossible": "false"}, "is_impossible is a string, expected true or false"),
        ({"is_impossible": 2}, "is_impossible is a number, expected true or false"),
        ({"answers": [{"text": "x", "answer_start": 10**30}]}, "answer_start is out of range (1e+30)"),
    ],
)
def test_squad_fields_python_would_misread(tmp_path: Path, qa: dict[str, Any], message: str) -> None:
    """"false" is true to Python, and no context has an answer starting past 2**63 (SQLite's limit)."""
    record = {"id": "A1", "question": "q?", "answers": [], **qa}
    data = {"data": [{"title": "t", "paragraphs": [{"context": "x", "qas": [record]}]}]}
    err = error_of(write_json(tmp_path, "d.json", data))
    assert (err.record, err.message) == ("data[0].paragraphs[0].qas[0] (id A1)", message)


def test_is_impossible_as_a_number_flag(tmp_path: Path) -> None:
    path = tmp_path / "d.jsonl"
    path.write_text('{"id": "a", "question": "q?", "answers": [], "is_impossible": 1}\n', encoding="utf-8")
    assert dataset(path).items[0].is_impossible


def test_squad_duplicate_id_names_both(tmp_path: Path) -> None:
    qa = {"id": "DEV_1", "question": "q", "answers": []}
    path = write_json(tmp_path, "d.json", {"data": [{"paragraphs": [{"context": "c", "qas": [qa, dict(qa)]}]}]})
    err = error_of(path)
    assert "duplicate id 'DEV_1'" in err.message and "data[0].paragraphs[0].qas[0]" in err.message
    assert err.record == "data[0].paragraphs[0].qas[1] (id DEV_1)"


@pytest.mark.parametrize(
    ("qa", "message"),
    [
        ({"id": "A", "answers": []}, "no question"),
        ({"id": "A", "question": "q", "answers": [{"text": ["x"], "answer_start": 0}]}, "answer is a list"),
        ({"id": "A", "question": "q", "answers": [{"text": "x", "answer_start": "0"}]}, "answer_start is a string"),
        ({"id": "A", "question": "q", "answers": "x"}, "answers is a string"),
        ({"question": "", "answers": []}, "empty question and no id"),
    ],
)
def test_squad_bad_records(tmp_path: Path, qa: dict[str, Any], message: str) -> None:
    path = write_json(tmp_path, "d.json", {"data": [{"paragraphs": [{"context": "c", "qas": [qa]}]}]})
    err = error_of(path)
    assert message in err.message and str(err.record).startswith("data[0].paragraphs[0].qas[0]")


def test_squad_empty_question_with_id_is_kept(tmp_path: Path) -> None:
    path = write_json(tmp_path, "d.json", {"data": [{"paragraphs": [{"context": "c", "qas": [
        {"id": "TRIAL_1", "question": "", "answers": [{"text": "c", "answer_start": 0}]}]}]}]})
    ds = dataset(path)
    assert ds.items[0].question == "" and ds.meta["empty_questions"] == 1


# ---------------------------------------------------------------------------------- CMRC original


def test_cmrc_original() -> None:
    ds = dataset(FIXTURES / "cmrc_original_small.json")
    assert (ds.format, ds.family) == ("cmrc-original", "cmrc")
    built, books, extended, missing = ds.items
    assert built.key == "TEST_0_QUERY_0" and built.split == "test"
    assert [g.text for g in built.golds] == ["1998年", "1998年", "1998"]
    assert [g.text for g in books.golds] == ["1.50", "1.50万册", "1.50万"], "numbers as written"
    assert extended.golds[0].text == "39764.0" and extended.golds[0].span_start is None
    g = built.golds[0]
    assert g.answer_start is None and built.context is not None
    assert built.context[g.span_start : g.span_end] == "1998年" and built.context.startswith("示例馆")
    assert missing.golds[0].span_start is None and missing.context_id == "TEST_1"
    assert ds.meta["spans"] == {"given": 0, "recovered": 8, "none": 2}


def test_cmrc_original_bad_answer(tmp_path: Path) -> None:
    path = write_json(tmp_path, "o.json", [{"context_id": "C", "context_text": "t", "qas": [
        {"query_id": "Q1", "query_text": "q", "answers": [None]}]}])
    err = error_of(path)
    assert err.record == "[0].qas[0] (query_id Q1)" and "answer is null" in err.message


# ------------------------------------------------------------------------------------------- CDQA


def test_cdqa_like() -> None:
    ds = dataset(FIXTURES / "cdqa_like.json")
    assert (ds.format, ds.family) == ("cdqa-v1", "cdqa")
    plain, renamed, rewritten, repeat, blank = ds.items
    assert plain.question == "示例市最近哪个新区开始收割晚稻？" and plain.key == question_key(plain.question)
    assert (plain.tag, plain.answer_type) == ("fast-changing", "location")
    assert plain.meta == {"tag_label": "快速变化", "answer_type_label": "地名", "acceptance": "y可以接受",
                          "evidence_url": "https://example.com/a"}
    assert [(g.text, g.superseded) for g in renamed.golds] == [("13届", False), ("12届", True)]
    assert renamed.question == "示例大学最近一次运动会是第几届？", "full-width colons"
    assert rewritten.question == "示例乐队现在的主唱是谁？"
    assert rewritten.meta["original_question"] == "示例乐队的主唱是谁？"
    assert rewritten.key == question_key("示例乐队的主唱是谁？"), "key from the original question"
    assert repeat.key == rewritten.key + "#2" and repeat.answer_type == "work"
    assert [(g.text, g.superseded) for g in blank.golds] == [("一个例子", False), ("", True)]
    assert ds.meta == {"superseded_answers": 3, "repeated_questions": 1}
    assert [i.line for i in ds.items] == [1, 2, 3, 4, 5]


@pytest.mark.parametrize(
    ("qa", "expected"),
    [
        ("\ufeff问题: 谁？\n答案: 某人", ("谁？", "某人")),
        ("问题：谁？ \r\n答案：  某人\n", ("谁？", "某人")),
        ("  \ufeff问题 : 谁？\n 答案: 多行\n答案", ("谁？", "多行\n答案")),
        ("问题: 谁？ 答案: 某人", ("谁？", "某人")),
        ("谁？\n某人", None),
    ],
)
def test_split_qa(qa: str, expected: tuple[str, str] | None) -> None:
    assert split_qa(qa) == expected


def test_cdqa_bad_qa_names_record(tmp_path: Path) -> None:
    good = {"qa": "问题: 谁？\n答案: 某人", "annotation": {}}
    path = write_json(tmp_path, "c.json", [good, good | {"qa": "谁？"}])
    err = error_of(path)
    assert err.record == 2 and "问题" in err.message and str(err).startswith(f"{path}, record 2: ")


# ------------------------------------------------------------------------------------------ JSONL


def test_jsonl_dataset() -> None:
    ds = dataset(FIXTURES / "dataset.jsonl")
    assert (ds.format, ds.family) == ("jsonl-dataset", "squad")
    trial, writer, seven, writer2 = ds.items
    assert trial.key == "TRIAL_1_QUERY_0" and trial.split == "trial" and trial.tag == "static"
    assert [g.text for g in trial.golds] == ["1998年", "1998"] and trial.golds[0].span_start == 5
    assert trial.meta == {"source": "hand"}
    assert writer.key == question_key("Who wrote Example?") and writer.split == "challenge"
    assert writer2.key == writer.key + "#2" and ds.meta["repeated_questions"] == 1
    assert seven.key == "7" and seven.line == 4 and seven.answer_type == "quantity"
    assert [(g.text, g.answer_start, g.span_start) for g in seven.golds] == [("seven", 0, 0), ("7", -1, 9)]


def test_jsonl_dataset_missing_question_names_line(tmp_path: Path) -> None:
    path = tmp_path / "d.jsonl"
    path.write_text('{"id": "a", "question": "q", "answers": ["x"]}\n{"id": "b", "answers": ["y"]}\n')
    err = error_of(path)
    assert err.record == "line 2" and err.message == "no question (id b)"


def test_jsonl_dataset_duplicate_ids_name_both_lines(tmp_path: Path) -> None:
    path = tmp_path / "d.jsonl"
    path.write_text('{"id": "a", "question": "q", "answers": []}\n\n{"id": "a", "question": "r", "answers": []}\n')
    err = error_of(path)
    assert err.record == "line 3" and err.message == "duplicate id 'a' (first at line 1)"


def test_json_list_dataset_uses_record_numbers(tmp_path: Path) -> None:
    path = write_json(tmp_path, "d.json", [{"id": "a", "question": "q", "answers": []}, {"answers": []}])
    err = error_of(path)
    assert err.record == 2 and str(err).endswith("record 2: no question")


def test_hf_datasets_export(tmp_path: Path) -> None:
    path = write_json(tmp_path, "validation.json", {"version": "0.1", "data": [
        {"id": "x1", "title": "T", "context": "abc", "question": "q?", "answers": {"text": ["b"], "answer_start": [1]}}]})
    ds = dataset(path)
    assert ds.format == "jsonl-dataset" and ds.items[0].golds[0].span_start == 1 and ds.items[0].split == "dev"


# ------------------------------------------------------------------------------------ wrong shapes


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ([1, 2, 3], "not QA data: a JSON list of numbers"),
        ({"version": "1.1", "articles": [{"x": 1}]}, "settings or metadata"),
        ({"data": []}, "no questions (empty 'data' list)"),
        ([], "not QA data: an empty JSON list"),
        ({}, "not QA data: an empty JSON object"),
        ("just a string", "not QA data: a single JSON string"),
        ([{"foo": 1}], "not QA data: a JSON list of objects with keys 'foo'"),
    ],
)
def test_wrong_shape_is_skipped_with_reason(tmp_path: Path, value: Any, reason: str) -> None:
    result = read_source(write_json(tmp_path, "x.json", value))
    assert isinstance(result, Skip) and result.reason.startswith(reason)


def test_as_kind_mismatch_is_a_skip() -> None:
    result = read_source(FIXTURES / "cdqa_like.json", as_kind="run")
    assert isinstance(result, Skip) and result.reason == "a dataset (cdqa-v1), not a run"


def test_forced_format(tmp_path: Path) -> None:
    with pytest.raises(FormatError, match="not squad data: a JSON list of objects"):
        read_source(FIXTURES / "cdqa_like.json", hints={"format": "squad"})
    with pytest.raises(FormatError, match="unknown format 'nope'"):
        read_source(FIXTURES / "cdqa_like.json", hints={"format": "nope"})
    assert isinstance(read_source(FIXTURES / "cdqa_like.json", hints={"format": "cdqa-v1"}), Dataset)


def test_squad_records_of_the_common_shape_read_as_the_checked_path_reads_them(tmp_path: Path) -> None:
    """Plain records take a shortcut; `is_impossible: 0` (a yes/no written as a number) sends the
    same records down the checked path, which must give the same items and span counts."""
    src = (FIXTURES / "cmrc2018_dev_excerpt.json").read_text(encoding="utf-8")
    checked = json.loads(src)
    for article in checked["data"]:
        for para in article["paragraphs"]:
            para["qas"] = [{**qa, "is_impossible": 0} for qa in para["qas"]]
    plain, slow = dataset(FIXTURES / "cmrc2018_dev_excerpt.json"), dataset(write_json(tmp_path, "x.json", checked))
    assert plain.items == slow.items and plain.meta == slow.meta
    assert [(g.span_start, g.answer_start) for g in plain.items[0].golds] == [(g.span_start, g.answer_start)
                                                                           for g in slow.items[0].golds]
