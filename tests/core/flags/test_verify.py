"""`verify` journal entries ("still correct"): dated, undoable, exported, imported and merged like
the other entries, and never a change to what is flagged stale."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from qa_inspect.core import flags as F
from qa_inspect.core.review import last_verified
from qa_inspect.core.store import STALE_GOLDS_SQL

from tests.helpers import Env, loaded_env

CDQA = "cdqa_sample"
METRO_Q = "澜州市最近开通运营的地铁线路是几号线？"  # gold 6号线

pytestmark = pytest.mark.usefixtures("no_author_env")


@pytest.fixture
def env(loaded_template: Path, tmp_path: Path) -> Iterator[Env]:
    with loaded_env(loaded_template, tmp_path / "a") as e:
        yield e


@pytest.fixture
def other(loaded_template: Path, tmp_path: Path) -> Iterator[Env]:
    with loaded_env(loaded_template, tmp_path / "b") as e:
        yield e


def _metro(conn: sqlite3.Connection) -> F.Target:
    return F.Target(CDQA, F.resolve_item(conn, METRO_Q).key, "6号线")


def _stale_rows(conn: sqlite3.Connection) -> list[tuple]:
    return sorted(conn.execute(f"SELECT item_id, gold_id, proposed, author FROM ({STALE_GOLDS_SQL})").fetchall())


def test_verify_dates_the_gold_and_leaves_stale_state_alone(env: Env) -> None:
    c, t = env.conn, _metro(env.conn)
    F.mark(c, t.dataset, t.item_key, t.gold_text, author="ann", proposed="7号线")
    before = ([f.to_dict() for f in F.current_flags(c)], _stale_rows(c), F.patch_records(c))
    [entry] = F.verify(c, [t], note="checked the metro site", author="bob")
    assert (entry.action, entry.reason, entry.author) == ("verify", "checked the metro site", "bob")
    assert ([f.to_dict() for f in F.current_flags(c)], _stale_rows(c), F.patch_records(c)) == before
    assert last_verified(c) == {t: entry.ts}
    with pytest.raises(F.FlagError):
        F.verify(c, [F.Target(CDQA, t.item_key, "no such gold")], author="bob")


def test_verify_is_undoable_and_redoable(env: Env) -> None:
    c, t = env.conn, _metro(env.conn)
    F.verify(c, [t], author="ann")
    assert F.undo_state(c, "ann").describe() == f"verify {CDQA}/{t.item_key} '6号线'"
    [undone] = F.undo(c, "ann")
    assert undone.action == "verify" and last_verified(c) == {}
    [redone] = F.redo(c, "ann")
    assert redone.action == "verify" and last_verified(c) == {t: redone.ts}


def test_verify_travels_in_the_journal(env: Env, other: Env, tmp_path: Path) -> None:
    t = _metro(env.conn)
    F.verify(env.conn, [t], note="ok", author="ann")
    path = tmp_path / "journal.jsonl"
    with path.open("w", encoding="utf-8") as out:
        F.export_journal(env.conn, out)
    assert '"action": "verify"' in path.read_text(encoding="utf-8")
    result = F.import_file(other.conn, path)
    assert result.added == 1 and last_verified(other.conn) == last_verified(env.conn)
    assert F.import_file(other.conn, path).added == 0  # idempotent
    merged = F.import_file(other.conn, env.db)  # another database
    assert merged.added == 0 and F.current_flags(other.conn) == []
