"""Decoding and parsing: every bad input ends as a FormatError naming the file (and line)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from qa_inspect.core.errors import FormatError
from qa_inspect.core.formats import Skip, read_source
from qa_inspect.core.formats.textio import (
    JSONFloat,
    duplicate_keys,
    loads,
    number_text,
    plain,
    read_document,
    read_text,
    shown,
    type_name,
)

from tests.paths import FIXTURES

RECORDS = '{"id": "a", "prediction": "甲"}\n{"id": "b", "prediction": "乙"}\n'


def write(tmp_path: Path, name: str, data: bytes | str) -> Path:
    path = tmp_path / name
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    return path


def error_of(path: Path) -> FormatError:
    with pytest.raises(FormatError) as info:
        read_source(path)
    assert str(path) in str(info.value), "every message names the file"
    return info.value


def test_bom_is_stripped_and_encoding_is_utf8(tmp_path: Path) -> None:
    path = write(tmp_path, "p.json", b"\xef\xbb\xbf" + '{"DEV_1": "答"}'.encode())
    run = read_source(path)
    assert not isinstance(run, Skip)
    assert run.encoding == "utf-8" and run.predictions[0].ref == "DEV_1"


def test_gb18030_is_decoded_and_reported(tmp_path: Path) -> None:
    path = write(tmp_path, "p.jsonl", RECORDS.encode("gb18030"))
    run = read_source(path)
    assert not isinstance(run, Skip)
    assert run.encoding == "gb18030"
    assert [p.text for p in run.predictions] == ["甲", "乙"]


def test_bytes_neither_utf8_nor_gb18030(tmp_path: Path) -> None:
    err = error_of(write(tmp_path, "p.json", b'{"a": "\xff\xfe\x80"}'))
    assert err.message == "not UTF-8 or GB18030 text (byte 0xff at line 1, column 8 is not UTF-8)"


def test_utf16_is_refused_not_misread(tmp_path: Path) -> None:
    err = error_of(write(tmp_path, "p.json", '{"a": "b"}'.encode("utf-16-le")))
    assert "not UTF-8 or GB18030" in err.message


@pytest.mark.parametrize("data", [b"", b"  \n\n"])
def test_empty_file(tmp_path: Path, data: bytes) -> None:
    assert error_of(write(tmp_path, "p.json", data)).message == "empty file"


def test_unreadable_directory_in_place_of_file(tmp_path: Path) -> None:
    path = tmp_path / "eval_predictions.json"
    path.mkdir()
    assert "cannot read" in error_of(path).message


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root reads chmod-000 files anyway")
def test_unreadable_permission(tmp_path: Path) -> None:
    path = write(tmp_path, "p.json", '{"a": "b"}')
    path.chmod(0)
    try:
        assert error_of(path).message == "cannot read: permission denied"
    finally:
        path.chmod(0o644)


def test_invalid_json_names_line_and_column(tmp_path: Path) -> None:
    err = error_of(write(tmp_path, "p.json", '{\n  "a": "b",\n  "c": oops\n}'))
    assert "invalid JSON at line 3, column 8" in err.message


def test_extra_brace_is_a_json_error_not_jsonl(tmp_path: Path) -> None:
    err = error_of(write(tmp_path, "p.json", '{\n  "a": "b"\n}\n}\n'))
    assert "invalid JSON at line 4" in err.message


def test_truncated_jsonl_line(tmp_path: Path) -> None:
    err = error_of(write(tmp_path, "p.jsonl", RECORDS + '{"id": "c", "predic'))
    assert err.record == "line 3"
    assert "truncated" in err.message
    assert str(err).startswith(f"{tmp_path / 'p.jsonl'}, line 3: ")


def test_invalid_jsonl_line_in_the_middle(tmp_path: Path) -> None:
    err = error_of(write(tmp_path, "p.jsonl", '{"id": "a", "prediction": "x"}\n{id: 1}\n{"id": "b", "prediction": "y"}\n'))
    assert err.record == "line 2"


def test_truncated_first_line_of_jsonl_by_suffix(tmp_path: Path) -> None:
    err = error_of(write(tmp_path, "p.ndjson", '{"id": "a", "pre\n{"id": "b", "prediction": "y"}\n'))
    assert err.record == "line 1"


def test_jsonl_blank_lines_keep_line_numbers(tmp_path: Path) -> None:
    doc = read_document(write(tmp_path, "p.jsonl", '\n{"a": 1}\n\n{"a": 2}\n'))
    assert doc.lines is not None and [n for n, _ in doc.lines] == [2, 4]


def test_one_record_jsonl_is_records(tmp_path: Path) -> None:
    run = read_source(write(tmp_path, "p.jsonl", '{"id": "a", "prediction": "x"}\n'))
    assert not isinstance(run, Skip) and run.format == "prediction-records"


def test_float_literals_are_kept() -> None:
    value = loads('[39764.0, 1.50, 1e3, 7, -0.0]')
    assert [number_text(v) for v in value] == ["39764.0", "1.50", "1e3", "7", "-0.0"]
    assert isinstance(value[0], JSONFloat) and value[0] == 39764.0
    assert type(plain({"x": value})["x"][1]) is float
    assert number_text(True) is None and number_text(None) is None and number_text([1]) is None


def test_not_json_suffix_is_skipped(tmp_path: Path) -> None:
    result = read_source(write(tmp_path, "README.md", "# hello"))
    assert isinstance(result, Skip) and result.reason == "not a JSON/JSONL file"


def test_jsonl_saved_as_json_is_read_as_records(tmp_path: Path) -> None:
    run = read_source(write(tmp_path, "preds.json", RECORDS))
    assert not isinstance(run, Skip) and run.format == "prediction-records"
    assert [p.line for p in run.predictions] == [1, 2]


def test_each_file_is_parsed_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import qa_inspect.core.formats as formats

    calls: list[Path] = []
    real = formats.read_document
    monkeypatch.setattr(formats, "read_document", lambda path: calls.append(path) or real(path))
    fixtures = FIXTURES / "formats"
    read_source(fixtures / "hf_run" / "eval_predictions.json")
    read_source(fixtures / "hf_run" / "eval_nbest_predictions.json")  # side file: skipped unparsed
    read_source(fixtures / "hf_run" / "config.json")
    assert [p.name for p in calls] == ["eval_predictions.json", "config.json"]


# ------------------------------------------------------------------------- what bytes are instead


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ('{"a": "b"}'.encode("utf-16-le"), "UTF-16 text (not UTF-8 or GB18030): save it as UTF-8"),
        ('{"a": "b"}'.encode("utf-16-be"), "UTF-16 text (not UTF-8 or GB18030): save it as UTF-8"),
        ('{"a": "b"}'.encode("utf-32-le"), "UTF-32 text (not UTF-8 or GB18030): save it as UTF-8"),
        (b"\x1f\x8b\x08\x00rest", "gzip-compressed data, not text: unpack it first"),
        (bytes(range(256)), "not UTF-8 or GB18030 text (contains NUL bytes: binary data?)"),
        (b"\xef\xbb\xbf \n", "empty file"),
    ],
)
def test_what_the_bytes_are_instead(tmp_path: Path, data: bytes, message: str) -> None:
    assert error_of(write(tmp_path, "p.json", data)).message == message


@pytest.mark.parametrize("codec", ["utf-16", "utf-16-be", "utf-32", "utf-32-be"])
def test_utf16_and_utf32_with_a_byte_order_mark_are_read(tmp_path: Path, codec: str) -> None:
    """What Windows PowerShell's `>` writes: the BOM says the encoding, so there is nothing to guess."""
    data = '{"Q1": "狐狸", "Q2": "fox"}'.encode(codec)
    if codec.endswith("-be"):
        data = ("\ufeff" + '{"Q1": "狐狸", "Q2": "fox"}').encode(codec)
    text, encoding = read_text(write(tmp_path, "p.json", data))
    assert (text, encoding) == ('{"Q1": "狐狸", "Q2": "fox"}', codec[:6])


def test_damaged_utf8_names_the_place_not_read_as_gb18030(tmp_path: Path) -> None:
    good = '{"id": "a", "prediction": "狐狸跳过了懒狗"}\n'.encode() * 3
    err = error_of(write(tmp_path, "p.jsonl", good + '{"id": "b", "prediction": "河'.encode() + b"\xff" + b'"}\n'))
    assert err.message == "not valid UTF-8: byte 0xff at line 4, column 29 (the rest is UTF-8: a damaged file?)"


def test_jsonl_lines_end_at_newline_only(tmp_path: Path) -> None:
    """U+2028, U+0085 and the like are valid inside JSON strings: they do not end a record."""
    text = '{"id": "a", "prediction": "x\u2028y\x85z"}\n{"id": "b", "prediction": "w"}\n'
    doc = read_document(write(tmp_path, "p.jsonl", text))
    assert doc.lines is not None and [n for n, _ in doc.lines] == [1, 2]
    assert doc.lines[0][1]["prediction"] == "x\u2028y\x85z"


def test_jsonl_joined_files_keep_their_boms_out(tmp_path: Path) -> None:
    doc = read_document(write(tmp_path, "p.jsonl", b"\xef\xbb\xbf" + RECORDS.encode() + b"\xef\xbb\xbf" + RECORDS.encode()))
    assert doc.lines is not None and [v["id"] for _, v in doc.lines] == ["a", "b", "a", "b"]


def test_repeated_keys_are_noted() -> None:
    value = loads('{"a": 1, "b": {"x": 1, "x": 2}, "a": 3, "a": 4}')
    assert value == {"a": 4, "b": {"x": 2}}
    assert duplicate_keys(value) == ["a", "a"] and duplicate_keys(value["b"]) == ["x"]
    assert type(loads('{"a": 1}')) is dict and duplicate_keys(loads('{"a": 1}')) == []


def test_messages_name_nan_and_stay_short() -> None:
    assert [type_name(v) for v in loads("[NaN, Infinity, -Infinity, 1.5]")] == ["NaN", "Infinity", "-Infinity", "a number"]
    assert shown("abc") == "'abc'" and shown("x" * 1000) == f"{'x' * 60!r}… (1,000 characters)"
