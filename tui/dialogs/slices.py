"""Saved slices in the TUI: name the browser's filter (`ctrl+s`), list, reopen and delete them
(`ctrl+o`, palette "Open saved slice …"). Stored in the database by `core.slices`, so the CLI
(`qa-inspect report --slice NAME`) sees the same slices.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.widgets import DataTable, Input, Label, Static
from textual.worker import get_current_worker

from qa_inspect.core.query import (
    MAX_NAME,
    Filter,
    SavedSlice,
    SliceError,
    delete_slice,
    describe,
    list_slices,
    save_slice,
    slice_exists,
)

from ..base import BaseModal, qa_app
from ..commands import EntriesProvider, Entry
from ..text import cell_text, clean
from .confirm import ConfirmDialog


def what_it_selects(s: SavedSlice) -> str:
    """A saved slice's filter in words, or why it cannot be used: an unreadable slice keeps an empty
    filter, which `describe` would call "(all items)" although opening it selects nothing."""
    return f"invalid: {s.error}" if s.error else describe(s.filter)


# -------------------------------------------------------------------------------------- save


@dataclass
class SliceSaved(Message):
    name: str
    error: str | None = None
    exists: bool = False


class SaveSliceDialog(BaseModal):
    """A name for the current filter; asks before replacing a slice of the same name.
    Returns the saved name, or None when cancelled."""

    HELP_TITLE = "Save slice"
    DEFAULT_CSS = """
    SaveSliceDialog #save-what { color: $foreground-muted; margin-bottom: 1; }
    SaveSliceDialog #save-msg { height: auto; margin-top: 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="save-slice.cancel", tooltip="Close without saving"),
    ]

    def __init__(self, f: Filter, suggested: str = "") -> None:
        super().__init__()
        self.filter = f
        self.suggested = suggested

    def compose(self) -> ComposeResult:
        with Vertical(id="save-slice", classes="dialog"):
            yield Label(Content("Save the current filter as a slice"), classes="dialog-title")
            yield Static(Content(clean(describe(self.filter))), id="save-what")
            yield Input(self.suggested, placeholder="slice name (enter saves)", id="save-name",
                        max_length=MAX_NAME, compact=True)
            yield Static(Content.styled("enter saves · escape cancels", "$foreground-muted"), id="save-msg")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        name = event.value.strip()
        if not name:
            self._say("A slice needs a name.", "$error")
            return
        self.save(name, self.filter, False)

    @work(thread=True, exclusive=True, exit_on_error=False, group="save")
    def save(self, name: str, f: Filter, overwrite: bool) -> None:
        with self.db.connect() as conn:
            try:
                save_slice(conn, name, f, overwrite=overwrite)
            except SliceError as exc:
                exists = not overwrite and slice_exists(conn, name)
                msg = SliceSaved(name, None if exists else str(exc), exists=exists)
            else:
                msg = SliceSaved(name)
        if not get_current_worker().is_cancelled:
            self.post_message(msg)

    def on_slice_saved(self, message: SliceSaved) -> None:
        if message.exists:
            def answer(yes: bool | None) -> None:
                if yes:
                    self.save(message.name, self.filter, True)
                else:
                    self._say("Not saved: choose another name.", "$warning")
                    self.query_one(Input).focus()

            question = Content.assemble("A slice named ", (clean(message.name), "bold"),
                                        " exists already. Replace its filter with this one?")
            self.app.push_screen(ConfirmDialog("Replace slice?", question, yes="Replace"), answer)
            return
        if message.error:
            self._say(message.error, "$error")
            return
        self.dismiss(message.name)

    def _say(self, text: str, style: str) -> None:
        self.query_one("#save-msg", Static).update(Content.styled(clean(text), style))

    def action_cancel(self) -> None:
        self.dismiss(None)


# -------------------------------------------------------------------------------------- list


@dataclass
class SlicesListed(Message):
    slices: list[SavedSlice]
    error: str | None = None


class SlicesScreen(BaseModal):
    """Every saved slice: enter opens it in the item browser, d deletes it.
    Returns the chosen `SavedSlice`, or None."""

    HELP_TITLE = "Saved slices"
    DEFAULT_CSS = """
    SlicesScreen #slices-dialog { height: auto; max-height: 90%; }
    SlicesScreen #slices-list { height: auto; max-height: 20; }
    SlicesScreen #slices-detail { height: auto; margin-top: 1; color: $foreground-muted; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open", "Open", id="slices.open", tooltip="Open the slice in the item browser"),
        Binding("d", "delete", "Delete", id="slices.delete", tooltip="Delete the slice (asks first)"),
        Binding("delete", "delete", "Delete", id="slices.delete-key", show=False,
                tooltip="Delete the slice (asks first)"),
        Binding("escape", "close", "Close", id="slices.close", tooltip="Close the list"),
        Binding("q", "close", "Close", id="slices.close-q", show=False, tooltip="Close the list (not quit)"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.slices: list[SavedSlice] = []
        self.loaded = False

    def compose(self) -> ComposeResult:
        with Vertical(id="slices-dialog", classes="dialog"):
            yield Label(Content("Saved slices"), classes="dialog-title")
            yield DataTable[Text](id="slices-list", cursor_type="row", zebra_stripes=True)
            yield Static(Content.styled("loading…", "$foreground-muted"), id="slices-detail")

    def on_mount(self) -> None:
        self.query_one("#slices-list").focus()
        self.load()

    @work(thread=True, exclusive=True, exit_on_error=False, group="slices")
    def load(self) -> None:
        with self.db.connect() as conn:
            try:
                msg = SlicesListed(list_slices(conn))
            except SliceError as exc:
                msg = SlicesListed([], str(exc))
        if not get_current_worker().is_cancelled:
            self.post_message(msg)

    def on_slices_listed(self, message: SlicesListed) -> None:
        self.loaded = True
        self.slices = message.slices
        table = self.query_one("#slices-list", DataTable)
        row = table.cursor_row
        table.clear(columns=True)
        width = min(self.app.size.width * 95 // 100, 110) - 4  # the dialog's width less border and padding
        name_w = min(max([8, *(len(clean(s.name)) for s in self.slices)]), 24)
        when_w, by_w = 16, 10
        filt_w = max(12, width - name_w - when_w - by_w - 2 * 4 - 2)
        table.add_column(Text("name"), width=name_w, key="name")
        table.add_column(Text("filter"), width=filt_w, key="filter")
        table.add_column(Text("saved"), width=when_w, key="saved")
        table.add_column(Text("by"), width=by_w, key="by")
        for s in self.slices:
            table.add_row(cell_text(s.name, name_w, style="bold"),
                          cell_text(what_it_selects(s), filt_w),
                          cell_text(s.created_at.replace("T", " ")[:16], when_w, style="dim"),
                          cell_text(s.author or "", by_w, style="dim"))
        if self.slices:
            table.move_cursor(row=min(row, len(self.slices) - 1), animate=False)
        self._detail(message.error)

    @on(DataTable.RowHighlighted)
    def _moved(self) -> None:
        self._detail()

    @on(DataTable.RowSelected)
    def _selected(self) -> None:
        self.action_open()

    def _detail(self, error: str | None = None) -> None:
        detail = self.query_one("#slices-detail", Static)
        if error:
            detail.update(Content.styled(clean(error), "$error"))
            return
        s = self.current
        if s is None:
            detail.update(Content.styled(
                "No saved slices yet: ctrl+s in the item browser names the current filter.", "$foreground-muted"))
            return
        detail.update(Content.assemble(
            (clean(s.name), "bold $accent"), ("  ", ""), (clean(what_it_selects(s)), "$error" if s.error else ""),
            ("\nenter opens · d deletes · escape closes", "$foreground-muted"),
        ))

    @property
    def current(self) -> SavedSlice | None:
        table = self.query_one("#slices-list", DataTable)
        return self.slices[table.cursor_row] if 0 <= table.cursor_row < len(self.slices) else None

    def action_open(self) -> None:
        s = self.current
        if s is not None:
            self.dismiss(s)

    def action_delete(self) -> None:
        s = self.current
        if s is None:
            return
        def answer(yes: bool | None) -> None:
            if yes:
                self.remove_slice(s.name)

        question = Content.assemble("Delete the slice ", (clean(s.name), "bold"), "? Its items stay as they are.")
        self.app.push_screen(ConfirmDialog("Delete slice?", question, yes="Delete"), answer)

    @work(thread=True, exclusive=True, exit_on_error=False, group="slices")
    def remove_slice(self, name: str) -> None:
        with self.db.connect() as conn:
            delete_slice(conn, name)
            msg = SlicesListed(list_slices(conn))
        if not get_current_worker().is_cancelled:
            self.post_message(msg)
        self.app.call_from_thread(self.notify, f"Deleted slice {clean(name)}.", markup=False)

    def action_close(self) -> None:
        self.dismiss(None)


class SlicesProvider(EntriesProvider):
    """Palette: "Open saved slice …" (the list) and "Open saved slice NAME" for each slice."""

    async def startup(self) -> None:
        self.saved: list[SavedSlice] = []
        app = qa_app(self.app)

        def fetch() -> list[SavedSlice]:
            with app.db.connect() as conn:
                return list_slices(conn)

        worker = self.app.run_worker(fetch, thread=True, exit_on_error=False, group="palette-slices",
                                     name="list saved slices")
        try:
            self.saved = await worker.wait() or []
        except Exception:  # a broken slice table must not break the palette; the list screen says why
            self.saved = []

    def _entries(self) -> list[Entry]:
        app = qa_app(self.app)
        out: list[Entry] = [
            ("Open saved slice …", "list, open and delete saved slices (ctrl+o)", app.show_slices),
        ]
        out += [(f"Open saved slice {s.name}", what_it_selects(s), partial(app.open_slice, s)) for s in self.saved]
        return out
