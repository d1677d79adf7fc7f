"""Parquet, Arrow and CSV tables: how they are opened, and which are QA data.

Fixtures are written here with polars (no binary files in the repository).
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from qa_inspect.core.formats import Skip, read_source, side_owners
from qa_inspect.core.formats.textio import read_document
from qa_inspect.core.keys import question_key
from qa_inspect.core.load import load_runs
from qa_inspect.core.load.discover import walk
from qa_inspect.core.model import Dataset, Run

from tests.helpers import error_of

# -------------------------------------------------------------------------------- opening tables


def write_table(frame: pl.DataFrame, path: Path) -> Path:
    """`frame` as `path` says: `.parquet`, `.arrow` (IPC file), `.stream.arrow` (IPC stream), `.csv`."""
    if path.name.endswith(".stream.arrow"):
        frame.write_ipc_stream(path)
    elif path.suffix == ".arrow":
        frame.write_ipc(path)
    elif path.suffix == ".csv":
        frame.write_csv(path)
    else:
        frame.write_parquet(path)
    return path


METRICS = pl.DataFrame({"step": [1, 2], "loss": [0.5, 0.25]})


@pytest.mark.parametrize(
    ("name", "label"),
    [("m.parquet", "Parquet table"), ("m.arrow", "Arrow table"), ("m.stream.arrow", "Arrow stream"),
     ("m.csv", "CSV table")],
)
def test_non_qa_table_is_skipped_with_its_columns(tmp_path: Path, name: str, label: str) -> None:
    path = write_table(METRICS, tmp_path / name)
    assert read_source(path) == Skip(path, f"not QA data: a {label} with columns 'step', 'loss'")


@pytest.mark.parametrize("name", ["t.parquet", "t.arrow", "t.stream.arrow"])
def test_magic_bytes_win_over_the_suffix(tmp_path: Path, name: str) -> None:
    path = write_table(METRICS, tmp_path / name)
    renamed = path.rename(tmp_path / "disguised.json")
    table = read_document(renamed).table
    assert table is not None and table.columns == ["step", "loss"]
    assert table.rows() == [(1, {"step": 1, "loss": 0.5}), (2, {"step": 2, "loss": 0.25})]


@pytest.mark.parametrize(("name", "label"), [("t.parquet", "Parquet table"), ("t.arrow", "Arrow table"),
                                             ("t.stream.arrow", "Arrow stream")])
def test_truncated_table_is_one_error_line(tmp_path: Path, name: str, label: str) -> None:
    path = write_table(METRICS, tmp_path / name)
    path.write_bytes(path.read_bytes()[:40])
    err = error_of(path)
    assert err.message.startswith(f"not a readable {label} (truncated or still being written?)")


def test_csv_that_is_not_text_is_skipped(tmp_path: Path) -> None:
    path = tmp_path / "log.csv"
    path.write_bytes(b"step,loss\n\xff\xfe\x80,1\n")
    result = read_source(path)
    assert result == Skip(path, "not QA data: a CSV file that cannot be read as a table"
                                " (not UTF-8 or GB18030 text (byte 0xff at line 2, column 1 is not UTF-8))")


def test_empty_csv_is_skipped(tmp_path: Path) -> None:
    path = tmp_path / "empty.csv"
    path.write_text("", encoding="utf-8")
    assert isinstance(read_source(path), Skip)


def test_csv_delimiter_blank_header_and_short_rows(tmp_path: Path) -> None:
    path = tmp_path / "t.csv"
    path.write_text(';id;text\n0;a;"two\nlines"\n\n1;b\n', encoding="utf-8")
    table = read_document(path).table
    assert table is not None and table.columns == ["id", "text"]
    assert table.rows() == [(2, {"id": "a", "text": "two\nlines"}), (5, {"id": "b", "text": None})]


def test_csv_joined_with_cat_reads_no_header_as_a_record(tmp_path: Path) -> None:
    """Two submissions joined with `cat`: the second header is skipped and said, not an item 'Id'."""
    path = tmp_path / "joined.csv"
    path.write_text("Id,Predicted\nQ1,fox\nId,Predicted\nQ2,dog\n", encoding="utf-8")
    run = run_of(path)
    assert [(p.ref, p.text, p.line) for p in run.predictions] == [("Q1", "fox", 2), ("Q2", "dog", 4)]
    table = read_document(path).table
    assert table is not None and table.notes == [
        "line 3: the header row repeated (files joined?) was skipped, not read as a record"]


def test_dates_and_decimals_become_text(tmp_path: Path) -> None:
    from datetime import date
    from decimal import Decimal

    frame = pl.DataFrame({"day": [date(2024, 5, 1)], "cost": [Decimal("1.50")], "tags": [["a"]]})
    table = read_document(write_table(frame, tmp_path / "t.parquet")).table
    assert table is not None and table.rows() == [(1, {"day": "2024-05-01", "cost": "1.50", "tags": ["a"]})]


# --------------------------------------------------------------------------- Hugging Face datasets

CONTEXT = "Example Town was founded in 1820 by river traders. Its hall dates from 1901."
SQUAD_V2 = pl.DataFrame(
    {
        "id": ["5733be284776f41900661182", "5733be284776f41900661183", "5733be284776f41900661184"],
        "title": ["Example_Town"] * 3,
        "context": [CONTEXT] * 3,
        "question": ["When was Example Town founded?", "Who closed the hall?", "When does the hall date from?"],
        "answers": [
            {"text": ["1820", "in 1820"], "answer_start": [28, 25]},
            {"text": [], "answer_start": []},  # SQuAD v2 on the hub: unanswerable, no is_impossible column
            {"text": ["1901"], "answer_start": [0]},  # start off: recovered
        ],
    },
    schema_overrides={"answers": pl.Struct({"text": pl.List(pl.String), "answer_start": pl.List(pl.Int32)})},
)


def dataset_of(path: Path, **hints: Any) -> Dataset:
    result = read_source(path, hints=hints or None)
    assert isinstance(result, Dataset), result
    return result


def test_hub_squad_v2_parquet(tmp_path: Path) -> None:
    folder = tmp_path / "squad_v2"
    folder.mkdir()
    ds = dataset_of(write_table(SQUAD_V2, folder / "validation-00000-of-00001.parquet"))
    assert (ds.format, ds.family, ds.name, ds.encoding) == ("hf-table", "squad", "squad_v2/validation", "utf-8")
    founded, closed, hall = ds.items
    assert founded.key == "5733be284776f41900661182" and founded.title == "Example_Town"
    assert [(g.text, g.answer_start, g.span_start) for g in founded.golds] == [("1820", 28, 28), ("in 1820", 25, 25)]
    assert closed.golds == [] and closed.is_impossible and not founded.is_impossible
    assert (hall.golds[0].span_start, hall.golds[0].span_end) == (71, 75)
    assert [i.split for i in ds.items] == ["dev"] * 3, "split from the file name"
    assert [i.line for i in ds.items] == [1, 2, 3] and founded.meta == {}
    assert ds.meta == {"spans": {"given": 2, "recovered": 1, "none": 0}, "table": "Parquet table"}


def test_answers_as_a_list_of_structs_and_is_impossible_column(tmp_path: Path) -> None:
    frame = pl.DataFrame({
        "id": ["a", "b"],
        "question": ["Who?", "Why?"],
        "context": ["Ann did.", "No reason."],
        "answers": [[{"text": "Ann", "answer_start": 0}], []],
        "is_impossible": [False, False],
        "source": ["web", "web"],
    })
    ds = dataset_of(write_table(frame, tmp_path / "qa.parquet"), split="test")
    assert ds.name == "qa" and [g.text for g in ds.items[0].golds] == ["Ann"]
    assert not ds.items[1].is_impossible, "the table's own is_impossible wins"
    assert ds.items[0].meta == {"source": "web"} and ds.items[0].split == "test"


def test_question_answer_table_without_ids(tmp_path: Path) -> None:
    frame = pl.DataFrame({"question": ["What is the powerhouse of the cell?"], "answer": ["mitochondria"]})
    ds = dataset_of(write_table(frame, tmp_path / "biology.arrow"))
    assert ds.items[0].key == question_key("What is the powerhouse of the cell?")
    assert [g.text for g in ds.items[0].golds] == ["mitochondria"] and ds.meta["table"] == "Arrow table"


def test_bad_row_names_the_row(tmp_path: Path) -> None:
    frame = pl.DataFrame({"id": ["a", "a"], "question": ["Who?", "Why?"], "answers": [["x"], ["y"]]})
    err = error_of(write_table(frame, tmp_path / "dup.parquet"))
    assert err.record == "row 2" and err.message == "duplicate id 'a' (first at row 1)"


def save_to_disk(folder: Path, frame: pl.DataFrame, split: str | None) -> Path:
    """What `Dataset.save_to_disk` writes: an Arrow stream and two JSON side files."""
    folder.mkdir(parents=True)
    data = write_table(frame, folder / "data-00000-of-00001.stream.arrow").rename(folder / "data-00000-of-00001.arrow")
    (folder / "dataset_info.json").write_text(
        json.dumps({"builder_name": "squad_v2", "citation": "", "description": "", "features": {}, "splits": {}}),
        encoding="utf-8")
    state = {"_data_files": [{"filename": data.name}], "_fingerprint": "0f3e", "_format_columns": None,
             "_format_kwargs": {}, "_format_type": None, "_output_all_columns": False, "_split": split}
    (folder / "state.json").write_text(json.dumps(state), encoding="utf-8")
    return data


def test_save_to_disk_folder(tmp_path: Path) -> None:
    data = save_to_disk(tmp_path / "runs" / "squad_v2_dev", SQUAD_V2, "validation")
    ds = dataset_of(data)
    assert (ds.name, ds.meta["table"]) == ("squad_v2_dev", "Arrow stream")
    assert {i.split for i in ds.items} == {"dev"}, "split from state.json"
    walked = walk(tmp_path / "runs")
    assert walked.files == sorted(data.parent.iterdir())
    for side in ("dataset_info.json", "state.json"):
        assert read_source(data.parent / side) == Skip(
            data.parent / side, f"Hugging Face save_to_disk metadata ({side}) of data-00000-of-00001.arrow")
    assert side_owners(data.parent / "state.json") == [data]


def test_save_to_disk_dataset_dict_through_the_loader(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    save_to_disk(runs / "squad_v2" / "validation", SQUAD_V2, None)
    save_to_disk(runs / "squad_v2" / "train", SQUAD_V2.head(1), None)
    (runs / "squad_v2" / "dataset_dict.json").write_text('{"splits": ["train", "validation"]}', encoding="utf-8")
    summary = load_runs(runs, tmp_path / "qa.db")
    assert not summary.errors, summary.errors
    assert [(d.name, d.format, d.items) for d in summary.datasets] == [
        ("squad_v2/train", "hf-table", 1), ("squad_v2/validation", "hf-table", 3)]
    reasons = {s["path"]: s["reason"] for s in summary.skipped}
    assert reasons["squad_v2/dataset_dict.json"].startswith("Hugging Face save_to_disk DatasetDict index")
    assert reasons["squad_v2/train/state.json"] == "Hugging Face save_to_disk metadata (state.json) of data-00000-of-00001.arrow"
    assert len(reasons) == 5


def test_shards_are_one_dataset(tmp_path: Path) -> None:
    first = write_table(SQUAD_V2.head(2), tmp_path / "train-00000-of-00002.parquet")
    second = write_table(SQUAD_V2.tail(1), tmp_path / "train-00001-of-00002.parquet")
    ds = dataset_of(first)
    assert ds.name == f"{tmp_path.name}/train" and len(ds.items) == 3 and ds.meta["shards"] == 2
    assert read_source(second) == Skip(second, "shard 2 of 2 of train-00000-of-00002.parquet, read with it")
    assert side_owners(second) == [first]
    second.unlink()
    err = error_of(first)
    assert err.message == "shard train-00001-of-00002.parquet is missing (2 shards expected)"


# ------------------------------------------------------------------------------ prediction tables


def run_of(path: Path, **hints: Any) -> Run:
    result = read_source(path, hints=hints or None)
    assert isinstance(result, Run), result
    return result


def test_evaluate_squad_v2_predictions_with_no_answer_probability(tmp_path: Path) -> None:
    frame = pl.DataFrame({
        "id": ["5733be284776f41900661182", "5733be284776f41900661183"],
        "prediction_text": ["1820", ""],
        "no_answer_probability": [0.1, 0.9],
    })
    run = run_of(write_table(frame, tmp_path / "bert_squad_v2.parquet"), model="bert-base")
    assert (run.format, run.name, run.model, run.encoding) == ("prediction-table", "bert_squad_v2", "bert-base", "utf-8")
    assert [(p.ref, p.ref_kind, p.text, p.line) for p in run.predictions] == [
        ("5733be284776f41900661182", "id", "1820", 1), ("5733be284776f41900661183", "id", "", 2)]
    assert [p.meta for p in run.predictions] == [{"null_odds": 0.1}, {"null_odds": 0.9}]
    assert run.meta == {"table": "Parquet table",
                        "null_odds": {"column": "no_answer_probability", "without_null_odds": 0}}


def test_csv_predictions_with_aliases_and_extra_columns(tmp_path: Path) -> None:
    path = tmp_path / "preds.csv"
    path.write_text("question_id,prediction,model,latency_ms\n7,42,m1,812\nq2,,m1,\n", encoding="utf-8")
    run = run_of(path)
    assert [(p.ref, p.text, p.line) for p in run.predictions] == [("7", "42", 2), ("q2", "", 3)]
    assert run.model == "m1" and run.predictions[0].meta == {"latency_ms": "812"}
    assert run.meta == {"table": "CSV table"}


def test_gb18030_csv(tmp_path: Path) -> None:
    path = tmp_path / "submission.csv"
    path.write_bytes("id,prediction_text\nTEST_0_QUERY_0,一九九八年\n".encode("gb18030"))
    run = run_of(path)
    assert run.encoding == "gb18030" and run.predictions[0].text == "一九九八年"


def test_question_refs_when_there_is_no_id_column(tmp_path: Path) -> None:
    path = tmp_path / "llm.csv"
    path.write_text("question,response\n谁？,甲\n谁？,乙\n", encoding="utf-8")
    run = run_of(path)
    assert [(p.ref_kind, p.ref) for p in run.predictions] == [("question", "谁？")] * 2
    assert run.meta["repeated_questions"] == 1


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("step,loss\n1,0.5\n", "not QA data: a CSV table with columns 'step', 'loss'"),
        ("id,question,answer\nq1,Who?,Ann\n",
         "a dataset table (question and gold columns, no prediction column): CSV datasets are not read, save it as JSONL or Parquet"),
        ("dataset,run,key,question,prediction\nd,r,q1,Who?,Ann\n",
         "a qa-inspect export of an item list, not a run (load the run it was exported from)"),
        ("id,prediction_text\n", "no predictions (a CSV table without rows)"),
    ],
    ids=["metrics", "dataset", "export", "header-only"],
)
def test_csv_that_is_not_a_prediction_table_is_skipped(tmp_path: Path, text: str, reason: str) -> None:
    path = tmp_path / "t.csv"
    path.write_text(text, encoding="utf-8")
    assert read_source(path) == Skip(path, reason)


def test_dataset_table_without_rows_is_skipped(tmp_path: Path) -> None:
    path = write_table(SQUAD_V2.head(0), tmp_path / "empty.parquet")
    assert read_source(path) == Skip(path, "no questions (a Parquet table without rows)")


def test_prediction_table_errors_name_the_row(tmp_path: Path) -> None:
    path = tmp_path / "p.csv"
    path.write_text("id,prediction_text,no_answer_probability\na,x,0.1\nb,y,high\n", encoding="utf-8")
    err = error_of(path)
    assert (err.record, err.message) == ("line 3", "no_answer_probability is 'high', expected a number")
    path.write_text("id,prediction_text\na,x\n\"a\",z\n", encoding="utf-8")
    assert str(error_of(path)) == f"{path}, line 3: duplicate id 'a' (first at line 2)"
    frame = pl.DataFrame({"id": ["a"], "prediction": [["x"]]})
    err = error_of(write_table(frame, tmp_path / "p.parquet"))
    assert (err.record, err.message) == ("row 1", "prediction is a list, expected text")


def test_parquet_dataset_and_csv_predictions_load_link_and_score(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    write_table(SQUAD_V2, runs / "squad_v2_dev.parquet")
    (runs / "bert.csv").write_text(
        "id,prediction_text,no_answer_probability\n"
        "5733be284776f41900661182,1820,0.1\n5733be284776f41900661183,,0.8\n5733be284776f41900661184,1901,0.2\n",
        encoding="utf-8")
    summary = load_runs(runs, tmp_path / "qa.db")
    assert not summary.errors, summary.errors
    assert [(d.name, d.format, d.items) for d in summary.datasets] == [("squad_v2_dev", "hf-table", 3)]
    run = summary.runs[0]
    assert (run.name, run.format, run.dataset, run.predictions, run.unmatched) == (
        "bert", "prediction-table", "squad_v2_dev", 3, 0)
    with sqlite3.connect(tmp_path / "qa.db") as conn:
        scored = conn.execute(
            "SELECT i.key, p.em, i.is_impossible FROM predictions p JOIN items i ON i.id = p.item_id ORDER BY i.key"
        ).fetchall()
    # How an empty answer to an unanswerable item scores is the scorer's business (core.metrics).
    assert [(key[-1], em, impossible) for key, em, impossible in scored if not impossible] == [("2", 1, 0), ("4", 1, 0)]
    assert len(scored) == 3


def test_a_changed_later_shard_reloads_the_dataset(tmp_path: Path) -> None:
    runs = tmp_path / "runs" / "squad"
    runs.mkdir(parents=True)
    write_table(SQUAD_V2.head(2), runs / "validation-00000-of-00002.parquet")
    second = write_table(SQUAD_V2.tail(1), runs / "validation-00001-of-00002.parquet")
    first_load = load_runs(runs.parent, tmp_path / "qa.db")
    assert [(d.name, d.items, d.status) for d in first_load.datasets] == [("squad/validation", 3, "loaded")]
    write_table(pl.concat([SQUAD_V2.tail(1), SQUAD_V2.tail(1).with_columns(id=pl.lit("extra"))]), second)
    again = load_runs(runs.parent, tmp_path / "qa.db")
    assert [(d.name, d.items, d.status) for d in again.datasets] == [("squad/validation", 4, "loaded")]
