"""Journal files (core.flags.journal_files, journal_sync): every entry a user writes lands in their
own JSONL file in the runs folder once committed, and every load merges all such files back, so
the database is a cache of the folder."""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from qa_inspect.core import flags as F
from qa_inspect.core import labels as L
from qa_inspect.core.errors import StoreError
from qa_inspect.core.load import load_runs
from qa_inspect.core.store import open_db, place_db, write_transaction

from tests.core.flags.test_merge_order import _journal as journal_lines
from tests.core.flags.test_merge_order import _state as flag_state
from tests.core.store.read_only import make_read_only, snapshot
from tests.helpers import loaded_env

pytestmark = pytest.mark.usefixtures("no_author_env")

KEY, OTHER = "DEV_4_QUERY_0", "DEV_4_QUERY_1"
RUN = "bert-base-chinese"


def annotations(db: Path) -> list[tuple[object, ...]]:
    """What the journal says, without row ids (a rebuilt database numbers rows anew)."""
    conn = sqlite3.connect(db)
    try:
        return sorted(conn.execute(
            "SELECT a.uid, a.ts, a.author, a.action, a.dataset, a.item_key, a.gold_text, a.reason, a.proposed,"
            " a.evidence, a.meta, a.run, a.label, a.label_source, r.uid FROM annotations a"
            " LEFT JOIN annotations r ON r.id = a.ref"))
    finally:
        conn.close()


@pytest.fixture(scope="module")
def own_template(tmp_path_factory: pytest.TempPathFactory, sample_runs: Path) -> Path:
    """sample_runs loaded into its own `.qa-inspect/qa.db` (the folder's database, not a --db)."""
    runs = tmp_path_factory.mktemp("own") / "runs"
    shutil.copytree(sample_runs, runs, ignore=shutil.ignore_patterns(".qa-inspect"))
    assert not load_runs(runs).errors
    return runs


@pytest.fixture
def runs(own_template: Path, tmp_path: Path) -> Path:
    dest = tmp_path / "runs"
    shutil.copytree(own_template, dest)
    return dest


@pytest.fixture
def conn(runs: Path) -> Iterator[sqlite3.Connection]:
    c = open_db(runs / ".qa-inspect" / "qa.db").conn
    yield c
    c.close()


def lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]


def gold(conn: sqlite3.Connection, key: str) -> tuple[str, str, str]:
    ref = F.resolve_item(conn, key)
    return ref.dataset, ref.key, ref.scored_texts()[0]


def test_every_kind_of_entry_goes_to_its_authors_file_in_the_export_layout(runs: Path, conn: sqlite3.Connection) -> None:
    ds, key, text = gold(conn, KEY)
    F.mark(conn, ds, key, text, author="ana", reason="moved", proposed="new")
    F.verify(conn, [F.Target(ds, key, text)], author="bo", note="checked")
    L.add_labels(conn, RUN, [key], ["gold-wrong"], author="ana", known=["gold-wrong"])
    F.undo(conn, author="ana")  # the label
    F.redo(conn, author="ana")
    folder = runs / ".qa-inspect" / "journal"
    assert sorted(p.name for p in folder.iterdir()) == ["ana.jsonl", "bo.jsonl"]
    ana, bo = lines(folder / "ana.jsonl"), lines(folder / "bo.jsonl")
    assert [x["action"] for x in ana] == ["mark", "label", "undo", "label"]
    assert [x["action"] for x in bo] == ["verify"]
    assert list(ana[0])[:len(F.JOURNAL_FIELDS)] == list(F.JOURNAL_FIELDS)  # stable field order
    assert (ana[1]["run"], ana[1]["label"], ana[1]["label_source"]) == (RUN, "gold-wrong", "hand")
    assert ana[2]["ref_uid"] == ana[1]["uid"]
    exported = {r["uid"]: r for r in F.journal_records(conn)}
    for rec in ana[:1] + bo:  # a flag entry's line is the journal export's record
        assert {k: rec[k] for k in exported[rec["uid"]]} == exported[rec["uid"]]
    assert (runs / ".qa-inspect" / ".gitignore").read_text(encoding="utf-8") == F.GITIGNORE
    assert "qa.db*" in F.GITIGNORE.splitlines() and not any("journal" in x for x in F.GITIGNORE.splitlines()[1:])


def test_a_rolled_back_action_and_an_import_write_no_line(runs: Path, conn: sqlite3.Connection, tmp_path: Path) -> None:
    ds, key, text = gold(conn, KEY)

    def half_then_fail(c: sqlite3.Connection) -> None:
        F.insert_entry(c, "mark", F.Target(ds, key, text), "ana")
        raise RuntimeError("something went wrong mid-action")

    with pytest.raises(RuntimeError):
        write_transaction(conn, half_then_fail)
    folder = runs / ".qa-inspect" / "journal"
    assert not folder.exists()
    patch = tmp_path / "patch.jsonl"
    patch.write_text(json.dumps({"dataset": ds, "item_key": key, "old_answer": text, "author": "cy"}) + "\n",
                     encoding="utf-8")
    assert F.import_file(conn, patch).added == 1
    assert not folder.exists()  # imported entries are not this user's to write


def test_deleting_the_database_and_loading_again_gives_the_same_journal(runs: Path, conn: sqlite3.Connection) -> None:
    ds, key, text = gold(conn, KEY)
    F.mark(conn, ds, key, text, author="ana", proposed="x")
    L.add_labels(conn, RUN, [key, OTHER], ["gold-wrong"], author="bo", known=["gold-wrong"])
    F.undo(conn, author="bo")
    F.unmark(conn, ds, key, text, author="cy")
    conn.close()
    db = runs / ".qa-inspect" / "qa.db"
    before = annotations(db)
    for p in db.parent.glob("qa.db*"):
        p.unlink()
    summary = load_runs(runs)
    assert not summary.errors
    assert annotations(db) == before
    assert load_runs(runs).warnings == []  # nothing new: nothing merged, nothing said


def test_a_load_merges_new_lines_incrementally_and_rereads_a_rewritten_file(runs: Path, conn: sqlite3.Connection) -> None:
    ds, key, text = gold(conn, KEY)
    F.mark(conn, ds, key, text, author="ana", proposed="a")
    record = lines(runs / ".qa-inspect" / "journal" / "ana.jsonl")[0]
    theirs = runs / ".qa-inspect" / "journal" / "bo.jsonl"
    first = {**record, "uid": "b" * 32, "author": "bo", "proposed": "b"}
    theirs.write_text(json.dumps(first) + "\n" + json.dumps({**first, "uid": "c" * 32})[:40], encoding="utf-8")
    summary = load_runs(runs)
    [flag] = F.current_flags(conn, ds)
    assert flag.conflict and {p.author for p in flag.proposals or []} == {"ana", "bo"}
    said = " ".join(w["message"] for w in summary.warnings)
    assert "1 new entry merged" in said and "conflicting proposals" in said
    # the cut line is completed: only it is read
    with theirs.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps({**first, "uid": "c" * 32})[40:] + "\n")
    load_runs(runs)
    assert conn.execute("SELECT count(*) FROM annotations WHERE author = 'bo'").fetchone()[0] == 2
    # rewritten (not appended to): read whole again, the uids already here add nothing
    theirs.write_text(json.dumps({**first, "uid": "d" * 32}) + "\n" + json.dumps(first) + "\n", encoding="utf-8")
    load_runs(runs)
    assert conn.execute("SELECT count(*) FROM annotations WHERE author = 'bo'").fetchone()[0] == 3


def test_a_bad_line_is_named_and_skipped(runs: Path, conn: sqlite3.Connection) -> None:
    ds, key, text = gold(conn, KEY)
    good = {"uid": "e" * 32, "action": "mark", "author": "bo", "dataset": ds, "item_key": key, "gold_text": text}
    theirs = runs / ".qa-inspect" / "journal" / "bo.jsonl"
    theirs.parent.mkdir(parents=True)
    theirs.write_text("{not json\n" + json.dumps({**good, "uid": 3}) + "\n" + json.dumps(good) + "\n", encoding="utf-8")
    summary = load_runs(runs)
    said = [w["message"] for w in summary.warnings]
    assert any(f"{theirs}: line 1: not a JSON line" in m for m in said)
    assert any(f"{theirs}: line 2: no 'uid'" in m for m in said)
    assert [f.author for f in F.current_flags(conn, ds)] == ["bo"]


def test_an_existing_database_writes_its_entries_to_files_on_the_first_merge(runs: Path, conn: sqlite3.Connection) -> None:
    ds, key, text = gold(conn, KEY)
    F.mark(conn, ds, key, text, author="ana", proposed="x")
    shutil.rmtree(runs / ".qa-inspect" / "journal")
    conn.execute("DELETE FROM settings WHERE key LIKE 'journal:%'")  # as a database from before the files
    conn.commit()
    load_runs(runs)
    assert [x["action"] for x in lines(runs / ".qa-inspect" / "journal" / "ana.jsonl")] == ["mark"]


def test_a_read_only_folder_gets_nothing_written_its_overlay_has_its_own_file(
    runs: Path, conn: sqlite3.Connection, tmp_path: Path, request: pytest.FixtureRequest,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    ds, key, text = gold(conn, KEY)
    F.mark(conn, ds, key, text, author="owner", proposed="x")
    conn.close()
    make_read_only(request, monkeypatch, runs)
    before = snapshot(runs)
    assert not load_runs(runs).errors
    overlay = place_db(runs).path
    mine = open_db(overlay).conn
    try:
        ds2, key2, text2 = gold(mine, OTHER)
        F.mark(mine, ds2, key2, text2, author="bob", proposed="y")
        assert sorted(f.author for f in F.current_flags(mine)) == ["bob", "owner"]
    finally:
        mine.close()
    assert snapshot(runs) == before
    assert [x["author"] for x in lines(overlay.parent / "qa.journal" / "bob.jsonl")] == ["bob"]
    assert not (overlay.parent / ".gitignore").exists()
    for p in overlay.parent.glob("qa.db*"):  # the overlay is a cache too
        p.unlink()
    assert not load_runs(runs).errors
    rebuilt = open_db(overlay).conn
    try:
        assert sorted(f.author for f in F.current_flags(rebuilt)) == ["bob", "owner"]
    finally:
        rebuilt.close()


def test_an_unwritable_journal_file_is_one_clear_error(runs: Path, conn: sqlite3.Connection) -> None:
    ds, key, text = gold(conn, KEY)
    folder = runs / ".qa-inspect" / "journal"
    folder.mkdir()
    (folder / "ana.jsonl").mkdir()  # not a file: cannot be appended to, whoever runs the test
    with pytest.raises(StoreError, match="ana.jsonl: cannot append to the journal file"):
        F.mark(conn, ds, key, text, author="ana")


@given(st.text(max_size=30), st.text(max_size=30))
def test_author_file_names_are_safe_and_keep_authors_apart(a: str, b: str) -> None:
    for name in (a, b):
        file = F.author_file(name)
        assert file.endswith(".jsonl") and "/" not in file and "\\" not in file and not file.startswith(".")
        assert all(ch.isascii() and (ch.isalnum() or ch in "._-") for ch in file)
    if a.strip() != b.strip() and a.strip() and b.strip():
        assert F.author_file(a) != F.author_file(b)
    assert F.author_file("ana") == "ana.jsonl"


def test_a_long_file_merges_in_bounded_steps(runs: Path, conn: sqlite3.Connection, monkeypatch: pytest.MonkeyPatch) -> None:
    from qa_inspect.core.flags import journal_sync

    monkeypatch.setattr(journal_sync, "_STEP", 300)  # a few lines per transaction
    ds, key, text = gold(conn, KEY)
    theirs = runs / ".qa-inspect" / "journal" / "bo.jsonl"
    theirs.parent.mkdir(parents=True)
    entries = [{"uid": f"{i:032x}", "action": "verify", "author": "bo", "dataset": ds, "item_key": key,
                "gold_text": text, "ts": f"2024-01-01T00:00:{i:02d}.000Z"} for i in range(12)]
    theirs.write_text("".join(json.dumps(e) + "\n" for e in entries), encoding="utf-8")
    result = F.sync_journal_files(conn, [theirs.parent], write_to=theirs.parent)
    assert (result.files, result.added, result.problems) == (1, 12, [])
    stamp = json.loads(F.get_setting(conn, F.JOURNAL_READ_SETTING) or "{}")[str(theirs)]
    assert (stamp["size"], stamp["lines"]) == (theirs.stat().st_size, 12)
    assert F.sync_journal_files(conn, [theirs.parent], write_to=theirs.parent).files == 0  # unchanged: not opened


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_lines_arriving_in_any_order_and_steps_give_the_same_state(
    loaded_template: Path, tmp_path_factory: pytest.TempPathFactory, data: st.DataObject,
) -> None:
    """Journal lines reaching the authors' files in any order, merged by loads in between at any
    points (pulls arriving piecemeal), give the state of the journal that wrote them."""
    root = tmp_path_factory.mktemp("files")
    with loaded_env(loaded_template, root / "source") as source:
        lines = journal_lines(source)
        want = flag_state(source)
    order = data.draw(st.permutations(range(len(lines))))
    cuts = sorted(data.draw(st.lists(st.integers(0, len(lines)), max_size=3)))
    folder = root / "journal"
    folder.mkdir()
    with loaded_env(loaded_template, root / "merged") as merged:
        done = 0
        for cut in [*cuts, len(lines)]:
            for i in order[done:cut]:
                record = json.loads(lines[i])
                with (folder / F.author_file(record["author"])).open("a", encoding="utf-8") as fh:
                    fh.write(lines[i] + "\n")
            done = max(done, cut)
            F.sync_journal_files(merged.conn, [folder])
        assert flag_state(merged) == want, (order, cuts)
