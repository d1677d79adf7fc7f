"""A load stores byte for byte the same prediction rows whether the wide form asks cn2an part by
part (with its caches) or once per whole answer, as it first did: real CMRC dev runs, and a run
of DRCD (Traditional Chinese, many numerals) whose answers are spans around the golds."""

from __future__ import annotations

import json
import random
import sqlite3
from pathlib import Path

import pytest
from qa_inspect.core.load import load_runs, score_pool
from qa_inspect.core.metrics import equivalence, textnorm

from tests.core.metrics.test_wide_parts import cn2an_whole

pytestmark = pytest.mark.usefixtures("no_author_env")

_ROWS = """
SELECT r.name, i.key, p.text, p.scorer, p.em, p.f1, p.refused, p.f1_recall, p.best_gold, p.error_category, p.relation
FROM predictions p JOIN runs r ON r.id = p.run_id JOIN items i ON i.id = p.item_id ORDER BY r.name, i.key
"""


def _drcd_run(dataset: Path, out: Path) -> None:
    """Answers drawn per question: the gold, or a span of the passage around it, or elsewhere."""
    data = json.loads(dataset.read_text(encoding="utf-8"))
    preds = {}
    for article in data["data"]:
        for para in article["paragraphs"]:
            context = para["context"]
            for qa in para["qas"]:
                rng = random.Random(qa["id"])
                gold = qa["answers"][0]
                start, end = gold["answer_start"], gold["answer_start"] + len(gold["text"])
                roll = rng.random()
                if roll < 0.3:
                    preds[qa["id"]] = gold["text"]
                elif roll < 0.8:
                    a, b = max(0, start + rng.randint(-4, 3)), min(len(context), end + rng.randint(-3, 5))
                    preds[qa["id"]] = context[a:b] or gold["text"]
                else:
                    a = rng.randrange(max(1, len(context) - 10))
                    preds[qa["id"]] = context[a : a + rng.randint(2, 25)]
    out.write_text(json.dumps(preds, ensure_ascii=False), encoding="utf-8")


def _clear_caches() -> None:
    for cached in (equivalence.wide_form, equivalence._compared, equivalence._cn2an_part, textnorm.plain):
        cached.cache_clear()


def _rows(folder: Path, db: Path) -> list[tuple[object, ...]]:
    _clear_caches()
    summary = load_runs(folder, db)
    assert not summary.errors
    conn = sqlite3.connect(db)
    try:
        return conn.execute(_ROWS).fetchall()
    finally:
        conn.close()


def test_stored_rows_equal_with_and_without_the_fast_wide_form(
    shared_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(score_pool.os, "cpu_count", lambda: 1)  # one process: the switch below holds for all
    folder = tmp_path / "runs"
    (folder / "drcd").mkdir(parents=True)
    (folder / "cmrc2018_dev.json").symlink_to(shared_data / "cmrc2018_dev.json")
    (folder / "drcd" / "DRCD_dev.json").symlink_to(shared_data / "DRCD_dev.json")
    for run in sorted((shared_data / "runs").glob("cmrc2018_dev_*.json")):
        (folder / run.name).symlink_to(run)
    _drcd_run(shared_data / "DRCD_dev.json", folder / "drcd" / "spans_predictions.json")
    fast = _rows(folder, tmp_path / "fast.db")
    with monkeypatch.context() as mp:
        mp.setattr(equivalence, "cn2an_digits", cn2an_whole)
        whole = _rows(folder, tmp_path / "whole.db")
    _clear_caches()
    assert len(fast) > 9_000
    assert {r[10] for r in fast} >= {"same", "format", "partial", "different"}
    assert fast == whole
