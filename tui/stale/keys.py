"""The stale actions' keys, as binding lists the overview, browser and detail screens splice in.

One `Binding` per key and action with a stable id (`stale.mark`, `stale.undo`, …): the lists are
shared, so a keymap entry for an id moves that key on every screen that has it.
"""

from __future__ import annotations

from textual.binding import Binding, BindingType

MARK_BINDINGS: list[BindingType] = [
    Binding("s", "mark_stale", "Stale", id="stale.mark",
            tooltip="Mark a gold answer stale (on a selection: every item selected)"),
    Binding("S", "unmark_stale", "Clear stale", show=False, id="stale.unmark",
            tooltip="Clear stale flags (of the selection, item or chosen gold)"),
]
UNDO_BINDINGS: list[BindingType] = [
    Binding("u", "stale_undo", "Undo flag", show=False, id="stale.undo",
            tooltip="Undo your last flag or label action (again: the one before)"),
    Binding("U", "stale_redo", "Redo flag", show=False, id="stale.redo",
            tooltip="Redo the flag or label action you last undid"),
]
METRICS_BINDING = Binding(
    "m", "toggle_stale_metrics", "Excl. stale", id="stale.metrics",
    tooltip="Metrics: all golds ↔ stale golds excluded",
)
METRICS_BACK_BINDING = Binding(  # shown instead of the one above while stale golds are excluded
    "m", "include_stale_metrics", "All golds", id="stale.metrics-back",
    tooltip="Metrics: all golds again (stale golds are excluded now)",
)
METRICS_BINDING_QUIET = Binding(
    "m", "toggle_stale_metrics", "Excl. stale", show=False,  # the status line shows the mode and the key
    id="stale.metrics-quiet", tooltip="Metrics: all golds ↔ stale golds excluded",
)
ADJUDICATED_BINDING = Binding(
    "M", "toggle_adjudicated", "Adjudicated", show=False, id="stale.adjudicated",
    tooltip="Metrics: official ↔ adjudicated (accepted aliases counted as golds; stale-excluded goes off)",
)
BROWSER_STALE_BINDINGS: list[BindingType] = [
    *MARK_BINDINGS,
    Binding("space", "toggle_select", "Select", show=False, id="stale.select",
            tooltip="Select the row or not (s then marks every selected item)"),
    Binding("ctrl+a", "select_all", "Select all", show=False, id="stale.select-all",
            tooltip="Select every item matching the filter (again: clear)"),
    *UNDO_BINDINGS,
    METRICS_BINDING_QUIET,
    ADJUDICATED_BINDING,
]
DETAIL_STALE_BINDINGS: list[BindingType] = [
    *MARK_BINDINGS,
    Binding("g", "next_gold(1)", "Next gold", show=False, id="stale.next-gold",
            tooltip="Choose the gold answer s and S act on (1–9 choose by number)"),
    Binding("G", "next_gold(-1)", "Previous gold", show=False, id="stale.previous-gold",
            tooltip="Choose the previous gold answer"),
    *UNDO_BINDINGS,
    METRICS_BINDING_QUIET,
    ADJUDICATED_BINDING,
]
COMPARE_STALE_BINDINGS: list[BindingType] = [*UNDO_BINDINGS, METRICS_BINDING_QUIET]
OVERVIEW_STALE_BINDINGS: list[BindingType] = [*UNDO_BINDINGS, METRICS_BINDING, METRICS_BACK_BINDING, ADJUDICATED_BINDING]

PALETTE_ROWS: list[tuple[str, str]] = [
    ("palette", "Set annotator name: who your stale flags are written as"),
]
"""Help rows for stale commands reached through the palette only."""
