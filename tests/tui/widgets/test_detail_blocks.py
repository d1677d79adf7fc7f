"""The detail's answer block on SQuAD 2.0 data: an unanswerable question says no answer is expected,
whether the model abstained, and its no-answer score."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from qa_inspect.core.load import load_runs
from qa_inspect.core.query import ItemDetail, item_detail
from qa_inspect.tui.widgets.detail_blocks import answers


@pytest.fixture(scope="module")
def squad_db(tmp_path_factory: pytest.TempPathFactory, shared_data: Path, conformance_dir: Path) -> Path:
    root = tmp_path_factory.mktemp("squad")
    (root / "runs" / "mixed").mkdir(parents=True)
    shutil.copy(shared_data / "squad2_dev_normans.json", root / "runs" / "squad2.json")
    for name in ("predictions", "null_odds"):
        shutil.copy(conformance_dir / "squad_runs" / f"v2_mixed_{name}.json", root / "runs" / "mixed")
    load_runs(root / "runs", root / "qa.db")
    return root / "qa.db"


def _detail(db: Path, answerable: str, abstained: bool) -> ItemDetail:
    with sqlite3.connect(db) as conn:
        run = conn.execute("SELECT name FROM runs").fetchone()[0]
        empty = "= ''" if abstained else "!= ''"
        item_id = conn.execute(
            f"SELECT i.id FROM items i JOIN predictions p ON p.item_id = i.id WHERE i.answerable = ? AND p.text {empty}"
            " LIMIT 1", (answerable,)).fetchone()[0]
        detail = item_detail(conn, item_id, run)
    assert detail is not None
    return detail


def test_an_unanswerable_question_says_no_answer_is_expected(squad_db: Path) -> None:
    text = answers(_detail(squad_db, "unanswerable", abstained=False), False, 100).plain
    assert "No answer expected" in text and "the model answered" in text and "no-answer score" in text
    assert "Golds" not in text, "no gold to list"
    text = answers(_detail(squad_db, "unanswerable", abstained=True), False, 100).plain
    assert "the model abstained" in text


def test_an_answerable_question_lists_its_golds(squad_db: Path) -> None:
    text = answers(_detail(squad_db, "answerable", abstained=False), False, 100).plain
    assert "No answer expected" not in text and "Golds" in text


def test_squad_predictions_are_explained_in_the_squad_metric_s_own_units(squad_db: Path) -> None:
    detail = _detail(squad_db, "answerable", abstained=False)
    assert detail.prediction is not None and detail.prediction.scorer == "squad-v2"
    text = answers(detail, False, 100).plain
    assert "normalised words in common (as a bag)" in text or "nothing in common" in text
    assert "contiguous segments" not in text
