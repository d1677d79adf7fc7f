"""The item browser's split view: on a wide terminal, the item under the cursor beside the list
(`|` switches it off and on; the facet panel takes its place while shown). The item is read in a
worker once the cursor rests, so holding a key down stays quick."""

from __future__ import annotations

from functools import partial

from textual.timer import Timer
from textual.worker import get_current_worker

from qa_inspect.core.query import ItemDetail, item_detail

from ..base import BaseScreen
from ..widgets import PREVIEW_MIN_WIDTH, FacetPanel, ItemPreview, ItemTable


class SplitView:
    """Whether the split view is on, and the item it shows following the table's cursor."""

    def __init__(self, host: BaseScreen) -> None:
        self.host = host
        self.on = True
        """Switched on (`|`); shown only on a wide terminal without the facet panel."""
        self._timer: Timer | None = None

    def shown(self) -> bool:
        """Wide enough, switched on (`|`), and the facet panel not in its place."""
        return self.host.app.size.width >= PREVIEW_MIN_WIDTH and self.on and not self.host.query_one(FacetPanel).shown

    def toggle(self) -> None:
        if self.host.app.size.width < PREVIEW_MIN_WIDTH:
            self.host.notify(f"The split view needs {PREVIEW_MIN_WIDTH} columns or more.", severity="warning")
            return
        self.on = not self.on

    def follow(self, run: str | None) -> None:
        """The item under the cursor into the split view, once the cursor rests (keys stay quick)."""
        preview = self.host.query_one(ItemPreview)
        preview.display = self.shown()
        row = self.host.query_one(ItemTable).current
        if not preview.display or row is None:
            return
        if self._timer is not None:
            self._timer.stop()
        self._timer = self.host.set_timer(0.12, partial(self._load, row.item_id, run))

    def _load(self, item_id: int, run: str | None) -> None:
        self.host.run_worker(partial(self._read, item_id, run), thread=True, exclusive=True,
                             exit_on_error=False, group="preview")

    def _read(self, item_id: int, run: str | None) -> None:
        with self.host.db.connect() as conn:
            detail = item_detail(conn, item_id, run)
        if not get_current_worker().is_cancelled:
            self.host.call_later(self._show, detail)

    def _show(self, detail: ItemDetail | None) -> None:
        """The item read, if the cursor is still on it (None: no longer in the database)."""
        row = self.host.query_one(ItemTable).current
        if detail is not None and row is not None and detail.item_id == row.item_id:
            self.host.query_one(ItemPreview).show(detail)


__all__ = ["SplitView"]
