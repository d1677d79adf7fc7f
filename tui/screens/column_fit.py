"""The item browser's columns: the ones the user chose (`k`, kept per dataset) or that fit the
width, with a "2 columns hidden (k)" notice for those a narrow terminal leaves out; and the two
things done on a column: its frequency table (`F`) and the expression filter over the
columns (`|`).

Besides the table's own columns, `k` offers every column of the registry (`core.query.columns`):
labels, error category, relation, item features, judge verdicts, `meta` keys, other runs' answers
and scores. They are off until ticked; the rows carry their values (`extra`: the page reads them).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from rich.cells import cell_len
from textual.worker import get_current_worker

from qa_inspect.core.query import (
    ColumnDef, ColumnLayout, Filter, and_clause, available_columns, column_def, is_cdqa, is_column,
)
from qa_inspect.core.report import BrowseInfo

from ..base import BaseScreen
from ..dialogs import ColumnsDialog, ExpressionDialog, FrequencyDialog
from ..present import plural
from ..text import clean
from ..widgets import Col, ItemTable, columns_for, hidden_for_width, registry_col

_OWN_CELLS = frozenset({"key", "split", "tag", "answer_type", "question", "prediction", "best_gold", "em", "f1",
                        "f1_recall", "refused", "stale", "b_em", "b_main", "delta"})
"""Columns whose cells come from `ItemRow`'s own fields; any other is a registry column."""


def extra_col(name: str) -> Col:
    """The table column of a registry column."""
    d = column_def(name)
    return registry_col(d.name, d.label, d.numeric)


class ColumnFit:
    """The columns of one browser's item table, and which of them the width left out."""

    def __init__(self, host: BaseScreen) -> None:
        self.host = host
        self.hidden: list[str] = []
        """Columns the user keeps that the width left out (the status line says how many)."""
        self.extra: tuple[str, ...] = ()
        """Registry columns shown now."""

    def wanted(self, f: Filter) -> tuple[str, ...]:
        """The registry columns the user keeps for `f`'s dataset: each window reads their values
        (asked before the columns are laid out: a new filter starts its reads first)."""
        return self._extras(self.host.qa_app.column_layouts.get(f.dataset or ""), f)

    @staticmethod
    def _extras(layout: ColumnLayout | None, f: Filter, own: set[str] | frozenset[str] = _OWN_CELLS) -> tuple[str, ...]:
        """Registry columns the user ticked (`k`): named in their order, not hidden, not the
        table's own, of the run only when there is one."""
        if layout is None:
            return ()
        return tuple(k for k in layout.order if k not in _OWN_CELLS and k not in own and k not in layout.hidden
                     and is_column(k) and (f.run is not None or not _needs_run(k)))

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
        own = {c.key for c in cols}
        self.extra = self._extras(layout, f, own)
        cols += [extra_col(k) for k in self.extra]
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

    def act(self, what: str, info: BrowseInfo, f: Filter, apply: Callable[[Filter], None],
            chosen: Callable[[], None]) -> None:
        """`k` (choose), `F` (frequency) or `|` (expression) on the browser's columns."""
        if what == "frequency":
            self.frequency(f, apply)
        elif what == "expression":
            self.expression(f, apply)
        else:
            self.host.run_worker(partial(self._choose, info, f, chosen), thread=True, exclusive=True,
                                 exit_on_error=False, group="columns")

    def _choose(self, info: BrowseInfo, f: Filter, chosen: Callable[[], None]) -> None:
        with self.host.db.connect() as conn:
            found = available_columns(conn, f.run)
        if not get_current_worker().is_cancelled:
            self.host.call_later(self.choose, info, f, chosen, found)

    def choose(self, info: BrowseInfo, f: Filter, chosen: Callable[[], None], found: list[ColumnDef]) -> None:
        """`k`: choose and order the columns (kept per dataset): the table's, then every registry
        column `found` for the run (off until ticked); `chosen` shows the table again."""
        dataset = info.dataset or ""
        cdqa = is_cdqa(info.scorer, info.family)
        varying = {d for d, v in info.values.items() if len(v) > 1}  # as the table shows them
        every = columns_for(cdqa, varying, bool(f.compare), info.key_width, 200, has_run=f.run is not None)
        own = {c.key for c in every}
        extras = [(c.name, _offered(c)) for c in found if c.name not in own and c.name not in _OWN_CELLS]

        def done(layout: ColumnLayout | None) -> None:
            if layout is not None:
                self.host.qa_app.remember_columns(dataset, layout)
                chosen()

        current = self.host.qa_app.column_layouts.get(dataset, ColumnLayout())
        off = tuple(k for k, _ in extras if k not in current.order)  # never chosen: off
        current = ColumnLayout((*current.hidden, *off), current.order)
        self.host.app.push_screen(ColumnsDialog([(c.key, c.label) for c in every] + extras, current), done)

    def _shown(self) -> list[Col]:
        return [c for c in self.host.query_one(ItemTable).cols if is_column(c.key)]

    def frequency(self, f: Filter, apply: Callable[[Filter], None]) -> None:
        """`F`: the frequency table of the sort column (when shown), else of the first text
        column after the id; ← → there step through the table's columns."""
        cols = self._shown()
        if not cols:
            return
        start = f.sort if f.sort in {c.key for c in cols} and f.sort != "key" else next(
            (c.key for c in cols if c.key not in ("key", "question")), cols[0].key)

        def done(extra: str | None) -> None:
            if extra:
                apply(f.with_(expression=and_clause(f.expression, extra)))

        self.host.app.push_screen(FrequencyDialog(f, [(c.key, c.label) for c in cols], start), done)

    def expression(self, f: Filter, apply: Callable[[Filter], None]) -> None:
        """`|`: type the expression filter (kept open with the error until it reads)."""

        def done(text: str | None) -> None:
            if text is not None and text != f.expression:
                apply(f.with_(expression=text))

        self.host.app.push_screen(ExpressionDialog(f.expression, [c.key for c in self._shown()]), done)


def _needs_run(name: str) -> bool:
    return column_def(name).group not in ("item", "feature")


def _offered(c: ColumnDef) -> str:
    """A registry column as the columns dialog lists it: its header and what it belongs to."""
    return c.label if c.group in ("item", "run") else f"{c.label} ({c.group})"


__all__ = ["ColumnFit", "extra_col"]
