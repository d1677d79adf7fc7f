"""Stale-answer journal (core.flags): marking, unmarking, undo/redo, bulk marking, conflicts, authors,
busy retries and metrics with stale golds excluded."""

from __future__ import annotations

import re
import sqlite3
import threading
import time

import pytest
from qa_inspect.core import flags as F
from qa_inspect.core.errors import StoreError, UnknownNameError
from qa_inspect.core.metrics.registry import score_prediction
from qa_inspect.core.query import targets_for_filter
from qa_inspect.core.report import (
    EXCLUDE_STALE,
    item_frame_excluding_stale,
    rescore_excluding_stale,
)
from qa_inspect.core.store import TIMEOUT_ENV

from tests.helpers import Env

CDQA = "cdqa_sample"
CMRC = "cmrc2018_dev_sample"
METRO_Q = "澜州市最近开通运营的地铁线路是几号线？"  # CDQA item, gold 6号线, no rewrite
PHONE_Q = "云帆科技最近发布的旗舰手机叫什么？"  # CDQA item rewritten: gold 云帆X10, original 云帆X9 superseded

pytestmark = pytest.mark.usefixtures("no_author_env")  # `env` (conftest): a loaded copy of sample_runs


def metro(conn: sqlite3.Connection) -> F.Target:
    ref = F.resolve_item(conn, METRO_Q)
    return F.Target(ref.dataset, ref.key, "6号线")


def state(conn: sqlite3.Connection) -> set[tuple[str, str, str, str | None]]:
    return {(f.dataset, f.item_key, f.gold_text, f.proposed) for f in F.current_flags(conn)}


# --- marking ----------------------------------------------------------------------------------


def test_mark_creates_one_complete_entry_and_a_stale_gold(env: Env) -> None:
    t = metro(env.conn)
    e = F.mark(env.conn, *_t(t), reason="line 7 opened", proposed="7号线", evidence="https://example.org/x", author="alice")
    assert re.fullmatch(r"[0-9a-f]{32}", e.uid)
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", e.ts)
    rows = env.conn.execute("SELECT action, author, dataset, item_key, gold_text, reason, proposed, evidence, uid FROM annotations").fetchall()
    assert rows == [("mark", "alice", CDQA, t.item_key, "6号线", "line 7 opened", "7号线", "https://example.org/x", e.uid)]
    [flag] = F.current_flags(env.conn)
    assert (flag.status, flag.gold_idxs, flag.proposed, flag.author) == ("open", (0,), "7号线", "alice")
    assert flag.question == METRO_Q and flag.tags["tag"] == "fast-changing"
    stale = env.conn.execute(f"SELECT item_id, idx, proposed FROM ({F.STALE_GOLDS_SQL})").fetchall()
    item_id = env.conn.execute("SELECT id FROM items WHERE key = ?", (t.item_key,)).fetchone()[0]
    assert stale == [(item_id, 0, "7号线")]
    assert not env.conn.in_transaction


def test_query_filters_see_flags(env: Env) -> None:
    from qa_inspect.core import query

    t = metro(env.conn)
    F.mark(env.conn, t.dataset, t.item_key, t.gold_text, proposed="7号线")
    assert query.count(env.conn, query.Filter(dataset=CDQA, stale=True)) == 1
    assert query.count(env.conn, query.Filter(dataset=CDQA, stale=False)) == 37
    assert query.count(env.conn, query.Filter(dataset=CDQA, has_proposal=True)) == 1


def test_unmark_clears_and_unflagged_unmark_is_an_error(env: Env) -> None:
    t = metro(env.conn)
    F.mark(env.conn, t.dataset, t.item_key, t.gold_text)
    F.unmark(env.conn, t.dataset, t.item_key, t.gold_text)
    assert F.current_flags(env.conn) == []
    assert env.conn.execute(f"SELECT COUNT(*) FROM ({F.STALE_GOLDS_SQL})").fetchone()[0] == 0
    with pytest.raises(F.FlagError, match="not flagged"):
        F.unmark(env.conn, t.dataset, t.item_key, t.gold_text)
    assert [e.action for e in F.journal(env.conn)] == ["mark", "unmark"]


def test_mark_refuses_what_is_not_there(env: Env) -> None:
    t = metro(env.conn)
    with pytest.raises(F.FlagError, match="no dataset"):
        F.mark(env.conn, "nope", t.item_key, t.gold_text)
    with pytest.raises(F.FlagError, match="no item"):
        F.mark(env.conn, CDQA, "q:0000", t.gold_text)
    with pytest.raises(F.FlagError, match="not among the golds"):
        F.mark(env.conn, CDQA, t.item_key, "8号线")
    phone = F.resolve_item(env.conn, PHONE_Q)
    with pytest.raises(F.FlagError, match="superseded"):
        F.mark(env.conn, CDQA, phone.key, "云帆X9")
    assert F.journal(env.conn) == []


def test_resolve_item_by_key_question_and_rewritten_question(env: Env) -> None:
    by_q = F.resolve_item(env.conn, PHONE_Q)
    assert F.resolve_item(env.conn, by_q.key).item_id == by_q.item_id
    assert F.resolve_item(env.conn, PHONE_Q.rstrip("？") + "?").item_id == by_q.item_id  # normalised like keys
    rewritten = env.conn.execute(
        "SELECT question, json_extract(meta, '$.original_question') FROM items WHERE json_extract(meta, '$.original_question') IS NOT NULL"
    ).fetchone()
    assert F.resolve_item(env.conn, rewritten[0]).item_id == F.resolve_item(env.conn, rewritten[1]).item_id
    assert F.resolve_item(env.conn, "DEV_4_QUERY_0").dataset == CMRC
    with pytest.raises(F.FlagError, match="no item 'DEV_4_QUERY_0' in dataset 'cdqa_sample'"):
        F.resolve_item(env.conn, "DEV_4_QUERY_0", CDQA)
    with pytest.raises(UnknownNameError, match="unknown dataset 'x'"):
        F.resolve_item(env.conn, "DEV_4_QUERY_0", "x")


def test_targets_for_item_gold_choice(env: Env) -> None:
    ref = F.resolve_item(env.conn, "DEV_4_QUERY_0")
    texts = ref.scored_texts()
    assert F.targets_for_item(env.conn, CMRC, "DEV_4_QUERY_0") == [F.Target(CMRC, "DEV_4_QUERY_0", t) for t in texts]
    assert F.targets_for_item(env.conn, CMRC, "DEV_4_QUERY_0", gold_idx=0)[0].gold_text == ref.golds[0][1]
    with pytest.raises(F.FlagError, match="out of range"):
        F.targets_for_item(env.conn, CMRC, "DEV_4_QUERY_0", gold_idx=len(ref.golds))
    with pytest.raises(F.FlagError, match="not among the golds"):
        F.targets_for_item(env.conn, CMRC, "DEV_4_QUERY_0", gold_text="no such answer")


# --- undo / redo ------------------------------------------------------------------------------


def test_undo_redo_repeatedly(env: Env) -> None:
    c = env.conn
    a = metro(c)
    b = F.Target(CMRC, "DEV_4_QUERY_0", F.resolve_item(c, "DEV_4_QUERY_0").golds[0][1])
    F.mark(c, *_t(a), proposed="7号线")
    s1 = state(c)
    F.mark(c, *_t(b), reason="r")
    s2 = state(c)
    F.unmark(c, *_t(a))
    s3 = state(c)
    assert [len(s) for s in (s1, s2, s3)] == [1, 2, 1]

    assert [e.action for e in F.undo(c)] == ["unmark"] and state(c) == s2
    assert [e.action for e in F.undo(c)] == ["mark"] and state(c) == s1
    assert [e.action for e in F.undo(c)] == ["mark"] and state(c) == set()
    assert F.undo(c) == []  # nothing left
    st = F.undo_state(c)
    assert (st.can_undo, st.can_redo, st.redo_steps) == (False, True, 3)

    assert F.redo(c)[0].gold_text == "6号线" and state(c) == s1
    assert F.redo(c)[0].target == b and state(c) == s2
    F.undo(c)
    assert state(c) == s1
    F.redo(c)
    F.redo(c)
    assert state(c) == s3
    assert F.redo(c) == []
    # nothing is ever deleted: every step is an entry
    actions = [e.action for e in F.journal(c)]
    assert actions.count("undo") == 4 and len(actions) == 3 + 4 + 4


def test_new_action_clears_redo(env: Env) -> None:
    c = env.conn
    a = metro(c)
    F.mark(c, *_t(a))
    F.undo(c)
    assert F.undo_state(c).can_redo
    F.mark(c, *_t(a), proposed="7号线")
    assert not F.undo_state(c).can_redo
    assert F.redo(c) == []


def test_undo_is_per_author(env: Env) -> None:
    c = env.conn
    a = metro(c)
    b = F.Target(CMRC, "DEV_4_QUERY_0", F.resolve_item(c, "DEV_4_QUERY_0").golds[0][1])
    F.mark(c, *_t(a), author="alice")
    F.mark(c, *_t(b), author="bob")
    undone = F.undo(c, "alice")
    assert [e.target for e in undone] == [a]
    assert {f.target for f in F.current_flags(c)} == {b}
    assert F.undo(c, "alice") == []
    assert F.undo_state(c, "bob").next_undo[0].target == b


def test_undo_restores_a_replaced_proposal(env: Env) -> None:
    c = env.conn
    a = metro(c)
    F.mark(c, *_t(a), proposed="7号线")
    F.mark(c, *_t(a), proposed="8号线")  # editing one's own proposal replaces it
    [flag] = F.current_flags(c)
    assert [p.proposed for p in flag.proposals] == ["8号线"] and not flag.conflict
    F.undo(c)
    [flag] = F.current_flags(c)
    assert flag.proposed == "7号线" and len(flag.proposals) == 1


# --- bulk -------------------------------------------------------------------------------------


def test_bulk_mark_is_one_transaction_and_one_undo_step(env: Env) -> None:
    c = env.conn
    ids = [r[0] for r in c.execute("SELECT i.id FROM items i JOIN datasets d ON d.id = i.dataset_id WHERE d.name = ? ORDER BY i.id LIMIT 12", (CMRC,))]
    targets = F.targets_for_items(c, ids)
    assert len(targets) >= 12 and len(set(targets)) == len(targets)
    entries = F.bulk_mark(c, targets, reason="season ended")
    assert len(entries) == len(targets)
    assert len({e.meta["batch"] for e in entries}) == 1
    stale_items = c.execute(f"SELECT COUNT(DISTINCT item_id) FROM ({F.STALE_GOLDS_SQL})").fetchone()[0]
    assert stale_items == 12
    assert F.undo_state(c).describe() == f"mark {len(targets)} golds"
    assert len(F.undo(c)) == len(targets)
    assert F.current_flags(c) == []
    assert len(F.redo(c)) == len(targets)
    assert len(F.current_flags(c)) == len(targets)


def test_bulk_mark_leaves_existing_proposals_alone(env: Env) -> None:
    c = env.conn
    a = metro(c)
    F.mark(c, *_t(a), proposed="7号线")
    ids = [r[0] for r in c.execute("SELECT i.id FROM items i JOIN datasets d ON d.id = i.dataset_id WHERE d.name = ? ORDER BY i.id LIMIT 5", (CDQA,))]
    entries = F.bulk_mark(c, F.targets_for_items(c, ids), reason="bulk")
    assert a not in {e.target for e in entries} and len(entries) == 4
    assert next(f for f in F.current_flags(c) if f.target == a).proposed == "7号线"
    assert F.bulk_unmark(c, F.targets_for_items(c, ids))
    assert F.current_flags(c) == []


def test_targets_for_filter(env: Env) -> None:
    from qa_inspect.core import query

    targets = targets_for_filter(env.conn, query.Filter(dataset=CDQA, tags=("fast-changing",)))
    expected = env.conn.execute(
        "SELECT COUNT(*) FROM items i JOIN datasets d ON d.id = i.dataset_id WHERE d.name = ? AND i.tag = 'fast-changing'", (CDQA,)
    ).fetchone()[0]
    assert len({(t.dataset, t.item_key) for t in targets}) == expected > 0


# --- conflicts, ordering, authors ----------------------------------------------------------------


def test_two_annotators_proposals_are_both_kept(env: Env) -> None:
    c = env.conn
    a = metro(c)
    F.mark(c, *_t(a), proposed="7号线", author="alice")
    F.mark(c, *_t(a), proposed="8号线", author="bob")
    [flag] = F.current_flags(c)
    assert flag.conflict and [p.proposed for p in flag.proposals] == ["7号线", "8号线"]
    assert flag.proposed == "8号线"  # the deciding (latest) mark
    assert c.execute(f"SELECT COUNT(*) FROM ({F.STALE_GOLDS_SQL})").fetchone()[0] == 1  # one row per gold
    F.unmark(c, *_t(a), author="carol")
    assert F.current_flags(c) == []


def test_latest_by_time_decides_whatever_the_arrival_order(env: Env) -> None:
    c = env.conn
    a = metro(c)

    def put(action: str, ts: str) -> None:
        F.append(c, action, *_t(a), author="x", ts=ts)

    put("unmark", "2030-01-02T00:00:00.000Z")  # arrives first, happened later
    put("mark", "2030-01-01T00:00:00.000Z")
    assert F.current_flags(c) == []
    assert c.execute(f"SELECT action FROM ({F.CURRENT_FLAGS_SQL})").fetchall() == [("unmark",)]


def test_author_resolution(env: Env, monkeypatch: pytest.MonkeyPatch) -> None:
    c = env.conn
    assert F.author_for(c) == F.default_author()
    F.set_default_author(c, "Zhang San")
    assert F.author_for(c) == "Zhang San"
    assert F.mark(c, *_t(metro(c))).author == "Zhang San"
    monkeypatch.setenv(F.AUTHOR_ENV, "env-name")
    assert F.author_for(c) == "env-name"
    assert F.author_for(c, "explicit") == "explicit"
    monkeypatch.delenv(F.AUTHOR_ENV)
    F.set_default_author(c, None)
    assert F.author_for(c) == F.default_author()


# --- busy database ----------------------------------------------------------------------------


def test_busy_database_retries_then_writes(env: Env) -> None:
    other = sqlite3.connect(env.db, isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")
    other.execute("INSERT INTO settings (key, value) VALUES ('held', 'x')")
    messages: list[str] = []
    timer = threading.Timer(0.6, lambda: other.execute("COMMIT"))
    timer.start()
    try:
        t = metro(env.conn)
        e = F.mark(env.conn, *_t(t), on_busy=messages.append)
    finally:
        timer.join()
        other.close()
    assert messages and "busy" in messages[0] and "retrying" in messages[0]
    assert [x.uid for x in F.journal(env.conn)] == [e.uid]
    assert F.get_setting(env.conn, "held") == "x"  # the other writer's transaction is intact too


def test_busy_past_the_deadline_writes_nothing(env: Env, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TIMEOUT_ENV, "0.4")
    other = sqlite3.connect(env.db, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        start = time.monotonic()
        with pytest.raises(StoreError, match="busy.*nothing was recorded"):
            F.mark(env.conn, *_t(metro(env.conn)))
        assert time.monotonic() - start < 3
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert F.journal(env.conn) == []
    assert F.mark(env.conn, *_t(metro(env.conn)))  # and the connection still works


# --- metrics with stale golds excluded ---------------------------------------------------------


def test_rescore_excluding_stale(env: Env) -> None:
    c = env.conn
    run = "bert-base-chinese"
    # an item with two different gold texts where the run's answer equals one of them
    rows = c.execute(
        "SELECT i.key, p.text, p.scorer FROM predictions p JOIN runs r ON r.id = p.run_id JOIN items i ON i.id = p.item_id"
        " WHERE r.name = ? AND p.em = 1 ORDER BY i.id", (run,)
    ).fetchall()
    picked = None
    for key, pred, scorer in rows:
        texts = F.resolve_item(c, key, CMRC).scored_texts()
        if len(texts) >= 2 and pred in texts:
            picked = (key, pred, scorer, texts)
            break
    assert picked is not None
    key, pred, scorer, texts = picked
    full = next(k for k, _, _ in rows if k != key)  # an item whose every gold goes stale

    before = rescore_excluding_stale(c, run)
    assert before.all_golds == before.excluding_stale and before.stale_golds == 0
    F.mark(c, CMRC, key, pred)
    F.bulk_mark(c, F.targets_for_item(c, CMRC, full))
    after = rescore_excluding_stale(c, run)
    assert after.mode == EXCLUDE_STALE == "stale golds excluded"
    assert after.all_golds == before.all_golds
    assert after.items_dropped == 1 and after.items_rescored == 1
    assert after.excluding_stale["items"] == before.all_golds["items"] - 1

    frame = item_frame_excluding_stale(c, [run], human=False)
    assert set(frame["mode"].unique()) == {EXCLUDE_STALE}
    assert frame.filter(frame["item_key"] == full).height == 0
    row = frame.filter(frame["item_key"] == key).to_dicts()[0]
    expected = score_prediction(scorer, pred, [t for t in _all_golds(c, key) if t != pred])
    assert (row["em"], row["f1"]) == (float(expected.em), expected.f1)
    assert row["stale_golds"] == 1
    # same frame shape as core.report, so its slice table aggregates it
    from qa_inspect.core.report import item_frame, slice_table

    assert set(item_frame(c, [run]).columns) <= set(frame.columns)
    assert slice_table(frame.drop("stale_golds", "mode"), "split").height >= 1


def _all_golds(c: sqlite3.Connection, key: str) -> list[str]:
    return [t for (t,) in c.execute(
        "SELECT g.text FROM golds g JOIN items i ON i.id = g.item_id JOIN datasets d ON d.id = i.dataset_id"
        " WHERE d.name = ? AND i.key = ? AND g.superseded = 0 ORDER BY g.idx", (CMRC, key))]


def _t(t: F.Target) -> tuple[str, str, str]:
    return t.dataset, t.item_key, t.gold_text


def test_a_local_action_wins_over_an_entry_from_a_clock_ahead(env: Env) -> None:
    c = env.conn
    a = metro(c)
    F.append(c, "mark", *_t(a), author="bob", proposed="7号线", ts="2099-01-01T00:00:00.000Z",
             meta={"imported_from": "bob.jsonl"})
    assert F.current_flags(c)[0].proposed == "7号线"
    e = F.unmark(c, *_t(a))
    assert e.ts == "2099-01-01T00:00:00.001Z"
    assert F.current_flags(c) == []
    F.undo(c)
    assert F.current_flags(c)[0].author == "bob"


def test_undo_redo_agree_with_a_snapshot_model(env: Env) -> None:
    """Random mark/unmark/bulk/undo/redo sequences (seeded) against the textbook undo model."""
    import random

    c = env.conn
    rng = random.Random(5)
    ids = [r[0] for r in c.execute("SELECT id FROM items ORDER BY id LIMIT 6")]
    pool = F.targets_for_items(c, ids)
    history: list[dict[F.Target, str | None]] = [{}]
    pos = 0

    def act(new: dict[F.Target, str | None]) -> None:
        nonlocal history, pos
        history = history[: pos + 1] + [new]
        pos += 1

    for _ in range(150):
        now = history[pos]
        op = rng.choice(["mark", "mark", "unmark", "bulk", "bulk_unmark", "undo", "undo", "redo"])
        t = rng.choice(pool)
        if op == "mark":
            p = rng.choice([None, "a", "b"])
            F.mark(c, *_t(t), proposed=p)
            act({**now, t: p})
        elif op == "unmark" and t in now:
            F.unmark(c, *_t(t))
            act({k: v for k, v in now.items() if k != t})
        elif op == "bulk":
            chosen = rng.sample(pool, 3)
            if F.bulk_mark(c, chosen, proposed="bulk"):
                act({**now, **{x: "bulk" for x in chosen if x not in now}})
        elif op == "bulk_unmark":
            chosen = rng.sample(pool, 3)
            if F.bulk_unmark(c, chosen):
                act({k: v for k, v in now.items() if k not in chosen})
        elif op == "undo":
            assert bool(F.undo(c)) == (pos > 0)
            pos = max(0, pos - 1)
        elif op == "redo":
            assert bool(F.redo(c)) == (pos < len(history) - 1)
            pos = min(len(history) - 1, pos + 1)
        got = {f.target: f.proposed for f in F.current_flags(c)}
        assert got == history[pos], op
        st = F.undo_state(c)
        assert (st.undo_steps, st.redo_steps) == (pos, len(history) - 1 - pos)
