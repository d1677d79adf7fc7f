"""What every screen shares: the database handle and the one place worker errors become notices."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, cast

from textual.screen import ModalScreen, Screen
from textual.worker import Worker, WorkerState

if TYPE_CHECKING:
    from ..app import QAInspectApp
    from ..workers import Db


class WorkerErrors:
    """Workers run with exit_on_error=False; their errors end up here, as one notification."""

    app: Any

    @property
    def qa_app(self) -> QAInspectApp:
        from ..app import QAInspectApp

        return cast(QAInspectApp, self.app)

    @property
    def db(self) -> Db:
        return self.qa_app.db

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state == WorkerState.ERROR and event.worker.error is not None:
            self.qa_app.report_worker_error(event.worker)


class BaseScreen(WorkerErrors, Screen[Any]):
    """A full screen of the app."""

    HELP_TITLE: ClassVar[str] = ""
    """Section title of this screen's keys in the help screen."""


class BaseModal(WorkerErrors, ModalScreen[Any]):
    """A dialog over a screen."""

    HELP_TITLE: ClassVar[str] = ""
