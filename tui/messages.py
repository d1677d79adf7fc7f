"""Typed messages that thread workers post back to the UI thread (widgets are touched only there)."""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message

from qa_inspect.core.query import ItemDetail
from qa_inspect.core.report import DatasetOverview
from qa_inspect.core.query import Filter, ItemRow, SliceMetrics


@dataclass
class OverviewLoaded(Message):
    """`complete=False`: overall numbers only, the slices follow in a second message."""

    datasets: list[DatasetOverview]
    complete: bool = True


@dataclass
class CountLoaded(Message):
    """Count and slice metrics of a filter; `generation` lets the screen drop stale answers."""

    generation: int
    filter: Filter
    total: int
    metrics: SliceMetrics


@dataclass
class WindowLoaded(Message):
    """Rows `start … start+len(rows)` of a filter, and the row (absolute index) to put the cursor on."""

    generation: int
    filter: Filter
    start: int
    rows: list[ItemRow]
    cursor: int


@dataclass
class DetailLoaded(Message):
    detail: ItemDetail | None
    position: int | None
    total: int | None


@dataclass
class NeighbourFound(Message):
    item_id: int | None
    step: int
