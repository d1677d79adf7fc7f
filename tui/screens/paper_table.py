"""The paper table in the app (`T`, or "Paper table" in the palette): `qa-inspect table` for one
dataset with its grid drawn as bars, the axes chosen with single keys.

Rows are a run setting (model, prompt … or the run itself), columns an item dimension the dataset
has (tag, split, answer type) or a setting, cells the scorer's main metrics (F1-recall and answer
rate, or EM and F1); `b` keeps the best run over a setting (shots). The numbers are
`core.report.paper_table`'s, the same as the CLI's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widgets import DataTable, Header, Static
from textual.worker import get_current_worker

from qa_inspect.core.errors import QAInspectError
from qa_inspect.core.report import (
    PaperTable,
    RunSettings,
    TableSpec,
    cell_text,
    folder_run_settings,
    paper_table,
    table_axes,
    template_label,
)

from ..stale import COMPARE_STALE_BINDINGS, StaleScreen
from ..present import number
from ..text import bar, clean, truncate
from ..widgets import KeyFooter

__all__ = ["PaperTableScreen", "TableBuilt", "axes_for"]

BAR = 30


@dataclass
class TableBuilt(Message):
    table: PaperTable | None
    rows: list[tuple[str, ...]]
    cols: list[str]
    best: list[str]
    error: str | None = None


def axes_for(runs: list[RunSettings], dimensions: list[str]) -> tuple[list[tuple[str, ...]], list[str], list[str]]:
    """The choices for rows, columns and best-over, the first of each a table that needs no choosing:
    best over `shots` where shots vary, rows by every other setting that varies (then each alone,
    then the run itself), columns by the dataset's item dimensions, then varying settings, then none."""
    values: dict[str, set[str]] = {}
    for r in runs:
        for k, v in r.settings.items():
            values.setdefault(k, set()).add(v)
    varying = sorted(k for k, v in values.items() if len(v) > 1 and k not in ("task", "tag", "split", "dataset"))
    best = ["shots", *(k for k in varying if k != "shots"), ""] if "shots" in varying else ["", *varying]
    together = tuple(k for k in varying if k != best[0])
    rows = list(dict.fromkeys([together] if together else []))
    rows += [(k,) for k in varying if (k,) not in rows] + [("run",)]
    return rows, [*dimensions, *varying, ""], best


class PaperTableScreen(StaleScreen):
    """One dataset's runs as a paper table, with bars."""

    HELP_TITLE = "Paper table"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("V", "cycle('rows')", "Rows", id="paper-table.rows", tooltip="Rows by the next setting (model, prompt … run)"),
        Binding("H", "cycle('cols')", "Columns", id="paper-table.cols",
                tooltip="Columns by the next item dimension or setting"),
        Binding("B", "cycle('best')", "Best over", id="paper-table.best",
                tooltip="Keep the best run over the next setting (shots …), or none"),
        *COMPARE_STALE_BINDINGS,  # u, U, m (stale.keys): the same keys as every other screen
        Binding("escape", "back", "Back", id="paper-table.back", tooltip="Back to where you came from"),
    ]

    def __init__(self, dataset: str) -> None:
        super().__init__()
        self.dataset = dataset
        self.choice = {"rows": 0, "cols": 0, "best": 0}
        self.axes: dict[str, list[Any]] = {}
        self.table: PaperTable | None = None

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="paper-title")
        with VerticalScroll(id="paper-body"):
            yield DataTable(id="paper-grid", cursor_type="row", zebra_stripes=True)
            yield Static(id="paper-bars")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one("#paper-body").loading = True
        self.build(dict(self.choice))

    @work(thread=True, exclusive=True, exit_on_error=False, group="paper-table")
    def build(self, choice: dict[str, int]) -> None:
        worker = get_current_worker()
        table: PaperTable | None = None
        error: str | None = None
        rows: list[tuple[str, ...]] = []
        cols: list[str] = []
        best: list[str] = []
        with self.db.connect() as conn:
            try:
                dims, cells = table_axes(conn, self.dataset)
                runs = [r for r in folder_run_settings(conn, self.qa_app.runs_dir) if r.dataset == self.dataset]
                rows, cols, best = axes_for(runs, dims)
                spec = TableSpec(rows=rows[choice["rows"] % len(rows)], cols=cols[choice["cols"] % len(cols)] or None,
                                 cells=cells, best_over=best[choice["best"] % len(best)] or None,
                                 dataset=self.dataset, human=True)
                table = paper_table(conn, spec, runs)
            except QAInspectError as exc:
                error = str(exc)
        if not worker.is_cancelled:
            self.post_message(TableBuilt(table, rows, cols, best, error))

    def on_table_built(self, message: TableBuilt) -> None:
        self.query_one("#paper-body").loading = False
        self.axes = {"rows": message.rows, "cols": message.cols, "best": message.best}
        self.table = message.table
        self._title(message.error)
        grid = self.query_one("#paper-grid", DataTable)
        grid.clear(columns=True)
        bars = self.query_one("#paper-bars", Static)
        if message.table is None:
            bars.update(Content.styled(message.error or "", "$warning"))
            return
        self._fill(grid, message.table)
        bars.update(self._bars(message.table))

    def _title(self, error: str | None) -> None:
        parts = [(f"{clean(self.dataset)}  ", "bold")]
        for name, axis_key, key in (("rows", "rows", "V"), ("columns", "cols", "H"), ("best over", "best", "B")):
            axis = self.axes.get(axis_key) or [""]
            value = axis[self.choice[axis_key] % len(axis)]
            shown = ", ".join(value) if isinstance(value, tuple) else value
            parts += [(f"{name} ", "$foreground-muted"), (clean(shown or "—"), "bold"), (f" ({key})   ", "$foreground-muted")]
        if self.qa_app.exclude_stale:
            parts.append(("all golds (stored scores)", "$warning"))
        self.query_one("#paper-title", Static).update(Content.assemble(*parts))

    def stale_mode_changed(self) -> None:
        self._title(None)

    def _fill(self, grid: DataTable[Text], t: PaperTable) -> None:
        for n, key in enumerate(t.spec.rows):
            grid.add_column(key, key=f"label{n}")
        for col in t.columns:
            for tp in t.spec.cells:
                label = template_label(tp)
                grid.add_column(f"{col} {label}" if t.spec.cols else label, key=f"{col}|{tp}")
        for i, labels in enumerate(t.rows):
            style = "italic" if t.runs.get(i) == ["human estimate"] else ""
            cells = [Text(clean(label), style=style) for label in labels]
            for col in t.columns:
                for tp in t.spec.cells:
                    cell = t.cell(i, col, tp)
                    cells.append(Text(cell_text(cell, tp), justify="right", style="bold" if cell and cell.best else ""))
            grid.add_row(*cells)

    def _bars(self, t: PaperTable) -> Text:
        """One group per column, one bar per row: the first metric of the first cell template."""
        tp = t.spec.cells[0]
        metric = t.spec.metrics_of(tp)[0]
        names = [" · ".join(v for v in r if v) for r in t.rows]
        width = min(40, max((len(clean(n)) for n in names), default=8))
        out = Text()
        for col in t.columns:
            out.append(f"\n{clean(col) if t.spec.cols else metric}\n", style="bold")
            for i, labels in enumerate(t.rows):
                cell = t.cell(i, col, tp)
                value = None if cell is None else cell.values.get(metric)
                out.append(f"  {truncate(clean(names[i]), width):<{width}} ")
                out.append(bar(None if value is None else value / 100, BAR), style="bold" if cell and cell.best else "")
                out.append(f"  {number(value)}\n")  # — when missing
        return out

    def action_cycle(self, axis: str) -> None:
        if len(self.axes.get(axis, [])) < 2:  # a key with nothing to do says why
            what = {"rows": "rows", "cols": "columns", "best": "best over"}[axis]
            self.notify(f"No other {what} to choose: the runs of {self.dataset} differ in no other setting"
                        " (model, prompt, shots … from file names and run settings).", markup=False, timeout=5)
            return
        self.choice[axis] += 1
        self.query_one("#paper-body").loading = True
        self.build(dict(self.choice))

    def action_back(self) -> None:
        self.dismiss(None)
