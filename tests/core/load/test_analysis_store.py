"""Error categories and item features stored at ingest, and filled into older databases."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from qa_inspect.core.load import load_runs
from qa_inspect.core.load.backfill import fill_missing
from qa_inspect.core.store import FEATURE_COLUMNS
from qa_inspect.core.metrics import CATEGORY_CODES, question_features
from qa_inspect.core.store import SCHEMA_VERSION, open_db
from tests.helpers import Env, drop_column

CATEGORY_SQL = ("SELECT p.error_category FROM predictions p JOIN runs r ON r.id = p.run_id JOIN items i"
                " ON i.id = p.item_id WHERE r.name = ? AND i.key = ?")


def _snapshot(conn: sqlite3.Connection) -> tuple[list[tuple], list[tuple]]:
    cats = conn.execute("SELECT run_id, item_id, error_category, em, f1, f1_recall FROM predictions ORDER BY id").fetchall()
    feats = conn.execute(f"SELECT id, {', '.join(FEATURE_COLUMNS)} FROM items ORDER BY id").fetchall()
    return cats, feats


def test_every_prediction_gets_one_category_and_exact_iff_em(env: Env) -> None:
    rows = env.conn.execute("SELECT em, error_category, scorer FROM predictions").fetchall()
    assert rows and all(cat in CATEGORY_CODES for _, cat, _ in rows)
    span = [(em, cat) for em, cat, scorer in rows if scorer != "cdqa-f1-recall"]
    assert all((em == 1) == (cat == "exact") for em, cat in span)


def test_categories_of_sample_predictions(env: Env) -> None:
    """Values a person checked against the sample files (prediction, gold, passage)."""
    expected = {
        ("glm-6b", "q:b008f66770c575a2"): "refused",  # 抱歉，作为一个语言模型，我无法获取实时新闻。
        ("glm-6b", "q:e0b07e5df3864858"): "verbose-contains-gold",  # 滨江市最近获得了…举办权。 (gold 滨江市)
        ("glm-6b", "q:16799a8037c05802"): "partial",  # 答案是第58届。 (gold 第59届; 第58届 superseded)
        ("glm-6b", "q:a0eb4ac77fcdba47"): "wrong",  # 答案是4号线。 (gold 6号线)
    }
    for (run, key), code in expected.items():
        assert env.conn.execute(CATEGORY_SQL, (run, key)).fetchone()[0] == code, (run, key)
    counts = dict(env.conn.execute(
        "SELECT p.error_category, COUNT(*) FROM predictions p JOIN runs r ON r.id = p.run_id"
        " WHERE r.name = 'bert-base-chinese' GROUP BY 1"
    ).fetchall())
    # format-only: WANIBOOKS, and (a 第 or a measure word dropped: `core.metrics.equivalence`) 三, 三十 for 第三, 三十条
    assert counts == {"exact": 87, "boundary-long": 25, "boundary-short": 13, "wrong-span-same-sentence": 14,
                      "wrong-span-other-sentence": 8, "format-only": 3}


def test_item_features_are_those_of_the_pure_function(env: Env) -> None:
    rows = env.conn.execute(
        f"SELECT i.id, i.question, c.text, {', '.join(FEATURE_COLUMNS)} FROM items i"
        " LEFT JOIN contexts c ON c.id = i.context_id ORDER BY i.id"
    ).fetchall()
    assert rows and all(r[3] is not None for r in rows)
    for item_id, question, passage, *stored in rows[::7]:
        golds = env.conn.execute("SELECT text, span_start, span_end FROM golds WHERE item_id = ? AND superseded = 0"
                                 " ORDER BY idx", (item_id,)).fetchall()
        f = question_features(question, [g[0] for g in golds], passage,
                              gold_spans=[(g[1], g[2]) if g[1] is not None else None for g in golds])
        cross = None if f.cross_sentence is None else int(f.cross_sentence)
        assert stored == [f.question_type, f.gold_length, f.passage_length, f.answer_position, f.gold_count,
                          f.gold_agreement, cross, f.question_overlap]


def _make_old(db: Path) -> None:
    """The database as schema 6 left it: no category or feature columns (nor label columns, schema 8)."""
    conn = sqlite3.connect(db)
    for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'").fetchall():
        conn.execute(f"DROP TRIGGER {name}")  # schema 17's, which read the label columns
    conn.execute("DROP TABLE current_labels")
    conn.execute("DROP TABLE label_sets")
    conn.execute("DROP INDEX annotations_label")
    for column in ("run", "label", "label_source"):
        conn.execute(f"ALTER TABLE annotations DROP COLUMN {column}")
    conn.execute("DROP INDEX items_question_type")
    conn.execute("DROP INDEX predictions_scores")
    conn.execute("CREATE INDEX predictions_scores ON predictions(run_id, item_id, em, f1, f1_recall, refused)")
    drop_column(conn, "predictions", "error_category")
    for column in FEATURE_COLUMNS:
        drop_column(conn, "items", column)
    conn.execute("PRAGMA user_version = 6")
    conn.commit()
    conn.close()


def test_an_older_database_is_migrated_and_filled_on_the_next_load(env: Env) -> None:
    want = _snapshot(env.conn)
    env.conn.close()
    _make_old(env.db)
    conn = open_db(env.db).conn
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert conn.execute("SELECT COUNT(*) FROM predictions WHERE error_category IS NOT NULL").fetchone()[0] == 0
    conn.close()
    summary = load_runs(env.runs, env.db)
    assert not summary.errors and all(r.status == "unchanged" for r in summary.runs)
    conn = sqlite3.connect(env.db)
    assert _snapshot(conn) == want
    conn.close()
    env.conn = open_db(env.db).conn  # the fixture closes it


def test_backfill_in_steps_resumes_where_it_stopped(env: Env) -> None:
    want = _snapshot(env.conn)
    env.conn.execute("UPDATE predictions SET error_category = NULL WHERE id % 3 = 0")
    env.conn.execute("UPDATE items SET question_type = NULL WHERE id % 2 = 0")
    missing = env.conn.execute("SELECT COUNT(*) FROM predictions WHERE error_category IS NULL").fetchone()[0]
    assert fill_missing(env.conn) == (0, 0)  # settings say nothing is missing: no look
    items, predictions = fill_missing(env.conn, step=7, force=True)
    assert predictions == missing and items > 0
    assert _snapshot(env.conn) == want
    assert fill_missing(env.conn, force=True) == (0, 0)  # nothing left: nothing done


def test_a_missing_relation_alone_is_found_and_filled(env: Env) -> None:
    """Each of the two columns is looked for down its own index: a run whose rows lack only the
    relation is filled too."""
    rows = "SELECT id, relation, error_category FROM predictions ORDER BY id"
    want = env.conn.execute(rows).fetchall()
    env.conn.execute("UPDATE predictions SET relation = NULL WHERE id = (SELECT MAX(id) FROM predictions)")
    env.conn.commit()
    items, predictions = fill_missing(env.conn, force=True)
    assert (items, predictions) == (0, 1)
    assert env.conn.execute(rows).fetchall() == want


def test_a_changed_gold_recomputes_the_category(env: Env) -> None:
    """verbose-contains-gold while the gold is 滨江市; the whole answer once the gold is the sentence."""
    key = "q:e0b07e5df3864858"
    path = next(env.runs.rglob("cdqa_sample.json"))
    text = path.read_text(encoding="utf-8")
    assert "滨江市" in text
    path.write_text(text.replace("答案: 滨江市", "答案: 滨江市最近获得了2027年全国青年运动会的举办权"), encoding="utf-8")
    env.reload()
    assert env.conn.execute(CATEGORY_SQL, ("glm-6b", key)).fetchone()[0] == "exact"  # the gold, with 。


def test_a_changed_passage_recomputes_the_category(env: Env) -> None:
    """Same golds, a passage without the prediction in it: the category follows the passage."""
    row = env.conn.execute(
        "SELECT i.key, p.text, c.text FROM predictions p JOIN runs r ON r.id = p.run_id JOIN items i"
        " ON i.id = p.item_id JOIN contexts c ON c.id = i.context_id WHERE r.name = 'bert-base-chinese'"
        " AND p.error_category = 'boundary-long' ORDER BY i.id LIMIT 1").fetchone()
    key, prediction, passage = row
    path = next(env.runs.rglob("cmrc2018_dev_sample.json"))
    text = path.read_text(encoding="utf-8")
    assert text.count(passage) >= 1
    gold = env.conn.execute("SELECT g.text FROM golds g JOIN items i ON i.id = g.item_id WHERE i.key = ?"
                            " ORDER BY g.idx LIMIT 1", (key,)).fetchone()[0]
    extra = prediction.replace(gold, "", 1)
    assert extra and extra in passage
    # the prediction's text no longer occurs in the passage (the gold still does)
    path.write_text(text.replace(passage, passage.replace(prediction, gold + "～" + gold)), encoding="utf-8")
    env.reload()
    got = env.conn.execute(CATEGORY_SQL, ("bert-base-chinese", key)).fetchone()[0]
    assert got != "boundary-long"
