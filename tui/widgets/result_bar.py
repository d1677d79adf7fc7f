"""A scrollbar for the whole result, not the window of rows the item table holds.

The table keeps at most `WINDOW` rows; its own scrollbar would put the thumb at 70% on the last
of 3,219 items. This one-column bar draws the visible rows' place among all the filter's items.
"""

from __future__ import annotations

from rich.text import Text
from textual.widget import Widget

__all__ = ["ResultBar", "thumb"]


def thumb(height: int, total: int, first: int, shown: int) -> tuple[int, int]:
    """(top, size) in cells of the thumb for rows `first…first+shown` of `total` on a bar `height` tall."""
    if height <= 0 or total <= 0:
        return 0, 0
    size = max(1, min(height, round(height * shown / total)))
    top = min(height - size, round((height - size) * first / max(1, total - shown)) if total > shown else 0)
    return max(0, top), size


class ResultBar(Widget):
    """One column beside the item table: where the visible rows sit in the whole result."""

    DEFAULT_CSS = ""  # styled in app.tcss (#result-bar)

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.place = (0, 0, 0)  # total, first visible row (absolute), rows visible

    def show(self, total: int, first: int, shown: int) -> None:
        if (total, first, shown) != self.place:
            self.place = (total, first, shown)
            self.refresh()

    def render(self) -> Text:
        total, first, shown = self.place
        height = self.size.height
        if total <= shown:
            return Text("\n".join(" " * height))
        top, size = thumb(height, total, first, shown)
        style = self.app.current_theme.primary or "blue"
        lines = [Text("█", style=style) if top <= y < top + size else Text("│", style="dim") for y in range(height)]
        return Text("\n").join(lines)
