"""The item browser's layout actions: the split view (the item under the cursor beside the list,
on wide terminals), the columns the user chose (`k`, kept per dataset) or that fit the width
(with a "2 columns hidden (k)" notice for those left out), and the distribution view (`D`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rich.cells import cell_len

from textual import work
from textual.message import Message
from textual.worker import get_current_worker

from qa_inspect.core.query import ColumnLayout, Filter, ItemDetail, is_cdqa, item_detail
from qa_inspect.core.report import BrowseInfo

from ..base import QAApp
from ..dialogs import ColumnsDialog
from ..text import clean
from ..widgets import PREVIEW_MIN_WIDTH, Col, FacetPanel, ItemPreview, ItemTable, columns_for, hidden_for_width
from ..workers import Db
from .distribution import DistributionScreen

__all__ = ["BrowserLayout", "PreviewLoaded"]


@dataclass
class PreviewLoaded(Message):
    """The split view's item (None: no longer in the database)."""

    detail: ItemDetail | None



class BrowserLayout:
    """Mixed into `BrowserScreen` before `BaseScreen`."""

    if TYPE_CHECKING:  # provided by BrowserScreen / BaseScreen
        app: Any
        db: Db
        qa_app: QAApp
        filter: Filter
        info: BrowseInfo | None
        __dict__: dict[str, Any]

        def query_one(self, *args: Any, **kwargs: Any) -> Any: ...
        def notify(self, *args: Any, **kwargs: Any) -> None: ...
        def post_message(self, message: Message) -> bool: ...
        def set_timer(self, *args: Any, **kwargs: Any) -> Any: ...
        def rebuild_columns(self, *, refill: bool = True) -> None: ...

    # -- split view --------------------------------------------------------------------------
    def split_shown(self) -> bool:
        """Wide enough, switched on (`v`), and the facet panel not in its place."""
        return (self.app.size.width >= PREVIEW_MIN_WIDTH and self.__dict__.get("_split", True)
                and not self.query_one(FacetPanel).shown)

    def follow_preview(self) -> None:
        """The item under the cursor into the split view, once the cursor rests (keys stay quick)."""
        preview = self.query_one(ItemPreview)
        preview.display = self.split_shown()
        row = self.query_one(ItemTable).current
        if not preview.display or row is None:
            return
        timer = self.__dict__.get("_preview_timer")
        if timer is not None:
            timer.stop()
        self.__dict__["_preview_timer"] = self.set_timer(0.12, lambda: self.load_preview(row.item_id, self.filter.run))

    @work(thread=True, exclusive=True, exit_on_error=False, group="preview")
    def load_preview(self, item_id: int, run: str | None) -> None:
        with self.db.connect() as conn:
            detail = item_detail(conn, item_id, run)
        if not get_current_worker().is_cancelled:
            self.post_message(PreviewLoaded(detail))

    def on_preview_loaded(self, message: PreviewLoaded) -> None:
        row = self.query_one(ItemTable).current
        if message.detail is not None and row is not None and message.detail.item_id == row.item_id:
            self.query_one(ItemPreview).show(message.detail)

    # -- columns -----------------------------------------------------------------------------
    def fit_columns(self, width: int) -> list[Col]:
        """The item table's columns for `width` cells: the user's choice (`k`: every column they
        keep, in their order, scrolling sideways when they do not fit), else what fits, the
        columns left out counted for `hidden_columns_parts`."""
        info = self.info
        assert info is not None
        cdqa = is_cdqa(info.scorer, info.family)
        values = info.values
        dims = {d for d, v in values.items() if len(v) > 1}  # a label worth a column varies
        dim_widths = {d: max(cell_len(clean(x)) for x in v) for d, v in values.items() if v}
        layout = self.qa_app.column_layouts.get(info.dataset or "")
        args = (cdqa, dims, bool(self.filter.compare), info.key_width)
        cols = columns_for(*args, width, dim_widths, has_run=self.filter.run is not None, keep_all=layout is not None)
        every = columns_for(*args, 200, dim_widths, has_run=self.filter.run is not None)
        self.__dict__["_hidden_for_width"] = hidden_for_width(every, cols, layout.hidden if layout else ())
        if layout is not None:  # the user's choice (k): some hidden, their order
            by_key = {c.key: c for c in cols}
            cols = [by_key[k] for k in layout.apply(list(by_key))]
        return cols

    def hidden_columns_parts(self) -> list[tuple[str, str]]:
        """"2 columns hidden (k)" for the status line while a narrow terminal leaves columns out."""
        hidden = self.__dict__.get("_hidden_for_width") or []
        if not hidden:
            return []
        key = next((self.app.get_key_display(b) for b in type(self).BINDINGS  # type: ignore[attr-defined]
                    if getattr(b, "id", None) == "browser.columns"), "k")
        n = len(hidden)
        return [("  ", ""), (f"{n} column{'s' if n != 1 else ''} hidden ({key})", "$warning")]

    def action_columns(self) -> None:
        """`k`: choose and order the columns (kept per dataset)."""
        table = self.query_one(ItemTable)
        if self.info is None or not table.cols:
            return
        dataset = self.info.dataset or ""
        cdqa = is_cdqa(self.info.scorer, self.info.family)
        varying = {d for d, v in self.info.values.items() if len(v) > 1}  # as the table shows them
        every = columns_for(cdqa, varying, bool(self.filter.compare), self.info.key_width, 200,
                            has_run=self.filter.run is not None)

        def done(layout: ColumnLayout | None) -> None:
            if layout is not None:
                self.qa_app.remember_columns(dataset, layout)
                self.rebuild_columns()

        current = self.qa_app.column_layouts.get(dataset, ColumnLayout())
        self.app.push_screen(ColumnsDialog([(c.key, c.label) for c in every], current), done)

    def action_distribution(self) -> None:
        """`D`: the score histogram of this filter's items (and the A-vs-B grid with run B)."""
        if self.filter.run is None:
            self.notify("A distribution needs a run: press r to choose one.", severity="warning")
            return
        self.app.push_screen(DistributionScreen(self.filter))

    def action_toggle_split(self) -> None:
        if self.app.size.width < PREVIEW_MIN_WIDTH:
            self.notify(f"The split view needs {PREVIEW_MIN_WIDTH} columns or more.", severity="warning")
            return
        self.__dict__["_split"] = not self.__dict__.get("_split", True)
        self.follow_preview()
