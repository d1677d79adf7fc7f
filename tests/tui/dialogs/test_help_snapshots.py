"""Snapshot of the help dialog opened from the item browser: its keys first, then the keys of
every other screen (pytest-textual-snapshot; `--snapshot-update` to accept after looking at the
new SVG)."""

from __future__ import annotations

from pathlib import Path

from tests.helpers import app_for
from tests.helpers import run_before as run


def test_help_120x40(snap_compare, loaded_db: Path) -> None:  # type: ignore[no-untyped-def]
    steps = run(lambda app: app.open_run("glm-6b"), keys=("question_mark",))
    assert snap_compare(app_for(loaded_db), terminal_size=(120, 40), run_before=steps)
