"""The item browser's columns: the ones the user chose (`k`, kept per dataset) or that fit the
width, with a "2 columns hidden (k)" notice for those a narrow terminal leaves out."""

from __future__ import annotations

from collections.abc import Callable

from rich.cells import cell_len

from qa_inspect.core.query import ColumnLayout, Filter, is_cdqa
from qa_inspect.core.report import BrowseInfo

from ..base import BaseScreen
from ..dialogs import ColumnsDialog
from ..present import plural
from ..text import clean
from ..widgets import Col, columns_for, hidden_for_width


class ColumnFit:
    """The columns of one browser's item table, and which of them the width left out."""

    def __init__(self, host: BaseScreen) -> None:
        self.host = host
        self.hidden: list[str] = []
        """Columns the user keeps that the width left out (the status line says how many)."""

    def fit(self, info: BrowseInfo, f: Filter, width: int) -> list[Col]:
        """The item table's columns for `width` cells: the user's choice (`k`: every column they
        keep, in their order, scrolling sideways when they do not fit), else what fits, the
        columns left out kept in `hidden`."""
        cdqa = is_cdqa(info.scorer, info.family)
        values = info.values
        dims = {d for d, v in values.items() if len(v) > 1}  # a label worth a column varies
        dim_widths = {d: max(cell_len(clean(x)) for x in v) for d, v in values.items() if v}
        layout = self.host.qa_app.column_layouts.get(info.dataset or "")
        args = (cdqa, dims, bool(f.compare), info.key_width)
        cols = columns_for(*args, width, dim_widths, has_run=f.run is not None, keep_all=layout is not None)
        every = columns_for(*args, 200, dim_widths, has_run=f.run is not None)
        self.hidden = list(hidden_for_width(every, cols, layout.hidden if layout else ()))
        if layout is not None:  # the user's choice (k): some hidden, their order
            by_key = {c.key: c for c in cols}
            cols = [by_key[k] for k in layout.apply(list(by_key))]
        return cols

    def hidden_parts(self) -> list[tuple[str, str]]:
        """"2 columns hidden (k)" for the status line while a narrow terminal leaves columns out."""
        if not self.hidden:
            return []
        key = next((self.host.app.get_key_display(b) for b in self.host.BINDINGS
                    if getattr(b, "id", None) == "browser.columns"), "k")
        n = len(self.hidden)
        return [("  ", ""), (f"{plural(n, 'column')} hidden ({key})", "$warning")]

    def choose(self, info: BrowseInfo, f: Filter, chosen: Callable[[], None]) -> None:
        """`k`: choose and order the columns (kept per dataset); `chosen` lays the table out again."""
        dataset = info.dataset or ""
        cdqa = is_cdqa(info.scorer, info.family)
        varying = {d for d, v in info.values.items() if len(v) > 1}  # as the table shows them
        every = columns_for(cdqa, varying, bool(f.compare), info.key_width, 200, has_run=f.run is not None)

        def done(layout: ColumnLayout | None) -> None:
            if layout is not None:
                self.host.qa_app.remember_columns(dataset, layout)
                chosen()

        current = self.host.qa_app.column_layouts.get(dataset, ColumnLayout())
        self.host.app.push_screen(ColumnsDialog([(c.key, c.label) for c in every], current), done)


__all__ = ["ColumnFit"]
