"""The filter dialog: every filter of the item browser in one form, with a live count.

Choices (datasets, runs, split/tag/type values) come from the database in a worker; while the
user edits, the draft filter is counted in another worker so they see how many items match
before applying.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid, Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widgets import Button, Checkbox, Input, Label, Select, SelectionList, Static
from textual.worker import get_current_worker

from qa_inspect.core import query
from qa_inspect.core.query import Filter
from qa_inspect.core.store import known_names, run_names

from ..base import BaseModal
from ..present import count, noun
from ..text import clean

DIMS = (("split", "splits", "Split"), ("tag", "tags", "Tag"), ("answer_type", "answer_types", "Answer type"))
TRI = {"refused": (("any", None), ("answered", False), ("refused", True)),
       "em": (("any", None), ("EM 0 (errors)", 0), ("EM 1 (exact)", 1)),
       "stale": (("any", None), ("stale", True), ("not stale", False)),
       "has_proposal": (("any", None), ("has a proposed new answer", True), ("no proposal", False))}
TRI_LABELS = {"refused": "Answered", "em": "Exact match", "stale": "Stale gold", "has_proposal": "Proposal"}


@dataclass(slots=True)
class Choices:
    datasets: list[str] = field(default_factory=list)
    runs: list[str] = field(default_factory=list)
    values: dict[str, list[str]] = field(default_factory=dict)


@dataclass
class ChoicesLoaded(Message):
    dataset: str | None
    choices: Choices


@dataclass
class DraftCounted(Message):
    draft: Filter
    total: int


def _percent(value: str) -> float | None:
    """A 0–100 text box → a 0–1 bound; empty or invalid → no bound."""
    try:
        v = float(value.strip())
    except ValueError:
        return None
    return min(max(v, 0.0), 100.0) / 100.0


class FilterScreen(BaseModal):
    """Edit the browser's filter; returns the new filter, or None when cancelled."""

    HELP_TITLE = "Filters"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "apply", "Apply", id="filters.apply", tooltip="Apply the filter"),
        Binding("ctrl+r", "reset", "Reset", id="filters.reset", tooltip="Clear every filter but dataset and run"),
        Binding("escape", "cancel", "Cancel", id="filters.cancel", tooltip="Close without changing the filter"),
        Binding("q", "cancel", "Cancel", id="filters.cancel-q", show=False,
                tooltip="Close without changing the filter (not quit)"),
    ]

    def __init__(self, f: Filter) -> None:
        super().__init__()
        self.start = f
        self.choices = Choices()
        self.dataset = f.dataset
        self._ready = False

    def compose(self) -> ComposeResult:
        f = self.start
        with Vertical(id="filters", classes="dialog"):
            yield Label(Content("Filters"), classes="dialog-title")
            with VerticalScroll(id="filters-form"):
                with Grid(id="filters-grid"):
                    yield Label("Dataset")
                    yield Select[str]([], id="f-dataset", prompt="(all datasets)", compact=True)
                    yield Label("Run (A)")
                    yield Select[str]([], id="f-run", prompt="(golds only)", compact=True)
                    yield Label("Compare (B)")
                    yield Select[str]([], id="f-compare", prompt="(none)", compact=True)
                    yield Label("")
                    yield Checkbox("only items where A and B disagree", f.only_disagree, id="f-disagree")
                    yield Label("Search")
                    yield Input(f.search, placeholder="question, golds, prediction", id="f-search", compact=True)
                    for key, options in TRI.items():
                        yield Label(TRI_LABELS[key])
                        yield Select[int](
                            [(label, i) for i, (label, _) in enumerate(options)], id=f"f-{key}", allow_blank=False,
                            value=next(i for i, (_, v) in enumerate(options) if v == getattr(f, key)), compact=True,
                        )
                    yield Label("F1 / F1-recall")
                    with Horizontal(id="f-range"):
                        yield Input("" if f.f1_min is None else f"{100 * f.f1_min:g}", placeholder="from 0",
                                    id="f-min", type="number", compact=True)
                        yield Input("" if f.f1_max is None else f"{100 * f.f1_max:g}", placeholder="to 100",
                                    id="f-max", type="number", compact=True)
                    for dim, attr, label in DIMS:
                        yield Label(label, id=f"l-{dim}")
                        yield SelectionList[str](id=f"f-{dim}")
            with Horizontal(id="filters-buttons"):
                yield Static(id="f-count")
                # The keys are on the buttons: a modal has no footer to show them.
                yield Button(f"Apply {self._key('filters.apply')}", id="apply", variant="primary", compact=True)
                yield Button(f"Reset {self._key('filters.reset')}", id="reset", compact=True)
                yield Button(f"Cancel {self._key('filters.cancel')}", id="cancel", compact=True)

    def _key(self, binding_id: str) -> str:
        """How the key of one of this dialog's bindings is shown (`^s`, `esc`)."""
        binding = next(b for b in self.BINDINGS if isinstance(b, Binding) and b.id == binding_id)
        return self.app.get_key_display(binding)

    def on_mount(self) -> None:
        self.load_choices(self.start.dataset)

    # -- workers -----------------------------------------------------------------------------
    @work(thread=True, exclusive=True, exit_on_error=False, group="choices")
    def load_choices(self, dataset: str | None) -> None:
        c = Choices()
        with self.db.connect() as conn:
            c.datasets = known_names(conn, "dataset")
            if dataset is None and c.datasets:
                dataset = c.datasets[0]
            c.runs = run_names(conn, dataset=dataset) if dataset is not None else []
            for dim, _, _ in DIMS:
                c.values[dim] = [v for v in query.distinct_values(conn, dataset, dim)]
        if not get_current_worker().is_cancelled:
            self.post_message(ChoicesLoaded(dataset, c))

    @work(thread=True, exclusive=True, exit_on_error=False, group="draft")
    def count_draft(self, draft: Filter) -> None:
        with self.db.connect() as conn:
            total = query.count(conn, draft)
        if not get_current_worker().is_cancelled:
            self.post_message(DraftCounted(draft, total))

    def on_choices_loaded(self, message: ChoicesLoaded) -> None:
        c = self.choices = message.choices
        f = self.start
        self.dataset = message.dataset
        self._ready = False  # no change events while we set values
        ds = self.query_one("#f-dataset", Select)
        ds.set_options([(Text(clean(d)), d) for d in c.datasets])
        if message.dataset in c.datasets:
            ds.value = message.dataset
        run_opts = [(Text(clean(r)), r) for r in c.runs]
        run = self.query_one("#f-run", Select)
        run.set_options(run_opts)
        run.value = f.run if f.run in c.runs else Select.NULL
        cmp_ = self.query_one("#f-compare", Select)
        cmp_.set_options(run_opts)
        cmp_.value = f.compare if f.compare in c.runs else Select.NULL
        for dim, attr, _ in DIMS:
            values = c.values.get(dim, [])
            chosen = set(getattr(f, attr))
            box = self.query_one(f"#f-{dim}", SelectionList)
            box.clear_options()
            box.add_options([(Text(clean(v)), v, v in chosen) for v in values])
            box.display = bool(values)
            self.query_one(f"#l-{dim}").display = bool(values)
        self.call_after_refresh(self._arm)

    def _arm(self) -> None:
        self._ready = True
        self._changed()

    def on_draft_counted(self, message: DraftCounted) -> None:
        self.query_one("#f-count", Static).update(
            Content.assemble(("→ ", "$foreground-muted"), (count(message.total), "bold $accent"),
                             (" " + noun(message.total, "item"), "$foreground-muted"))
        )

    # -- the draft ---------------------------------------------------------------------------
    def draft(self) -> Filter:
        """The filter as the form currently says."""
        def val(sel_id: str) -> Any:
            v = self.query_one(sel_id, Select).value
            return None if v is Select.NULL else v

        tri = {key: TRI[key][val(f"#f-{key}") or 0][1] for key in TRI}
        run, compare = val("#f-run"), val("#f-compare")
        if compare == run:
            compare = None
        return self.start.with_(
            dataset=val("#f-dataset"), run=run, compare=compare,
            only_disagree=self.query_one("#f-disagree", Checkbox).value and compare is not None,
            search=self.query_one("#f-search", Input).value.strip(),
            refused=tri["refused"], em=tri["em"], stale=tri["stale"], has_proposal=tri["has_proposal"],
            f1_min=_percent(self.query_one("#f-min", Input).value),
            f1_max=_percent(self.query_one("#f-max", Input).value),
            **{attr: tuple(self.query_one(f"#f-{dim}", SelectionList).selected) for dim, attr, _ in DIMS},
        )

    @on(Select.Changed)
    @on(Checkbox.Changed)
    @on(Input.Changed)
    @on(SelectionList.SelectedChanged)
    def _changed(self, event: Message | None = None) -> None:
        if not self._ready:
            return
        if isinstance(event, Select.Changed) and event.select.id == "f-dataset":
            if isinstance(event.value, str) and event.value != self.dataset:
                self.dataset = event.value
                self.start = self.draft().with_(dataset=event.value, run=None, compare=None, only_disagree=False,
                                                splits=(), tags=(), answer_types=())
                self._ready = False
                self.load_choices(event.value)
                return
        self.query_one("#f-count", Static).update(Content.styled("counting…", "$foreground-muted"))
        self.count_draft(self.draft())

    # -- actions -----------------------------------------------------------------------------
    @on(Input.Submitted)
    def action_apply(self) -> None:
        self.dismiss(self.draft())

    def action_reset(self) -> None:
        f = self.draft()
        self.start = Filter(dataset=f.dataset, run=f.run, sort=f.sort, descending=f.descending)
        for key in TRI:
            self.query_one(f"#f-{key}", Select).value = 0
        for wid in ("#f-search", "#f-min", "#f-max"):
            self.query_one(wid, Input).value = ""
        self.query_one("#f-disagree", Checkbox).value = False
        self.query_one("#f-compare", Select).value = Select.NULL
        for dim, _, _ in DIMS:
            self.query_one(f"#f-{dim}", SelectionList).deselect_all()

    def action_cancel(self) -> None:
        self.dismiss(None)

    @on(Button.Pressed)
    def _button(self, event: Button.Pressed) -> None:
        {"apply": self.action_apply, "reset": self.action_reset, "cancel": self.action_cancel}[event.button.id or "cancel"]()
