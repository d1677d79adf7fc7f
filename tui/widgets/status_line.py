"""The line above the item table: how many items match, and the slice's metrics."""

from __future__ import annotations

from collections.abc import Sequence

from rich.cells import cell_len
from textual.content import Content
from textual.widgets import Static

from qa_inspect.core.query import SliceMetrics

from ..present import count, noun, number, percent

def metric_parts(m: SliceMetrics | None, prefix: str = "") -> list[tuple[str, str]]:
    """EM/F1 (official counting: missing predictions count 0) or F1-recall/answer rate."""
    if m is None:
        return []
    out: list[tuple[str, str]] = []
    if m.em is not None:
        out += [(f"{prefix}EM ", "$foreground-muted"), (number(m.em), "bold"), ("  ", ""),
                (f"{prefix}F1 ", "$foreground-muted"), (number(m.f1), "bold")]
    if m.f1_recall is not None:
        if out:
            out.append(("  ", ""))
        out += [(f"{prefix}F1-recall ", "$foreground-muted"), (number(m.f1_recall), "bold"), ("  ", ""),
                ("answered ", "$foreground-muted"), (percent(m.answer_rate), "bold")]
    return out


class StatusLine(Static):
    """`1,234 of 3,219 items · EM 62.3 F1 81.4 · B EM … · sorted by F1 ↓`."""

    DEFAULT_CSS = """
    StatusLine { height: 1; padding: 0 1; }
    """

    def show(
        self,
        total: int | None,
        all_items: int | None,
        metrics: SliceMetrics | None,
        compare: SliceMetrics | None,
        sort_label: str,
        position: int | None = None,
        extra: Sequence[tuple[str, str]] = (),
        notice: Sequence[tuple[str, str]] = (),
    ) -> None:
        """`extra` parts (the metrics mode, a selection) follow the metrics they qualify; `notice`
        parts (columns a narrow terminal hid) follow the count, where 80 columns still show them."""
        parts: list[tuple[str, str]] = []
        if total is None:
            parts.append(("counting…", "$foreground-muted"))
        else:
            parts.append((count(total), "bold $accent"))
            if all_items is not None and all_items != total:
                parts.append((f" of {count(all_items)}", "$foreground-muted"))
            parts.append((" " + noun(total if all_items is None or all_items == total else all_items, "item"),
                          "$foreground-muted"))
        if position is not None and total:
            parts.append((f"  #{count(position + 1)}", "$foreground-muted"))
        parts += notice
        numbers: list[tuple[str, str]] = []
        a = metric_parts(metrics, "A " if compare else "")
        if a:
            numbers += [("  │  ", "$foreground-muted"), *a]
        b = metric_parts(compare, "B ")
        if b:
            numbers += [("  │  ", "$foreground-muted"), *b]
        sort = [("  │  ", "$foreground-muted"), ("sort ", "$foreground-muted"), (sort_label, "")]
        line = [*parts, *numbers, *extra, *sort]
        width = (self.size.width or self.app.size.width) - 2
        if sum(cell_len(text) for text, _ in line) > width:  # a narrow line keeps what the numbers mean (the mode)
            line = [*parts, *extra, *numbers, *sort]
        self.update(Content.assemble(*line))
