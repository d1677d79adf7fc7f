"""Migration 11 → 12 (the `verdicts` table): a database of the previous version upgrades in
place and keeps every annotation."""

from __future__ import annotations

from pathlib import Path

import pytest
from qa_inspect.core.store.schema import MIGRATIONS

from tests.core.store.previous_version import previous_version, upgraded

VERDICTS = next(n for n, script in enumerate(MIGRATIONS) if "CREATE TABLE IF NOT EXISTS verdicts" in script)


def test_the_previous_version_upgrades_keeping_every_annotation(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "qa.db"
    before = previous_version(db, VERDICTS, monkeypatch)
    conn2 = upgraded(db, before)
    try:
        columns = [r[1] for r in conn2.execute("PRAGMA table_info(verdicts)")]
        assert columns == ["run", "item_key", "judge", "verdict", "value", "raw", "rationale", "source"]
    finally:
        conn2.close()
