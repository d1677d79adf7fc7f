"""Snapshots of the item browser with registry columns chosen (`k`): labels, error category and
two `meta` keys of bert-meta's records, at 80×24, 120×40 and 200×50 (`--snapshot-update` to
accept after looking at the new SVGs)."""

from __future__ import annotations

from pathlib import Path

import pytest

from qa_inspect.core.query import ColumnLayout
from tests.columns_data import META_RUN, load_columns
from tests.helpers import app_for, run_key_by_key
from tests.helpers import run_before as run

LAYOUT = ColumnLayout(order=("key", "label", "error_category", "meta:latency", "meta:sampler", "question",
                             "prediction", "em", "f1"))
"""The columns a user chose with `k` (the id, labels, category, two meta keys first)."""


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return load_columns(tmp_path_factory.mktemp("columns-snapshots"))


def _open(app) -> None:  # type: ignore[no-untyped-def]
    app.column_layouts["cmrc2018_dev_sample"] = LAYOUT
    app.open_run(META_RUN)


@pytest.mark.parametrize("size", [(80, 24), (120, 40), (200, 50)], ids=["80x24", "120x40", "200x50"])
def test_browser_with_label_category_and_meta_columns(snap_compare, db: Path, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(app_for(db), terminal_size=size, run_before=run(_open))


def test_frequency_of_the_category_80x24(snap_compare, db: Path) -> None:  # type: ignore[no-untyped-def]
    """F on the sort column (error category): value, count, share, score, errors."""
    steps = run_key_by_key(_open_sorted, keys=("F",))
    assert snap_compare(app_for(db), terminal_size=(80, 24), run_before=steps)


def _open_sorted(app) -> None:  # type: ignore[no-untyped-def]
    from qa_inspect.core.query import Filter

    app.column_layouts["cmrc2018_dev_sample"] = LAYOUT
    app.open_browser(Filter(run=META_RUN, sort="error_category"))
