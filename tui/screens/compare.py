"""Compare two runs (`c`): what run B fixed and broke relative to run A, per-slice deltas, and the
items whose F1 (F1-recall) moved most — `core.diff.diff_runs` on screen.

Every number is on the items both runs answer. Enter on a count opens the item browser on exactly
those items (`RunDiff.cell_filter`), with the A/B/Δ columns; on a slice it opens that slice with
the B columns, on a change that item. Δ is always B − A here and in the browser's Δ column.

The screen dismisses with a browser `Filter` when the user asks to browse with the B columns
(`b`); the opener applies it (the browser) or opens a browser on it (the overview).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.coordinate import Coordinate
from textual.events import Resize
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Static
from textual.worker import get_current_worker

from qa_inspect.core.report import DiffError, ItemChange, RunDiff, SliceDelta, diff_runs
from qa_inspect.core.query import OUTCOMES, Filter
from qa_inspect.core.query import describe

from ..text import cell_text, clean, truncate
from ..base import BaseScreen
from ..dialogs import RunPicker

THRESHOLDS = ("0.1", "0.2", "0.3", "0.4", "0.5", "0.6", "0.7", "0.8", "0.9", "1")

OUTCOME_HEADS = {
    "fixed": "fixed A✗→B✓",
    "broken": "broken A✓→B✗",
    "both_wrong": "both wrong",
    "both_right": "both right",
}

SLICE_FIELD = {"split": "splits", "tag": "tags", "answer_type": "answer_types"}
DIM_LABEL = {"overall": "", "split": "split ", "tag": "tag ", "answer_type": "type "}

RUN_SCORE_FIELDS = ("refused", "em", "f1_min", "f1_max")
"""Filter fields that judge a run's answers, not the items: the outcome table splits by them."""
RUN_SCORE_FACETS = ("refused", "pred_len")


def scope_of(f: Filter) -> tuple[Filter | None, bool]:
    """The items a comparison started from a browser filter looks at: the filter's item conditions
    (dataset, split/tag/type, stale, search, question facets …) without the run, the comparison
    and the conditions on the run's scores. Returns (scope or None for the whole dataset, whether
    score conditions were dropped)."""
    dropped = any(getattr(f, k) is not None for k in RUN_SCORE_FIELDS) or any(
        name in RUN_SCORE_FACETS for name, _ in f.facets
    )
    scope = Filter(dataset=f.dataset).with_(
        splits=f.splits, tags=f.tags, answer_types=f.answer_types, stale=f.stale,
        has_proposal=f.has_proposal, search=f.search,
        facets=tuple(p for p in f.facets if p[0] not in RUN_SCORE_FACETS),
    )
    if scope == Filter(dataset=f.dataset):
        return None, dropped
    return scope, dropped


def signed(value: float | None, palette: dict[str, str], digits: int = 1) -> Text:
    """A B − A difference: green when B is better, red when worse, dim 0."""
    if value is None:
        return Text("—", style="dim", justify="right")
    if abs(value) < 10 ** -(digits + 1):
        return Text("0", style="dim", justify="right")
    return Text(f"{value:+.{digits}f}", style=palette["good"] if value > 0 else palette["bad"], justify="right")


def plain(value: float | None, digits: int = 1) -> Text:
    return Text("—" if value is None else f"{value:.{digits}f}", justify="right", style="dim" if value is None else "")


@dataclass
class DiffLoaded(Message):
    generation: int
    diff: RunDiff | None
    error: str | None
    runs: list[str]
    """Runs of A's dataset (for choosing another B)."""


class OutcomeTable(DataTable[Text]):
    """The 2×2 outcome counts, one row per criterion (EM, F1 ≥ t); Enter on a count browses it."""

    BINDINGS = [Binding("enter", "select_cursor", "Browse", tooltip="Browse the items counted in this cell")]

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(cursor_type="cell", show_row_labels=True, **kwargs)
        self.criteria: list[str] = []


class PlainTable(DataTable[Text]):
    """A row table of the compare screen (slices, changes); Enter opens the row."""

    BINDINGS = [Binding("enter", "select_cursor", "Open", tooltip="Open the row under the cursor")]

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(cursor_type="row", zebra_stripes=True, **kwargs)


class CompareScreen(BaseScreen):
    """Run A against run B on the items both answer."""

    HELP_TITLE = "Compare runs"
    DEFAULT_CSS = """
    CompareScreen #cmp-title { height: auto; padding: 0 1; background: $panel; }
    CompareScreen #cmp-body { height: 1fr; }
    CompareScreen .cmp-section { height: 1; padding: 0 1; margin-top: 1; text-wrap: nowrap; text-overflow: ellipsis; }
    CompareScreen #cmp-outcomes { height: auto; margin: 0 1; }
    CompareScreen #cmp-lower { height: 1fr; }
    CompareScreen #cmp-slices-box { height: auto; max-height: 50%; }
    CompareScreen #cmp-changes-box { height: 1fr; }
    CompareScreen #cmp-slices { height: auto; max-height: 16; margin: 0 1; }
    CompareScreen #cmp-changes { height: 1fr; margin: 0 1; }
    CompareScreen.-short .cmp-section { margin-top: 0; }
    CompareScreen.-short #cmp-slices { max-height: 6; }
    CompareScreen.-tall #cmp-slices { max-height: 14; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open", "Open", tooltip="Browse a count's items (A, B, Δ B−A columns), a slice, or an item"),
        Binding("b", "browse_all", "Browse A+B",
                tooltip="Browse every item of the scope with the B and Δ B−A columns"),
        Binding("c", "choose_b", "Run B", tooltip="Compare run A with another run (B)"),
        Binding("x", "swap", "Swap A/B", tooltip="Swap runs A and B"),
        Binding("t", "threshold", "Threshold", tooltip="The F1 (F1-recall) at or above which an answer counts as right"),
        Binding("a", "toggle_scope", "Scope", show=False,
                tooltip="Compare on the browser's filter or on the whole dataset"),
        Binding("tab", "app.focus_next", "Next table", show=False, tooltip="Move to the next table"),
        Binding("escape", "back", "Back", tooltip="Back to where you came from"),
    ]

    def __init__(self, run_a: str, run_b: str, *, scope: Filter | None = None, threshold: float = 0.5,
                 top: int = 50) -> None:
        super().__init__()
        self.run_a = run_a
        self.run_b = run_b
        self.scope = scope
        self.use_scope = scope is not None
        self.threshold = threshold
        self.top = top
        self.diff: RunDiff | None = None
        self.error: str | None = None
        self.runs: list[str] = []
        self.generation = 0
        self.loaded_generation = -1  # the generation on screen (tests)
        self.slice_refs: list[Filter | None] = []
        self.change_refs: list[ItemChange] = []
        self.palette: dict[str, str] = {"good": "green", "bad": "red", "warn": "yellow"}
        self._width = 0

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="cmp-title")
        with Vertical(id="cmp-body"):
            yield Static(id="cmp-outcomes-title", classes="cmp-section")
            yield OutcomeTable(id="cmp-outcomes")
            with Vertical(id="cmp-lower"):
                with Vertical(id="cmp-slices-box"):
                    yield Static(id="cmp-slices-title", classes="cmp-section")
                    yield PlainTable(id="cmp-slices")
                with Vertical(id="cmp-changes-box"):
                    yield Static(id="cmp-changes-title", classes="cmp-section")
                    yield PlainTable(id="cmp-changes")
        yield Footer()

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, lambda _: self._fill())
        self.reload()

    # -- work --------------------------------------------------------------------------------
    def within(self) -> Filter | None:
        """The `within` filter of the diff: the scope, judged with run A (as the cells will be)."""
        if self.scope is None or not self.use_scope:
            return None
        return self.scope.with_(run=self.run_a)

    def reload(self) -> None:
        self.generation += 1
        self.query_one("#cmp-body").loading = True
        self._show_title()
        self.compute(self.generation, self.run_a, self.run_b, self.threshold, self.within())

    @work(thread=True, exclusive=True, exit_on_error=False, group="diff")
    def compute(self, generation: int, run_a: str, run_b: str, threshold: float, within: Filter | None) -> None:
        diff: RunDiff | None = None
        error: str | None = None
        with self.db.connect() as conn:
            runs = [r[0] for r in conn.execute(
                "SELECT r.name FROM runs r WHERE r.dataset_id = (SELECT dataset_id FROM runs WHERE name = ?)"
                " ORDER BY r.name", (run_a,))]
            try:
                diff = diff_runs(conn, run_a, run_b, threshold=threshold, top=self.top, within=within)
            except DiffError as exc:
                error = str(exc)
        if not get_current_worker().is_cancelled:
            self.post_message(DiffLoaded(generation, diff, error, runs))

    def on_diff_loaded(self, message: DiffLoaded) -> None:
        if message.generation != self.generation:
            return
        self.loaded_generation = message.generation
        self.diff, self.error, self.runs = message.diff, message.error, message.runs
        self.query_one("#cmp-body").loading = False
        self._show_title()
        self._fill()
        if self.diff is not None and not isinstance(self.focused, DataTable):
            self.query_one(OutcomeTable).focus()

    # -- drawing -----------------------------------------------------------------------------
    @property
    def cdqa(self) -> bool:
        return self.diff is not None and self.diff.score_metric == "f1_recall"

    def _show_title(self) -> None:
        parts: list[tuple[str, str]] = [
            ("A ", "$foreground-muted"), (clean(self.run_a), "bold"), ("  →  ", "$foreground-muted"),
            ("B ", "$foreground-muted"), (clean(self.run_b), "bold $accent"),
        ]
        d = self.diff
        if self.error:
            parts += [("   ", ""), (clean(self.error), "$error")]
        elif d is None or self.loaded_generation != self.generation:
            parts += [("   computing the diff…", "$foreground-muted italic")]
        else:
            parts += [
                ("  on ", "$foreground-muted"), (clean(d.dataset), ""),
                ("  · ", "$foreground-muted"), (f"{d.common:,}", "bold"),
                (f" of {d.items:,} items answered by both", "$foreground-muted"),
            ]
            if d.only_a or d.only_b:
                parts.append((f" (only A {d.only_a:,}, only B {d.only_b:,})", "$foreground-muted"))
        within = self.within()
        if within is not None:
            text = describe(within.with_(run=None, dataset=None))
            parts += [("  · scope ", "$foreground-muted"), (truncate(clean(text), 50), "$accent")]
        elif self.scope is not None:
            parts += [("  · whole dataset (a: back to the filter)", "$foreground-muted")]
        self.query_one("#cmp-title", Static).update(Content.assemble(*parts))

    def _fill(self) -> None:
        theme = self.app.current_theme
        self.palette = {"good": theme.success or "green", "bad": theme.error or "red", "warn": theme.warning or "yellow"}
        self._width = self.size.width or self.app.size.width
        self._fill_outcomes()
        self._fill_slices()
        self._fill_changes()

    def _fill_outcomes(self) -> None:
        table = self.query_one(OutcomeTable)
        cursor = table.cursor_coordinate
        table.clear(columns=True)
        table.criteria = []
        d = self.diff
        title = self.query_one("#cmp-outcomes-title", Static)
        if d is None:
            title.update(Content.styled("Outcomes", "bold"))
            return
        title.update(Content.assemble(
            ("Outcomes", "bold"), (" on the items both runs answer · enter on a count browses them", "$foreground-muted"),
        ))
        for outcome in OUTCOMES:
            table.add_column(Text(OUTCOME_HEADS[outcome], justify="right"), key=outcome)
        for o in d.outcomes:
            cells = []
            for outcome in OUTCOMES:
                n = o.count(outcome)
                share = f" {100 * n / o.total:3.0f}%" if o.total else ""
                style = {"fixed": self.palette["good"], "broken": self.palette["bad"]}.get(outcome, "") if n else "dim"
                cells.append(Text.assemble((f"{n:,}", f"bold {style}".strip()), (share, "dim"), justify="right"))
            table.add_row(*cells, label=Text(clean(o.label)), key=o.criterion)
            table.criteria.append(o.criterion)
        if table.row_count:
            row = min(cursor.row, table.row_count - 1)
            table.move_cursor(row=row, column=min(cursor.column, len(OUTCOMES) - 1), animate=False)

    def _fill_slices(self) -> None:
        table = self.query_one("#cmp-slices", PlainTable)
        row = table.cursor_row
        table.clear(columns=True)
        self.slice_refs = []
        d = self.diff
        title = self.query_one("#cmp-slices-title", Static)
        if d is None:
            title.update(Content.styled("Per slice", "bold"))
            return
        cdqa = self.cdqa
        narrow = (table.size.width or self._width) < 90
        title.update(Content.assemble(
            ("Per slice", "bold"),
            (" · Δ = B − A" + (" · n = answered items behind F1-recall" if cdqa else ""), "$foreground-muted"),
        ))
        metrics = ("f1_recall", "answer_rate") if cdqa else ("em", "f1")
        names = {"em": "EM", "f1": "F1", "f1_recall": "F1r" if narrow else "F1-r", "answer_rate": "ans" if narrow else "ans%"}
        slice_w = (12 if cdqa else 16) if narrow else 24
        num_w = 5 if narrow else 6
        n_w = max([5, *(len(f"{s.n_a}/{s.n_b}") for s in d.slices if s.metric == "f1_recall")])
        table.add_column(Text("slice"), width=slice_w, key="slice")
        table.add_column(Text("items", justify="right"), width=max(5, len(f"{d.common:,}")), key="items")
        for m in metrics:
            n = names[m]
            table.add_column(Text(f"{n} A", justify="right"), width=num_w, key=f"{m}_a")
            table.add_column(Text(f"{n} B", justify="right"), width=num_w, key=f"{m}_b")
            table.add_column(Text(f"Δ {n}", justify="right"), width=6, key=f"{m}_d")
            if m == "f1_recall":
                table.add_column(Text("n A/B", justify="right"), width=n_w, key="n")
        rows: dict[tuple[str, str], dict[str, SliceDelta]] = {}
        for s in d.slices:
            rows.setdefault((s.dimension, s.value), {})[s.metric] = s
        for (dim, value), by_metric in rows.items():
            first = next(iter(by_metric.values()))
            label = Text("all items", style="bold") if dim == "overall" else Text.assemble(
                (DIM_LABEL.get(dim, dim + " "), "dim"), clean(value))
            label.truncate(slice_w, overflow="ellipsis")
            cells: list[Text] = [label, Text(f"{first.items:,}", justify="right")]
            for m in metrics:
                s = by_metric.get(m)
                if s is None:
                    cells += [plain(None), plain(None), plain(None)] + ([plain(None)] if m == "f1_recall" else [])
                    continue
                cells += [plain(s.a), plain(s.b), signed(s.delta, self.palette)]
                if m == "f1_recall":
                    cells.append(Text(f"{s.n_a}/{s.n_b}", justify="right", style="dim"))
            table.add_row(*cells)
            self.slice_refs.append(self._slice_filter(dim, value))
        if table.row_count:
            table.move_cursor(row=min(row, table.row_count - 1), animate=False)

    def _fill_changes(self) -> None:
        table = self.query_one("#cmp-changes", PlainTable)
        row = table.cursor_row
        table.clear(columns=True)
        d = self.diff
        self.change_refs = list(d.changes) if d is not None else []
        title = self.query_one("#cmp-changes-title", Static)
        label = "F1-recall" if self.cdqa else "F1"
        if d is None:
            title.update(Content.styled("Largest changes", "bold"))
            return
        title.update(Content.assemble(
            (f"Largest {label} changes", "bold"),
            (f" · {len(d.changes)} items · Δ = B − A" + (" · a refusal scores 0" if self.cdqa else ""),
             "$foreground-muted"),
        ))
        if not d.changes:
            table.add_column(Text(""), key="none")
            table.add_row(Text(f"No item's {label} changed.", style="dim italic"))
            return
        avail = (table.size.width or self._width - 4) - 2  # less the vertical scrollbar
        key_w = min(max(len(c.key) for c in d.changes), 16) if avail >= 130 else 0
        ncols = 6 + (1 if key_w else 0)
        free = max(avail - (5 + 5 + 6) - 2 * ncols - key_w, 24)  # scores, cell padding, id
        q_w = max(8, free * 2 // 5)
        p_w = max(8, (free - q_w) // 2)
        if key_w:
            table.add_column(Text("id"), width=key_w, key="key")
        table.add_column(Text("question"), width=q_w, key="question")
        table.add_column(Text("A answer"), width=p_w, key="pa")
        table.add_column(Text("B answer"), width=p_w, key="pb")
        table.add_column(Text("A", justify="right"), width=5, key="a")
        table.add_column(Text("B", justify="right"), width=5, key="b")
        table.add_column(Text("Δ B−A", justify="right"), width=6, key="d")
        for c in d.changes:
            cells: list[Text] = [cell_text(c.key, key_w)] if key_w else []
            cells += [
                cell_text(c.question, q_w),
                _answer(c.prediction_a, c.refused_a, p_w),
                _answer(c.prediction_b, c.refused_b, p_w),
                plain(100 * c.score_a), plain(100 * c.score_b), signed(100 * c.delta, self.palette),
            ]
            table.add_row(*cells)
        if table.row_count:
            table.move_cursor(row=min(row, table.row_count - 1), animate=False)

    def on_resize(self, event: Resize) -> None:
        if self.diff is not None and event.size.width != self._width:
            self.call_after_refresh(self._fill)  # once the tables have their new sizes

    # -- filters the tables open -------------------------------------------------------------
    def base(self) -> Filter:
        """Run A with B as compare run, on the scope."""
        d = self.diff
        dataset = d.dataset if d is not None else None
        within = self.within()
        base = within if within is not None else Filter()
        return base.with_(dataset=dataset, run=self.run_a, compare=self.run_b)

    def _slice_filter(self, dim: str, value: str) -> Filter | None:
        if dim == "overall":
            return self.base()
        field = SLICE_FIELD.get(dim)
        if field is None or value == "—":
            return None
        return self.base().with_(**{field: (value,)})

    def cell_filter(self, criterion: str, outcome: str) -> Filter:
        assert self.diff is not None
        return self.diff.cell_filter(outcome, criterion, base=self.base().with_(compare=None))

    # -- actions -----------------------------------------------------------------------------
    def _browse(self, f: Filter) -> None:
        self.qa_app.open_browser(f)

    @on(DataTable.CellSelected, "#cmp-outcomes")
    def _cell_selected(self, event: DataTable.CellSelected) -> None:
        event.stop()
        self._open_cell(event.coordinate)

    def _open_cell(self, at: Coordinate) -> None:
        table = self.query_one(OutcomeTable)
        if self.diff is None or not (0 <= at.row < len(table.criteria)) or not 0 <= at.column < len(OUTCOMES):
            return
        criterion, outcome = table.criteria[at.row], OUTCOMES[at.column]
        if self.diff.outcome(criterion).count(outcome) == 0:
            self.notify("No items in this cell.", severity="warning")
            return
        self._browse(self.cell_filter(criterion, outcome))

    @on(DataTable.RowSelected, "#cmp-slices")
    def _slice_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self._open_slice(event.cursor_row)

    def _open_slice(self, row: int) -> None:
        if not 0 <= row < len(self.slice_refs):
            return
        f = self.slice_refs[row]
        if f is None:
            self.notify("Items without this label cannot be filtered on.", severity="warning")
            return
        self._browse(f)

    @on(DataTable.RowSelected, "#cmp-changes")
    def _change_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self._open_change(event.cursor_row)

    def _open_change(self, row: int) -> None:
        if not 0 <= row < len(self.change_refs):
            return
        from .detail import DetailScreen

        self.app.push_screen(DetailScreen(self.base().with_(sort="delta"), self.change_refs[row].item_id))

    def action_open(self) -> None:
        focused = self.focused
        if isinstance(focused, OutcomeTable):
            self._open_cell(focused.cursor_coordinate)
        elif focused is not None and focused.id == "cmp-slices":
            self._open_slice(focused.cursor_row)  # type: ignore[attr-defined]
        elif focused is not None and focused.id == "cmp-changes":
            self._open_change(focused.cursor_row)  # type: ignore[attr-defined]

    def action_browse_all(self) -> None:
        if self.diff is None:
            return
        self.dismiss(self.base())

    def action_choose_b(self) -> None:
        others = [r for r in self.runs if r != self.run_a]
        if not others:
            self.notify("No other run on this dataset to compare with.", severity="warning")
            return

        def done(run: str | None) -> None:
            if run and run != self.run_b:
                self.run_b = run
                self.reload()

        self.app.push_screen(RunPicker(f"Compare {clean(self.run_a)} (A) with", self.run_b, others), done)

    def action_swap(self) -> None:
        self.run_a, self.run_b = self.run_b, self.run_a
        self.reload()

    def action_threshold(self) -> None:
        score = "F1-recall" if self.cdqa else "F1"
        labels = {t: f"{score} ≥ {t}" for t in THRESHOLDS}

        def done(choice: str | None) -> None:
            if choice and float(choice) != self.threshold:
                self.threshold = float(choice)
                self.reload()

        picker = RunPicker("An answer counts as right when", f"{self.threshold:g}", list(THRESHOLDS), labels=labels)
        self.app.push_screen(picker, done)

    def action_toggle_scope(self) -> None:
        if self.scope is None:
            self.notify("Opened without a filter: the comparison is on the whole dataset already.")
            return
        self.use_scope = not self.use_scope
        self.reload()

    def action_back(self) -> None:
        self.dismiss(None)


def _answer(text: str | None, refused: bool | None, width: int) -> Text:
    if text is None:
        return Text("(none)", style="dim italic")
    if not text.strip():
        return Text("(empty)", style="dim italic")
    return cell_text(text, width, style="italic" if refused else "")


def open_compare(
    screen: Screen[Any], run_a: str, others: list[str], *, run_b: str | None = None, scope: Filter | None = None,
    done: Callable[[Filter | None], None] | None = None,
) -> None:
    """Open the compare screen for run A: straight away when B is known or there is one other
    run, else after picking B among `others`. `done` gets the filter to browse with B columns."""
    def show(b: str | None) -> None:
        if b:
            screen.app.push_screen(CompareScreen(run_a, b, scope=scope), done)

    if run_b:
        show(run_b)
        return
    candidates = [r for r in others if r != run_a]
    if not candidates:
        screen.notify("No other run on this dataset to compare with.", severity="warning")
        return
    if len(candidates) == 1:
        show(candidates[0])
        return
    screen.app.push_screen(RunPicker(f"Compare {clean(run_a)} (A) with", None, candidates), show)
