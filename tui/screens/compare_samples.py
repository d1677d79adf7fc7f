"""The compare screen's samples row: pass@1 of A and B and the items that became flaky or stable
(`core.report.diff_samples`); Enter on a count browses those items. Shown only when either run
sampled items: a comparison of single-answer runs looks as it always did."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.binding import Binding
from textual.widgets import DataTable, Static

from ..present import count, number
from ..present import signed as signed_text

if TYPE_CHECKING:
    from qa_inspect.core.report import RunDiff

    from .compare_tables import Palette

__all__ = ["SAMPLE_COLUMNS", "SampleTable", "fill_samples"]

SAMPLE_COLUMNS: tuple[tuple[str, str | None], ...] = (
    ("pass@1 A", None), ("pass@1 B", None), ("Δ B−A", None),
    ("became flaky", "became_flaky"), ("became stable", "became_stable"), ("still flaky", "still_flaky"),
)
"""Column heading and the sample change it counts (None: a number, nothing to browse)."""


class SampleTable(DataTable[Text]):
    """pass@1 and the flaky/stable counts of A → B, one row; Enter on a count browses its items."""

    BINDINGS = [Binding("enter", "select_cursor", "Browse", id="compare.samples.browse",
                        tooltip="Browse the items that became flaky, became stable or stayed flaky")]

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(cursor_type="cell", **kwargs)

    def change_at(self, column: int) -> str | None:
        """The sample change counted in `column` (None for pass@1 and Δ)."""
        return SAMPLE_COLUMNS[column][1] if 0 <= column < len(SAMPLE_COLUMNS) else None


def fill_samples(table: SampleTable, title: Static, d: RunDiff | None, palette: Palette) -> None:
    """The row of `d.samples`; table and title hidden when neither run sampled an item."""
    s = None if d is None else d.samples
    table.display = title.display = s is not None
    cursor = table.cursor_coordinate
    table.clear(columns=True)
    if s is None:
        return
    title.update(f"Samples on {count(s.items)} items: pass@1 = the share of an item's samples that are right")
    for head, _ in SAMPLE_COLUMNS:
        table.add_column(Text(head, justify="right"))
    delta_style = palette["good"] if (s.delta or 0) > 0 else palette["bad"] if (s.delta or 0) < 0 else ""
    cells = [Text(number(s.pass1_a), justify="right"), Text(number(s.pass1_b), justify="right"),
             Text(signed_text(s.delta), style=delta_style, justify="right")]
    for change, style in (("became_flaky", palette["bad"]), ("became_stable", palette["good"]), ("still_flaky", "")):
        n = s.count(change)
        cells.append(Text(count(n), style=f"bold {style}".strip() if n else "dim", justify="right"))
    table.add_row(*cells)
    table.move_cursor(row=0, column=cursor.column if cursor.column >= 3 else 3, animate=False)
