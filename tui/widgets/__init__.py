"""Widgets: the tables, panels and lines screens are built from, and the detail view's text parts.

Holds `item_table` (a window of rows over a filter that may match 100k items) and
`selectable_table` (the same with a selection mark), `facet_panel` (counts and errors per facet
value, in its own worker), `filter_bar` and `status_line` (one line each above the items),
`overview_tables` (runs and slices of the overview), `key_footer` (the footer: help and quit first), `result_bar` (the item table's scrollbar
over the whole result), `item_preview` (the split view's item, following the cursor) and `detail_blocks` (the item detail's blocks
as `Content`; imported as a module: `from ..widgets import detail_blocks`).

May import: `tui.base`, `tui.commands`, `tui.workers`, `tui.text` and `qa_inspect.core`; never a
dialog, a screen or the app. A widget tells its screen what happened by posting a message.
"""

from __future__ import annotations

from . import detail_blocks
from .detail_blocks import group_golds, show_ts
from .facet_panel import FacetList, FacetPanel
from .filter_bar import FilterBar, describe
from .key_footer import KeyFooter
from .item_preview import PREVIEW_MIN_WIDTH, ItemPreview
from .item_table import TABLE_KEYS, WINDOW, Col, ItemTable, columns_for, hidden_for_width, registry_col
from .result_bar import ResultBar
from .overview_tables import RowRef, RunsTable, SlicesTable
from .selectable_table import SelectableItemTable
from .status_line import StatusLine

__all__ = [
    "PREVIEW_MIN_WIDTH",
    "TABLE_KEYS",
    "WINDOW",
    "Col",
    "FacetList",
    "FacetPanel",
    "FilterBar",
    "ItemPreview",
    "ItemTable",
    "KeyFooter",
    "ResultBar",
    "RowRef",
    "RunsTable",
    "SelectableItemTable",
    "SlicesTable",
    "StatusLine",
    "columns_for",
    "registry_col",
    "describe",
    "detail_blocks",
    "group_golds",
    "hidden_for_width",
    "show_ts",
]
