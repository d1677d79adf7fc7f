"""The limits policy: sizes as people write them, the manifest under the environment, one hint."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from qa_inspect.core.errors import FormatError
from qa_inspect.core.formats import DEFAULT_LIMITS, Limits, active_limits, limits_from_env, parse_limits, use_limits
from qa_inspect.core.formats.limits import byte_size, shown_size, too_big


@pytest.mark.parametrize(("text", "size"), [("4 GiB", 4 << 30), ("4G", 4 << 30), ("500 MB", 500_000_000),
                                            ("64MiB", 64 << 20), ("1.5 KiB", 1536), ("1048576", 1 << 20), (7, 7)])
def test_sizes_as_people_write_them(text: str | int, size: int) -> None:
    assert byte_size(text) == size


@pytest.mark.parametrize("text", ["lots", "4 GiBs", "-1", "", "1e9", "4 PB"])
def test_what_is_not_a_size(text: str) -> None:
    with pytest.raises(ValueError, match="not a size"):
        byte_size(text)


@given(st.integers(min_value=0, max_value=1 << 50))
def test_a_shown_size_reads_back_within_rounding(n: int) -> None:
    value, unit = shown_size(n).replace(",", "").split(" ")
    back = byte_size(f"{value} {'B' if unit == 'bytes' else unit}")
    assert abs(back - n) <= max(n * 0.05, 1)


def test_the_manifest_sets_the_base_and_the_environment_wins(monkeypatch: pytest.MonkeyPatch) -> None:
    folder = parse_limits({"max_file_bytes": "8 GiB", "max_json_depth": 50})
    assert (folder.max_file_bytes, folder.max_json_depth, folder.max_record_bytes) == (8 << 30, 50, DEFAULT_LIMITS.max_record_bytes)
    monkeypatch.setenv("QA_INSPECT_MAX_JSON_DEPTH", "20")
    with use_limits(folder):
        assert (active_limits().max_file_bytes, active_limits().max_json_depth) == (8 << 30, 20)
    assert active_limits() == Limits(max_json_depth=20)
    assert limits_from_env(environ={}) == DEFAULT_LIMITS


@pytest.mark.parametrize(("table", "words"), [({"max_files": 1}, "unknown limit"), ({"max_json_depth": "deep"}, "whole number"),
                                              ({"max_record_bytes": 0}, "more than 0"), ({"max_file_bytes": True}, "not a size")])
def test_a_bad_table_names_the_key(table: dict[str, object], words: str) -> None:
    with pytest.raises(ValueError, match=words) as info:
        parse_limits(table)
    assert next(iter(table)) in str(info.value)


def test_a_bad_environment_value_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("QA_INSPECT_MAX_FILE_BYTES", "lots")
    with pytest.raises(FormatError, match="QA_INSPECT_MAX_FILE_BYTES: 'lots' is not a size"):
        active_limits()


def test_the_message_says_how_to_raise_the_limit() -> None:
    message = too_big(DEFAULT_LIMITS, "max_record_bytes", 100 << 20, "prediction")
    assert message == ("prediction is 100 MiB, over the max_record_bytes limit of 64 MiB"
                       " (raise [limits] max_record_bytes in qa-inspect.toml or QA_INSPECT_MAX_RECORD_BYTES)")
