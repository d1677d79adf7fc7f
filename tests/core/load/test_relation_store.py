"""The answer's relation to its golds (`predictions.relation`), stored at ingest as the pure
function gives it, and filled into a database of the previous schema keeping every annotation."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from qa_inspect.core import flags
from qa_inspect.core.load import load_runs
from qa_inspect.core.metrics import RELATIONS, relation
from qa_inspect.core.store import SCHEMA_VERSION, open_db
from tests.helpers import Env, drop_column

pytestmark = pytest.mark.usefixtures("no_author_env")

_ROWS = """
SELECT p.text, p.em, p.relation, COALESCE(r.scorer, d.scorer), p.item_id FROM predictions p
JOIN runs r ON r.id = p.run_id JOIN datasets d ON d.id = r.dataset_id ORDER BY p.id
"""


def _golds(conn: sqlite3.Connection, item_id: int, superseded: int) -> list[str]:
    return [t for (t,) in conn.execute("SELECT text FROM golds WHERE item_id = ? AND superseded = ? ORDER BY idx",
                                       (item_id, superseded))]


def test_every_prediction_has_the_relation_the_function_gives(env: Env) -> None:
    rows = env.conn.execute(_ROWS).fetchall()
    assert rows and all(r[2] in RELATIONS for r in rows)
    for text, em, stored, scorer, item_id in rows:
        if em == 1:
            assert stored == "same"
            continue
        eq = relation(text, _golds(env.conn, item_id, 0), scorer=scorer, superseded=_golds(env.conn, item_id, 1))
        assert stored == eq.relation.value, text


def test_an_answer_equal_to_a_replaced_gold_is_stored_as_superseded(env: Env) -> None:
    rows = env.conn.execute(
        "SELECT p.text, g.text FROM predictions p JOIN golds g ON g.item_id = p.item_id AND g.superseded = 1"
        " WHERE p.relation = 'superseded'").fetchall()
    assert rows, "the sample holds an answer equal to a superseded gold"
    assert all(relation(a, [], scorer=None, superseded=[g]).relation.value == "superseded" for a, g in rows)


def _make_version_11(db: Path) -> None:
    """The database as schema 11 left it: no relation column nor superseded-golds index."""
    conn = sqlite3.connect(db)
    conn.execute("DROP INDEX golds_superseded")
    drop_column(conn, "predictions", "relation")
    conn.execute("PRAGMA user_version = 11")
    conn.commit()
    conn.close()


def test_a_version_11_database_upgrades_keeping_every_annotation(env: Env) -> None:
    item, gold = env.conn.execute(
        "SELECT i.key, g.text FROM items i JOIN golds g ON g.item_id = i.id JOIN datasets d ON d.id = i.dataset_id"
        " WHERE d.name = 'cdqa_sample' AND g.superseded = 0 LIMIT 1").fetchone()
    flags.mark(env.conn, "cdqa_sample", item, gold, proposed="新答案", author="ann")
    want_annotations = env.conn.execute("SELECT * FROM annotations ORDER BY id").fetchall()
    want = env.conn.execute("SELECT id, relation, em, f1, f1_recall, error_category FROM predictions ORDER BY id").fetchall()
    env.conn.close()
    _make_version_11(env.db)
    conn = open_db(env.db).conn
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert conn.execute("SELECT COUNT(*) FROM predictions WHERE relation IS NOT NULL").fetchone()[0] == 0
    conn.close()
    summary = load_runs(env.runs, env.db)
    assert not summary.errors
    env.conn = open_db(env.db).conn  # the fixture closes it
    assert env.conn.execute("SELECT * FROM annotations ORDER BY id").fetchall() == want_annotations
    got = env.conn.execute("SELECT id, relation, em, f1, f1_recall, error_category FROM predictions ORDER BY id").fetchall()
    assert got == want  # relations filled in; official scores and categories untouched
