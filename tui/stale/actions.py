"""`StaleActions`: the stale-answer behaviour every screen with stale keys shares, as an object the
screen owns (`StaleScreen.stale`), not a mixin reaching into it.

- `s` marks a gold stale through `StaleForm`; on a selection (`space`, `ctrl+a` = every item of the
  filter) it first asks `ConfirmDialog` with the count, then marks them all in one undo step.
- `S` clears stale flags; `u` / `U` undo / redo the annotator's last flag action.
- `m` switches every metric between "all golds" and "stale golds excluded".

Every read and write runs in a thread worker of the screen (`jobs`, over `qa_inspect.core.flags`);
results come back to the UI thread with `call_later` on the screen (dropped if it closed). Writes
go one at a time through a small queue (a second `u` waits for the first), so an exclusive worker
group never cancels a write that has not started. `on_busy` ("database busy, retrying") reaches
the user as a notification on the UI thread.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from functools import partial

from textual.binding import Binding
from textual.content import Content
from textual.notifications import SeverityLevel
from textual.worker import get_current_worker

from qa_inspect.core import flags
from qa_inspect.core.errors import QAInspectError
from qa_inspect.core.query import Filter
from qa_inspect.core import report  # the lazy face: ADJUDICATED's module loads numpy, read when first shown
from qa_inspect.core.report import ALL_GOLDS, EXCLUDE_STALE

from ..base import BaseScreen, QAApp
from ..dialogs import ConfirmDialog
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

Hook = Callable[[], None]


def exclude_stale(app: QAApp) -> bool:
    """The app-wide metrics mode: True = stale golds excluded."""
    return app.exclude_stale


def mode_label(app: QAApp) -> str:
    """The metrics mode in words: "all golds", "stale golds excluded" or "adjudicated"."""
    return EXCLUDE_STALE if exclude_stale(app) else report.ADJUDICATED if app.adjudicated else ALL_GOLDS


def mode_parts(app: QAApp) -> list[tuple[str, str]]:
    """The mode as a status part: muted "all golds", a warning-coloured "stale golds excluded", or
    an accent "adjudicated" (every number that counts aliases says so)."""
    if exclude_stale(app):
        return [(EXCLUDE_STALE, "bold $warning")]
    if app.adjudicated:
        return [(report.ADJUDICATED, "bold $accent")]
    return [(ALL_GOLDS, "$foreground-muted")]


def _nothing() -> None:
    """A hook a screen does not need."""


class StaleActions:
    """The write queue, undo/redo, the metrics mode, the mark form and bulk actions of one screen.

    `changed` runs after a write (here or, seen on resume, elsewhere), `mode_changed` after `m`,
    `bulk_done` after a bulk write (the browser clears its selection)."""

    def __init__(self, host: BaseScreen, *, changed: Hook = _nothing, mode_changed: Hook = _nothing,
                 bulk_done: Hook = _nothing) -> None:
        self.host = host
        self.changed = changed
        self.mode_changed = mode_changed
        self.bulk_done = bulk_done
        self.seen: tuple[int, bool, bool] | None = None
        """`version()` this screen last showed (a write or a mode switch elsewhere changes it)."""
        self._queue: deque[tuple[Job, Hook | None]] = deque()
        self._writing = False

    @property
    def app(self) -> QAApp:
        return self.host.qa_app

    def _run(self, job: Callable[[], None], group: str) -> None:
        self.host.run_worker(job, thread=True, exclusive=True, exit_on_error=False, group=group)

    def _notify(self, text: str, severity: SeverityLevel = "warning", timeout: float | None = None) -> None:
        self.host.notify(text, severity=severity, markup=False, timeout=timeout)

    # -- what the screen shows ---------------------------------------------------------------
    def version(self) -> tuple[int, bool, bool]:
        """(writes so far, metrics modes): what the screen's rows and numbers depend on."""
        return self.app.stale_version, exclude_stale(self.app), self.app.adjudicated

    def outdated(self) -> bool:
        return self.seen != self.version()

    def shown(self) -> None:
        """The screen shows the current flags and mode."""
        self.seen = self.version()

    def resume_check(self) -> None:
        """Back on screen: a flag or the mode changed meanwhile, show the new state."""
        if self.outdated():
            self.shown()
            self.changed()

    # -- writing -----------------------------------------------------------------------------
    def write(self, job: Job, on_done: Hook | None = None) -> None:
        """Queue a write; it runs once the writes before it are done."""
        self._queue.append((job, on_done))
        if not self._writing:
            self._next()

    def _next(self) -> None:
        if not self._queue:
            self._writing = False
            return
        self._writing = True
        job, on_done = self._queue.popleft()
        self._run(partial(self._write_worker, job, on_done, self.app), "stale-write")

    def _write_worker(self, job: Job, on_done: Hook | None, app: QAApp) -> None:
        later = self.host.call_later

        def busy(text: str) -> None:
            later(self._notify, text)

        try:
            with self.host.db.connect() as conn:
                result = job(conn, busy)
        except QAInspectError as exc:
            later(self._written, JobResult(str(exc), False, "error"), None)
            return
        except BaseException:
            later(self._written, JobResult("", False, "error"), None)  # frees the queue; the error is reported
            raise
        if result.changed:  # bumped here, so a screen closed meanwhile still sees it on the next one
            app.stale_version += 1
        later(self._written, result, on_done if result.changed else None)

    def _written(self, r: JobResult, on_done: Hook | None) -> None:
        if r.text:
            self._notify(r.text, r.severity, timeout=6)
        if r.changed:
            self.shown()
            if on_done is not None:
                on_done()
            self.changed()
        self._next()

    def undo(self) -> None:
        self.write(undo_job)

    def redo(self) -> None:
        self.write(redo_job)

    # -- metrics mode ------------------------------------------------------------------------
    def toggle_mode(self) -> None:
        """`m`: stale golds excluded ↔ all golds (the adjudicated mode goes off: one mode at a time)."""
        self.app.exclude_stale = not exclude_stale(self.app)
        self.app.adjudicated = False
        self._mode_switched()

    def toggle_adjudicated(self) -> None:
        """`M`: accepted aliases counted as golds ↔ official numbers (stale-excluded goes off)."""
        self.app.adjudicated = not self.app.adjudicated
        self.app.exclude_stale = False
        self._mode_switched()

    def _mode_switched(self) -> None:
        self.shown()
        self.host.notify(f"Metrics: {mode_label(self.app)}", timeout=3)
        self.mode_changed()
        self.host.refresh_bindings()
        self.app.remember_preferences()

    def check_action(self, action: str) -> bool:
        """The footer names what `m` does now: "Excl. stale", or "All golds" while they are excluded."""
        if action == "include_stale_metrics":
            return exclude_stale(self.app)
        if action == "toggle_stale_metrics" and exclude_stale(self.app):
            return not any(isinstance(b, Binding) and b.action == "include_stale_metrics"
                           for b in getattr(self.host, "BINDINGS", ()))
        return True

    # -- one item ----------------------------------------------------------------------------
    def open_form(self, item_id: int, gold_idx: int | None = None) -> None:
        """Open the form for one item: the gold at `gold_idx` chosen, else every gold."""
        self._run(partial(self._prepare_form, item_id, gold_idx), "stale-prepare")

    def _prepare_form(self, item_id: int, gold_idx: int | None) -> None:
        with self.host.db.connect() as conn:
            data = form_data(conn, item_id, gold_idx)
        if isinstance(data, JobResult):
            self.host.call_later(self._notify, data.text, data.severity)
        elif not get_current_worker().is_cancelled:
            self.host.call_later(self._show_form, data)

    def _show_form(self, data: StaleFormData) -> None:
        def done(result: StaleFormResult | None) -> None:
            if result is None:
                return
            texts = [g.text for g in data.golds] if result.choice == ALL else [data.golds[result.choice - 1].text]
            targets = [flags.Target(data.dataset, data.item_key, t) for t in texts]
            self.write(partial(mark_job, targets, result, False))

        self.host.app.push_screen(StaleForm(data), done)

    def unmark_item(self, item_id: int, gold_idx: int | None = None) -> None:
        """Clear the flags of one item's golds (only the gold at `gold_idx` when given)."""
        self.write(partial(unmark_item_job, item_id, gold_idx))

    # -- many items --------------------------------------------------------------------------
    def bulk(self, action: str, item_ids: list[int] | None = None, f: Filter | None = None) -> None:
        """Mark (or clear) every gold of the selected items, or of every item matching `f`."""
        self._run(partial(self._prepare_bulk, action, item_ids, f), "stale-prepare")

    def _prepare_bulk(self, action: str, item_ids: list[int] | None, f: Filter | None) -> None:
        with self.host.db.connect() as conn:
            plan = bulk_plan(conn, action, item_ids, f)
        if not get_current_worker().is_cancelled:
            self.host.call_later(self._confirm_unmark if plan.action == "unmark" else self._confirm_mark, plan)

    def _confirm_unmark(self, plan: BulkPlan) -> None:
        n, items = len(plan.targets), plan.items
        if not n:
            self._notify("No stale gold among the selected items.")
            return
        question = Content.assemble(
            "Clear the stale flags of ", (plural(n, "gold answer"), "bold"), " of ", (plural(items, "item"), "bold"),
            "?\nEvery open proposal on them is closed; u undoes it in one step.",
        )

        def cleared(yes: bool | None) -> None:
            if yes:
                self.write(partial(bulk_unmark_job, plan.targets), self.bulk_done)

        self.host.app.push_screen(ConfirmDialog("Clear stale flags?", question, yes="Clear"), cleared)

    def _confirm_mark(self, plan: BulkPlan) -> None:
        n, items = len(plan.targets), plan.items
        if not n:
            self._notify("The selected items have no scored gold answer to flag.")
            return
        todo = n - plan.already
        if not todo:
            self._notify(f"All {plural(n, 'gold answer')} of the selection are already stale.")
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
                self.write(partial(mark_job, plan.targets, result, True), self.bulk_done)

        def confirmed(yes: bool | None) -> None:
            if yes:
                self.host.app.push_screen(StaleForm(data), filled)

        self.host.app.push_screen(ConfirmDialog("Mark stale?", Content.assemble(*parts), yes="Mark"), confirmed)


__all__ = ["StaleActions", "exclude_stale", "mode_label", "mode_parts"]
