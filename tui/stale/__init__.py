"""The stale-answer UI, mirroring `core.flags`: flag a gold answer as outdated, clear it,
undo and redo, and see every metric with stale golds excluded.

Holds `keys` (the binding lists screens splice in), `form` (the mark form and the annotator name
dialog), `jobs` (what runs on a connection in a worker: plain functions over `core.flags`),
`actions` (`StaleActions`: the write queue, undo/redo, the metrics mode, the mark form and bulk
actions, an object a screen owns), `screen` (`StaleScreen`: a screen that owns one and binds the
keys to it), `selection` (the browser's selected items), `excluded_metrics` (the browser's slice
re-scored without stale golds), `gold_choice` (which gold the detail's `s` acts on), `titles`
(the overview's stale counts) and `commands` (the palette entries without a key).

May import: `tui.dialogs`, `tui.widgets`, `tui.base`, `tui.commands`, `tui.workers`, `tui.text`
and `qa_inspect.core`; never a screen or the app. Nothing here reaches into a screen: the
controllers get the screen (to run workers, notify and push dialogs) and callbacks for what a
change means to it.
"""

from __future__ import annotations

from .actions import StaleActions, exclude_stale, mode_label, mode_parts
from .commands import StaleCommands
from .excluded_metrics import ExcludedMetrics
from .form import AuthorForm, StaleForm, StaleFormData, StaleFormResult
from .gold_choice import gold_by_number, next_gold, target_gold
from .keys import (
    BROWSER_STALE_BINDINGS,
    COMPARE_STALE_BINDINGS,
    UNDO_BINDINGS,
    DETAIL_STALE_BINDINGS,
    OVERVIEW_STALE_BINDINGS,
    PALETTE_ROWS,
)
from .screen import StaleScreen
from .selection import Selection
from .titles import StaleTitles, scores_key

__all__ = [
    "BROWSER_STALE_BINDINGS",
    "COMPARE_STALE_BINDINGS",
    "UNDO_BINDINGS",
    "DETAIL_STALE_BINDINGS",
    "OVERVIEW_STALE_BINDINGS",
    "PALETTE_ROWS",
    "AuthorForm",
    "ExcludedMetrics",
    "Selection",
    "StaleActions",
    "StaleCommands",
    "StaleForm",
    "StaleFormData",
    "StaleFormResult",
    "StaleScreen",
    "StaleTitles",
    "scores_key",
    "exclude_stale",
    "gold_by_number",
    "mode_label",
    "mode_parts",
    "next_gold",
    "target_gold",
]
