"""Inspect `.eval` logs as inspect_ai writes them today (Zstandard members), read once and within
limits: bombs, sizes that lie, damaged members, logs still being written."""

from __future__ import annotations

import json
import zipfile
import zlib
from pathlib import Path

import pytest
from qa_inspect.core.errors import FormatError
from qa_inspect.core.formats import Limits, read_source, use_limits
from qa_inspect.core.model import Run

from tests.paths import FIXTURES
from tests.tools.make_inspect_logs import (
    DEFLATED,
    STORED,
    ZSTANDARD,
    compress,
    header,
    sample,
    synthetic_log,
    zeros_deflate,
    zeros_zstd,
    zip_bytes,
)

REAL = next((FIXTURES / "frameworks" / "inspect_current").glob("*.eval"))


def _run(path: Path) -> Run:
    result = read_source(path)
    assert isinstance(result, Run), result
    return result


def _write(tmp_path: Path, data: bytes, name: str = "log.eval") -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def _error(path: Path) -> FormatError:
    with pytest.raises(FormatError) as info:
        read_source(path)
    return info.value


def test_a_real_zstd_log_reads_with_its_epochs() -> None:
    with zipfile.ZipFile(REAL) as zf:
        assert {i.compress_type for i in zf.infolist()} == {ZSTANDARD}  # what Python < 3.14 cannot unpack
    run = _run(REAL)
    assert run.format == "inspect-log" and run.model == "mockllm/model"
    assert [p.ref for p in run.predictions] == ["Q1", "Q2", "Q3"]
    assert run.meta["epochs"] == 2 and run.meta["status"] == "success"
    first = run.predictions[0]
    assert first.text == "Default output from mockllm/model" and first.meta["question"] == "What jumps?"
    assert [e["epoch"] for e in first.meta["other_epochs"]] == [2]  # later epochs stay where they were
    assert "warnings" not in run.meta


def test_the_real_log_cut_before_its_central_directory_loads_what_is_complete(tmp_path: Path) -> None:
    data = REAL.read_bytes()
    cut = _write(tmp_path, data[:data.index(b"PK\x01\x02")])
    run = _run(cut)
    assert [p.ref for p in run.predictions] == ["Q1", "Q2", "Q3"]
    assert any("no central directory" in w for w in run.meta["warnings"])
    header_at = data.index(b"header.json") - 30  # header.json is written last: cut it off too
    run = _run(_write(tmp_path, data[:header_at + 40], "cut.eval"))
    assert len(run.predictions) == 3 and "no central directory" in run.meta["warnings"][0]


@pytest.mark.parametrize("method", [STORED, DEFLATED, ZSTANDARD])
def test_stored_deflate_and_zstd_members_read_alike(tmp_path: Path, method: int) -> None:
    run = _run(_write(tmp_path, synthetic_log(5, epochs=2, method=method)))
    assert [p.text for p in run.predictions] == [f"the lazy dog {i % 7}" for i in range(5)]
    assert run.meta["epochs"] == 2


def test_the_archive_is_opened_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A member read reopened the archive (and its central directory) every time: 8,000 samples took 106 s."""
    opened: list[object] = []
    real = zipfile.ZipFile

    class Counting(real):  # type: ignore[misc, valid-type]
        def __init__(self, *args: object, **kwargs: object) -> None:
            opened.append(args[0])
            super().__init__(*args, **kwargs)

    path = _write(tmp_path, synthetic_log(300))
    monkeypatch.setattr(zipfile, "ZipFile", Counting)
    assert len(_run(path).predictions) == 300
    assert len(opened) == 1


def _bomb(packed: bytes, method: int, declared: int, name: str = "samples/Q2_epoch_1.json") -> bytes:
    members = {"header.json": json.dumps(header(2)).encode(), "samples/Q1_epoch_1.json": json.dumps(sample(1)).encode()}
    return zip_bytes(members, method, raw={name: (packed, declared, 0)})


@pytest.mark.parametrize(("method", "zeros"), [(DEFLATED, zeros_deflate), (ZSTANDARD, zeros_zstd)])
def test_a_bomb_stops_at_the_limit_whatever_it_declares(tmp_path: Path, method: int, zeros: object) -> None:
    packed = zeros(64 << 20)  # type: ignore[operator]
    with use_limits(Limits(max_record_bytes=8 << 20)):
        lying = _error(_write(tmp_path, _bomb(packed, method, declared=100)))
        honest = _error(_write(tmp_path, _bomb(packed, method, declared=64 << 20), "honest.eval"))
    assert lying.record == "samples/Q2_epoch_1.json" and "inflates to more than the max_record_bytes limit of 8 MiB" in lying.message
    assert "QA_INSPECT_MAX_RECORD_BYTES" in lying.message
    assert honest.message.startswith("member (declared size) is 64 MiB, over the max_record_bytes limit")


def test_the_header_is_bounded_by_the_member_limit(tmp_path: Path) -> None:
    with use_limits(Limits(max_member_bytes=4 << 20)):
        err = _error(_write(tmp_path, _bomb(zeros_zstd(16 << 20), ZSTANDARD, 10, name="_journal/start.json")
                            .replace(b"header.json", b"headxr.json")))
    assert err.record == "_journal/start.json" and "max_member_bytes" in err.message


def test_many_small_members_are_bounded_together(tmp_path: Path) -> None:
    with use_limits(Limits(max_archive_bytes=200_000)):
        err = _error(_write(tmp_path, synthetic_log(200)))
    assert "max_archive_bytes" in err.message and str(err.record).startswith("samples/")


def test_a_damaged_member_is_one_line_naming_it(tmp_path: Path) -> None:
    good = json.dumps(sample(2)).encode()
    members = {"header.json": json.dumps(header(2)).encode(), "samples/Q1_epoch_1.json": json.dumps(sample(1)).encode()}
    for method in (DEFLATED, ZSTANDARD):
        packed = bytearray(compress(good, method))
        packed[len(packed) // 2:len(packed) // 2 + 8] = b"\xff" * 8
        err = _error(_write(tmp_path, zip_bytes(members, method, raw={"samples/Q2_epoch_1.json": (bytes(packed), len(good), zlib.crc32(good))})))
        assert err.record == "samples/Q2_epoch_1.json" and err.message.startswith("cannot unpack member")


def test_an_unknown_compression_method_names_it(tmp_path: Path) -> None:
    data = bytearray(synthetic_log(2, method=DEFLATED))
    at = data.index(b"PK\x01\x02")
    while at >= 0:  # LZMA in every central directory entry
        data[at + 10:at + 12] = (14).to_bytes(2, "little")
        at = data.find(b"PK\x01\x02", at + 4)
    err = _error(_write(tmp_path, bytes(data)))
    assert "compression method 14" in err.message
