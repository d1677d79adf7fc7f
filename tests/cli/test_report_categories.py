"""`report --by error_category / question_type / …` and `diff` per error category."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from tests.cli.helpers import copy_sample_runs, invoke


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory, sample_runs: Path) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("cat")
    runs = copy_sample_runs(sample_runs, root)
    db = root / "qa.db"
    assert invoke("load", str(runs), "--db", str(db)).exit_code == 0
    return runs, db


def _direct(db: Path, sql: str, *params: object) -> dict:
    conn = sqlite3.connect(db)
    try:
        return dict(conn.execute(sql, params).fetchall())
    finally:
        conn.close()


def test_report_by_error_category_is_each_runs_distribution(loaded: tuple[Path, Path]) -> None:
    runs, db = loaded
    res = invoke("report", str(runs), "--db", str(db), "--by", "error_category", "--json")
    assert res.exit_code == 0, res.output
    rows = [r for r in json.loads(res.stdout) if r["slice"] == "error_category"]
    assert "human estimate" not in {r["run"] for r in rows}
    for run in ("bert-base-chinese", "glm-6b"):
        mine = {r["value"]: r for r in rows if r["run"] == run}
        want = _direct(db, "SELECT p.error_category, COUNT(*) FROM predictions p JOIN runs r ON r.id = p.run_id"
                           " WHERE r.name = ? GROUP BY 1", run)
        items = sum(r["items"] for r in mine.values())
        unanswered = items - sum(want.values())
        if unanswered:
            want["no prediction"] = unanswered
        assert {v: r["items"] for v, r in mine.items()} == want
        assert sum(r["item_share"] for r in mine.values()) == pytest.approx(100.0)
        assert mine.get("exact", {"errors": 0})["errors"] == 0
    assert {r["value"] for r in rows if r["run"] == "glm-6b"} >= {"refused", "verbose-contains-gold", "wrong"}
    text = invoke("report", str(runs), "--db", str(db), "--by", "error_category")
    assert text.exit_code == 0 and "boundary-long" in text.stdout and "item share" in text.stdout and "error category" in text.stdout


def test_report_by_question_type_and_features(loaded: tuple[Path, Path]) -> None:
    runs, db = loaded
    res = invoke("report", str(runs), "--db", str(db), "--by", "question_type,cross_sentence,answer_position",
                 "--json")
    assert res.exit_code == 0, res.output
    rows = json.loads(res.stdout)
    assert {r["slice"] for r in rows} == {"overall", "question_type", "cross_sentence", "answer_position"}
    bert = {r["value"]: r for r in rows if r["run"] == "bert-base-chinese" and r["slice"] == "question_type"}
    want = _direct(db, "SELECT i.question_type, COUNT(*) FROM items i JOIN datasets d ON d.id = i.dataset_id"
                       " WHERE d.name = 'cmrc2018_dev_sample' GROUP BY 1")
    assert {v: r["items"] for v, r in bert.items()} == want
    assert all(r["f1"] is not None for r in bert.values())  # the usual metrics per slice
    assert {r["value"] for r in rows if r["slice"] == "cross_sentence" and r["run"] == "bert-base-chinese"} <= {
        "yes", "no", "—"}


def test_diff_per_category_fixed_and_broken(loaded: tuple[Path, Path]) -> None:
    runs, db = loaded
    res = invoke("diff", str(runs), "bert-base-chinese", "roberta-wwm-large", "--db", str(db), "--no-stats", "--json")
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    cats = {c["category"]: (c["fixed"], c["broken"]) for c in data["categories"]}
    em = next(o for o in data["outcomes"] if o["criterion"] == "em")
    assert sum(f for f, _ in cats.values()) == em["fixed"] and sum(b for _, b in cats.values()) == em["broken"]
    fixed = _direct(db, """
        SELECT pa.error_category, COUNT(*) FROM predictions pa JOIN predictions pb ON pb.item_id = pa.item_id
        JOIN runs ra ON ra.id = pa.run_id JOIN runs rb ON rb.id = pb.run_id
        WHERE ra.name = 'bert-base-chinese' AND rb.name = 'roberta-wwm-large' AND pa.em = 0 AND pb.em = 1 GROUP BY 1""")
    broken = _direct(db, """
        SELECT pb.error_category, COUNT(*) FROM predictions pa JOIN predictions pb ON pb.item_id = pa.item_id
        JOIN runs ra ON ra.id = pa.run_id JOIN runs rb ON rb.id = pb.run_id
        WHERE ra.name = 'bert-base-chinese' AND rb.name = 'roberta-wwm-large' AND pa.em = 1 AND pb.em = 0 GROUP BY 1""")
    assert {c: f for c, (f, _) in cats.items() if f} == fixed
    assert {c: b for c, (_, b) in cats.items() if b} == broken
    assert cats["boundary-long"] == (12, 3)
    text = invoke("diff", str(runs), "bert-base-chinese", "roberta-wwm-large", "--db", str(db), "--no-stats")
    assert "B fixes 12 boundary-long errors, breaks 3" in text.stdout
    md = invoke("diff", str(runs), "bert-base-chinese", "roberta-wwm-large", "--db", str(db), "--no-stats", "--markdown")
    assert "| boundary-long | 12 | 3 |" in md.stdout and "## Per error category" in md.stdout


def test_diff_of_llm_runs_counts_categories_by_the_threshold(loaded: tuple[Path, Path]) -> None:
    runs, db = loaded
    res = invoke("diff", str(runs), "glm-6b", "qwen-7b-chat", "--db", str(db), "--no-stats", "--json")
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    (outcome,) = data["outcomes"]
    assert sum(c["fixed"] for c in data["categories"]) == outcome["fixed"]
    assert sum(c["broken"] for c in data["categories"]) == outcome["broken"]


def test_report_and_diff_on_real_cmrc_dev(shared_data: Path, tmp_path: Path) -> None:
    """`report --by error_category` and `diff` on the real CMRC 2018 dev set with two generated runs."""
    runs = tmp_path / "runs"
    runs.mkdir()
    shutil.copy(shared_data / "cmrc2018_dev.json", runs / "cmrc2018_dev.json")
    data = json.loads((runs / "cmrc2018_dev.json").read_text(encoding="utf-8"))
    qas = [(qa["id"], p["context"], qa["answers"][0]) for a in data["data"] for p in a["paragraphs"] for qa in p["qas"]]
    # A: the gold; every 3rd answer one character longer. B: the gold; every 5th answer cut short.
    a = {q: (ctx[ans["answer_start"]:ans["answer_start"] + len(ans["text"]) + 1] if n % 3 == 0 else ans["text"])
         for n, (q, ctx, ans) in enumerate(qas)}
    b = {q: (ans["text"][:-1] if n % 5 == 0 and len(ans["text"]) > 1 else ans["text"]) for n, (q, ctx, ans) in enumerate(qas)}
    (runs / "a.json").write_text(json.dumps(a, ensure_ascii=False), encoding="utf-8")
    (runs / "b.json").write_text(json.dumps(b, ensure_ascii=False), encoding="utf-8")
    db = tmp_path / "qa.db"
    res = invoke("report", str(runs), "--db", str(db), "--by", "error_category,question_type", "--json")
    assert res.exit_code == 0, res.output
    rows = json.loads(res.stdout)
    cats = {r["value"]: r["items"] for r in rows if r["run"] == "a" and r["slice"] == "error_category"}
    # one character more is often punctuation, which the official EM ignores: exact
    assert cats.get("boundary-long", 0) > 0.1 * len(qas) and cats["exact"] > 0.5 * len(qas)
    types = {r["value"] for r in rows if r["slice"] == "question_type"}
    assert {"who", "what", "when", "how-many"} <= types
    res = invoke("diff", str(runs), "a", "b", "--db", str(db), "--no-stats", "--json")
    data = json.loads(res.stdout)
    cats = {c["category"]: (c["fixed"], c["broken"]) for c in data["categories"]}
    assert cats["boundary-long"][0] > 0 and cats["boundary-short"][1] > 0
