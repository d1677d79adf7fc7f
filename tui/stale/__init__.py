"""The stale-answer UI, mirroring `core.flags`: flag a gold answer as outdated, clear it,
undo and redo, and see every metric with stale golds excluded.

Holds `keys` (the binding lists screens splice in), `form` (the mark form and the annotator name
dialog), `jobs` (what runs on a connection in a worker: plain functions over `core.flags`),
`messages` (what those workers post back), `actions` (`StaleActions`, the mixin every screen with
stale actions shares: the write queue, undo/redo, the metrics mode), the per-screen mixins
`browser` (selection, bulk actions, excluded metrics), `detail` (choose a gold) and `overview`
(counts in the titles), and `commands` (the palette entries without a key).

May import: `tui.dialogs`, `tui.widgets`, `tui.base`, `tui.commands`, `tui.workers`, `tui.text`
and `qa_inspect.core`; never a screen or the app. The mixins rely on the screen they are mixed
into for a few methods (declared under `TYPE_CHECKING` in each).
"""

from __future__ import annotations

from .actions import StaleActions, exclude_stale, mode_label, mode_parts
from .browser import BrowserStale
from .commands import StaleCommands
from .detail import DetailStale
from .form import AuthorForm, StaleForm, StaleFormData, StaleFormResult
from .keys import (
    BROWSER_STALE_BINDINGS,
    COMPARE_STALE_BINDINGS,
    DETAIL_STALE_BINDINGS,
    OVERVIEW_STALE_BINDINGS,
    PALETTE_ROWS,
)
from .overview import OverviewStale

__all__ = [
    "BROWSER_STALE_BINDINGS",
    "COMPARE_STALE_BINDINGS",
    "DETAIL_STALE_BINDINGS",
    "OVERVIEW_STALE_BINDINGS",
    "PALETTE_ROWS",
    "AuthorForm",
    "BrowserStale",
    "DetailStale",
    "OverviewStale",
    "StaleActions",
    "StaleCommands",
    "StaleForm",
    "StaleFormData",
    "StaleFormResult",
    "exclude_stale",
    "mode_label",
    "mode_parts",
]
