"""What the app remembers per user: saved, read back, and anything unreadable dropped."""

from __future__ import annotations

import json
from pathlib import Path

from qa_inspect.core.query import ColumnLayout, Filter, Preferences, load_preferences, save_preferences
from qa_inspect.core.store import open_db


def test_preferences_round_trip_per_user(tmp_path: Path) -> None:
    conn = open_db(tmp_path / "qa.db").conn
    assert load_preferences(conn, "ann") == Preferences()
    prefs = Preferences("nord", True, Filter(run="bert", em=0, sort="f1", descending=True, tags=("fast",)),
                        {"cmrc-dev": ColumnLayout(("tag",), ("f1", "question"))})
    assert save_preferences(conn, prefs, "ann")
    assert load_preferences(conn, "ann") == prefs
    assert load_preferences(conn, "bob") == Preferences()


def test_a_damaged_value_is_dropped_piece_by_piece(tmp_path: Path) -> None:
    conn = open_db(tmp_path / "qa.db").conn
    conn.execute("INSERT INTO settings (key, value) VALUES ('prefs:ann', ?)",
                 (json.dumps({"theme": 3, "exclude_stale": True, "filter": {"em": "zero"}}),))
    assert load_preferences(conn, "ann") == Preferences(None, True, None)
    conn.execute("UPDATE settings SET value = '{not json' WHERE key = 'prefs:ann'")
    assert load_preferences(conn, "ann") == Preferences()


def test_a_column_layout_hides_and_orders_but_keeps_the_id_first() -> None:
    layout = ColumnLayout(hidden=("tag", "key"), order=("f1", "question"))
    assert layout.apply(["key", "tag", "question", "prediction", "f1"]) == ["key", "f1", "question", "prediction"]
    assert ColumnLayout().apply(["key", "a", "b"]) == ["key", "a", "b"]
