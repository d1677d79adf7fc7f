"""The limits corpus (`limit_cases.py`), loaded beside the good folder through the CLI as a user runs
it, checked as `test_bad_inputs.py` checks its cases (no traceback, one line naming the file and
record, the good dataset and run loaded and reported, `stale mark`/`stale list` working), and
within bounded memory: a bomb or a 2 GiB file costs no more than a few hundred MB.

`GOOD_LOADS` must load as data (no error or warning line); user patterns of 6-20 placeholders
give their settings to `qa-inspect table`; a saved slice nested 5,000 deep breaks no command.
"""

from __future__ import annotations

import json
import resource
import sqlite3
from pathlib import Path

import pytest

from tests.cli.helpers import invoke
from tests.corpus.limit_cases import GOOD_LOADS, LIMIT_CASES, M, manifest_bytes
from tests.corpus.shapes import GOOD_FILES
from tests.corpus.test_bad_inputs import (  # noqa: F401
    _check_summary,
    _command_built_once,
    _good_run_still_works,
    _loads_again_to_the_same_line,
    _write,
)

MAX_GROWTH_MB = 500
"""What one case may add to the process's peak memory (ru_maxrss only grows: a bomb inflated whole shows)."""


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def test_the_limits_corpus_is_big_and_covers_every_limit() -> None:
    assert len(LIMIT_CASES) + len(GOOD_LOADS) >= 60
    says = " ".join(" ".join(c.says) for c in LIMIT_CASES.values())
    for limit in ("max_file_bytes", "max_member_bytes", "max_archive_bytes", "max_record_bytes", "max_json_depth",
                  "max_pattern_chars"):
        assert limit in says, limit


@pytest.mark.parametrize("name", sorted(LIMIT_CASES))
def test_limit_case_is_one_line_bounded_and_harmless(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    case = LIMIT_CASES[name]
    for key, value in case.env.items():
        monkeypatch.setenv(key, value)
    runs = tmp_path / "runs"
    runs.mkdir()
    before = _peak_mb()
    _write(runs, case)
    db = str(tmp_path / "qa.db")
    code = 1 if case.expect == "error" else 0
    res = invoke("load", str(runs), "--db", db, "--json")
    assert res.exit_code == code, res.output[-2000:]
    if case.target == "environment":  # a bad limit in the environment stops every read, each saying why
        errors = json.loads(res.stdout)["errors"]
        assert errors and all(all(w in e["message"] for w in case.says) for e in errors), errors
        return
    _check_summary(case, json.loads(res.stdout))
    _loads_again_to_the_same_line(runs, db, case, code)
    assert _peak_mb() - before < MAX_GROWTH_MB
    _good_run_still_works(runs, db)


@pytest.mark.parametrize("name", sorted(GOOD_LOADS))
def test_good_load(name: str, tmp_path: Path) -> None:
    case = GOOD_LOADS[name]
    runs = tmp_path / "runs"
    runs.mkdir()
    for rel, content in {**GOOD_FILES, **case.files}.items():
        (runs / rel).parent.mkdir(parents=True, exist_ok=True)
        (runs / rel).write_bytes(content() if callable(content) else content)
    if case.manifest:
        (runs / M).write_bytes(manifest_bytes(case, name))
    db = str(tmp_path / "qa.db")
    res = invoke("load", str(runs), "--db", db, "--json")
    assert res.exit_code == 0, res.output[-2000:]
    summary = json.loads(res.stdout)
    assert summary["errors"] == [] and summary["warnings"] == [], summary
    assert {r["name"]: r["dataset"] for r in summary["runs"]}.get(case.run) == "dev", summary["runs"]
    with sqlite3.connect(db) as conn:
        got = dict(conn.execute("SELECT i.key, p.text FROM predictions p JOIN runs r ON r.id = p.run_id"
                                " JOIN items i ON i.id = p.item_id WHERE r.name = ?", (case.run,)).fetchall())
    assert got == dict(case.answers)
    _good_run_still_works(runs, db)


@pytest.mark.parametrize("n", [6, 8, 10, 20])
def test_pattern_of_many_placeholders_gives_settings_to_table(n: int, tmp_path: Path) -> None:
    """8 placeholders took 65 s and 10 never finished (a backtracking regex); now linear."""
    case = GOOD_LOADS[f"pattern-{n}-placeholders"]
    runs = tmp_path / "runs"
    runs.mkdir()
    for rel, content in {**GOOD_FILES, **case.files}.items():
        (runs / rel).write_bytes(content() if callable(content) else content)
    (runs / "qa-inspect.toml").write_bytes(manifest_bytes(case, ""))
    db = str(tmp_path / "qa.db")
    assert invoke("load", str(runs), "--db", db).exit_code == 0
    res = invoke("table", str(runs), "--db", db, "--rows", f"run,k0,k{n - 1}", "--json")
    assert res.exit_code == 0, res.output[-2000:]
    assert f'"k{n - 1}"' in res.stdout and f"v{n - 1}_v{n}_v{n + 1}" in res.stdout


def test_a_slice_nested_5000_deep_breaks_no_command(tmp_path: Path) -> None:
    """A saved slice is JSON in qa.db, which a folder may ship: listed as unreadable, refused in one line."""
    runs = tmp_path / "runs"
    runs.mkdir()
    for rel, content in GOOD_FILES.items():
        (runs / rel).write_bytes(content)
    db = str(tmp_path / "qa.db")
    assert invoke("load", str(runs), "--db", db).exit_code == 0
    with sqlite3.connect(db) as conn:
        conn.execute("INSERT INTO slices (name, filter, created_at) VALUES ('deep', ?, '2024-01-01')",
                     ('{"splits": ' + "[" * 5000 + "]" * 5000 + "}",))
    res = invoke("slices", "list", str(runs), "--db", db, "--json")
    assert res.exit_code == 0 and "Traceback" not in res.output, res.output[-2000:]
    listed = {s["name"]: s for s in json.loads(res.stdout)}
    assert "nested too deep" in json.dumps(listed["deep"])
    for command in (["report", str(runs), "--slice", "deep"], ["export", str(runs), "--slice", "deep", "-o", str(tmp_path / "out.csv")]):
        res = invoke(*command, "--db", db)
        assert res.exit_code == 1 and "Traceback" not in res.output, res.output[-2000:]
        lines = [ln for ln in res.output.splitlines() if ln.strip()]
        assert len(lines) == 1 and lines[0].endswith("slice 'deep': stored filter cannot be read (nested too deep)")
