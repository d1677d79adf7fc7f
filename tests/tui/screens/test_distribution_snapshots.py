"""Snapshots of the distribution view (`D`): a CDQA run alone at 80×24, an EM/F1 pair with its
score grid at 120×40 and 200×50 (pytest-textual-snapshot; `--snapshot-update` to accept after
looking at the new SVGs)."""

from __future__ import annotations

from pathlib import Path

from qa_inspect.core.query import Filter
from qa_inspect.tui.screens import DistributionScreen
from tests.helpers import app_for
from tests.helpers import run_key_by_key as run

PAIR = Filter(dataset="cmrc2018_dev_sample", run="bidaf-baseline", compare="roberta-wwm-large")


def test_distribution_cdqa_80x24(snap_compare, loaded_db: Path) -> None:  # type: ignore[no-untyped-def]
    """D on the overview's first run (glm-6b): F1-recall bins, refusals beside them, no EM."""
    assert snap_compare(app_for(loaded_db), terminal_size=(80, 24), run_before=run(keys=("D",)))


def test_distribution_grid_80x24(snap_compare, loaded_db: Path) -> None:  # type: ignore[no-untyped-def]
    steps = run(lambda app: app.push_screen(DistributionScreen(PAIR)))
    assert snap_compare(app_for(loaded_db), terminal_size=(80, 24), run_before=steps)


def test_distribution_grid_120x40(snap_compare, loaded_db: Path) -> None:  # type: ignore[no-untyped-def]
    steps = run(lambda app: app.push_screen(DistributionScreen(PAIR)))
    assert snap_compare(app_for(loaded_db), terminal_size=(120, 40), run_before=steps)


def test_distribution_grid_200x50(snap_compare, loaded_db: Path) -> None:  # type: ignore[no-untyped-def]
    steps = run(lambda app: app.push_screen(DistributionScreen(PAIR.with_(em=0))))
    assert snap_compare(app_for(loaded_db), terminal_size=(200, 50), run_before=steps)
