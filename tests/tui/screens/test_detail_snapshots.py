"""Snapshots of the item detail: official F1 alignment and the character subsequence, a CDQA item
with a superseded gold on a wide terminal (pytest-textual-snapshot; `--snapshot-update` to accept
after looking at the new SVGs).

Deterministic: the sample runs, the built-in theme, no clock, no absolute paths on screen; the
app is driven by `run_before` and every worker has finished before the picture is taken.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from tests.helpers import app_for, open_detail
from tests.helpers import run_before as run


def test_detail_120x40(snap_compare, loaded_db: Path) -> None:  # type: ignore[no-untyped-def]
    steps = run(lambda app: app.open_run("bidaf-baseline"), open_detail(loaded_db, "bidaf-baseline", "DEV_52_QUERY_1"))
    assert snap_compare(app_for(loaded_db), terminal_size=(120, 40), run_before=steps)


def test_detail_subsequence_80x24(snap_compare, loaded_db: Path) -> None:  # type: ignore[no-untyped-def]
    steps = run(open_detail(loaded_db, "bert-base-chinese", "DEV_74_QUERY_0"), keys=("a",))
    assert snap_compare(app_for(loaded_db), terminal_size=(80, 24), run_before=steps)


def test_detail_wide_cdqa_160x45(snap_compare, loaded_db: Path) -> None:  # type: ignore[no-untyped-def]
    with sqlite3.connect(loaded_db) as conn:
        key = conn.execute(
            "SELECT i.key FROM golds g JOIN items i ON i.id = g.item_id WHERE g.superseded = 1 ORDER BY i.id LIMIT 1"
        ).fetchone()[0]
    steps = run(open_detail(loaded_db, "glm-6b", key))
    assert snap_compare(app_for(loaded_db), terminal_size=(160, 45), run_before=steps)


def test_detail_200x50(snap_compare, loaded_db: Path) -> None:  # type: ignore[no-untyped-def]
    steps = run(open_detail(loaded_db, "roberta-wwm-large", "DEV_74_QUERY_0"))
    assert snap_compare(app_for(loaded_db), terminal_size=(200, 50), run_before=steps)
