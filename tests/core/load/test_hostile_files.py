"""One bad file never stops a load: each becomes one line naming the file (and record), the good
files beside it load, and the annotation commands keep working on the database."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from qa_inspect.core.load import load_runs
from tests.cli.helpers import invoke
from tests.paths import SAMPLE_RUNS

DEV = SAMPLE_RUNS / "cmrc2018" / "cmrc2018_dev_sample.json"


def _deep_json(d: Path) -> str:
    (d / "deep.json").write_text("[" * 5000 + "]" * 5000, encoding="utf-8")
    return "deep.json: invalid JSON at line 1, column 1: nested deeper than the JSON reader follows"


def _deep_jsonl(d: Path) -> str:
    (d / "deep.jsonl").write_text('{"id": "x", "prediction": ' + "[" * 3000 + "]" * 3000 + "}\n", encoding="utf-8")
    return "deep.jsonl, line 1: invalid JSON: nested deeper"


def _huge_number(d: Path) -> str:
    (d / "bignum.json").write_text('{"DEV_4_QUERY_0": ' + "9" * 5000 + "}", encoding="utf-8")
    return "bignum.json: invalid JSON at line 1, column 1: a number longer than 4,300 digits"


def _lone_surrogate(d: Path) -> str:
    (d / "surrogate.json").write_text('{"DEV_4_QUERY_0": "a\\ud800b"}', encoding="utf-8")
    return "surrogate.json: text that is not valid Unicode (a lone surrogate, bytes eda080)"


def _symlink_loop(d: Path) -> str:
    os.symlink("loop_b.json", d / "loop_a.json")
    os.symlink("loop_a.json", d / "loop_b.json")
    return "loop_a.json: cannot read (Too many levels of symbolic links)"


def _bad_name(d: Path) -> str:
    with open(os.path.join(os.fsencode(d), b"name\xff.json"), "wb") as fh:
        fh.write(b'{"DEV_4_QUERY_0": "x"}')
    return "name\ufffd.json: the file name is not valid UTF-8"


def _deep_manifest(d: Path) -> str:
    (d / "qa-inspect.toml").write_text("a = " + "[" * 3000 + "]" * 3000 + "\n", encoding="utf-8")
    return "qa-inspect.toml: nested deeper than the TOML reader follows"


def _nan(d: Path) -> str:
    (d / "nan.json").write_text('{"DEV_4_QUERY_0": NaN, "DEV_4_QUERY_1": "x"}', encoding="utf-8")
    return "nan.json, key 'DEV_4_QUERY_0': value is a number"


def _manifest_outside(d: Path) -> str:
    (d.parent / "elsewhere.json").write_text("{}", encoding="utf-8")
    (d / "qa-inspect.toml").write_text('[[dataset]]\npath = "../elsewhere.json"\n', encoding="utf-8")
    return "qa-inspect.toml, [[dataset]] #1, path: ../elsewhere.json is outside the runs folder"


CASES: dict[str, Callable[[Path], str]] = {
    f.__name__[1:]: f for f in (_deep_json, _deep_jsonl, _huge_number, _lone_surrogate, _symlink_loop, _bad_name,
                                _deep_manifest, _nan, _manifest_outside)
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_one_bad_file_is_one_line_and_the_rest_loads(case: str, tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    shutil.copy(DEV, runs / "dev.json")
    want = CASES[case](runs)
    summary = load_runs(runs, tmp_path / "qa.db")
    messages = [e["message"] for e in summary.errors]
    assert len(messages) >= 1 and any(m.startswith(want) for m in messages), messages
    assert all("\n" not in m and "Traceback" not in m for m in messages)
    assert [d.name for d in summary.datasets] == ["dev"], "the good file beside it loaded"
    res = invoke("stale", "list", str(runs), "--db", str(tmp_path / "qa.db"))
    assert res.exit_code == 0, res.output  # annotation commands still work
