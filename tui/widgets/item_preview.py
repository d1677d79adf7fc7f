"""The split view's right half: the highlighted item as the detail shows it, following the cursor.

On a wide terminal (`PREVIEW_MIN_WIDTH` columns and more) the item browser keeps its list on the
left and shows the item under the cursor here, so reading predictions against golds needs no
Enter/escape round trip. The screen loads `core.query.item_detail` in a worker and hands it over.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

from qa_inspect.core.query import ItemDetail

from . import detail_blocks as parts

__all__ = ["PREVIEW_MIN_WIDTH", "ItemPreview"]

PREVIEW_MIN_WIDTH = 160
"""Terminal width from which the browser splits: list left, item right."""


class ItemPreview(VerticalScroll, can_focus=False):
    """Question, prediction against every gold, other runs and the passage of one item."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.detail: ItemDetail | None = None

    def compose(self) -> ComposeResult:
        yield Static(Content.styled("the highlighted item shows here", "$foreground-muted"), id="pv-text")

    def show(self, detail: ItemDetail | None) -> None:
        self.detail = detail
        self._draw()

    def on_resize(self) -> None:
        self._draw()

    def _draw(self) -> None:
        d = self.detail
        box = self.query_one("#pv-text", Static)
        if d is None:
            box.update(Content.styled("no item", "$foreground-muted"))
            return
        width = max(20, (self.scrollable_content_region.width or 60) - 1)
        blocks = [parts.title(d, None, None), parts.question(d), parts.answers(d, False, width),
                  parts.others(d, width), parts.context(d, width)]
        box.update(Content("\n\n").join(blocks))
        self.scroll_home(animate=False)
