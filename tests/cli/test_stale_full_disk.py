"""The stale commands keep working read-only on a full disk: every write the load tries is refused
as SQLite refuses it ("database or disk is full"), opening the database for writing fails (a full
disk has no room for the WAL file an open creates: seen on a full tmpfs), and `stale list` and
`stale export` still answer, from a connection that writes nothing; `stale mark` is one line."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from qa_inspect.core.errors import StoreError
from qa_inspect.core.store.identity import StoreConnection
from tests.cli.helpers import invoke
from tests.corpus.shapes import GOOD_FILES

_WRITES = ("INSERT", "UPDATE", "DELETE", "CREATE", "REPLACE", "BEGIN IMMEDIATE", "DROP", "ALTER")


def _disk_full(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every write statement on the tool's connections fails as on a full disk, and so does opening
    the database for writing; reads work."""
    from qa_inspect.core import store

    def no_room(path: Path, **_: Any) -> Any:
        raise StoreError(f"{path}: no space left on device; nothing was written")

    monkeypatch.setattr(store, "open_db", no_room, raising=False)
    real = StoreConnection.execute

    def execute(self: StoreConnection, sql: str, *args: Any) -> Any:
        if sql.lstrip().upper().startswith(_WRITES):
            raise sqlite3.OperationalError("database or disk is full")
        return real(self, sql, *args)

    monkeypatch.setattr(StoreConnection, "execute", execute)


@pytest.mark.parametrize("change", ["nothing", "a new run", "a changed dataset"])
def test_stale_list_works_on_a_full_disk(change: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    for rel, content in GOOD_FILES.items():
        (runs / rel).write_bytes(content)
    res = invoke("stale", "mark", str(runs), "Q1", "--dataset", "dev", "--gold", "1", "--reason", "moved",
                 "--author", "a")
    assert res.exit_code == 0, res.output
    if change == "a new run":
        (runs / "new.json").write_text(json.dumps({"Q1": "fox"}), encoding="utf-8")
    elif change == "a changed dataset":
        (runs / "dev.json").write_bytes(GOOD_FILES["dev.json"].replace(b"Near what?", b"Close to what?"))
    _disk_full(monkeypatch)
    res = invoke("stale", "list", str(runs), "--json")
    assert res.exit_code == 0, res.output
    assert [(f["item_key"], f["gold_text"]) for f in json.loads(res.stdout)] == [("Q1", "quick brown fox")]
    if change != "nothing":  # the load that would store the change says why it could not, in one line
        assert "no space left on device" in res.stderr or "disk is full" in res.stderr
        assert len(res.stderr.strip().splitlines()) == 1


def test_stale_export_works_and_stale_mark_is_one_line_on_a_full_disk(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    for rel, content in GOOD_FILES.items():
        (runs / rel).write_bytes(content)
    assert invoke("stale", "mark", str(runs), "Q1", "--dataset", "dev", "--gold", "1", "--reason", "moved",
                  "--author", "a").exit_code == 0
    _disk_full(monkeypatch)
    res = invoke("stale", "export", str(runs), "-o", "-")
    assert res.exit_code == 0, res.output
    assert [json.loads(line)["item_key"] for line in res.stdout.splitlines()] == ["Q1"]
    res = invoke("stale", "mark", str(runs), "Q2", "--dataset", "dev", "--gold", "1", "--reason", "moved",
                 "--author", "a")
    assert res.exit_code == 1 and res.stderr.strip().splitlines()[-1].endswith("no space left on device; nothing was written")
