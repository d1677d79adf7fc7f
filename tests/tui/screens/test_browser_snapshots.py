"""Snapshots of the item browser: the item table (EM/F1 and CDQA columns, the B columns while
comparing) and the facet panel beside or below it (pytest-textual-snapshot; `--snapshot-update`
to accept after looking at the new SVGs).

Deterministic: the sample runs, the built-in theme, fixed sizes, every worker finished and the
facet panel's debounce timer run out before the picture is taken.
"""

from __future__ import annotations

from pathlib import Path

from tests.helpers import app_for, run_key_by_key
from tests.helpers import run_before as run


def test_browser_120x40(snap_compare, loaded_db: Path) -> None:  # type: ignore[no-untyped-def]
    steps = run(lambda app: app.open_run("bidaf-baseline"), keys=("w", "down", "down"))
    assert snap_compare(app_for(loaded_db), terminal_size=(120, 40), run_before=steps)


def test_browser_compare_120x40(snap_compare, loaded_db: Path) -> None:  # type: ignore[no-untyped-def]
    steps = run(lambda app: app.open_run("bidaf-baseline"), keys=("C", "down", "down", "enter", "d"))
    assert snap_compare(app_for(loaded_db), terminal_size=(120, 40), run_before=steps)


def test_browser_cdqa_80x24(snap_compare, loaded_db: Path) -> None:  # type: ignore[no-untyped-def]
    steps = run(lambda app: app.open_run("qwen-7b-chat"))
    assert snap_compare(app_for(loaded_db), terminal_size=(80, 24), run_before=steps)


def test_facets_120x40(snap_compare, loaded_db: Path) -> None:  # type: ignore[no-untyped-def]
    """The facet panel beside bert-base-chinese's items, one question type selected (below the error categories)."""
    steps = run_key_by_key(lambda app: app.open_run("bert-base-chinese"), keys=("ctrl+f", *["down"] * 30, "enter"))
    assert snap_compare(app_for(loaded_db), terminal_size=(120, 40), run_before=steps)


def test_facets_80x24(snap_compare, loaded_db: Path) -> None:  # type: ignore[no-untyped-def]
    """At 80 columns the panel sits below the items."""
    steps = run_key_by_key(lambda app: app.open_run("glm-6b"), keys=("ctrl+f", "down", "enter"))
    assert snap_compare(app_for(loaded_db), terminal_size=(80, 24), run_before=steps)


async def _settle_preview(pilot) -> None:  # type: ignore[no-untyped-def]
    """`settle`, then the split view's short wait for the cursor to rest, then settle again."""
    from tests.helpers import settle

    await settle(pilot)
    await pilot.pause(0.3)
    await settle(pilot)


def test_browser_split_200x50(snap_compare, loaded_db: Path) -> None:  # type: ignore[no-untyped-def]
    """200 columns: the list left, the item under the cursor right."""
    steps = run(lambda app: app.open_run("bert-base-chinese"), keys=("down", "down"), settle=_settle_preview)
    assert snap_compare(app_for(loaded_db), terminal_size=(200, 50), run_before=steps)
