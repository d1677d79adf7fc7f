"""Messages the stale workers post back to the UI thread (where the screens turn them into widgets
and notices)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from textual.message import Message
from textual.notifications import SeverityLevel

from qa_inspect.core.report import StaleCounts, StaleSlice

from .form import StaleFormData
from .jobs import BulkPlan, JobResult


@dataclass
class StaleBusy(Message):
    """The database is locked by another writer; the write keeps retrying."""

    text: str


@dataclass
class StaleWritten(Message):
    """A queued write finished (or failed with a user-level error, `changed=False`)."""

    result: JobResult
    on_done: Callable[[], None] | None = None


@dataclass
class StaleNotice(Message):
    """Something to tell the user that changed nothing (the item is gone, no gold to flag)."""

    text: str
    severity: SeverityLevel = "warning"


@dataclass
class StaleFormReady(Message):
    """The mark form's data for one item: the screen opens the form."""

    data: StaleFormData


@dataclass
class BulkReady(Message):
    """What a bulk mark or clear would touch: the screen asks before doing it."""

    plan: BulkPlan


@dataclass
class StaleMetricsLoaded(Message):
    """The browser's slice re-scored without stale golds."""

    generation: int
    result: StaleSlice
    rescored: tuple[Any, Any] | None = None
    """(key, `rescored_rows` frame) for the next filter change while no flag changes."""


@dataclass
class StaleOverviewCounts(Message):
    """Stale golds per dataset, for the overview's titles."""

    counts: dict[str, StaleCounts]
