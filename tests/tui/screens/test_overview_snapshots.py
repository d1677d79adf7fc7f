"""Snapshots of the runs overview (pytest-textual-snapshot; `--snapshot-update` to accept after
looking at the new SVGs).

Deterministic: the sample runs, the built-in theme, no clock, no absolute paths on screen; the
app is driven by `run_before` and every worker has finished before the picture is taken.
"""

from __future__ import annotations

from pathlib import Path

from tests.helpers import app_for
from tests.helpers import run_before as run


def test_overview_120x40(snap_compare, loaded_db: Path) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(app_for(loaded_db), terminal_size=(120, 40), run_before=run(keys=("down", "down", "down")))


def test_overview_80x24(snap_compare, loaded_db: Path) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(app_for(loaded_db), terminal_size=(80, 24), run_before=run())
