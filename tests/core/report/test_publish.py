"""`core.report.publish`: the canned queries agree with the tool's own reports and journal views,
and a published copy holds the data without this machine's settings."""

from __future__ import annotations

import json
import math
import sqlite3
from pathlib import Path

import polars as pl
import pytest

from qa_inspect.core import flags, labels
from qa_inspect.core.errors import QAInspectError
from qa_inspect.core.query import error_expr
from qa_inspect.core.report import CANNED_QUERIES, item_frame, publish_database, publish_metadata, report
from qa_inspect.core.store import TABLE_DOCS, describe_schema, open_read_only, set_default_author
from tests.helpers import Env

pytestmark = pytest.mark.usefixtures("no_author_env")


def _rows(conn: sqlite3.Connection, name: str, **params: str) -> list[dict[str, object]]:
    cur = conn.execute(CANNED_QUERIES[name].sql, params)
    cols = [d[0] for d in cur.description]
    return [dict(zip(cols, r)) for r in cur.fetchall()]


def _runs(conn: sqlite3.Connection) -> list[tuple[str, str]]:
    return conn.execute("SELECT r.name, d.name FROM runs r JOIN datasets d ON d.id = r.dataset_id ORDER BY r.name").fetchall()


def _close(a: object, b: object) -> bool:
    if a is None or b is None or (isinstance(b, float) and math.isnan(b)):
        return a is None and (b is None or (isinstance(b, float) and math.isnan(b)))
    return abs(float(a) - float(b)) < 0.006  # type: ignore[arg-type]


def test_slice_metrics_agree_with_the_report(env: Env) -> None:
    for run, _ in _runs(env.conn):
        got = {(r["slice"], r["value"]): r for r in _rows(env.conn, "slice_metrics", run=run)}
        want = report(env.conn, runs=[run]).filter(pl.col("run") == run)
        assert len(got) == want.height, run
        for w in want.iter_rows(named=True):
            g = got[(w["slice"], w["value"])]
            assert (g["items"], g["predicted"], g["errors"]) == (w["items"], w["predicted"], w["errors"])
            for metric in ("em", "f1", "f1_recall", "answer_rate"):
                assert _close(g[metric], w[metric]), (run, w["slice"], w["value"], metric, g[metric], w[metric])


def test_a_right_b_wrong_follows_the_one_error_rule(env: Env) -> None:
    runs = _runs(env.conn)
    pairs = [(a, b) for a, da in runs for b, db in runs if a != b and da == db]
    frame = item_frame(env.conn, human=False).with_columns(error_expr().alias("error"))
    seen = 0
    for a, b in pairs:
        err = {run: dict(zip(part["item_key"], part["error"])) for run, part in
               ((r, frame.filter(pl.col("run") == r)) for r in (a, b))}
        want = sorted(k for k in err[a] if not err[a][k] and err[b][k])
        got = sorted(str(r["item_key"]) for r in _rows(env.conn, "a_right_b_wrong", run_a=a, run_b=b))
        assert got == want, (a, b)
        seen += len(got)
    assert seen > 0


def _golds(conn: sqlite3.Connection, n: int) -> list[tuple[str, str, str]]:
    return conn.execute(
        "SELECT d.name, i.key, g.text FROM golds g JOIN items i ON i.id = g.item_id JOIN datasets d"
        " ON d.id = i.dataset_id WHERE g.superseded = 0 ORDER BY d.name, i.key, g.idx LIMIT ?", (n,)).fetchall()


def test_stale_flags_with_proposals(env: Env) -> None:
    (d1, k1, g1), (d2, k2, g2), (d3, k3, g3) = _golds(env.conn, 3)
    flags.mark(env.conn, d1, k1, g1, proposed="新答案", evidence="https://example.org/a", author="ann")
    flags.mark(env.conn, d2, k2, g2, reason="outdated", author="ben")
    flags.mark(env.conn, d3, k3, g3, author="ann")
    flags.unmark(env.conn, d3, k3, g3, author="ann")
    rows = _rows(env.conn, "stale_flags")
    assert [(r["item_key"], r["gold"]) for r in rows] == [(k1, g1), (k2, g2)]  # with a proposal first
    assert (rows[0]["proposed"], rows[0]["evidence"], rows[0]["author"]) == ("新答案", "https://example.org/a", "ann")
    assert rows[1]["reason"] == "outdated"


def test_disagreements_from_the_journal(env: Env) -> None:
    (d1, k1, g1), (d2, k2, g2) = _golds(env.conn, 2)
    flags.mark(env.conn, d1, k1, g1, author="ann")
    flags.verify(env.conn, [flags.Target(d1, k1, g1)], author="ben")
    flags.mark(env.conn, d2, k2, g2, author="ann")
    flags.mark(env.conn, d2, k2, g2, author="ben")  # agree: not a disagreement
    run, dataset = _runs(env.conn)[0]
    key_a, key_b = env.conn.execute(
        "SELECT i.key FROM items i JOIN datasets d ON d.id = i.dataset_id WHERE d.name = ? ORDER BY i.key LIMIT 2",
        (dataset,)).fetchall()
    known = labels.label_set(env.conn)
    labels.add_labels(env.conn, run, [key_a[0]], [known[0]], author="ann")
    labels.add_labels(env.conn, run, [key_a[0]], [known[1]], author="ben")
    labels.add_labels(env.conn, run, [key_b[0]], [known[0]], author="ann")
    labels.add_labels(env.conn, run, [key_b[0]], [known[0]], author="ben")
    rows = _rows(env.conn, "disagreements")
    assert sorted((r["kind"], r["item_key"]) for r in rows) == sorted([("stale flag", k1), ("error labels", key_a[0])])
    by_kind = {r["kind"]: r for r in rows}
    assert by_kind["stale flag"]["judgements"] == "ann: stale; ben: still correct"
    assert by_kind["error labels"]["judgements"] == f"ann: {known[0]}; ben: {known[1]}"
    assert by_kind["error labels"]["run"] == run and by_kind["error labels"]["question"]


def test_metadata_describes_every_table_and_query() -> None:
    meta = publish_metadata("Runs")
    db = meta["databases"]["qa"]
    assert meta["title"] == "Runs"
    assert set(db["tables"]) == set(TABLE_DOCS)
    assert db["tables"]["items"]["columns"] == TABLE_DOCS["items"].columns
    assert db["tables"]["settings"]["hidden"] is True
    assert set(db["queries"]) == set(CANNED_QUERIES)
    assert CANNED_QUERIES["a_right_b_wrong"].params == ["run_a", "run_b"]
    assert CANNED_QUERIES["slice_metrics"].params == ["run"]


def test_publish_writes_a_copy_without_private_settings(env: Env, tmp_path: Path) -> None:
    set_default_author(env.conn, "Ann Example")
    out = publish_database(env.conn, tmp_path / "pub", title="Runs")
    assert out.db == tmp_path / "pub" / "qa.db" and out.command().startswith("datasette ")
    copy = sqlite3.connect(out.db)
    try:
        assert copy.execute("SELECT COUNT(*) FROM settings").fetchone() == (0,)
        assert copy.execute("PRAGMA journal_mode").fetchone() == ("delete",)
        assert copy.execute("SELECT COUNT(*) FROM predictions").fetchone() == \
            env.conn.execute("SELECT COUNT(*) FROM predictions").fetchone()
        assert {t.name for t in describe_schema(copy).tables} == set(TABLE_DOCS)
    finally:
        copy.close()
    assert json.loads(out.metadata.read_text(encoding="utf-8")) == publish_metadata("Runs")
    assert not list((tmp_path / "pub").glob(".*partial"))
    publish_database(env.conn, tmp_path / "pub")  # again, over the earlier copy


def test_publish_into_a_file_is_one_error(env: Env, tmp_path: Path) -> None:
    (tmp_path / "taken").write_text("x", encoding="utf-8")
    with pytest.raises(QAInspectError, match="taken: not a folder"):
        publish_database(env.conn, tmp_path / "taken")


def test_publish_from_a_read_only_connection(env: Env, tmp_path: Path) -> None:
    """What `publish` falls back on when the database cannot be opened for writing (`loaded_db`)."""
    conn = open_read_only(env.db)
    try:
        out = publish_database(conn, tmp_path / "pub")
        assert conn.execute("PRAGMA query_only").fetchone() == (1,)  # still read-only afterwards
    finally:
        conn.close()
    copy = sqlite3.connect(out.db)
    try:
        assert copy.execute("SELECT COUNT(*) FROM items").fetchone() == env.conn.execute("SELECT COUNT(*) FROM items").fetchone()
    finally:
        copy.close()
