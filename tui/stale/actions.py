"""`StaleActions`: what every screen with stale actions shares.

- `s` marks a gold stale through `StaleForm`; on a selection (`space`, `ctrl+a` = every item of the
  filter) it first asks `ConfirmDialog` with the count, then marks them all in one undo step.
- `S` clears stale flags; `u` / `U` undo / redo the annotator's last flag action.
- `m` switches every metric between "all golds" and "stale golds excluded".

Every read and write runs in a thread worker (`jobs`, over `qa_inspect.core.flags`); results come
back as messages. Writes go one at a time through a small queue (a second `u` waits for the
first), so an exclusive worker group never cancels a write that has not started. `on_busy`
("database busy, retrying") reaches the user as a message turned into a notification on the UI
thread.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

from textual import work
from textual.app import App
from textual.binding import Binding
from textual.content import Content
from textual.message import Message
from textual.worker import get_current_worker

from qa_inspect.core import flags
from qa_inspect.core.errors import QAInspectError
from qa_inspect.core.query import Filter
from qa_inspect.core.report import ALL_GOLDS, EXCLUDE_STALE

from ..base import QAApp
from ..dialogs import ConfirmDialog
from ..workers import Db
from .form import ALL, StaleForm, StaleFormData, StaleFormResult
from .jobs import (
    BulkPlan,
    Job,
    JobResult,
    bulk_plan,
    bulk_unmark_job,
    form_data,
    mark_job,
    plural,
    redo_job,
    undo_job,
    unmark_item_job,
)
from .messages import BulkReady, StaleBusy, StaleFormReady, StaleNotice, StaleWritten


def exclude_stale(app: QAApp) -> bool:
    """The app-wide metrics mode: True = stale golds excluded."""
    return app.exclude_stale


def mode_label(app: QAApp) -> str:
    return EXCLUDE_STALE if exclude_stale(app) else ALL_GOLDS


def mode_parts(app: QAApp) -> list[tuple[str, str]]:
    """The mode as a status part: muted "all golds", or a warning-coloured "stale golds excluded"."""
    if exclude_stale(app):
        return [(EXCLUDE_STALE, "bold $warning")]
    return [(ALL_GOLDS, "$foreground-muted")]


class StaleActions:
    """The write queue, undo/redo, the metrics mode, the mark form and bulk actions.

    Mixed in before `BaseScreen` (it relies on its `qa_app`, `db`, `notify`, `post_message`).
    Screens override `stale_changed` to show the new state after a write.
    """

    stale_seen: tuple[int, bool] | None = None
    """`stale_version()` this screen last showed (a write or a mode switch elsewhere changes it)."""

    if TYPE_CHECKING:  # provided by the screen this is mixed into
        app: App[Any]
        qa_app: QAApp
        db: Db

        def notify(self, message: str, *, title: str = "", severity: str = "information",
                   timeout: float | None = None, markup: bool = True) -> None: ...
        def post_message(self, message: Message) -> bool: ...
        def call_after_refresh(self, callback: Callable[..., Any], *args: Any) -> bool: ...
        def refresh_bindings(self) -> None: ...

    # -- hooks -------------------------------------------------------------------------------
    def stale_changed(self) -> None:
        """A flag changed (here or on another screen): show the new state."""

    def stale_mode_changed(self) -> None:
        """The metrics mode was switched."""

    def stale_bulk_done(self) -> None:
        """A bulk action was written (the browser clears its selection)."""

    # -- shared state ------------------------------------------------------------------------
    @property
    def _stale_queue(self) -> deque[tuple[Job, Callable[[], None] | None]]:
        q = self.__dict__.get("_stale_q")
        if q is None:
            q = self.__dict__["_stale_q"] = deque()
        return q

    def stale_version(self) -> tuple[int, bool]:
        """(writes so far, metrics mode): what the screen's rows and numbers depend on."""
        return self.qa_app.stale_version, exclude_stale(self.qa_app)

    def stale_outdated(self) -> bool:
        return self.stale_seen != self.stale_version()

    def on_mount(self) -> None:
        self.stale_seen = self.stale_version()

    def on_screen_resume(self) -> None:
        # After the result callback of the screen that closed (the browser's follows the detail's item).
        self.call_after_refresh(self._stale_resume_check)

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
        self._stale_write_worker(job, on_done, self.qa_app)

    @work(thread=True, exclusive=True, exit_on_error=False, group="stale-write")
    def _stale_write_worker(self, job: Job, on_done: Callable[[], None] | None, app: QAApp) -> None:
        post = self.post_message

        def busy(text: str) -> None:
            post(StaleBusy(text))

        try:
            with self.db.connect() as conn:
                result = job(conn, busy)
        except QAInspectError as exc:
            post(StaleWritten(JobResult(str(exc), False, "error")))
            return
        except BaseException:
            post(StaleWritten(JobResult("", False, "error")))  # frees the queue; the error is reported
            raise
        if result.changed:  # bumped here, so a screen closed meanwhile still sees it on the next one
            app.stale_version += 1
        post(StaleWritten(result, on_done if result.changed else None))

    def on_stale_written(self, message: StaleWritten) -> None:
        r = message.result
        if r.text:
            self.notify(r.text, severity=r.severity, markup=False, timeout=6)
        if r.changed:
            self.stale_seen = self.stale_version()
            if message.on_done is not None:
                message.on_done()
            self.stale_changed()
        self._stale_next()

    def on_stale_busy(self, message: StaleBusy) -> None:
        self.notify(message.text, severity="warning", markup=False)

    def on_stale_notice(self, message: StaleNotice) -> None:
        self.notify(message.text, severity=message.severity, markup=False)

    # -- undo / redo -------------------------------------------------------------------------
    def action_stale_undo(self) -> None:
        self.stale_write(undo_job)

    def action_stale_redo(self) -> None:
        self.stale_write(redo_job)

    # -- metrics mode ------------------------------------------------------------------------
    def action_toggle_stale_metrics(self) -> None:
        self.qa_app.exclude_stale = not exclude_stale(self.qa_app)
        self.stale_seen = self.stale_version()
        self.notify(f"Metrics: {mode_label(self.qa_app)}", timeout=3)
        self.stale_mode_changed()
        self.refresh_bindings()
        self.qa_app.remember_preferences()

    def action_include_stale_metrics(self) -> None:
        self.action_toggle_stale_metrics()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The footer names what `m` does now: "Excl. stale", or "All golds" while they are excluded."""
        if action == "include_stale_metrics":
            return exclude_stale(self.qa_app)
        if action == "toggle_stale_metrics" and exclude_stale(self.qa_app):
            return not any(isinstance(b, Binding) and b.action == "include_stale_metrics"
                           for b in getattr(self, "BINDINGS", ()))
        return True

    # -- one item ----------------------------------------------------------------------------
    def stale_open_form(self, item_id: int, gold_idx: int | None = None) -> None:
        """Open the form for one item: the gold at `gold_idx` chosen, else every gold."""
        self._stale_prepare(item_id, gold_idx)

    @work(thread=True, exclusive=True, exit_on_error=False, group="stale-prepare")
    def _stale_prepare(self, item_id: int, gold_idx: int | None) -> None:
        with self.db.connect() as conn:
            data = form_data(conn, item_id, gold_idx)
        if isinstance(data, JobResult):
            self.post_message(StaleNotice(data.text, data.severity))
        elif not get_current_worker().is_cancelled:
            self.post_message(StaleFormReady(data))

    def on_stale_form_ready(self, message: StaleFormReady) -> None:
        data = message.data

        def done(result: StaleFormResult | None) -> None:
            if result is None:
                return
            texts = [g.text for g in data.golds] if result.choice == ALL else [data.golds[result.choice - 1].text]
            targets = [flags.Target(data.dataset, data.item_key, t) for t in texts]
            self.stale_write(partial(mark_job, targets, result, False))

        self.app.push_screen(StaleForm(data), done)

    def stale_unmark_item(self, item_id: int, gold_idx: int | None = None) -> None:
        """Clear the flags of one item's golds (only the gold at `gold_idx` when given)."""
        self.stale_write(partial(unmark_item_job, item_id, gold_idx))

    # -- many items --------------------------------------------------------------------------
    def stale_bulk(self, action: str, item_ids: list[int] | None = None, f: Filter | None = None) -> None:
        """Mark (or clear) every gold of the selected items, or of every item matching `f`."""
        self._stale_bulk_prepare(action, item_ids, f)

    @work(thread=True, exclusive=True, exit_on_error=False, group="stale-prepare")
    def _stale_bulk_prepare(self, action: str, item_ids: list[int] | None, f: Filter | None) -> None:
        with self.db.connect() as conn:
            plan = bulk_plan(conn, action, item_ids, f)
        if not get_current_worker().is_cancelled:
            self.post_message(BulkReady(plan))

    def on_bulk_ready(self, message: BulkReady) -> None:
        plan = message.plan
        if plan.action == "unmark":
            self._confirm_bulk_unmark(plan)
        else:
            self._confirm_bulk_mark(plan)

    def _confirm_bulk_unmark(self, plan: BulkPlan) -> None:
        n, items = len(plan.targets), plan.items
        if not n:
            self.notify("No stale gold among the selected items.", severity="warning")
            return
        question = Content.assemble(
            "Clear the stale flags of ", (plural(n, "gold answer"), "bold"), " of ", (plural(items, "item"), "bold"),
            "?\nEvery open proposal on them is closed; u undoes it in one step.",
        )

        def cleared(yes: bool | None) -> None:
            if yes:
                self.stale_write(partial(bulk_unmark_job, plan.targets), self.stale_bulk_done)

        self.app.push_screen(ConfirmDialog("Clear stale flags?", question, yes="Clear"), cleared)

    def _confirm_bulk_mark(self, plan: BulkPlan) -> None:
        n, items = len(plan.targets), plan.items
        if not n:
            self.notify("The selected items have no scored gold answer to flag.", severity="warning")
            return
        todo = n - plan.already
        if not todo:
            self.notify(f"All {plural(n, 'gold answer')} of the selection are already stale.", severity="warning")
            return
        parts: list[tuple[str, str] | str] = [
            "Mark ", (plural(todo, "gold answer"), "bold"), " of ", (plural(items, "item"), "bold"), " stale?",
        ]
        if plan.already:
            one = plan.already == 1
            parts.append(f"\n{plural(plan.already, 'gold answer')} already stale {'is' if one else 'are'} left as "
                         f"{'it is' if one else 'they are'}.")
        parts.append("\nOne action: u undoes all of it.")
        data = StaleFormData(author=plan.author, bulk_golds=n, bulk_items=items, bulk_already=plan.already)

        def filled(result: StaleFormResult | None) -> None:
            if result is not None:
                self.stale_write(partial(mark_job, plan.targets, result, True), self.stale_bulk_done)

        def confirmed(yes: bool | None) -> None:
            if yes:
                self.app.push_screen(StaleForm(data), filled)

        self.app.push_screen(ConfirmDialog("Mark stale?", Content.assemble(*parts), yes="Mark"), confirmed)
