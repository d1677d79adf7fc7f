"""Snapshot tests of the compare screen and the facet panel (pytest-textual-snapshot;
`--snapshot-update` to accept after looking at the new SVGs).

Deterministic: the sample runs, the built-in theme, fixed sizes, every worker finished and the
facet panel's debounce timer run out before the picture is taken.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from qa_inspect.tui.app import QAInspectApp
from tests.helpers import Before, app_for, run_before, settle_facets


@pytest.fixture(scope="module")
def db(loaded_db: Path) -> Path:
    return loaded_db


def run(*steps: Callable[[QAInspectApp], object], keys: tuple[str, ...] = ()) -> Before:
    """`run_before` settling with the facet debounce, after each key."""
    return run_before(*steps, keys=keys, settle=settle_facets, key_by_key=True)


def test_compare_120x40(snap_compare, db: Path) -> None:  # type: ignore[no-untyped-def]
    """bidaf-baseline (A) against roberta-wwm-large (B): c in the browser, pick B."""
    steps = run(lambda app: app.open_run("bidaf-baseline"), keys=("c", "down", "enter"))
    assert snap_compare(app_for(db), terminal_size=(120, 40), run_before=steps)


def test_compare_cdqa_80x24(snap_compare, db: Path) -> None:  # type: ignore[no-untyped-def]
    """c on the overview's first run (glm-6b): its one other run is B; F1-recall threshold only."""
    assert snap_compare(app_for(db), terminal_size=(80, 24), run_before=run(keys=("c",)))


def test_compare_wide_160x45(snap_compare, db: Path) -> None:  # type: ignore[no-untyped-def]
    steps = run(lambda app: app.open_run("glm-6b"), keys=("c",))
    assert snap_compare(app_for(db), terminal_size=(160, 45), run_before=steps)


def test_facets_120x40(snap_compare, db: Path) -> None:  # type: ignore[no-untyped-def]
    """The facet panel beside bert-base-chinese's items, one question word selected."""
    steps = run(lambda app: app.open_run("bert-base-chinese"), keys=("F", *["down"] * 24, "enter"))
    assert snap_compare(app_for(db), terminal_size=(120, 40), run_before=steps)


def test_facets_80x24(snap_compare, db: Path) -> None:  # type: ignore[no-untyped-def]
    """At 80 columns the panel sits below the items."""
    steps = run(lambda app: app.open_run("glm-6b"), keys=("F", "down", "enter"))
    assert snap_compare(app_for(db), terminal_size=(80, 24), run_before=steps)
