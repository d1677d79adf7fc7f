"""The stale commands keep working read-only on a full disk: every write the load tries is refused
as SQLite refuses it ("database or disk is full"), and `stale list` still lists the flags."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from qa_inspect.core.store.identity import StoreConnection
from tests.cli.helpers import invoke
from tests.corpus.shapes import GOOD_FILES

_WRITES = ("INSERT", "UPDATE", "DELETE", "CREATE", "REPLACE", "BEGIN IMMEDIATE", "DROP", "ALTER")


def _disk_full(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every write statement on the tool's connections fails as on a full disk; reads work."""
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
    if change != "nothing":
        assert "no space left on device" in res.stderr
