"""A read-only runs folder with a shipped database: its flags show, new marks go to a user-side overlay,
the owner's later updates merge in, and no flag is lost, moved, doubled or wrongly resolved."""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from qa_inspect.core import flags
from qa_inspect.core.errors import StoreError
from qa_inspect.core.load import LoadSummary, load_runs
from qa_inspect.core.query import Filter, delete_slice, list_slices, save_slice
from qa_inspect.core.store import OVERLAY_KEY, SCHEMA_VERSION, merge_shipped, open_db, place_db, seed_overlay

from tests.core.store.read_only import ReadOnly, make_read_only, snapshot
from tests.helpers import copy_loaded

pytestmark = pytest.mark.usefixtures("no_author_env")

OWNER_KEYS = ["DEV_4_QUERY_0", "DEV_1010_QUERY_0"]
USER_KEY = "DEV_1010_QUERY_1"


@dataclass
class Folder:
    """A runs folder whose owner loaded it and flagged golds in its `.qa-inspect/qa.db`."""

    runs: Path
    cache: Path

    @property
    def shipped(self) -> Path:
        return self.runs / ".qa-inspect" / "qa.db"

    def owner_marks(self, key: str, reason: str) -> None:
        conn = open_db(self.shipped).conn
        try:
            _mark(conn, key, "owner", reason)
        finally:
            conn.close()


def _mark(conn: sqlite3.Connection, key: str, author: str, reason: str) -> None:
    ref = flags.resolve_item(conn, key)
    flags.mark(conn, ref.dataset, ref.key, ref.scored_texts()[0], author=author, reason=reason)


@pytest.fixture
def folder(loaded_template: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Folder:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    runs = copy_loaded(loaded_template, tmp_path / "owner")
    (runs / ".qa-inspect").mkdir()
    shutil.move(tmp_path / "owner" / "qa.db", runs / ".qa-inspect" / "qa.db")
    f = Folder(runs, tmp_path / "cache" / "qa-inspect")
    for key in OWNER_KEYS:
        f.owner_marks(key, "shipped")
    conn = open_db(f.shipped).conn
    save_slice(conn, "owner-slice", Filter(em=0), author="owner")
    conn.close()
    return f


@pytest.fixture
def read_only(folder: Folder, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> ReadOnly:
    return make_read_only(request, monkeypatch, folder.runs)


def _load(runs: Path, db: Path | None = None) -> LoadSummary:
    summary = load_runs(runs, db)
    assert not summary.errors, summary.errors
    return summary


@pytest.fixture
def overlay(folder: Folder, read_only: ReadOnly) -> Iterator[sqlite3.Connection]:
    conn = open_db(Path(_load(folder.runs).db)).conn
    yield conn
    conn.close()


def _state(conn: sqlite3.Connection) -> set[tuple[str, str, str, str, str | None]]:
    return {(f.item_key, f.gold_text, f.status, f.author, f.reason) for f in flags.current_flags(conn)}


def _uids(conn: sqlite3.Connection) -> list[str]:
    return [row[0] for row in conn.execute("SELECT uid FROM annotations ORDER BY id")]


# ---------------------------------------------------------------------------------- where it lives


def test_place_db_in_each_case(folder: Folder, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    assert place_db(folder.runs).path == folder.shipped.resolve() and place_db(folder.runs).notice is None
    explicit = folder.runs.parent / "elsewhere.db"
    assert place_db(folder.runs, explicit).path == explicit
    make_read_only(request, monkeypatch, folder.runs)
    place = place_db(folder.runs)
    assert place.path.is_relative_to(folder.cache) and place.shipped == folder.shipped.resolve()
    assert place.notice == (f"runs folder is read-only: annotations go to {place.path}"
                            f" (seeded from {folder.shipped.resolve()})")
    by_file = place_db(folder.runs, folder.shipped)
    assert by_file.read_only == "database file" and by_file.shipped == folder.shipped
    assert by_file.path.is_relative_to(folder.cache) and by_file.path != place.path
    assert place_db(folder.runs) == place, "stable from one open to the next"


# ------------------------------------------------------------------- a read-only folder, shipped db


def test_shipped_flags_show_and_new_marks_land_in_the_overlay(folder: Folder, read_only: ReadOnly) -> None:
    before = snapshot(folder.runs)
    summary = _load(folder.runs)
    overlay = Path(summary.db)
    assert overlay.is_relative_to(folder.cache)
    notice = f"runs folder is read-only: annotations go to {overlay} (seeded from {folder.shipped.resolve()})"
    assert notice in [w["message"] for w in summary.warnings]
    conn = open_db(overlay).conn
    shipped_state = _state(conn)
    assert {k for k, *_ in shipped_state} == set(OWNER_KEYS) and all(s[2] == "open" for s in shipped_state)
    assert [s.name for s in list_slices(conn)] == ["owner-slice"]
    _mark(conn, USER_KEY, "bob", "mine")
    conn.close()
    assert snapshot(folder.runs) == before, "nothing written into the read-only folder (no -wal, no -shm)"

    again = _load(folder.runs)  # the next command
    assert again.db == summary.db
    conn = open_db(overlay).conn
    assert {k for k, *_ in _state(conn)} == {*OWNER_KEYS, USER_KEY}
    assert len(_uids(conn)) == len(set(_uids(conn))) == 3
    conn.close()


def test_an_update_of_the_shipped_database_merges_in(folder: Folder, read_only: ReadOnly,
                                                     overlay: sqlite3.Connection) -> None:
    _mark(overlay, USER_KEY, "bob", "mine")
    delete_slice(overlay, "owner-slice")  # the user's choice: it must not come back
    with read_only.owner():
        folder.owner_marks("DEV_1010_QUERY_2", "later")
        conn = open_db(folder.shipped).conn
        flags.undo(conn, "owner")  # cancels the owner's "later" mark: the undo's ref must follow its uid
        conn.execute("UPDATE annotations SET meta = json_remove(meta, '$.ref_uid') WHERE action = 'undo'")  # ref alone
        flags.mark(conn, *_target(conn, "DEV_101_QUERY_0"), author="owner", reason="last")
        save_slice(conn, "owner-new", Filter(f1_max=0.5), author="owner")
        shipped_uids = _uids(conn)
        conn.close()
    summary = _load(folder.runs)
    assert any("3 new journal entries and 1 new slice merged" in w["message"] for w in summary.warnings)
    conn = open_db(Path(summary.db)).conn
    assert set(shipped_uids) <= set(_uids(conn)) and len(_uids(conn)) == len(set(_uids(conn))) == 6
    state = _state(conn)
    assert {k for k, *_ in state} == {*OWNER_KEYS, USER_KEY, "DEV_101_QUERY_0"}, "the undone mark stays undone"
    undo = conn.execute("SELECT r.uid FROM annotations a JOIN annotations r ON r.id = a.ref WHERE a.action = 'undo'")
    assert [row[0] for row in undo] == [shipped_uids[2]], "ref points at the local row of the same entry"
    assert sorted(s.name for s in list_slices(conn)) == ["owner-new"]
    conn.close()
    again = _load(folder.runs)
    assert not any("merged" in w["message"] for w in again.warnings)
    conn = open_db(Path(again.db)).conn
    assert len(_uids(conn)) == 6 and _state(conn) == state
    assert merge_shipped(conn, folder.shipped.resolve()).unchanged, "an unchanged shipped file is not read again"
    conn.close()


def _target(conn: sqlite3.Connection, key: str) -> tuple[str, str, str]:
    ref = flags.resolve_item(conn, key)
    return ref.dataset, ref.key, ref.scored_texts()[0]


def test_exports_hold_shipped_and_own_entries(folder: Folder, read_only: ReadOnly,
                                              overlay: sqlite3.Connection, tmp_path: Path) -> None:
    _mark(overlay, USER_KEY, "bob", "mine")
    out = tmp_path / "journal.jsonl"
    with out.open("w", encoding="utf-8") as fh:
        flags.export_journal(overlay, fh)
    authors = [line for line in out.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert len(authors) == 3 and sum('"owner"' in a for a in authors) == 2


def test_a_cache_database_from_before_overlays_takes_in_the_shipped_journal(
        folder: Folder, read_only: ReadOnly) -> None:
    """A read-only folder used to get an empty cache database: the user's marks there stay and the
    shipped ones arrive."""
    path = place_db(folder.runs).path
    conn = open_db(path).conn
    conn.close()
    summary = _load(folder.runs)
    conn = open_db(Path(summary.db)).conn
    _mark(conn, USER_KEY, "bob", "mine")
    conn.execute("DELETE FROM settings WHERE key = ?", (OVERLAY_KEY,))  # as if never merged
    conn.close()
    conn = open_db(Path(_load(folder.runs).db)).conn
    assert {k for k, *_ in _state(conn)} == {*OWNER_KEYS, USER_KEY} and len(_uids(conn)) == 3
    conn.close()


# ----------------------------------------------------------------------- other read-only shapes


def test_a_read_only_qa_db_in_a_writable_folder(folder: Folder, request: pytest.FixtureRequest,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    make_read_only(request, monkeypatch, folder.shipped)
    before = folder.shipped.read_bytes()
    summary = _load(folder.runs)
    assert Path(summary.db).is_relative_to(folder.cache)
    assert any(w["message"].startswith("database file is read-only: annotations go to") for w in summary.warnings)
    conn = open_db(Path(summary.db)).conn
    _mark(conn, USER_KEY, "bob", "mine")
    assert {k for k, *_ in _state(conn)} == {*OWNER_KEYS, USER_KEY}
    conn.close()
    assert folder.shipped.read_bytes() == before


def test_a_read_only_folder_without_a_database(loaded_template: Path, tmp_path: Path, request: pytest.FixtureRequest,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    runs = copy_loaded(loaded_template, tmp_path / "plain")
    make_read_only(request, monkeypatch, runs)
    summary = _load(runs)
    db = Path(summary.db)
    assert db.is_relative_to(tmp_path / "cache")
    assert f"runs folder is read-only: annotations go to {db}" in [w["message"] for w in summary.warnings]
    conn = open_db(db).conn
    _mark(conn, USER_KEY, "bob", "mine")
    assert {k for k, *_ in _state(conn)} == {USER_KEY}
    conn.close()
    assert not (runs / ".qa-inspect").exists()


def test_an_explicit_read_only_database(folder: Folder, request: pytest.FixtureRequest,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    make_read_only(request, monkeypatch, folder.shipped)
    summary = _load(folder.runs, folder.shipped)
    assert Path(summary.db) != folder.shipped and Path(summary.db).is_relative_to(folder.cache)
    conn = open_db(Path(summary.db)).conn
    assert {k for k, *_ in _state(conn)} == set(OWNER_KEYS)
    conn.close()


# ------------------------------------------------------------------------------------ seeding


def test_seeding_reads_what_is_still_in_the_shipped_wal(folder: Folder, tmp_path: Path) -> None:
    """The owner's app is open: its last write may sit in the `-wal` only."""
    owner = sqlite3.connect(folder.shipped, isolation_level=None)
    owner.execute("PRAGMA wal_autocheckpoint = 0")
    owner.execute("INSERT INTO slices VALUES ('in-the-wal', '{}', 'now', 'owner')")
    assert Path(f"{folder.shipped}-wal").stat().st_size > 0
    dest = tmp_path / "seeded" / "qa.db"
    seed_overlay(folder.shipped, dest)
    owner.close()
    assert sorted(p.name for p in dest.parent.iterdir()) == ["qa.db"], "no temporary file left behind"
    conn = sqlite3.connect(dest)
    assert conn.execute("SELECT 1 FROM slices WHERE name = 'in-the-wal'").fetchone()
    conn.close()


def test_a_second_seed_keeps_the_first_copy(folder: Folder, tmp_path: Path) -> None:
    dest = tmp_path / "seeded" / "qa.db"
    seed_overlay(folder.shipped, dest)
    conn = open_db(dest).conn
    _mark(conn, USER_KEY, "bob", "mine")
    conn.close()
    seed_overlay(folder.shipped, dest)  # another process that also found no overlay
    conn = open_db(dest).conn
    assert USER_KEY in {k for k, *_ in _state(conn)}
    conn.close()


def test_an_unreadable_shipped_database_is_one_line(folder: Folder, read_only: ReadOnly) -> None:
    with read_only.owner():
        folder.shipped.write_bytes(b"not a database\n" * 200)
    with pytest.raises(StoreError) as info:
        load_runs(folder.runs)
    message = str(info.value)
    assert message.startswith(f"{folder.shipped.resolve()}: cannot read the shipped database") and "\n" not in message


def test_a_newer_shipped_schema_asks_for_an_upgrade(folder: Folder, read_only: ReadOnly) -> None:
    with read_only.owner(), sqlite3.connect(folder.shipped) as conn:
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    with pytest.raises(StoreError, match="newer than this qa-inspect understands"):
        load_runs(folder.runs)
