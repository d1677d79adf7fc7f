"""The bad-input corpus, limits part: what costs too much (bombs, NUL files, huge records, deep
nesting, patterns that would backtrack) and encodings that are read now (BOMs, `\\r` lines, lone
surrogates). `test_limits.py` checks them as `test_bad_inputs.py` checks `bad_inputs.CASES`, plus
`env` (limits lowered by environment variable, so a case stays small and fast).

`LIMIT_CASES` are one-line cases (error, warning or skip); `GOOD_LOADS` are files that must load
as data with no error line.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from tests.paths import FIXTURES
from tests.tools import make_inspect_logs as Z

from . import shapes as S
from .bad_inputs import Case, Content, Expect
from .shapes import jl, js

__all__ = ["GOOD_LOADS", "LIMIT_CASES", "REAL_LOG", "GoodLoad", "LimitCase"]

REAL_LOG = next((FIXTURES / "frameworks" / "inspect_current").glob("*.eval"))
"""A log written by inspect_ai itself: Zstandard members, samples Q1-Q3 (the good dataset's), two epochs."""
M = "qa-inspect.toml"


@dataclass(frozen=True)
class LimitCase(Case):
    env: Mapping[str, str] = field(default_factory=dict)
    """Environment variables set while the case runs (`QA_INSPECT_MAX_…`)."""


LIMIT_CASES: dict[str, LimitCase] = {}


def add(name: str, group: str, files: Mapping[str, Content], expect: Expect, *says: str, names: str = "",
        setup: Callable[[Path], object] | None = None, env: Mapping[str, str] | None = None) -> None:
    assert name not in LIMIT_CASES, f"two cases named {name}"
    LIMIT_CASES[name] = LimitCase(group, files, expect, says, names, setup, (), env or {})


def error(name: str, group: str, files: Mapping[str, Content], *says: str, **kw: object) -> None:
    add(name, group, files, "error", *says, **kw)  # type: ignore[arg-type]


def _sparse(rel: str, size: int) -> Callable[[Path], None]:
    """A file of `size` NUL bytes made with truncate: no disk, no time."""

    def make(d: Path) -> None:
        with open(d / rel, "wb") as fh:
            fh.truncate(size)

    return make


def _log(members: dict[str, bytes], method: int = Z.ZSTANDARD,
         raw: dict[str, tuple[bytes, int, int]] | None = None) -> Callable[[], bytes]:
    return lambda: Z.zip_bytes(members, method, raw=raw)


_HEADER = js(S.inspect_header())
_SAMPLE = js(S.inspect_sample())
_DEEP = "[" * 5000 + "]" * 5000

# ---------------------------------------------------------------------------- archives (Inspect .eval)

error("eval-zstd-bomb-lying-size", "archive",
      {"logs/run.eval": _log({"header.json": _HEADER, "samples/Q1_epoch_1.json": _SAMPLE},
                             raw={"samples/Q2_epoch_1.json": (Z.zeros_zstd(3 << 30), 1000, 0)})},
      "samples/Q2_epoch_1.json", "max_record_bytes")
error("eval-deflate-bomb-lying-size", "archive",
      {"logs/run.eval": _log({"header.json": _HEADER, "samples/Q1_epoch_1.json": _SAMPLE}, Z.DEFLATED,
                             raw={"samples/Q2_epoch_1.json": (Z.zeros_deflate(3 << 30), 1000, 0)})},
      "samples/Q2_epoch_1.json", "max_record_bytes")
error("eval-bomb-declared-honestly", "archive",
      {"logs/run.eval": _log({"header.json": _HEADER}, raw={"samples/Q1_epoch_1.json": (Z.zeros_zstd(3 << 30), 3 << 30, 0)})},
      "samples/Q1_epoch_1.json", "declared size", "3 GiB")
error("eval-bomb-in-header", "archive",
      {"logs/run.eval": _log({"samples/Q1_epoch_1.json": _SAMPLE}, raw={"header.json": (Z.zeros_zstd(1 << 30), 500, 0)})},
      "header.json", "max_member_bytes")
error("eval-bomb-in-a-valid-log", "archive",
      {"logs/run.eval": lambda: Z.zip_bytes(
          {"header.json": _HEADER, **{f"samples/Q{i}_epoch_1.json": js(S.inspect_sample(f"Q{i}")) for i in (1, 2, 3)}},
          raw={"samples/Q4_epoch_1.json": (Z.zeros_zstd(256 << 20), 2000, 0)})},
      "samples/Q4_epoch_1.json", "max_record_bytes")
error("eval-members-over-archive-limit", "archive",
      {"logs/run.eval": lambda: Z.synthetic_log(200)}, "max_archive_bytes", env={"QA_INSPECT_MAX_ARCHIVE_BYTES": "100 KiB"})


def _damaged(method: int) -> Callable[[], bytes]:
    def make() -> bytes:
        packed = bytearray(Z.compress(_SAMPLE * 20, method))
        packed[10:30] = b"\xff" * 20
        import zlib

        return Z.zip_bytes({"header.json": _HEADER}, method,
                           raw={"samples/Q1_epoch_1.json": (bytes(packed), len(_SAMPLE) * 20, zlib.crc32(_SAMPLE * 20))})

    return make


error("eval-deflate-member-damaged", "archive", {"logs/run.eval": _damaged(Z.DEFLATED)},
      "samples/Q1_epoch_1.json", "cannot unpack member")
error("eval-zstd-member-damaged", "archive", {"logs/run.eval": _damaged(Z.ZSTANDARD)},
      "samples/Q1_epoch_1.json", "cannot unpack member")
error("eval-crc-mismatch", "archive",
      {"logs/run.eval": lambda: Z.zip_bytes({"header.json": _HEADER}, Z.STORED,
                                            raw={"samples/Q1_epoch_1.json": (_SAMPLE, len(_SAMPLE), 12345)})},
      "samples/Q1_epoch_1.json", "CRC-32")
error("eval-lzma-member", "archive",
      {"logs/run.eval": lambda: Z.zip_bytes({"samples/Q1_epoch_1.json": _SAMPLE}, 14,
                                            raw={"header.json": (_HEADER, len(_HEADER), 0)})},
      "header.json", "compression method 14")
error("eval-sample-nested-5000", "archive",
      {"logs/run.eval": _log({"header.json": _HEADER, "samples/Q1_epoch_1.json": _SAMPLE,
                              "samples/Q2_epoch_1.json": js(S.inspect_sample("Q2"))[:-1] + b', "x": ' + _DEEP.encode() + b"}"})},
      "samples/Q2_epoch_1.json", "nested deeper")
error("eval-header-nested-5000", "archive",
      {"logs/run.eval": _log({"header.json": _HEADER[:-1] + b', "x": ' + _DEEP.encode() + b"}",
                              "samples/Q1_epoch_1.json": _SAMPLE})},
      "header.json", "nested deeper")
add("eval-real-log-being-written", "archive",
    {"logs/run.eval": lambda: REAL_LOG.read_bytes()[:REAL_LOG.read_bytes().index(b"PK\x01\x02")]},
    "warning", "no central directory", "complete members")
add("eval-real-log-one-byte-short", "archive", {"logs/run.eval": lambda: REAL_LOG.read_bytes()[:-1]},
    "warning", "no central directory")
add("eval-partial-without-samples", "archive",
    {"logs/run.eval": lambda: Z.zip_bytes({"_journal/start.json": _HEADER}, central_directory=False)},
    "skip", "no sample finished yet")
add("eval-lone-surrogate-in-sample", "archive",
    {"logs/run.eval": _log({"header.json": _HEADER,
                            "samples/Q1_epoch_1.json": _SAMPLE.replace(b'"quick brown fox"', b'"quick brown fox\\ud800"', 1)})},
    "warning", "1 lone surrogate")

# ------------------------------------------------------------------------------- NUL and size

for _size, _label in ((1, "1-byte"), (4096, "4-KiB"), (1 << 20, "1-MiB"), (2 << 30, "2-GiB")):
    add(f"nul-file-{_label}", "nul", {}, "error", "NUL bytes only", names=f"zeros-{_label}.json",
        setup=_sparse(f"zeros-{_label}.json", _size))
add("nul-jsonl-2-GiB", "nul", {}, "error", "NUL bytes only", names="zeros.jsonl", setup=_sparse("zeros.jsonl", 2 << 30))
add("nul-file-over-max-file-bytes", "nul", {}, "error", "max_file_bytes", "5 GiB", names="zeros.json",
    setup=_sparse("zeros.json", 5 << 30))
add("nul-after-text", "nul", {}, "error", "NUL", names="tail.json",
    setup=lambda d: (d / "tail.json").write_bytes(b'{"Q1": "x"}' + bytes(5000)))
error("file-over-limit-by-env", "size", {"big.json": js({f"Q{i}": "x" * 50 for i in range(1, 40)})},
      "max_file_bytes", "QA_INSPECT_MAX_FILE_BYTES", env={"QA_INSPECT_MAX_FILE_BYTES": "1 KiB"})
error("jsonl-line-over-record-limit", "size",
      {"big.jsonl": jl({"id": "Q1", "prediction": "a"}, {"id": "Q2", "prediction": "b" * 5000})},
      "line 2", "max_record_bytes", env={"QA_INSPECT_MAX_RECORD_BYTES": "4 KiB"})
error("map-prediction-over-record-limit", "size", {"big.json": js({"Q1": "a", "Q2": "狐" * 3000})},
      "max_record_bytes", env={"QA_INSPECT_MAX_RECORD_BYTES": "8 KiB"})
error("parquet-prediction-over-record-limit", "size",
      {"big.parquet": lambda: S.parquet({"id": ["Q1", "Q2"], "prediction": ["a", "b" * 20_000]})},
      "row 2", "max_record_bytes", env={"QA_INSPECT_MAX_RECORD_BYTES": "16 KiB"})
error("depth-lowered-by-env", "size",
      {"deep.jsonl": jl({"id": "Q1", "prediction": "a"}, '{"id": "Q2", "prediction": "b", "x": ' + "[" * 14 + "]" * 14 + "}")},
      "line 2", "max_json_depth", env={"QA_INSPECT_MAX_JSON_DEPTH": "12"})
error("bad-limit-in-env", "size", {"ok.json": js({"Q1": "x"})}, "QA_INSPECT_MAX_FILE_BYTES", "not a size",
      names="environment", env={"QA_INSPECT_MAX_FILE_BYTES": "lots"})

# ------------------------------------------------------------------- BOMs, \r lines, surrogates

_BAD_LINES = '{"id": "Q1", "prediction": "狐狸"}\n{"id": "Q2", "prediction": ["跳"]}\n'
error("utf16-le-bom-bad-record", "encoding", {"bad.jsonl": _BAD_LINES.encode("utf-16")}, "line 2", "prediction is a list")
error("utf16-be-bom-bad-record", "encoding", {"bad.jsonl": ("\ufeff" + _BAD_LINES).encode("utf-16-be")},
      "line 2", "prediction is a list")
error("utf32-bom-bad-record", "encoding", {"bad.jsonl": _BAD_LINES.encode("utf-32")}, "line 2", "prediction is a list")
error("utf16-bom-one-byte-short", "encoding", {"bad.json": json.dumps({"Q1": "fox"}).encode("utf-16")[:-1]},
      "not valid UTF-16")
error("cr-only-jsonl-bad-record", "encoding", {"mac.jsonl": _BAD_LINES.replace("\n", "\r").encode()},
      "line 2", "prediction is a list")
error("cr-only-jsonl-truncated", "encoding",
      {"mac.jsonl": b'{"id": "Q1", "prediction": "a"}\r{"id": "Q2", "prediction": "b"}\r{"id": "Q3", "pre'},
      "line 3", "truncated JSON")
add("surrogate-pair-split-across-strings", "encoding", {"sur.json": b'{"Q1": "a\\ud83d", "Q2": "\\ude00b"}'},
    "warning", "2 lone surrogate escapes")
add("surrogate-in-jsonl-record", "encoding",
    {"sur.jsonl": jl({"id": "Q1", "prediction": "a"}) + b'{"id": "Q2", "prediction": "\\udc00x\\ud800"}\n'},
    "warning", "2 lone surrogate escapes")
add("surrogate-in-dataset", "encoding",
    {"sur-data.jsonl": b'{"id": "B1", "question": "q\\ud800?", "answers": ["a"]}\n'}, "warning", "1 lone surrogate")

# ------------------------------------------------------------------ 5,000-deep JSON in every source

error("deep-5000-jsonl-dataset", "depth", {"deep-data.jsonl": jl(S.dataset_records(1)[0]) + _DEEP.encode() + b"\n"},
      "line 2", "nested deeper")
error("deep-5000-squad-dataset", "depth",
      {"deep-data.json": b'{"version": "1.1", "data": [' + js(S.squad([S.qa("B1", "q?", "fox")])["data"][0])
       + b", " + _DEEP.encode() + b"]}"}, "nested deeper")
error("deep-5000-run-map", "depth", {"deep.json": b'{"Q1": "a", "Q2": ' + _DEEP.encode() + b"}"}, "nested deeper")
error("deep-5000-manifest", "depth", {M: ("a = " + _DEEP + "\n").encode()}, "nested deeper")
error("deep-5000-lm-eval-record", "depth", {S.LM_SAMPLES: jl(S.lm_sample(0)) + _DEEP.encode() + b"\n"},
      "line 2", "nested deeper")

# ------------------------------------------------------------------------- user patterns, [limits]

error("pattern-too-long", "pattern", {M: ('[settings]\npattern = "' + "{k}_" * 400 + '.json"\n').encode()},
      "[settings], pattern", "max_pattern_chars")
error("ignore-glob-too-long", "pattern", {M: ('ignore = ["' + "*a" * 600 + '"]\n').encode()}, "ignore[0]",
      "max_pattern_chars")
error("link-glob-too-long", "pattern",
      {M: ('[[link]]\nruns = "' + "*" * 1200 + '"\ndataset = "dev"\n').encode()}, "[[link]] #1, runs", "max_pattern_chars")
error("limits-unknown-key", "pattern", {M: b'[limits]\nmax_files = "1 GiB"\n'}, "[limits], max_files", "unknown limit")
error("limits-bad-size", "pattern", {M: b'[limits]\nmax_file_bytes = "lots"\n'}, "[limits], max_file_bytes",
      "not a size")
error("limits-zero", "pattern", {M: b"[limits]\nmax_json_depth = 0\n"}, "[limits], max_json_depth", "more than 0")
error("limits-lowered-in-manifest", "pattern",
      {M: b'[limits]\nmax_record_bytes = "2 KiB"\n', "big.jsonl": jl({"id": "Q1", "prediction": "x" * 3000})},
      "line 1", "max_record_bytes", names="big.jsonl")


@dataclass(frozen=True)
class GoodLoad:
    """Files that load as a run of the good dataset: `answers` are its predictions by id."""

    files: Mapping[str, Content]
    run: str
    answers: Mapping[str, str]
    manifest: str = ""


_MAP = {"Q1": "狐狸", "Q2": "the lazy dog"}
GOOD_LOADS: dict[str, GoodLoad] = {
    "utf16-le-bom": GoodLoad({"ps.json": json.dumps(_MAP, ensure_ascii=False).encode("utf-16")}, "ps", _MAP),
    "utf16-be-bom": GoodLoad({"ps.json": ("\ufeff" + json.dumps(_MAP, ensure_ascii=False)).encode("utf-16-be")}, "ps", _MAP),
    "utf32-bom": GoodLoad({"ps.json": json.dumps(_MAP, ensure_ascii=False).encode("utf-32")}, "ps", _MAP),
    "utf16-bom-jsonl": GoodLoad(
        {"ps.jsonl": "".join(json.dumps({"id": k, "prediction": v}, ensure_ascii=False) + "\r\n" for k, v in _MAP.items())
         .encode("utf-16")}, "ps", _MAP),
    "utf16-bom-csv": GoodLoad({"ps.csv": "id,prediction\nQ1,狐狸\nQ2,the lazy dog\n".encode("utf-16")}, "ps", _MAP),
    "cr-only-jsonl": GoodLoad({"mac.jsonl": "".join(json.dumps({"id": k, "prediction": v}) + "\r" for k, v in _MAP.items())
                               .encode()}, "mac", _MAP),
    "escaped-backslash-not-a-surrogate": GoodLoad({"lit.json": b'{"Q1": "\\\\ud800", "Q2": "x"}'}, "lit",
                                                  {"Q1": "\\ud800", "Q2": "x"}),
    "surrogate-pair-kept": GoodLoad({"pair.json": b'{"Q1": "\\ud83d\\ude00", "Q2": "x"}'}, "pair",
                                    {"Q1": "\U0001F600", "Q2": "x"}),
    "real-inspect-zstd-log": GoodLoad({"logs/real.eval": lambda: REAL_LOG.read_bytes()}, "real",
                                      dict.fromkeys(("Q1", "Q2", "Q3"), "Default output from mockllm/model")),
    "manifest-utf16-bom": GoodLoad({"ps.json": js(_MAP)}, "renamed", _MAP,
                                   manifest='[[run]]\npath = "ps.json"\nname = "renamed"\n'),
}
for _n in (6, 8, 10, 20):
    _keys = [f"k{i}" for i in range(_n)]
    GOOD_LOADS[f"pattern-{_n}-placeholders"] = GoodLoad(
        {"_".join(f"v{i}" for i in range(_n + 3)) + ".json": js(_MAP)}, "_".join(f"v{i}" for i in range(_n + 3)), _MAP,
        manifest='[settings]\npattern = "' + "_".join(f"{{{k}}}" for k in _keys) + '.json"\n')


def manifest_bytes(case: GoodLoad, name: str) -> bytes:
    """The case's manifest, UTF-16 with a BOM for the case about it."""
    return case.manifest.encode("utf-16" if "utf16" in name else "utf-8")

