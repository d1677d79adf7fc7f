"""Judge verdicts stored by the normal load: from the run's own Inspect log, from a verdicts JSONL
file, from an OpenCompass results file; kept, replaced and removed with their files."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

from qa_inspect.core.load import load_runs
from tests.judge_data import FIXTURES, JUDGE_LOG, RUN, judge_folder, write_jsonl


def verdicts(db: Path) -> dict[tuple[str, str, str], tuple[str, float, str]]:
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT run, item_key, judge, verdict, value, source FROM verdicts").fetchall()
    return {(r[0], r[1], r[2]): (r[3], r[4], r[5]) for r in rows}


def test_a_log_and_a_jsonl_file_load_with_the_run(tmp_path: Path) -> None:
    runs = judge_folder(tmp_path)
    db = tmp_path / "qa.db"
    summary = load_runs(runs, db)
    assert not summary.errors and [r.name for r in summary.runs] == [RUN]
    found = verdicts(db)
    assert len(found) == 12 + 4
    assert found[(RUN, "MINI_DEV_1_QUERY_1", "model_graded_fact")] == ("partial", 0.5, JUDGE_LOG.name)
    assert found[(RUN, "MINI_DEV_1_QUERY_2", "gpt-judge")] == ("incorrect", 0.0, "gpt.verdicts.jsonl")  # by question
    assert {v["path"]: v["stored"] for v in summary.to_dict()["verdicts"]} == {JUDGE_LOG.name: 12, "gpt.verdicts.jsonl": 4}
    again = load_runs(runs, db)
    assert not again.changed and not again.verdicts and verdicts(db) == found


def test_a_changed_or_removed_verdicts_file_replaces_its_rows(tmp_path: Path) -> None:
    runs = judge_folder(tmp_path)
    db = tmp_path / "qa.db"
    load_runs(runs, db)
    write_jsonl(runs / "gpt.verdicts.jsonl", [{"run": RUN, "id": "MINI_DEV_0_QUERY_2", "judge": "gpt-judge", "verdict": "I"}])
    load_runs(runs, db)
    gpt = {k: v for k, v in verdicts(db).items() if k[2] == "gpt-judge"}
    assert gpt == {(RUN, "MINI_DEV_0_QUERY_2", "gpt-judge"): ("incorrect", 0.0, "gpt.verdicts.jsonl")}
    (runs / "gpt.verdicts.jsonl").unlink()
    (runs / JUDGE_LOG.name).unlink()
    load_runs(runs, db)
    assert verdicts(db) == {}


def test_verdicts_of_a_run_not_loaded_yet_are_read_again_later(tmp_path: Path) -> None:
    runs = judge_folder(tmp_path)
    (runs / JUDGE_LOG.name).unlink()
    db = tmp_path / "qa.db"
    first = load_runs(runs, db)
    assert verdicts(db) == {}
    assert any("4 verdict(s) not stored: run 'cmrc-mini-judged' is not loaded; read again on the next load" in w["message"]
               for w in first.warnings)
    shutil.copy(JUDGE_LOG, runs / JUDGE_LOG.name)
    load_runs(runs, db)
    assert len([k for k in verdicts(db) if k[2] == "gpt-judge"]) == 4


def test_a_bad_verdicts_file_is_one_error_and_the_rest_loads(tmp_path: Path) -> None:
    runs = judge_folder(tmp_path, jsonl=False)
    write_jsonl(runs / "bad.verdicts.jsonl", [{"run": RUN, "id": "MINI_DEV_0_QUERY_0", "judge": "j", "verdict": "so-so"}])
    db = tmp_path / "qa.db"
    summary = load_runs(runs, db)
    assert [e["path"] for e in summary.errors] == ["bad.verdicts.jsonl"]
    assert summary.errors[0]["message"].startswith("bad.verdicts.jsonl, line 1: verdict 'so-so'")
    assert len(verdicts(db)) == 12


def test_opencompass_llm_judge_verdicts_pair_with_predictions_by_position(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    shutil.copytree(FIXTURES / "runs" / "opencompass", runs / "opencompass")
    shutil.copy(FIXTURES / "runs" / "data" / "cmrc_mini_dev.json", runs / "cmrc_mini_dev.json")
    results = next((runs / "opencompass").glob("*/results/*/cmrc_mini.json"))
    value = json.loads(results.read_text(encoding="utf-8"))
    for n, detail in enumerate(value["details"]):
        detail["llm_evaluation"] = {"prediction": "A" if n % 2 == 0 else "B", "llm_correct": n % 2 == 0}
    results.write_text(json.dumps(value, ensure_ascii=False), encoding="utf-8")
    db = tmp_path / "qa.db"
    summary = load_runs(runs, db)
    assert not summary.errors, summary.errors
    found = verdicts(db)
    run = summary.runs[0].name
    assert len(found) == len(value["details"])
    assert found[(run, "MINI_DEV_0_QUERY_0", "llm_evaluation")][0] == "correct"
    assert found[(run, "MINI_DEV_0_QUERY_1", "llm_evaluation")][0] == "incorrect"
