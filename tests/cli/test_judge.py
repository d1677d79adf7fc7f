"""`qa-inspect judge agree`, and `--judge-verdict` on export and report, through CliRunner; the
done-when test: a real inspect_ai log and a verdicts JSONL load, show, and κ is sklearn's."""

from __future__ import annotations

import json
import math
import sqlite3
from pathlib import Path

import pytest
from sklearn.metrics import cohen_kappa_score
from typer.testing import CliRunner

from qa_inspect.core import query
from qa_inspect.core.store import open_db
from qa_inspect.tui.cli import app
from tests.judge_data import RUN, judge_folder

runner = CliRunner()
pytestmark = pytest.mark.usefixtures("no_author_env")


def cli(*args: str, code: int = 0) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == code, (result.output, result.stderr)
    assert "Traceback" not in result.output
    return result.stdout if code == 0 else result.stderr


@pytest.fixture
def runs(tmp_path: Path) -> Path:
    folder = judge_folder(tmp_path)
    cli("load", str(folder), "--db", str(tmp_path / "qa.db"))
    return folder


def test_done_when_log_and_jsonl_load_show_and_kappa_is_sklearns(runs: Path) -> None:
    db = runs.parent / "qa.db"
    conn = open_db(db).conn
    try:
        item = conn.execute("SELECT id FROM items WHERE key = 'MINI_DEV_0_QUERY_1'").fetchone()[0]
        detail = query.item_detail(conn, item, RUN)
        assert detail is not None and detail.prediction is not None
        assert {v.judge: v.verdict for v in detail.prediction.verdicts} == {
            "gpt-judge": "correct", "includes": "incorrect", "model_graded_fact": "incorrect"}
        names = {t.name for t in query.facet_tables(conn, query.Filter(run=RUN))}
        assert {"judge:model_graded_fact", "judge_vs:model_graded_fact", "judge:gpt-judge"} <= names
        pairs = conn.execute(
            "SELECT v.judge, v.verdict, p.f1 FROM verdicts v JOIN items i ON i.key = v.item_key"
            " JOIN predictions p ON p.item_id = i.id ORDER BY v.judge, i.id").fetchall()
    finally:
        conn.close()
    report = json.loads(cli("judge", "agree", str(runs), "--db", str(db), "--json", "--resamples", "300"))
    assert report["threshold"] == 0.5 and report["resamples"] == 300
    for row in report["judges"]:
        mine = [(v, f1) for judge, v, f1 in pairs if judge == row["judge"]]
        judge_right = ["right" if v == "correct" else "wrong" for v, _ in mine]
        official_right = ["right" if f1 >= 0.5 else "wrong" for _, f1 in mine]
        expected = cohen_kappa_score(judge_right, official_right)
        got = row["official"]["kappa"]
        assert (got is None and math.isnan(expected)) or math.isclose(got, expected), row["judge"]
        assert row["official"]["items"] == len(mine) == row["verdicts"]


def test_text_output_and_saved_slices(runs: Path) -> None:
    db = runs.parent / "qa.db"
    text = cli("judge", "agree", str(runs), "--db", str(db), "--judge", "model_graded_fact", "--resamples", "100",
               "--save-slice", "mgf")
    assert "model_graded_fact" in text and "κ vs official" in text and "saved slice mgf-official" in text
    conn = open_db(db).conn
    try:
        saved = query.load_slice(conn, "mgf-official")
    finally:
        conn.close()
    assert saved.run == RUN and saved.keys == ("MINI_DEV_0_QUERY_1", "MINI_DEV_1_QUERY_1")


@pytest.mark.parametrize(("args", "message"), [
    (["--judge", "nobody"], "no judge verdicts of judge 'nobody'"),
    (["--run", "nope"], "--run nope: no such run (known: cmrc-mini-judged)"),
    (["--threshold", "2"], "--threshold 2.0: must be between 0 and 1"),
    (["--save-slice", "x"], "--save-slice x: 3 run/judge pairs; name one with --run and --judge"),
])
def test_user_errors_are_one_line(runs: Path, args: list[str], message: str) -> None:
    err = cli("judge", "agree", str(runs), "--db", str(runs.parent / "qa.db"), *args, code=1)
    assert err.strip().splitlines() == [f"qa-inspect: {message}"] or message in err.strip()
    assert len(err.strip().splitlines()) == 1


def test_export_and_report_filter_by_judge_verdict(runs: Path, tmp_path: Path) -> None:
    db = str(runs.parent / "qa.db")
    out = tmp_path / "wrong.jsonl"
    got = json.loads(cli("export", str(runs), "-o", str(out), "--run", RUN, "--judge-verdict", "model_graded_fact=incorrect",
                         "--db", db, "--json"))
    assert got["rows"] == 2 and got["filter"]["facets"] == [["judge:model_graded_fact", "incorrect"]]
    keys = sorted(json.loads(line)["key"] for line in out.read_text(encoding="utf-8").splitlines())
    assert keys == ["MINI_DEV_0_QUERY_1", "MINI_DEV_1_QUERY_2"]
    frame = json.loads(cli("report", str(runs), "--run", RUN, "--judge-verdict", "gpt-judge=judge-wrong",
                           "--by", "split", "--db", db, "--json"))
    overall = [r for r in frame if r["slice"] == "overall" and r["run"] == RUN]
    assert overall[0]["items"] == 1  # 春潮: F1 1, the judge says partial
    err = cli("export", str(runs), "-o", str(out), "--judge-verdict", "gpt-judge=correct", "--db", db, code=1)
    assert "needs --run" in err
    err = cli("report", str(runs), "--run", RUN, "--judge-verdict", "gpt-judge=sure", "--db", db, code=1)
    assert "'sure': choose from correct, incorrect, partial, judge-right, judge-wrong" in err


def test_load_json_lists_the_verdicts_stored(tmp_path: Path) -> None:
    folder = judge_folder(tmp_path)
    summary = json.loads(cli("load", str(folder), "--db", str(tmp_path / "qa.db"), "--json"))
    assert {v["path"]: v["judges"] for v in summary["verdicts"]} == {
        "cmrc-mini-judged.eval": ["includes", "model_graded_fact"], "gpt.verdicts.jsonl": ["gpt-judge"]}
    with sqlite3.connect(tmp_path / "qa.db") as conn:
        assert conn.execute("SELECT COUNT(*) FROM verdicts").fetchone()[0] == 16
