"""The columns test folder (`from tests.columns_data import ...`): the sample runs plus a run whose
JSONL records carry extra keys (its `meta`: a number, a text) and a judge's verdicts on
bert-base-chinese, loaded; two items of bert-base-chinese and of bert-meta labelled."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

from qa_inspect.core.labels import add_labels
from qa_inspect.core.load import load_runs

from tests.paths import SAMPLE_RUNS

RUN = "bert-base-chinese"
META_RUN = "bert-meta"
"""A copy of bert-base-chinese's answers as JSONL records with `latency` and `sampler` keys."""
JUDGE = "gpt-judge"
LABELLED = {"DEV_4_QUERY_0": ("format",), "DEV_4_QUERY_1": ("format", "paraphrase")}


def columns_folder(tmp_path: Path) -> Path:
    """runs/: the sample runs, `bert-meta.jsonl` and `gpt.verdicts.jsonl` beside them."""
    runs = tmp_path / "runs"
    shutil.copytree(SAMPLE_RUNS, runs)
    answers = json.loads((runs / "cmrc2018" / "runs" / f"{RUN}.json").read_text(encoding="utf-8"))
    lines = [{"id": key, "prediction": text, "latency": round(0.5 + (n % 7) * 0.25, 2),
              "sampler": "greedy" if n % 3 else "Beam  Search"} for n, (key, text) in enumerate(answers.items())]
    (runs / "cmrc2018" / "runs" / f"{META_RUN}.jsonl").write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in lines), encoding="utf-8")
    verdicts = [{"run": RUN, "id": key, "judge": JUDGE, "verdict": "correct" if n % 2 else "incorrect"}
                for n, key in enumerate(list(answers)[:20])]
    (runs / "cmrc2018" / "runs" / "gpt.verdicts.jsonl").write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in verdicts), encoding="utf-8")
    return runs


def load_columns(tmp_path: Path) -> Path:
    """The folder loaded into `tmp_path/qa.db`, the `LABELLED` labels added; the database's path."""
    db = tmp_path / "qa.db"
    summary = load_runs(columns_folder(tmp_path), db)
    assert not summary.errors, summary.errors
    with sqlite3.connect(db) as conn:
        for run in (RUN, META_RUN):
            for key, labels in LABELLED.items():
                add_labels(conn, run, [key], list(labels), author="tester")
    return db
