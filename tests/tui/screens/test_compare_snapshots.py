"""Snapshots of the compare screen: EM/F1 and CDQA runs, narrow and wide (pytest-textual-snapshot;
`--snapshot-update` to accept after looking at the new SVGs).

Deterministic: the sample runs, the built-in theme, fixed sizes, every worker finished and the
facet panel's debounce timer run out before the picture is taken.
"""

from __future__ import annotations

from pathlib import Path

from tests.helpers import app_for
from tests.helpers import run_key_by_key as run


def test_compare_120x40(snap_compare, loaded_db: Path) -> None:  # type: ignore[no-untyped-def]
    """bidaf-baseline (A) against roberta-wwm-large (B): c in the browser, pick B."""
    steps = run(lambda app: app.open_run("bidaf-baseline"), keys=("c", "down", "enter"))
    assert snap_compare(app_for(loaded_db), terminal_size=(120, 40), run_before=steps)


def test_compare_cdqa_80x24(snap_compare, loaded_db: Path) -> None:  # type: ignore[no-untyped-def]
    """c on the overview's first run (glm-6b): its one other run is B; F1-recall threshold only."""
    assert snap_compare(app_for(loaded_db), terminal_size=(80, 24), run_before=run(keys=("c",)))


def test_compare_wide_160x45(snap_compare, loaded_db: Path) -> None:  # type: ignore[no-untyped-def]
    steps = run(lambda app: app.open_run("glm-6b"), keys=("c",))
    assert snap_compare(app_for(loaded_db), terminal_size=(160, 45), run_before=steps)


def test_compare_200x50(snap_compare, loaded_db: Path) -> None:  # type: ignore[no-untyped-def]
    steps = run(lambda app: app.open_run("bidaf-baseline"), keys=("c", "down", "enter"))
    assert snap_compare(app_for(loaded_db), terminal_size=(200, 50), run_before=steps)
