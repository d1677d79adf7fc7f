"""The "mark stale" form (`s`): which gold, why, what it should say now, evidence, who.

The form only edits; the screen that opened it writes the journal in a worker with what the form
returns (`StaleFormResult`), or nothing when it is cancelled. All dataset text is shown literally.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid, Horizontal, Vertical
from textual.content import Content
from textual.message import Message
from textual.widgets import Button, Input, Label, Select, Static
from textual.worker import get_current_worker

from qa_inspect.core import flags
from qa_inspect.core.query import StaleInfo

from ..base import BaseModal
from ..present import count, plural
from ..text import clean, truncate
from ..widgets import show_ts

ALL = 0
"""Select value of "every gold of the item"; gold choices count from 1."""


OpenFlag = StaleInfo
"""An open proposal on a gold (from `core.flags.flags_for_item`), as the form shows it: the
detail view's `StaleInfo` (author, ts, reason, proposed, evidence)."""


@dataclass(slots=True)
class GoldChoice:
    """One distinct scored gold text of the item, labelled with its gold numbers (`2·3`)."""

    label: str
    text: str
    flags: list[OpenFlag] = field(default_factory=list)


@dataclass(slots=True)
class StaleFormData:
    """What the form needs: the item and its golds (one item), or counts (a selection)."""

    author: str
    dataset: str = ""
    item_key: str = ""
    question: str = ""
    golds: list[GoldChoice] = field(default_factory=list)
    chosen: int = ALL
    """Preselected choice: ALL or 1 + index in `golds`."""
    bulk_golds: int = 0
    """A selection: gold answers it covers (0 for one item)."""
    bulk_items: int = 0
    bulk_already: int = 0
    """Of `bulk_golds`, golds already stale (a bulk mark leaves them as they are)."""
    proposed: str = ""
    evidence: str = ""
    """Suggested new answer and evidence (the review queue's consensus answer and evidence URL);
    your own open proposal on the gold, when there is one, wins."""

    @property
    def bulk(self) -> bool:
        return self.bulk_golds > 0


@dataclass(slots=True)
class StaleFormResult:
    choice: int
    """ALL or 1 + index in `StaleFormData.golds` (always ALL for a selection)."""
    reason: str | None
    proposed: str | None
    evidence: str | None
    author: str
    author_changed: bool


def _blank(value: str) -> str | None:
    value = value.strip()
    return value or None


def flag_note(open_flags: list[OpenFlag]) -> Content:
    """`already stale: alice 2024-05-01 10:00: reason → proposal` (one line per open proposal)."""
    if not open_flags:
        return Content("")
    lines = []
    for f in open_flags:
        parts: list[tuple[str, str] | str] = [("⚑ already stale ", "bold $warning"), (clean(f.author), "bold"),
                                              (f" {show_ts(f.ts)}", "$foreground-muted")]
        if f.reason:
            parts += [": ", clean(f.reason)]
        if f.proposed:
            parts += [("  → ", "$foreground-muted"), (clean(f.proposed), "bold")]
        lines.append(Content.assemble(*parts))
    return Content("\n").join(lines)


class StaleForm(BaseModal):
    """Mark one item's gold (or every gold of a selection) stale; returns a `StaleFormResult` or None."""

    DEFAULT_CSS = """
    StaleForm #stale-form { width: 80; }
    StaleForm #sf-question { text-style: bold; margin-bottom: 1; height: auto; max-height: 3; }
    StaleForm #sf-item { height: auto; }
    StaleForm #sf-grid { grid-size: 2; grid-columns: 14 1fr; grid-rows: auto; height: auto; grid-gutter: 1 1; }
    StaleForm.-short #sf-grid { grid-gutter: 0 1; }
    StaleForm #sf-grid > Label { color: $foreground-muted; }
    StaleForm #sf-note { height: auto; margin-top: 1; }
    StaleForm .dialog-buttons { height: 1; margin-top: 1; align-horizontal: right; }
    StaleForm .dialog-buttons Button { margin-left: 1; min-width: 12; }
    """

    HELP_TITLE = "Mark stale form"
    AUTO_FOCUS = "#sf-reason"
    """Focused from the first frame: what is typed while the form opens lands in its first text
    field (focusing it in `on_mount` left the first keys to the gold choice)."""
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "submit", "Mark stale", id="stale-form.submit",
                tooltip="Write the stale flag (enter in the last field does too)"),
        Binding("escape", "cancel", "Cancel", id="stale-form.cancel", tooltip="Close without flagging anything"),
    ]

    def __init__(self, data: StaleFormData) -> None:
        super().__init__()
        self.data = data

    def compose(self) -> ComposeResult:
        d = self.data
        with Vertical(id="stale-form", classes="dialog"):
            if d.bulk:
                title = f"Mark {plural(d.bulk_golds, 'gold answer')} of {plural(d.bulk_items, 'item')} stale"
            else:
                title = "Mark a gold answer stale"
            yield Label(Content(title), classes="dialog-title")
            if not d.bulk:
                yield Static(Content.assemble((clean(d.dataset), "$foreground-muted"), "  ", (clean(d.item_key), "bold")),
                             id="sf-item")
                yield Static(Content(truncate(clean(d.question), 200)), id="sf-question")
            elif d.bulk_already:
                yield Static(Content.styled(
                    f"{count(d.bulk_already)} of them already stale: left as they are (their proposals are kept).",
                    "$foreground-muted"), id="sf-item")
            with Grid(id="sf-grid"):
                if not d.bulk:
                    yield Label("Gold")
                    options: list[tuple[Text, int]] = [
                        (Text.assemble((g.label + " ", "dim"), clean(g.text)), k + 1) for k, g in enumerate(d.golds)
                    ]
                    if len(d.golds) > 1:
                        options.append((Text(f"all {len(d.golds)} gold answers"), ALL))
                    yield Select[int](options, value=d.chosen if len(d.golds) > 1 or d.chosen else 1,
                                      allow_blank=False, id="sf-gold", compact=True)
                yield Label("Reason")
                yield Input(placeholder="why it is outdated (optional)", id="sf-reason", compact=True)
                if not d.bulk:
                    yield Label("New answer")
                    yield Input(placeholder="what the answer is now (optional)", id="sf-proposed", compact=True)
                yield Label("Evidence URL")
                yield Input(placeholder="https://… (optional)", id="sf-evidence", compact=True)
                yield Label("Annotator")
                yield Input(d.author, placeholder="your name", id="sf-author", compact=True)
            yield Static(id="sf-note")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Mark stale", id="sf-ok", variant="warning", compact=True)
                yield Button("Cancel", id="sf-cancel", compact=True)

    def on_mount(self) -> None:
        self._prefill()
        self._show_note()

    def _choice(self) -> int:
        if self.data.bulk:
            return ALL
        value = self.query_one("#sf-gold", Select).value
        return value if isinstance(value, int) else ALL

    def _chosen_flags(self) -> list[OpenFlag]:
        choice = self._choice()
        golds = self.data.golds if choice == ALL else self.data.golds[choice - 1: choice]
        return [f for g in golds for f in g.flags]

    def _prefill(self) -> None:
        """Marking a gold you already flagged edits your proposal: start from it."""
        if self.data.bulk or self._choice() == ALL:
            return
        own = [f for f in self._chosen_flags() if f.author == self.data.author]
        if not own:
            self.query_one("#sf-proposed", Input).value = self.data.proposed
            self.query_one("#sf-evidence", Input).value = self.data.evidence
        if own:
            f = own[-1]
            self.query_one("#sf-reason", Input).value = f.reason or ""
            self.query_one("#sf-proposed", Input).value = f.proposed or ""
            self.query_one("#sf-evidence", Input).value = f.evidence or ""

    def _show_note(self) -> None:
        chosen = self._chosen_flags()
        note = flag_note(chosen)
        if chosen:
            note = Content.assemble(note, "\n", Content.styled(
                "Marking again replaces your own proposal; other annotators' proposals stay.", "$foreground-muted"))
        box = self.query_one("#sf-note", Static)
        box.update(note)
        box.display = bool(chosen)

    @on(Select.Changed, "#sf-gold")
    def _gold_changed(self) -> None:
        self._show_note()

    def result(self) -> StaleFormResult:
        author = self.query_one("#sf-author", Input).value.strip() or self.data.author
        proposed = None if self.data.bulk else _blank(self.query_one("#sf-proposed", Input).value)
        return StaleFormResult(
            choice=self._choice(),
            reason=_blank(self.query_one("#sf-reason", Input).value),
            proposed=proposed,
            evidence=_blank(self.query_one("#sf-evidence", Input).value),
            author=author,
            author_changed=author != self.data.author,
        )

    @on(Input.Submitted)
    def _field_done(self, event: Input.Submitted) -> None:
        """Enter moves to the next field (reason → new answer → evidence → author); in the last
        one it writes the flag, so a quick reason never skips the new answer."""
        inputs = [w for w in self.query(Input) if w.display]
        if event.input is inputs[-1]:
            self.action_submit()
        else:
            inputs[inputs.index(event.input) + 1].focus()

    def action_submit(self) -> None:
        self.dismiss(self.result())

    def action_cancel(self) -> None:
        self.dismiss(None)

    @on(Button.Pressed, "#sf-ok")
    def _ok(self) -> None:
        self.action_submit()

    @on(Button.Pressed, "#sf-cancel")
    def _cancel(self) -> None:
        self.action_cancel()


@dataclass
class AuthorLoaded(Message):
    author: str


@dataclass
class AuthorSaved(Message):
    author: str


class AuthorForm(BaseModal):
    """Set the annotator name once (stored in the database for this system user)."""

    DEFAULT_CSS = """
    AuthorForm #author-form { width: 60; }
    AuthorForm #af-name { margin: 1 0; }
    AuthorForm .dialog-buttons { height: 1; align-horizontal: right; }
    AuthorForm .dialog-buttons Button { margin-left: 1; min-width: 10; }
    """

    HELP_TITLE = "Annotator name"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="author-form.cancel", tooltip="Keep the current name"),
    ]

    def compose(self) -> ComposeResult:
        with Vertical(id="author-form", classes="dialog"):
            yield Label(Content("Annotator name"), classes="dialog-title")
            yield Static(Content.styled(
                "Written with every stale flag you make; remembered in this database (empty: the system user).",
                "$foreground-muted"))
            yield Input(placeholder="your name", id="af-name", compact=True)
            with Horizontal(classes="dialog-buttons"):
                yield Button("Save", id="af-ok", variant="primary", compact=True)
                yield Button("Cancel", id="af-cancel", compact=True)

    def on_mount(self) -> None:
        self.query_one("#af-name", Input).focus()
        self.load_author()

    @work(thread=True, exclusive=True, exit_on_error=False, group="author")
    def load_author(self) -> None:
        with self.db.connect() as conn:
            author = flags.author_for(conn)
        if not get_current_worker().is_cancelled:
            self.post_message(AuthorLoaded(author))

    def on_author_loaded(self, message: AuthorLoaded) -> None:
        box = self.query_one("#af-name", Input)
        if not box.value:
            box.value = message.author

    @work(thread=True, exclusive=True, exit_on_error=False, group="author-save")
    def save(self, name: str) -> None:
        with self.db.connect() as conn:
            flags.set_default_author(conn, name or None)
            author = flags.author_for(conn)
        self.post_message(AuthorSaved(author))

    def on_author_saved(self, message: AuthorSaved) -> None:
        self.notify(f"Annotator: {message.author}", markup=False)
        self.dismiss(message.author)

    @on(Input.Submitted)
    @on(Button.Pressed, "#af-ok")
    def _submit(self) -> None:
        self.save(self.query_one("#af-name", Input).value.strip())

    @on(Button.Pressed, "#af-cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
