"""Judge calibration: κ and confusion against hand verdicts (labels, accepted aliases) and the
official score, checked against sklearn's κ on the same pairs."""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path

import pytest
from sklearn.metrics import cohen_kappa_score

from qa_inspect.core.labels import add_labels
from qa_inspect.core.load import load_runs
from qa_inspect.core.report import hand_verdicts, judge_agreement
from qa_inspect.core.store import open_db
from tests.judge_data import RUN, judge_folder

pytestmark = pytest.mark.usefixtures("no_author_env")
DATASET = "cmrc_mini_dev"
LABELS = ["correct", "incorrect", "partial", "paraphrase", "hallucination", "format"]


@pytest.fixture
def conn(tmp_path: Path) -> Iterator[object]:
    runs = judge_folder(tmp_path)
    load_runs(runs, tmp_path / "qa.db")
    db = open_db(tmp_path / "qa.db").conn
    add_labels(db, RUN, ["MINI_DEV_0_QUERY_0"], ["correct"], known=LABELS)
    add_labels(db, RUN, ["MINI_DEV_0_QUERY_1"], ["hallucination"], known=LABELS)
    add_labels(db, RUN, ["MINI_DEV_0_QUERY_2"], ["format"], known=LABELS)  # says why, not whether
    add_labels(db, RUN, ["MINI_DEV_1_QUERY_2"], ["incorrect", "paraphrase"], known=LABELS)  # they disagree: none
    # The run's answer 春潮 accepted as an alias of its item (a journal `alias` entry).
    db.execute("INSERT INTO annotations (ts, author, action, dataset, item_key, gold_text, uid, run)"
               " VALUES ('2026-01-01T00:00:00Z', 'ann', 'alias', ?, 'MINI_DEV_1_QUERY_1', '春潮', 'a1', ?)", (DATASET, RUN))
    yield db
    db.close()


def test_hand_verdicts_from_labels_and_aliases(conn: object) -> None:
    assert hand_verdicts(conn, RUN, DATASET) == {  # type: ignore[arg-type]
        "MINI_DEV_0_QUERY_0": "correct", "MINI_DEV_0_QUERY_1": "incorrect", "MINI_DEV_1_QUERY_1": "correct"}


def test_kappa_against_hand_and_official_equals_sklearn(conn: object) -> None:
    found = {a.judge: a for a in judge_agreement(conn, run=RUN, resamples=300)}  # type: ignore[arg-type]
    graded = found["model_graded_fact"]
    assert graded.verdicts == 6 and graded.counts == {"correct": 3, "incorrect": 2, "partial": 1}
    hand = graded.hand
    assert hand is not None
    judge_says = ["correct", "incorrect", "partial"]  # Q0_0 C, Q0_1 I, Q1_1 P (item order)
    people_say = ["correct", "incorrect", "correct"]
    assert (hand.items, hand.agree) == (3, 2)
    assert hand.kappa is not None and math.isclose(hand.kappa, cohen_kappa_score(judge_says, people_say))
    assert hand.disagreeing.keys == ("MINI_DEV_1_QUERY_1",) and hand.disagreeing.run == RUN
    assert hand.confusion == [[1, 0, 0], [0, 1, 0], [1, 0, 0]]
    official = graded.official
    assert official is not None and official.items == 6
    judge_right = ["right" if v == "correct" else "wrong" for v in ("correct", "incorrect", "correct", "correct", "partial", "incorrect")]
    rows = conn.execute(  # type: ignore[attr-defined]
        "SELECT p.f1 FROM predictions p JOIN items i ON i.id = p.item_id ORDER BY i.id").fetchall()
    official_right = ["right" if f1 >= 0.5 else "wrong" for (f1,) in rows]
    assert official.kappa is not None and math.isclose(official.kappa, cohen_kappa_score(judge_right, official_right))
    assert official.low is not None and official.high is not None and official.low <= official.high


def test_one_judge_and_a_judge_without_hand_cover(conn: object) -> None:
    only = judge_agreement(conn, judge="includes", resamples=100)  # type: ignore[arg-type]
    assert [a.judge for a in only] == ["includes"]
    conn.execute("DELETE FROM annotations")  # type: ignore[attr-defined]
    bare = judge_agreement(conn, judge="includes", resamples=100)  # type: ignore[arg-type]
    assert bare[0].hand is None and bare[0].official is not None
