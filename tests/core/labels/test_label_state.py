"""The stored labels on now (`current_labels`, `label_sets`: `core.store.label_state`) stay what
the journal says (`CURRENT_LABELS_SQL`) after any sequence of label, unlabel, undo, redo and merges
of a teammate's journal file, and after writes the label actions never make (a rebinding's update,
a delete); a rebuild from the journal gives the same tables."""

from __future__ import annotations

import io
import sqlite3
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from qa_inspect.core import flags as F
from qa_inspect.core import labels as L
from qa_inspect.core.store import CURRENT_LABELS_SQL, rebuild_label_state, write_transaction
from tests.helpers import Env, loaded_env

RUN, DS = "bert-base-chinese", "cmrc2018_dev_sample"
KEYS = ("DEV_1010_QUERY_0", "DEV_1010_QUERY_1", "DEV_1010_QUERY_2")
LABELS = ("format", "paraphrase", "gold-wrong")

pytestmark = pytest.mark.usefixtures("no_author_env")

Stored = tuple[list[tuple[str, str, str, str, int]], list[tuple[str, str, str, str]]]


def stored(conn: sqlite3.Connection) -> Stored:
    return (sorted(conn.execute("SELECT run, dataset, item_key, label, entry_id FROM current_labels")),
            sorted(conn.execute("SELECT run, dataset, item_key, labels FROM label_sets")))


def derived(conn: sqlite3.Connection) -> Stored:
    """The tables as the journal says they should be: the rule over the whole journal, and each
    (run, item)'s labels sorted and joined as the label column shows them."""
    on = sorted(conn.execute(f"SELECT run, dataset, item_key, label, id FROM ({CURRENT_LABELS_SQL})"))
    sets: dict[tuple[str, str, str], list[str]] = {}
    for run, ds, key, label, _ in on:
        sets.setdefault((run, ds, key), []).append(label)
    return on, sorted((*k, ", ".join(sorted(v))) for k, v in sets.items())


def assert_in_step(conn: sqlite3.Connection) -> None:
    now = stored(conn)
    assert now == derived(conn)
    write_transaction(conn, rebuild_label_state)
    assert stored(conn) == now


def _merge(source: Env, dest: Env, tmp: Path) -> None:
    buf = io.StringIO()
    L.export_labels(source.conn, buf)
    path = tmp / "labels.jsonl"
    path.write_text(buf.getvalue(), encoding="utf-8")
    L.import_labels(dest.conn, path)


_STEP = st.one_of(
    st.tuples(st.sampled_from(("add", "remove", "set")), st.sampled_from(("alice", "bob")),
              st.lists(st.sampled_from(KEYS), min_size=1, max_size=3, unique=True),
              st.lists(st.sampled_from(LABELS), min_size=0, max_size=2, unique=True)),
    st.tuples(st.sampled_from(("undo", "redo")), st.sampled_from(("alice", "bob"))),
    st.tuples(st.sampled_from(("merge",))),
)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=st.lists(_STEP, min_size=1, max_size=12))
def test_any_sequence_keeps_the_stored_labels_in_step(loaded_template: Path, tmp_path_factory: pytest.TempPathFactory,
                                                      steps: list[tuple[object, ...]]) -> None:
    """Alice labels in her database, Bob in his; a merge takes Bob's journal file into Alice's."""
    root = tmp_path_factory.mktemp("labels")
    with loaded_env(loaded_template, root / "alice") as alice, loaded_env(loaded_template, root / "bob") as bob:
        envs = {"alice": alice, "bob": bob}
        for step in steps:
            if step[0] == "merge":
                _merge(bob, alice, root)
                continue
            env = envs[str(step[1])]
            if step[0] in ("undo", "redo"):
                (F.undo if step[0] == "undo" else F.redo)(env.conn, str(step[1]))
            else:
                action, who, keys, labels = step
                change = {"add": L.add_labels, "remove": L.remove_labels, "set": L.set_labels}[str(action)]
                change(env.conn, RUN, list(keys), list(labels), author=str(who))  # type: ignore[call-overload]
            assert_in_step(env.conn)
        assert_in_step(alice.conn)
        assert_in_step(bob.conn)


def test_writes_beside_the_label_actions_keep_them_in_step(env: Env) -> None:
    """A rebinding renames the dataset of entries; an undone entry's undo can be deleted (an
    import that is not committed); an undo's target can be set later (an import's `ref`)."""
    c = env.conn
    L.add_labels(c, RUN, KEYS[:2], ["format"], author="ann")
    L.add_labels(c, RUN, KEYS[:1], ["paraphrase"], author="ann")
    F.undo(c, "ann")
    assert L.current_labels(c, label="paraphrase") == []
    assert_in_step(c)
    c.execute("UPDATE annotations SET dataset = 'renamed' WHERE dataset = ? AND item_key = ?", (DS, KEYS[1]))
    assert [(lab.dataset, lab.item_key) for lab in L.current_labels(c, label="format")] == [
        (DS, KEYS[0]), ("renamed", KEYS[1])]
    assert_in_step(c)
    (undo_id, target) = c.execute("SELECT id, ref FROM annotations WHERE action = 'undo'").fetchone()
    c.execute("UPDATE annotations SET ref = NULL WHERE id = ?", (undo_id,))
    assert [lab.label for lab in L.current_labels(c, item_key=KEYS[0])] == ["format", "paraphrase"]
    assert_in_step(c)
    c.execute("UPDATE annotations SET ref = ? WHERE id = ?", (target, undo_id))
    assert [lab.label for lab in L.current_labels(c, item_key=KEYS[0])] == ["format"]
    c.execute("DELETE FROM annotations WHERE id = ?", (undo_id,))
    assert [lab.label for lab in L.current_labels(c, item_key=KEYS[0])] == ["format", "paraphrase"]
    assert_in_step(c)
    c.execute("DELETE FROM annotations WHERE id = ?", (target,))
    assert_in_step(c)
    assert c.execute("SELECT labels FROM label_sets WHERE item_key = ?", (KEYS[0],)).fetchall() == [("format",)]


def test_a_tie_in_time_goes_to_the_later_entry(env: Env) -> None:
    """Imported entries may share a time to the millisecond: the later row decides, as the rule says."""
    c = env.conn
    target = F.Target(DS, KEYS[0], "")
    for action in ("label", "unlabel", "label", "unlabel"):
        write_transaction(c, lambda w, a=action: F.insert_entry(  # type: ignore[misc]
            w, a, target, "ann", ts="2026-01-01T00:00:00.000Z", columns={"run": RUN, "label": "format"}))
        assert [lab.label for lab in L.current_labels(c)] == (["format"] if action == "label" else [])
        assert_in_step(c)


def test_a_stale_flag_touches_no_label(env: Env) -> None:
    c = env.conn
    L.add_labels(c, RUN, KEYS[:1], ["format"], author="ann")
    before = stored(c)
    gold = c.execute("SELECT g.text FROM golds g JOIN items i ON i.id = g.item_id WHERE i.key = ?", (KEYS[0],)).fetchone()[0]
    F.mark(c, DS, KEYS[0], gold, reason="old", author="ann")
    F.undo(c, "ann")
    assert stored(c) == before
    assert_in_step(c)


def test_label_counts_of_a_selection(env: Env) -> None:
    """The bulk label dialog's counts: each label on how many of the selected items, this run only."""
    c = env.conn
    L.add_labels(c, RUN, KEYS[:2], ["format"], author="ann")
    L.add_labels(c, RUN, KEYS[:1], ["paraphrase"], author="ann")
    L.add_labels(c, "bidaf-baseline", KEYS, ["gold-wrong"], author="ann")
    assert L.label_counts(c, RUN, [*KEYS, KEYS[0]]) == {"format": 2, "paraphrase": 1}
    assert L.label_counts(c, RUN, KEYS[1:]) == {"format": 1}
    assert L.label_counts(c, RUN, []) == {}
    F.undo(c, "ann")
    F.undo(c, "ann")
    assert L.label_counts(c, RUN, KEYS) == {"format": 2}
