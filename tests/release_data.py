"""Two releases of small datasets, written by the tests (release diff, its filter, the changelog).

CDQA v1 (`tiny_cdqa`): v2 keeps Q1, rewrites Q2 to the flagged proposal, Q3 to something else
than its proposal, leaves flagged Q4 as it was, drops Q5 (flagged too), rewrites Q6 (no flag)
and adds Q7. Two runs answer by question. SQuAD (`tiny_squad`): ids; v2 changes s2's answer,
renumbers s3 (paired by question), drops s4 and adds s5; one prediction-map run.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from qa_inspect.core import flags as F
from qa_inspect.core.load import load_runs
from qa_inspect.core.store import open_db

Q = {n: f"测试城市{n}最近发生了什么事{n}？" for n in range(1, 8)}
A = {1: "甲一", 2: "乙二", 3: "丙三", 4: "丁四", 5: "戊五", 6: "己六", 7: "庚七"}
PROPOSED = {2: "新乙二", 3: "新丙三", 4: "新丁四", 5: "新戊五"}
V2_GOLD = {2: "新乙二", 3: "别的丙三", 6: "新己六"}
"""Items whose gold v2 changes (Q2 to the proposal, Q3 to something else, Q6 unflagged)."""


def cdqa_record(question: str, answer: str, rewrite: str | None = None, tag: str = "快速变化") -> dict[str, Any]:
    annotation: dict[str, Any] = {"分类1": "y可以接受", "知识动态性分类": tag,
                                  "准确性检查": "https://news.example.org/2023/10/20/a.html", "回答类型": "其他"}
    if rewrite is not None:
        annotation.update({"p-改写答案": rewrite, "分类1": "p修改"})
    return {"qa": f"\ufeff问题: {question}\n答案: {answer}", "annotation": annotation}


def write_json(path: Path, value: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, ensure_ascii=False, indent=1), encoding="utf-8")
    return path


def cdqa_v2(v1: list[dict[str, Any]], questions: dict[int, str] = Q) -> list[dict[str, Any]]:
    """v1 records (in `questions` order) with v2's changes: rewrites of `V2_GOLD`, Q5 out, Q7 in."""
    by_q = {r["qa"].split("\n")[0].removeprefix("\ufeff问题: "): r for r in v1}
    out = []
    for n, q in questions.items():
        if n == 5 or n == 7:
            continue
        rec = json.loads(json.dumps(by_q[q]))
        if n in V2_GOLD:
            rec["annotation"].update({"p-改写答案": V2_GOLD[n], "分类1": "p修改"})
        out.append(rec)
    out.append(cdqa_record(Q[7], A[7]))
    return out


RUN_ANSWERS = {
    "m1": {1: "答案是甲一。", 2: "新乙二", 3: "丙三", 4: "不知道", 5: "戊五", 6: "新己六"},
    "m2": {1: "抱歉，我无法确定。", 2: "乙二", 3: "别的丙三", 4: "丁四", 5: "错", 6: "己六"},
}


def tiny_cdqa(root: Path) -> tuple[Path, Path]:
    """runs/cdqa/v1.json with two runs, and v2.json outside the runs folder."""
    v1 = [cdqa_record(Q[n], A[n]) for n in range(1, 7)]
    old = write_json(root / "runs" / "cdqa" / "tiny_cdqa.json", v1)
    for run, answers in RUN_ANSWERS.items():
        lines = [json.dumps({"question": Q[n], "prediction": a}, ensure_ascii=False) for n, a in answers.items()]
        (root / "runs" / "cdqa" / "runs").mkdir(parents=True, exist_ok=True)
        (root / "runs" / "cdqa" / "runs" / f"{run}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    new = write_json(root / "v2" / "tiny_cdqa.json", cdqa_v2(v1))
    return old, new


def flag_tiny(runs: Path, dataset: str = "tiny_cdqa") -> None:
    """Load `runs` and flag Q2–Q5 stale with their proposals (alice; Q3 by bob)."""
    assert not load_runs(runs).errors
    conn = open_db(runs / ".qa-inspect" / "qa.db").conn
    try:
        for n, proposal in PROPOSED.items():
            key = F.resolve_item(conn, Q[n], dataset).key
            F.mark(conn, dataset, key, A[n], reason=f"changed {n}", proposed=proposal,
                   evidence=f"https://e.org/{n}", author="bob" if n == 3 else "alice")
    finally:
        conn.close()


def squad_doc(qas: list[tuple[str, str, str]]) -> dict[str, Any]:
    context = "The river is long. Alice met Bob in Paris in 1999. The capital moved to Lyon."
    return {"version": "1.1", "data": [{"title": "t", "paragraphs": [{"context": context, "qas": [
        {"id": i, "question": q, "answers": [{"text": a, "answer_start": context.find(a)}]} for i, q, a in qas]}]}]}


SQUAD_V1 = [("s1", "How is the river?", "long"), ("s2", "Who met Bob?", "Alice"),
            ("s3", "Where did they meet?", "Paris"), ("s4", "When did they meet?", "1999")]
SQUAD_V2 = [("s1", "How is the river?", "long"), ("s2", "Who met Bob?", "Alice met Bob"),
            ("s3-renumbered", "Where did they meet?", "Paris"), ("s5", "Where did the capital move?", "Lyon")]


def tiny_squad(root: Path) -> tuple[Path, Path]:
    """runs/squad/dev-v1.1.json with one prediction-map run, and its v2 outside the runs folder."""
    old = write_json(root / "runs" / "squad" / "dev-v1.1.json", squad_doc(SQUAD_V1))
    write_json(root / "runs" / "squad" / "runs" / "reader" / "predictions.json",
               {"s1": "long", "s2": "Alice", "s3": "Paris", "s4": "1998"})
    new = write_json(root / "v2" / "dev-v1.1.json", squad_doc(SQUAD_V2))
    return old, new
