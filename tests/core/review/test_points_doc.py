"""The guide prints the score's table as the code holds it (one table: `core.review.SIGNAL_TABLE`)."""

from __future__ import annotations

from pathlib import Path

from qa_inspect.core.review import LAST, POINTS, SIGNAL_TABLE, points_table

GUIDE = Path(__file__).resolve().parents[3] / "docs" / "guide" / "review-queue.md"


def test_the_guide_prints_the_table_of_the_code() -> None:
    assert points_table() in GUIDE.read_text(encoding="utf-8")


def test_every_signal_with_points_has_a_row() -> None:
    names = {name for name, _, _ in SIGNAL_TABLE}
    assert set(POINTS) <= names and LAST <= names and "tag" in names
