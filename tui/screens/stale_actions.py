"""Stale-answer actions of the TUI (issue 5), mixed into the overview, browser and detail screens.

- `s` marks a gold stale through `StaleForm`; on a selection (`space`, `ctrl+a` = every item of the
  filter) it first asks `ConfirmDialog` with the count, then marks them all in one undo step.
- `S` clears stale flags; `u` / `U` undo / redo the annotator's last flag action.
- `m` switches every metric between "all golds" and "stale golds excluded".

Every read and write runs in a thread worker through `qa_inspect.core.flags`; results come back as
messages. Writes go one at a time through a small queue (a second `u` waits for the first), so an
exclusive worker group never cancels a write that has not started. `on_busy` ("database busy,
retrying") reaches the user as a message turned into a notification on the UI thread.
"""

from __future__ import annotations

import sqlite3
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

from textual import events, work
from textual.binding import Binding
from textual.content import Content
from textual.message import Message
from textual.worker import get_current_worker

from qa_inspect.core import flags
from qa_inspect.core.errors import QAInspectError
from qa_inspect.core.query import Filter, targets_for_filter
from qa_inspect.core.report import (
    ALL_GOLDS,
    EXCLUDE_STALE,
    StaleCounts,
    StaleSlice,
    item_frame_excluding_stale,
    overview_excluding_stale,
    rescored_rows,
    slice_metrics_excluding_stale,
    stale_counts,
)

from ..commands import EntriesProvider
from ..dialogs import ConfirmDialog
from ..text import clean, truncate
from .stale_form import ALL, AuthorForm, GoldChoice, OpenFlag, StaleForm, StaleFormData, StaleFormResult

# -- keys -------------------------------------------------------------------------------------
MARK_BINDINGS = [
    Binding("s", "mark_stale", "Stale", tooltip="Mark a gold answer stale (on a selection: every item selected)"),
    Binding("S", "unmark_stale", "Clear stale", show=False, tooltip="Clear stale flags (of the selection, item or chosen gold)"),
]
UNDO_BINDINGS = [
    Binding("u", "stale_undo", "Undo flag", show=False, tooltip="Undo your last stale-flag action (again: the one before)"),
    Binding("U", "stale_redo", "Redo flag", show=False, tooltip="Redo the stale-flag action you last undid"),
]
METRICS_BINDING = Binding(
    "m", "toggle_stale_metrics", "Excl. stale",
    tooltip="Metrics: all golds ↔ stale golds excluded",
)
METRICS_BINDING_QUIET = Binding(
    "m", "toggle_stale_metrics", "Excl. stale", show=False,  # the status line shows the mode and the key
    tooltip="Metrics: all golds ↔ stale golds excluded",
)
BROWSER_STALE_BINDINGS = [
    *MARK_BINDINGS,
    Binding("space", "toggle_select", "Select", show=False, tooltip="Select the row or not (s then marks every selected item)"),
    Binding("ctrl+a", "select_all", "Select all", show=False, tooltip="Select every item matching the filter (again: clear)"),
    *UNDO_BINDINGS,
    METRICS_BINDING_QUIET,
]
DETAIL_STALE_BINDINGS = [
    *MARK_BINDINGS,
    Binding("g", "next_gold(1)", "Next gold", show=False, tooltip="Choose the gold answer s and S act on (1–9 choose by number)"),
    Binding("G", "next_gold(-1)", "Previous gold", show=False, tooltip="Choose the previous gold answer"),
    *UNDO_BINDINGS,
]
OVERVIEW_STALE_BINDINGS = [*UNDO_BINDINGS, METRICS_BINDING]

PALETTE_ROWS: list[tuple[str, str]] = [
    ("palette", "Set annotator name: who your stale flags are written as"),
]
"""Help rows for stale commands reached through the palette only."""

BusyCallback = Callable[[str], None]
Job = Callable[[sqlite3.Connection, BusyCallback], "JobResult"]


@dataclass(slots=True)
class JobResult:
    text: str
    changed: bool = True
    severity: str = "information"


# -- messages ---------------------------------------------------------------------------------
@dataclass
class StaleBusy(Message):
    """The database is locked by another writer; the write keeps retrying."""

    text: str


@dataclass
class StaleWritten(Message):
    """A queued write finished (or failed with a user-level error, `changed=False`)."""

    result: JobResult
    on_done: Callable[[], None] | None = None


@dataclass
class StaleNotice(Message):
    text: str
    severity: str = "warning"


@dataclass
class StaleFormReady(Message):
    data: StaleFormData
    dataset: str
    item_key: str


@dataclass
class BulkReady(Message):
    action: str  # "mark" | "unmark"
    targets: list[flags.Target]
    items: int
    already: int
    author: str


@dataclass
class StaleMetricsLoaded(Message):
    generation: int
    result: StaleSlice
    rescored: tuple[Any, Any] | None = None
    """(key, `rescored_rows` frame) for the next filter change while no flag changes."""


@dataclass
class StaleOverviewCounts(Message):
    counts: dict[str, StaleCounts]


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def _short(text: str, width: int = 30) -> str:
    return truncate(clean(text), width)


def exclude_stale(app: Any) -> bool:
    """The app-wide metrics mode: True = stale golds excluded."""
    return bool(getattr(app, "exclude_stale", False))


def mode_label(app: Any) -> str:
    return EXCLUDE_STALE if exclude_stale(app) else ALL_GOLDS


def mode_parts(app: Any) -> list[tuple[str, str]]:
    """The mode as a status part: muted "all golds", or a warning-coloured "stale golds excluded"."""
    if exclude_stale(app):
        return [(EXCLUDE_STALE, "bold $warning")]
    return [(ALL_GOLDS, "$foreground-muted")]


def _golds_of(ref: flags.ItemRef, item_flags: list[flags.Flag]) -> list[GoldChoice]:
    """Distinct scored gold texts, labelled with their gold numbers, with their open proposals."""
    open_ = {f.gold_text: f for f in item_flags if f.status == "open"}
    out: list[GoldChoice] = []
    for text in ref.scored_texts():
        label = "·".join(str(idx + 1) for idx, t, sup in ref.golds if t == text and not sup)
        f = open_.get(text)
        proposals = [OpenFlag(p.author, p.ts, p.reason, p.proposed, p.evidence) for p in f.proposals] if f else []
        if f is not None and not proposals:
            proposals = [OpenFlag(f.author, f.ts, f.reason, f.proposed, f.evidence)]
        out.append(GoldChoice(label, text, proposals))
    return out


class StaleActions:
    """What every screen with stale actions shares: the write queue, undo/redo, notifications.

    Mixed in before `BaseScreen` (it relies on its `db`, `app`, `notify`, `post_message`).
    Screens override `stale_changed` to show the new state after a write.
    """

    app: Any
    db: Any
    stale_seen: tuple[int, bool] | None = None
    """`stale_version()` this screen last showed (a write or a mode switch elsewhere changes it)."""

    # -- hooks -------------------------------------------------------------------------------
    def stale_changed(self) -> None:
        """A flag changed (here or on another screen): show the new state."""

    def stale_mode_changed(self) -> None:
        """The metrics mode was switched."""

    # -- shared state ------------------------------------------------------------------------
    @property
    def _stale_queue(self) -> deque[tuple[Job, Callable[[], None] | None]]:
        q = self.__dict__.get("_stale_q")
        if q is None:
            q = self.__dict__["_stale_q"] = deque()
        return q

    def stale_version(self) -> tuple[int, bool]:
        """(writes so far, metrics mode): what the screen's rows and numbers depend on."""
        return int(getattr(self.app, "stale_version", 0)), exclude_stale(self.app)

    def stale_outdated(self) -> bool:
        return self.stale_seen != self.stale_version()

    def on_mount(self) -> None:
        self.stale_seen = self.stale_version()

    def on_screen_resume(self) -> None:
        # After the result callback of the screen that closed (the browser's follows the detail's item).
        self.call_after_refresh(self._stale_resume_check)  # type: ignore[attr-defined]

    def _stale_resume_check(self) -> None:
        if self.stale_outdated():
            self.stale_seen = self.stale_version()
            self.stale_changed()

    # -- writing -----------------------------------------------------------------------------
    def stale_write(self, job: Job, on_done: Callable[[], None] | None = None) -> None:
        """Queue a write; it runs once the writes before it are done."""
        self._stale_queue.append((job, on_done))
        if not self.__dict__.get("_stale_writing"):
            self._stale_next()

    def _stale_next(self) -> None:
        if not self._stale_queue:
            self.__dict__["_stale_writing"] = False
            return
        self.__dict__["_stale_writing"] = True
        job, on_done = self._stale_queue.popleft()
        self._stale_write_worker(job, on_done, self.app)

    @work(thread=True, exclusive=True, exit_on_error=False, group="stale-write")
    def _stale_write_worker(self, job: Job, on_done: Callable[[], None] | None, app: Any) -> None:
        post: Callable[[Message], Any] = self.post_message  # type: ignore[attr-defined]
        try:
            with self.db.connect() as conn:
                result = job(conn, lambda text: post(StaleBusy(text)))
        except QAInspectError as exc:
            post(StaleWritten(JobResult(str(exc), False, "error")))
            return
        except BaseException:
            post(StaleWritten(JobResult("", False, "error")))  # frees the queue; the error is reported
            raise
        if result.changed:  # bumped here, so a screen closed meanwhile still sees it on the next one
            app.stale_version = getattr(app, "stale_version", 0) + 1
        post(StaleWritten(result, on_done if result.changed else None))

    def on_stale_written(self, message: StaleWritten) -> None:
        r = message.result
        if r.text:
            self.notify(r.text, severity=r.severity, markup=False, timeout=6)  # type: ignore[attr-defined]
        if r.changed:
            self.stale_seen = self.stale_version()
            if message.on_done is not None:
                message.on_done()
            self.stale_changed()
        self._stale_next()

    def on_stale_busy(self, message: StaleBusy) -> None:
        self.notify(message.text, severity="warning", markup=False)  # type: ignore[attr-defined]

    def on_stale_notice(self, message: StaleNotice) -> None:
        self.notify(message.text, severity=message.severity, markup=False)  # type: ignore[attr-defined]

    # -- undo / redo -------------------------------------------------------------------------
    def action_stale_undo(self) -> None:
        self.stale_write(_undo_job)

    def action_stale_redo(self) -> None:
        self.stale_write(_redo_job)

    # -- metrics mode ------------------------------------------------------------------------
    def action_toggle_stale_metrics(self) -> None:
        self.app.exclude_stale = not exclude_stale(self.app)
        self.stale_seen = self.stale_version()
        self.notify(f"Metrics: {mode_label(self.app)}", timeout=3)  # type: ignore[attr-defined]
        self.stale_mode_changed()

    # -- one item ----------------------------------------------------------------------------
    def stale_open_form(self, item_id: int, gold_idx: int | None = None) -> None:
        """Open the form for one item: the gold at `gold_idx` chosen, else every gold."""
        self._stale_prepare(item_id, gold_idx)

    @work(thread=True, exclusive=True, exit_on_error=False, group="stale-prepare")
    def _stale_prepare(self, item_id: int, gold_idx: int | None) -> None:
        post: Callable[[Message], Any] = self.post_message  # type: ignore[attr-defined]
        with self.db.connect() as conn:
            row = conn.execute(
                "SELECT d.name, i.key FROM items i JOIN datasets d ON d.id = i.dataset_id WHERE i.id = ?", (item_id,)
            ).fetchone()
            if row is None:
                post(StaleNotice("This item is no longer in the database.", "error"))
                return
            ref = flags.resolve_item(conn, row[1], row[0])
            item_flags = flags.flags_for_item(conn, ref.dataset, ref.key)
            author = flags.author_for(conn)
        golds = _golds_of(ref, item_flags)
        if not golds:
            post(StaleNotice(f"Item {clean(ref.key)} has no scored gold answer to flag."))
            return
        chosen = ALL
        if gold_idx is not None and 0 <= gold_idx < len(ref.golds):
            text = ref.golds[gold_idx][1]
            chosen = next((k + 1 for k, g in enumerate(golds) if g.text == text), ALL)
        if len(golds) == 1:
            chosen = 1
        data = StaleFormData(author=author, dataset=ref.dataset, item_key=ref.key, question=ref.question,
                             golds=golds, chosen=chosen)
        if not get_current_worker().is_cancelled:
            post(StaleFormReady(data, ref.dataset, ref.key))

    def on_stale_form_ready(self, message: StaleFormReady) -> None:
        data = message.data

        def done(result: StaleFormResult | None) -> None:
            if result is None:
                return
            texts = [g.text for g in data.golds] if result.choice == ALL else [data.golds[result.choice - 1].text]
            targets = [flags.Target(message.dataset, message.item_key, t) for t in texts]
            self.stale_write(partial(_mark_job, targets, result, False))

        self.app.push_screen(StaleForm(data), done)

    def stale_unmark_item(self, item_id: int, gold_idx: int | None = None) -> None:
        """Clear the flags of one item's golds (only the gold at `gold_idx` when given)."""
        self.stale_write(partial(_unmark_item_job, item_id, gold_idx))

    # -- many items --------------------------------------------------------------------------
    def stale_bulk(self, action: str, item_ids: list[int] | None = None, f: Filter | None = None) -> None:
        """Mark (or clear) every gold of the selected items, or of every item matching `f`."""
        self._stale_bulk_prepare(action, item_ids, f)

    @work(thread=True, exclusive=True, exit_on_error=False, group="stale-prepare")
    def _stale_bulk_prepare(self, action: str, item_ids: list[int] | None, f: Filter | None) -> None:
        with self.db.connect() as conn:
            targets = targets_for_filter(conn, f) if f is not None else flags.targets_for_items(conn, item_ids or [])
            datasets = sorted({t.dataset for t in targets})
            stale_now = {fl.target for ds in datasets for fl in flags.current_flags(conn, ds, include_resolved=False)}
            author = flags.author_for(conn)
        already = sum(1 for t in targets if t in stale_now)
        if action == "unmark":
            targets = [t for t in targets if t in stale_now]
        items = len({(t.dataset, t.item_key) for t in targets})
        if not get_current_worker().is_cancelled:
            self.post_message(BulkReady(action, targets, items, already, author))  # type: ignore[attr-defined]

    def on_bulk_ready(self, message: BulkReady) -> None:
        n, items = len(message.targets), message.items
        if message.action == "unmark":
            if not n:
                self.notify("No stale gold among the selected items.", severity="warning")  # type: ignore[attr-defined]
                return
            question = Content.assemble(
                "Clear the stale flags of ", (_plural(n, "gold answer"), "bold"), " of ", (_plural(items, "item"), "bold"),
                "?\nEvery open proposal on them is closed; u undoes it in one step.",
            )

            def cleared(yes: bool | None) -> None:
                if yes:
                    self.stale_write(partial(_bulk_unmark_job, message.targets), self.stale_bulk_done)

            self.app.push_screen(ConfirmDialog("Clear stale flags?", question, yes="Clear"), cleared)
            return
        if not n:
            self.notify("The selected items have no scored gold answer to flag.", severity="warning")  # type: ignore[attr-defined]
            return
        todo = n - message.already
        if not todo:
            self.notify(f"All {_plural(n, 'gold answer')} of the selection are already stale.", severity="warning")  # type: ignore[attr-defined]
            return
        parts: list[tuple[str, str] | str] = [
            "Mark ", (_plural(todo, "gold answer"), "bold"), " of ", (_plural(items, "item"), "bold"), " stale?",
        ]
        if message.already:
            parts.append(f"\n{_plural(message.already, 'gold answer')} already stale {'is' if message.already == 1 else 'are'} left as {'it is' if message.already == 1 else 'they are'}.")
        parts.append("\nOne action: u undoes all of it.")
        data = StaleFormData(author=message.author, bulk_golds=n, bulk_items=items, bulk_already=message.already)

        def filled(result: StaleFormResult | None) -> None:
            if result is not None:
                self.stale_write(partial(_mark_job, message.targets, result, True), self.stale_bulk_done)

        def confirmed(yes: bool | None) -> None:
            if yes:
                self.app.push_screen(StaleForm(data), filled)

        self.app.push_screen(ConfirmDialog("Mark stale?", Content.assemble(*parts), yes="Mark"), confirmed)

    def stale_bulk_done(self) -> None:
        """A bulk action was written (the browser clears its selection)."""


# -- jobs (worker thread) ---------------------------------------------------------------------
def _mark_job(targets: list[flags.Target], r: StaleFormResult, bulk: bool, conn: sqlite3.Connection,
              on_busy: BusyCallback) -> JobResult:
    if r.author_changed:
        flags.set_default_author(conn, r.author)
    entries = flags.bulk_mark(conn, targets, reason=r.reason, proposed=r.proposed, evidence=r.evidence,
                              author=r.author, skip_flagged=bulk, on_busy=on_busy)
    if not entries:
        return JobResult("Nothing to mark: every gold answer is already stale.", False, "warning")
    if len(entries) == 1:
        e = entries[0]
        text = f"Marked stale: {_short(e.item_key, 24)} '{_short(e.gold_text)}'"
        if e.proposed:
            text += f" → '{_short(e.proposed)}'"
    else:
        items = len({(e.dataset, e.item_key) for e in entries})
        text = f"Marked {_plural(len(entries), 'gold answer')} of {_plural(items, 'item')} stale"
    return JobResult(text + "  (u undoes)")


def _unmark_item_job(item_id: int, gold_idx: int | None, conn: sqlite3.Connection, on_busy: BusyCallback) -> JobResult:
    row = conn.execute(
        "SELECT d.name, i.key FROM items i JOIN datasets d ON d.id = i.dataset_id WHERE i.id = ?", (item_id,)
    ).fetchone()
    if row is None:
        return JobResult("This item is no longer in the database.", False, "error")
    ref = flags.resolve_item(conn, row[1], row[0])
    texts = ref.scored_texts()
    if gold_idx is not None and 0 <= gold_idx < len(ref.golds):
        texts = [ref.golds[gold_idx][1]]
    open_ = {f.gold_text for f in flags.flags_for_item(conn, ref.dataset, ref.key) if f.status == "open"}
    todo = [flags.Target(ref.dataset, ref.key, t) for t in texts if t in open_]
    if not todo:
        what = "This gold answer is not" if gold_idx is not None else "No gold answer of this item is"
        return JobResult(f"{what} flagged stale: nothing to clear.", False, "warning")
    entries = flags.bulk_unmark(conn, todo, on_busy=on_busy)
    if len(entries) == 1:
        return JobResult(f"Cleared the stale flag of {_short(ref.key, 24)} '{_short(entries[0].gold_text)}'  (u undoes)")
    return JobResult(f"Cleared {_plural(len(entries), 'stale flag')} of {_short(ref.key, 24)}  (u undoes)")


def _bulk_unmark_job(targets: list[flags.Target], conn: sqlite3.Connection, on_busy: BusyCallback) -> JobResult:
    entries = flags.bulk_unmark(conn, targets, on_busy=on_busy)
    if not entries:
        return JobResult("Nothing to clear: none of them is stale now.", False, "warning")
    items = len({(e.dataset, e.item_key) for e in entries})
    return JobResult(f"Cleared {_plural(len(entries), 'stale flag')} of {_plural(items, 'item')}  (u undoes)")


def _undo_job(conn: sqlite3.Connection, on_busy: BusyCallback) -> JobResult:
    entries = flags.undo(conn, on_busy=on_busy)
    if not entries:
        return JobResult("Nothing to undo.", False, "warning")
    return JobResult(f"Undone: {clean(flags.describe_group(entries))}  (U redoes)")


def _redo_job(conn: sqlite3.Connection, on_busy: BusyCallback) -> JobResult:
    entries = flags.redo(conn, on_busy=on_busy)
    if not entries:
        return JobResult("Nothing to redo.", False, "warning")
    return JobResult(f"Redone: {clean(flags.describe_group(entries))}")


# -- browser ----------------------------------------------------------------------------------
def _same_items(a: Filter, b: Filter) -> bool:
    """Two filters that match the same items (order aside)."""
    return a.with_(sort="key", descending=False) == b.with_(sort="key", descending=False)


class BrowserStale(StaleActions):
    """The item browser's part: selection, bulk marking, excluded metrics in the status line."""

    filter: Filter
    generation: int

    @property
    def selected_ids(self) -> set[int]:
        s = self.__dict__.get("_stale_selected")
        if s is None:
            s = self.__dict__["_stale_selected"] = set()
        return s

    @property
    def select_filter(self) -> Filter | None:
        """"Every item matching the filter" is selected (only while the filter stays the same)."""
        f = self.__dict__.get("_stale_select_filter")
        return f if f is not None and _same_items(f, self.filter) else None

    def is_selected(self, item_id: int) -> bool:
        return self.select_filter is not None or item_id in self.selected_ids

    def _table(self) -> Any:
        from ..widgets.item_table import ItemTable

        return self.query_one(ItemTable)  # type: ignore[attr-defined]

    def _redraw_marks(self, row: int | None = None) -> None:
        table = self._table()
        if hasattr(table, "refresh_marks"):
            table.refresh_marks(row)
        self._show_status()  # type: ignore[attr-defined]

    def action_toggle_select(self) -> None:
        table = self._table()
        row = table.current
        if row is None:
            return
        if self.select_filter is not None:
            self.notify("Every item of the filter is selected; ctrl+a clears the selection.")  # type: ignore[attr-defined]
            return
        self.__dict__["_stale_select_filter"] = None
        ids = self.selected_ids
        ids.symmetric_difference_update({row.item_id})
        self._redraw_marks(table.cursor_row)
        table.action_cursor_down()

    def action_select_all(self) -> None:
        if self.select_filter is not None or self.selected_ids:
            self.stale_clear_selection()
            return
        self.__dict__["_stale_select_filter"] = self.filter
        self._redraw_marks()

    def stale_clear_selection(self) -> None:
        self.selected_ids.clear()
        self.__dict__["_stale_select_filter"] = None
        self._redraw_marks()

    def stale_bulk_done(self) -> None:
        self.stale_clear_selection()

    def action_mark_stale(self) -> None:
        self._stale_act("mark")

    def action_unmark_stale(self) -> None:
        self._stale_act("unmark")

    def _stale_act(self, action: str) -> None:
        if self.select_filter is not None:
            self.stale_bulk(action, f=self.filter)
        elif self.selected_ids:
            self.stale_bulk(action, item_ids=sorted(self.selected_ids))
        else:
            row = self._table().current
            if row is None:
                return
            if action == "mark":
                self.stale_open_form(row.item_id)
            else:
                self.stale_unmark_item(row.item_id)

    def stale_changed(self) -> None:
        row = self._table().current
        self.refresh_items(keep_item=row.item_id if row is not None else None)  # type: ignore[attr-defined]

    def stale_refresh_if_outdated(self, item_id: int | None) -> bool:
        """Back from the detail view: a flag changed there, reload rows and numbers (cursor on `item_id`)."""
        if not self.stale_outdated():
            return False
        self.stale_seen = self.stale_version()
        if item_id is None:
            row = self._table().current
            item_id = row.item_id if row is not None else None
        self.refresh_items(keep_item=item_id)  # type: ignore[attr-defined]
        return True

    # -- excluded metrics --------------------------------------------------------------------
    def stale_mode_changed(self) -> None:
        self.__dict__["_stale_slice"] = None
        if exclude_stale(self.app):
            self._stale_slice_start(self.generation, self.filter)
        self._show_status()  # type: ignore[attr-defined]

    def on_count_loaded(self, message: Any) -> None:
        """After the browser's own handler: in excluded mode, re-score the slice too."""
        if exclude_stale(self.app) and message.generation == self.generation:
            self._stale_slice_start(message.generation, message.filter)

    def _stale_slice_start(self, generation: int, f: Filter) -> None:
        key = (self.stale_version()[0], f.run, f.compare)
        cached = self.__dict__.get("_stale_rescored")
        self._stale_slice_worker(generation, f, key, cached[1] if cached and cached[0] == key else None)

    @work(thread=True, exclusive=True, exit_on_error=False, group="stale-metrics")
    def _stale_slice_worker(self, generation: int, f: Filter, key: Any, rescored: Any) -> None:
        with self.db.connect() as conn:
            if rescored is None:
                rescored = rescored_rows(conn, [r for r in (f.run, f.compare) if r])
            result = slice_metrics_excluding_stale(conn, f, rescored)
        if not get_current_worker().is_cancelled:
            self.post_message(StaleMetricsLoaded(generation, result, (key, rescored)))  # type: ignore[attr-defined]

    def on_stale_metrics_loaded(self, message: StaleMetricsLoaded) -> None:
        if message.rescored is not None:
            self.__dict__["_stale_rescored"] = message.rescored
        if message.generation == self.generation:
            self.__dict__["_stale_slice"] = (message.generation, message.result)
            self._show_status()  # type: ignore[attr-defined]

    @property
    def stale_slice(self) -> StaleSlice | None:
        """The excluded-mode numbers of the filter on screen (None while computing or in all-golds mode)."""
        got = self.__dict__.get("_stale_slice")
        if not exclude_stale(self.app) or got is None or got[0] != self.generation:
            return None
        return got[1]

    def stale_metrics(self, metrics: Any, compare: Any) -> tuple[Any, Any]:
        """The metrics the status line shows in the current mode (None while being computed)."""
        if not exclude_stale(self.app):
            return metrics, compare
        s = self.stale_slice
        if s is None:
            return None, None
        return s.metrics, s.compare if compare is not None else None

    def stale_status_parts(self) -> list[tuple[str, str]]:
        """Mode and selection, for the status line."""
        sep = ("  │  ", "$foreground-muted")
        parts: list[tuple[str, str]] = [sep, *mode_parts(self.app)]
        if exclude_stale(self.app):
            s = self.stale_slice
            if s is None:
                parts.append(("…", "$foreground-muted"))
            elif s.dropped:
                parts.append((f" · {_plural(s.dropped, 'item')} dropped", "$foreground-muted"))
        parts.append((" (m)", "$foreground-muted"))
        if self.select_filter is not None:
            total = getattr(self, "total", None)
            parts += [sep, (f"all {total:,} selected" if total is not None else "all selected", "bold $warning")]
        elif self.selected_ids:
            parts += [sep, (f"{len(self.selected_ids):,} selected", "bold $warning")]
        return parts


# -- detail -----------------------------------------------------------------------------------
class DetailStale(StaleActions):
    """The detail view's part: choose a gold (g / G / 1–9), mark it (s) or clear it (S)."""

    chosen_gold: int | None = None
    """0-based index of the chosen gold (the first of its group of identical golds)."""
    detail: Any
    item_id: int

    def _gold_groups(self) -> list[list[Any]]:
        from ..widgets.detail_parts import group_golds

        if self.detail is None:
            return []
        return [g for g in group_golds(self.detail.golds) if not g[0].superseded]

    def _choose(self, idx: int | None) -> None:
        self.chosen_gold = idx
        self.render_detail()  # type: ignore[attr-defined]

    def action_next_gold(self, step: int) -> None:
        groups = self._gold_groups()
        if not groups:
            return
        firsts = [g[0].idx for g in groups]
        current = next((k for k, g in enumerate(groups) if self.chosen_gold in [x.idx for x in g]), None)
        k = (0 if step > 0 else len(groups) - 1) if current is None else (current + step) % len(groups)
        self._choose(firsts[k])

    def on_key(self, event: events.Key) -> None:
        """1–9 choose a gold by the number it is shown with."""
        if event.character is None or event.character not in "123456789" or self.detail is None:
            return
        n = int(event.character) - 1
        golds = self.detail.golds
        if n >= len(golds):
            return
        event.stop()
        if golds[n].superseded:
            self.notify(f"Gold {n + 1} is superseded by the dataset's rewrite: it is not scored and cannot be flagged.",  # type: ignore[attr-defined]
                        severity="warning")
            return
        group = next((g for g in self._gold_groups() if any(x.idx == n for x in g)), None)
        self._choose(group[0].idx if group else n)

    def _target_gold(self) -> int | None:
        """The chosen gold, else the best-scoring one, else the first scored gold."""
        if self.chosen_gold is not None:
            return self.chosen_gold
        p = self.detail.prediction if self.detail is not None else None
        best = next((m.gold_idx for m in p.per_gold if m.best), None) if p is not None else None
        if best is not None:
            return best
        groups = self._gold_groups()
        return groups[0][0].idx if groups else None

    def action_mark_stale(self) -> None:
        if self.detail is not None:
            self.stale_open_form(self.detail.item_id, self._target_gold())

    def action_unmark_stale(self) -> None:
        if self.detail is not None:
            self.stale_unmark_item(self.detail.item_id, self.chosen_gold)

    def stale_changed(self) -> None:
        if self.detail is not None:
            self.load(self.detail.item_id, getattr(self, "position", None))  # type: ignore[attr-defined]


# -- overview ---------------------------------------------------------------------------------
class OverviewStale(StaleActions):
    """The runs overview's part: numbers in either mode, the mode and stale counts in the titles."""

    def stale_adjust(self, conn: sqlite3.Connection, datasets: list[Any], *, slices: bool = True) -> list[Any]:
        """Worker thread: tell the screen the stale counts, and re-score in excluded mode."""
        self.post_message(StaleOverviewCounts(stale_counts(conn)))  # type: ignore[attr-defined]
        if not exclude_stale(self.app):
            return datasets
        worker = get_current_worker()
        cached = self.__dict__.get("_stale_frame")  # only this worker's thread reads or writes it
        if cached is None or cached[0] is not worker:
            cached = self.__dict__["_stale_frame"] = (worker, item_frame_excluding_stale(conn, None, human=True))
        out = overview_excluding_stale(conn, datasets, slices=slices, frame=cached[1])
        if slices:  # the full pass comes last: free the frame
            self.__dict__.pop("_stale_frame", None)
        return out

    @property
    def stale_counts(self) -> dict[str, StaleCounts]:
        return self.__dict__.get("_stale_counts", {})

    def on_stale_overview_counts(self, message: StaleOverviewCounts) -> None:
        self.__dict__["_stale_counts"] = message.counts

    def stale_title_parts(self, dataset: str) -> list[tuple[str, str]]:
        """For a dataset's title: its stale golds, and what excluded mode leaves out."""
        c = self.stale_counts.get(dataset)
        if c is None or not c.golds:
            return []
        if exclude_stale(self.app):
            text = f"  ⚑ {c.golds} stale excluded" + (f", {_plural(c.dropped, 'item')} dropped" if c.dropped else "")
            return [(text, "$warning")]
        return [(f"  ⚑ {c.golds} stale", "$warning")]

    def stale_mode_parts(self) -> list[tuple[str, str]]:
        return [(" · ", "$foreground-muted"), *mode_parts(self.app)]

    def stale_changed(self) -> None:
        self.load()  # type: ignore[attr-defined]

    def stale_mode_changed(self) -> None:
        self.load()  # type: ignore[attr-defined]


# -- palette ----------------------------------------------------------------------------------
class StaleCommands(EntriesProvider):
    """Stale commands without a key of their own: set the annotator name, clear the selection."""

    def _entries(self) -> list[tuple[str, str, Callable[[], object]]]:
        out: list[tuple[str, str, Callable[[], object]]] = [
            ("Set annotator name…", "the name written with your stale flags (default: the system user)",
             lambda: self.app.push_screen(AuthorForm())),
        ]
        screen = self.screen
        if isinstance(screen, BrowserStale) and (screen.selected_ids or screen.select_filter is not None):
            out.append(("Clear selection", "unselect every selected item", screen.stale_clear_selection))
        return out


__all__ = [
    "BROWSER_STALE_BINDINGS",
    "DETAIL_STALE_BINDINGS",
    "OVERVIEW_STALE_BINDINGS",
    "PALETTE_ROWS",
    "BrowserStale",
    "DetailStale",
    "OverviewStale",
    "StaleCommands",
    "exclude_stale",
    "mode_label",
]
