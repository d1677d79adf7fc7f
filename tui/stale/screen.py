"""`StaleScreen`: a screen with the stale keys (`u`, `U`, `m`, and `s`/`S` where a screen binds
them). It owns a `StaleActions` (`self.stale`) and turns the keys into calls on it; a screen says
what a change means for it by overriding `stale_changed` / `stale_mode_changed`."""

from __future__ import annotations

from ..base import BaseScreen
from .actions import StaleActions


class StaleScreen(BaseScreen):
    """A full screen whose numbers depend on stale flags and the metrics mode."""

    def __init__(self) -> None:
        super().__init__()
        self.stale = StaleActions(self, changed=self.stale_changed, mode_changed=self.stale_mode_changed,
                                  bulk_done=self.stale_bulk_done)

    # -- what a screen overrides -------------------------------------------------------------
    def stale_changed(self) -> None:
        """A flag changed (here or on another screen): show the new state."""

    def stale_mode_changed(self) -> None:
        """The metrics mode was switched."""

    def stale_bulk_done(self) -> None:
        """A bulk action was written (the browser clears its selection)."""

    # -- keys and lifecycle ------------------------------------------------------------------
    def on_mount(self) -> None:
        self.stale.shown()

    def on_screen_resume(self) -> None:
        # After the result callback of the screen that closed (the browser's follows the detail's item).
        self.call_after_refresh(self.stale.resume_check)

    def action_stale_undo(self) -> None:
        self.stale.undo()

    def action_stale_redo(self) -> None:
        self.stale.redo()

    def action_toggle_stale_metrics(self) -> None:
        self.stale.toggle_mode()

    def action_include_stale_metrics(self) -> None:
        self.stale.toggle_mode()

    def action_toggle_adjudicated(self) -> None:
        self.stale.toggle_adjudicated()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return self.stale.check_action(action)


__all__ = ["StaleScreen"]
