"""Labels by hand: add/remove/set, bulk, current, notes, provenance, undo/redo, and
every stale-flag reader of the shared journal keeps ignoring label entries."""

from __future__ import annotations

import io

import pytest
from qa_inspect.core import flags as F
from qa_inspect.core import labels as L
from qa_inspect.core.store import CURRENT_FLAGS_SQL, EFFECTIVE_SQL, STALE_GOLDS_SQL

from tests.helpers import Env

RUN, DS = "bert-base-chinese", "cmrc2018_dev_sample"
K0, K1, K2 = "DEV_1010_QUERY_0", "DEV_1010_QUERY_1", "DEV_1010_QUERY_2"

pytestmark = pytest.mark.usefixtures("no_author_env")


def names(env: Env, key: str, run: str = RUN) -> list[str]:
    return L.item_labels(env.conn, run, DS, key).names


def test_add_remove_set_and_current(env: Env) -> None:
    L.add_labels(env.conn, RUN, [K0], ["paraphrase", "gold-wrong"], author="ann")
    assert names(env, K0) == ["gold-wrong", "paraphrase"]
    assert L.add_labels(env.conn, RUN, [K0], ["paraphrase"], author="ann") == []  # already on: nothing written
    L.remove_labels(env.conn, RUN, [K0], ["paraphrase", "format"], author="ann")  # `format` is not on: skipped
    assert names(env, K0) == ["gold-wrong"]
    L.set_labels(env.conn, RUN, [K0], ["format", "hallucination"], author="ann")
    assert names(env, K0) == ["format", "hallucination"]
    assert names(env, K0, "bidaf-baseline") == []  # labels belong to a (run, item)
    [lab] = L.current_labels(env.conn, label="format")
    assert (lab.run, lab.dataset, lab.item_key, lab.author, lab.source) == (RUN, DS, K0, "ann", "hand")


def test_bulk_is_one_undo_step_and_redo_reappends_every_field(env: Env) -> None:
    L.add_labels(env.conn, RUN, [K0], ["format"], author="ann")
    entries = L.add_labels(env.conn, RUN, [K0, K1, K2], ["multi-sentence"], note="long", source="category", author="ann")
    assert len(entries) == 3 and len({e.meta["batch"] for e in entries}) == 1
    assert F.undo_state(env.conn, "ann").describe() == "label 3 labels"
    undone = F.undo(env.conn, "ann")
    assert len(undone) == 3 and L.current_labels(env.conn, label="multi-sentence") == []
    assert names(env, K0) == ["format"]  # the earlier action stays
    redone = F.redo(env.conn, "ann")
    assert len(redone) == 3
    labs = L.current_labels(env.conn, label="multi-sentence")
    assert [(lab.item_key, lab.source, lab.note) for lab in labs] == [(k, "category", "long") for k in (K0, K1, K2)]
    assert all(e.meta["redo_of"] for e in redone)
    F.undo(env.conn, "ann")
    F.undo(env.conn, "ann")
    assert L.current_labels(env.conn) == []


def test_undo_is_shared_with_stale_flags(env: Env) -> None:
    """One stack per author: `u` undoes the last action, a flag or a label alike."""
    gold = env.conn.execute("SELECT g.text FROM golds g JOIN items i ON i.id = g.item_id WHERE i.key = ?", (K0,)).fetchone()[0]
    F.mark(env.conn, DS, K0, gold, reason="old", author="ann")
    L.add_labels(env.conn, RUN, [K0], ["gold-wrong"], author="ann")
    assert F.undo_state(env.conn, "ann").describe() == f"label 'gold-wrong' on {RUN}/{K0}"
    F.undo(env.conn, "ann")
    assert names(env, K0) == [] and len(F.current_flags(env.conn)) == 1
    F.undo(env.conn, "ann")
    assert F.current_flags(env.conn) == []
    F.redo(env.conn, "ann")
    F.redo(env.conn, "ann")
    assert names(env, K0) == ["gold-wrong"] and len(F.current_flags(env.conn)) == 1


def test_notes(env: Env) -> None:
    L.set_note(env.conn, RUN, K0, "the passage says 1990", author="ann")
    assert L.item_labels(env.conn, RUN, DS, K0).note == "the passage says 1990"
    L.set_note(env.conn, RUN, K0, "", author="ann")
    assert L.item_labels(env.conn, RUN, DS, K0).note is None
    F.undo(env.conn, "ann")
    assert L.item_labels(env.conn, RUN, DS, K0).note == "the passage says 1990"


def test_unknown_names_are_one_line_with_close_names(env: Env) -> None:
    with pytest.raises(L.LabelError, match=r"unknown run 'bert-base-chinse'.*did you mean 'bert-base-chinese'"):
        L.add_labels(env.conn, "bert-base-chinse", [K0], ["format"])
    with pytest.raises(L.LabelError, match=r"no item 'DEV_1010_QUERY_X'.*did you mean"):
        L.add_labels(env.conn, RUN, ["DEV_1010_QUERY_X"], ["format"])
    with pytest.raises(L.LabelError, match=r"unknown label 'paraphase'.*did you mean 'paraphrase'"):
        L.add_labels(env.conn, RUN, [K0], ["paraphase"])
    with pytest.raises(L.LabelError, match="non-empty name"):
        L.add_to_set(env.conn, "a,b")


def test_label_set_defaults_toml_and_added(env: Env) -> None:
    assert L.label_set(env.conn) == list(L.DEFAULT_LABELS)
    assert L.label_set(env.conn, ["mine"]) == ["mine"]
    L.add_to_set(env.conn, "tokenisation")
    assert L.label_set(env.conn, ["mine"]) == ["mine", "tokenisation"]
    L.add_labels(env.conn, RUN, [K0], ["tokenisation"])
    assert names(env, K0) == ["tokenisation"]


def test_stale_flag_readers_ignore_label_entries(env: Env) -> None:
    L.add_labels(env.conn, RUN, [K0, K1], ["gold-wrong"], author="ann")
    L.set_note(env.conn, RUN, K0, "why", author="ann")
    F.undo(env.conn, "ann")  # an undo of a label entry is a label entry too
    assert F.current_flags(env.conn) == [] and F.journal(env.conn) == []
    assert not F.has_entries(env.conn, DS)
    for sql in (CURRENT_FLAGS_SQL, STALE_GOLDS_SQL, f"SELECT * FROM annotations a WHERE {EFFECTIVE_SQL}"):
        assert env.conn.execute(f"SELECT COUNT(*) FROM ({sql})").fetchone()[0] == 0
    out = io.StringIO()
    assert F.export_patch(env.conn, out) == 0 and F.export_journal(env.conn, out) == 0
    assert F.patch_records(env.conn) == [] and F.journal_records(env.conn) == []
    # another database's file merged with `stale import` brings no label entries either
    other = env.root / "other.db"
    env.conn.execute(f"VACUUM INTO '{other}'")
    from qa_inspect.core.store import open_db

    fresh = open_db(env.root / "fresh.db").conn
    fresh.execute("INSERT INTO datasets (name, path, format, family, scorer) VALUES ('x', 'x', 'squad', 'cmrc', 'cmrc2018-official')")
    assert F.import_file(fresh, other).added == 0


def test_label_facet_counts_run_a_s_labels_and_selects_them(env: Env) -> None:
    from qa_inspect.core.query import Filter, count, facet_table, facet_tables

    f = Filter(run=RUN)
    assert "label" not in [t.name for t in facet_tables(env.conn, f)]  # no labels yet: hidden
    L.add_labels(env.conn, RUN, [K0, K1], ["paraphrase"])
    L.add_labels(env.conn, RUN, [K0], ["gold-wrong"])
    L.add_labels(env.conn, "bidaf-baseline", [K2], ["format"])  # another run's label: not counted
    L.remove_labels(env.conn, RUN, [K1], ["paraphrase"])
    L.add_labels(env.conn, RUN, [K1], ["paraphrase"])
    F.undo(env.conn)  # K1 ends unlabelled
    table = facet_table(env.conn, f, "label")
    rows = {r.label: r.items for r in table.rows}
    assert rows["gold-wrong, paraphrase"] == 1 and "format" not in rows and rows["—"] == table.total - 1
    chosen = next(r for r in table.rows if r.value == "gold-wrong, paraphrase")
    assert count(env.conn, chosen.filter) == 1
    assert "label" in [t.name for t in facet_tables(env.conn, f)]


def test_change_labels_is_one_undo_step(env: Env) -> None:
    L.add_labels(env.conn, RUN, [K0, K1], ["format"], author="ann")
    entries = L.change_labels(env.conn, RUN, [K0, K1], add=["paraphrase"], remove=["format"], author="ann")
    assert len(entries) == 4 and len({e.meta["batch"] for e in entries}) == 1
    L.change_labels(env.conn, RUN, [K0], add=["gold-wrong"], note="n", set_note=True, author="ann")
    assert names(env, K0) == ["gold-wrong", "paraphrase"] and L.item_labels(env.conn, RUN, DS, K0).note == "n"
    F.undo(env.conn, "ann")
    assert names(env, K0) == ["paraphrase"] and L.item_labels(env.conn, RUN, DS, K0).note is None
    F.undo(env.conn, "ann")
    assert names(env, K0) == names(env, K1) == ["format"]
