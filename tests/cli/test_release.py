"""`qa-inspect release diff OLD NEW`: text, --json and --markdown; flags and runs when OLD was
loaded from a runs folder; one line for user errors; dataset text never drives the terminal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.helpers import invoke
from tests.release_data import Q, cdqa_record, flag_tiny, tiny_cdqa, write_json

RAW = ("\x1b", "\x07", "\x9b", "\u202e")


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    root = tmp_path_factory.mktemp("release")
    old, new = tiny_cdqa(root)
    flag_tiny(root / "runs")
    return root / "runs", old, new


def test_text_finds_the_runs_folder_of_old(tiny: tuple[Path, Path, Path]) -> None:
    _, old, new = tiny
    res = invoke("release", "diff", str(old), str(new))
    assert res.exit_code == 0, res.output
    text = res.stdout
    assert "1 added, 1 removed, 3 with golds changed" in text
    assert "open stale flags: 4 (1 resolved-to-proposal, 1 resolved-otherwise, 1 left, 1 item-removed)" in text
    assert "别的丙三" in text and "m1" in text and "m2" in text and "golds changed" in text


def test_json_has_counts_flags_and_runs(tiny: tuple[Path, Path, Path]) -> None:
    runs, old, new = tiny
    res = invoke("release", "diff", str(old), str(new), "--runs", str(runs), "--dataset", "tiny_cdqa", "--json")
    assert res.exit_code == 0, res.output
    d = json.loads(res.stdout)
    assert d["counts"]["added"] == 1 and d["counts"]["golds_changed"] == 3
    assert d["counts"]["flags"]["left"] == 1
    for r in d["runs"]:
        for m in r["metrics"]:
            assert m["gold_changed"] + m["added_removed"] == pytest.approx(m["total_change"], abs=1e-9)


def test_markdown_tables(tiny: tuple[Path, Path, Path]) -> None:
    _, old, new = tiny
    res = invoke("release", "diff", str(old), str(new), "--markdown")
    assert res.exit_code == 0, res.output
    assert "### Golds changed" in res.stdout and "### Open stale flags" in res.stdout and "### Runs (percent)" in res.stdout
    assert f"| {Q[4]} |" not in res.stdout  # flags name the item key and the gold, not the question
    assert "| left: stale gold still there |" in res.stdout


def test_files_alone_without_a_database(tmp_path: Path) -> None:
    old = write_json(tmp_path / "a.json", [cdqa_record(Q[1], "甲|一"), cdqa_record(Q[2], "乙")])
    new = write_json(tmp_path / "b.json", [cdqa_record(Q[1], "甲|一", rewrite="新\n甲")])
    res = invoke("release", "diff", str(old), str(new), "--markdown")
    assert res.exit_code == 0, res.output
    assert "| 甲\\|一 | 新<br>甲 |" in res.stdout  # the one Markdown-cell rule
    assert "Open stale flags" not in res.stdout
    assert invoke("release", "diff", str(old), str(new), "--dataset", "x").exit_code == 1


def test_user_errors_are_one_line(tmp_path: Path) -> None:
    old = write_json(tmp_path / "a.json", [cdqa_record(Q[1], "甲")])
    res = invoke("release", "diff", str(tmp_path / "missing.json"), str(old))
    assert res.exit_code == 1 and "missing.json: no such file" in res.stderr
    broken = tmp_path / "broken.json"
    broken.write_text("[", encoding="utf-8")
    res = invoke("release", "diff", str(old), str(broken))
    assert res.exit_code == 1 and "broken.json" in res.stderr and len(res.stderr.strip().splitlines()) == 1
    notes = write_json(tmp_path / "notes.json", {"hello": 1})
    res = invoke("release", "diff", str(old), str(notes))
    assert res.exit_code == 1 and "not a dataset" in res.stderr


def test_dataset_text_is_escaped(tmp_path: Path) -> None:
    evil = "\x1b]52;c;cm0=\x07\x9b2J\u202e"
    old = write_json(tmp_path / "a.json", [cdqa_record(f"问题{evil}？", f"甲{evil}")])
    new = write_json(tmp_path / "b.json", [cdqa_record(f"问题{evil}？", f"甲{evil}", rewrite=f"乙{evil}")])
    for extra in ((), ("--json",), ("--markdown",)):
        res = invoke("release", "diff", str(old), str(new), *extra)
        assert res.exit_code == 0, res.output
        assert not [c for c in RAW if c in res.stdout], extra
