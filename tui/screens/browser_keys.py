"""The item browser's keys (one `Binding` per key with a stable id a keymap can move) and the
status line's names of the sort columns."""

from __future__ import annotations

from textual.binding import Binding, BindingType

from ..stale import BROWSER_STALE_BINDINGS
from .aliases import ALIAS_BINDINGS
from .labels import BROWSER_LABEL_BINDINGS

SORT_LABELS = {
    "key": "id", "split": "split", "tag": "tag", "answer_type": "type", "question": "question",
    "prediction": "prediction", "em": "EM", "f1": "F1", "f1_recall": "F1-recall", "refused": "refused",
    "stale": "stale", "delta": "Δ B−A",
}

BROWSER_BINDINGS: list[BindingType] = [
    Binding("enter", "open", "Open", id="browser.open", tooltip="Open the item under the cursor"),
    Binding("slash", "search", "Search", id="browser.search",
            tooltip="Free-text search over question, golds and prediction"),
    Binding("f", "filters", "Filters", id="browser.filters", tooltip="Open the filter dialog"),
    Binding("r", "choose_run", "Run", id="browser.choose-run", show=False,
            tooltip="Choose the run whose predictions are shown"),
    Binding("c", "compare", "Compare", id="browser.compare",
            tooltip="Compare this run (A) with run B: fixed, broken, per-slice Δ"),
    Binding("C", "compare_columns", "B columns", id="browser.choose-b", show=False,
            tooltip="Choose run B: its scores beside this one's (B and Δ B−A columns)"),
    Binding("d", "toggle_disagree", "Disagree", id="browser.toggle-disagree", show=False,
            tooltip="Only items where run A and run B disagree"),
    Binding("w", "toggle_errors", "Wrong only", id="browser.toggle-errors",
            tooltip="Only wrong answers (EM 0 / F1-recall below 1) or all items"),
    Binding("ctrl+f", "toggle_facets", "Facets", id="browser.toggle-facets",
            tooltip="Facet panel: counts and errors per value; select to filter"),
    Binding("ctrl+s", "save_slice", "Save slice", id="browser.save-slice", show=False,
            tooltip="Save the current filter as a named slice"),
    Binding("e", "export", "Export", id="browser.export",
            tooltip="Export the item list to CSV, JSONL, Parquet or Markdown"),
    Binding("o", "sort", "Sort", id="browser.sort", show=False,
            tooltip="Choose the sort column (or click a header; again reverses)"),
    Binding("O", "reverse", "Reverse", id="browser.reverse", show=False, tooltip="Reverse the sort order"),
    Binding("x", "clear", "Clear", id="browser.clear", show=False, tooltip="Clear all filters but the run"),
    Binding("k", "columns", "Columns", id="browser.columns", show=False,
            tooltip="Choose and order the table's columns (kept per dataset)"),
    Binding("F", "columns('frequency')", "Frequency", id="browser.frequency", show=False,
            tooltip="Frequency table of a column (the sort column; ← → others): count, share, score; enter keeps a value"),
    Binding("vertical_line", "columns('expression')", "Expression", id="browser.expression", show=False,
            tooltip='Filter by an expression over the columns: f1 < 0.5 and tag = "fast-changing" and label != "format"'),
    Binding("D", "distribution", "Distribution", id="browser.distribution", show=False,
            tooltip="Score histogram of these items (+ A-vs-B grid)"),
    Binding("backslash", "toggle_split", "Split", id="browser.toggle-split", show=False,
            tooltip="Split view on a wide terminal: the item under the cursor beside the list"),
    *BROWSER_STALE_BINDINGS,  # s, S, space, ctrl+a, u, U, m (stale.keys)
    *BROWSER_LABEL_BINDINGS,  # l, 1–9 (screens.labels)
    *ALIAS_BINDINGS,  # A (screens.aliases)
    Binding("escape", "back", "Back", id="browser.back",
            tooltip="Back one screen (to where this browser was opened from)"),
]

__all__ = ["BROWSER_BINDINGS", "SORT_LABELS"]
