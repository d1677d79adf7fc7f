"""Dialogs: modal screens that ask one thing and dismiss with the answer.

Holds `columns` (choose and order the item table's columns), `frequency` (a frequency table on
a column), `expression` (the expression filter's input), `confirm` (yes/no), `export` (a file path for the item list), `labels` (the label picker), `filters` (every browser
filter in one form, with a live count), `help` (every key, as the app lists them), `pick_run`
(choose a run or any named choice), `release` (a new release's file → the items whose golds it
changes), `run_settings` (which runs the overview lists, by their settings), `served` (served mode: the
annotator's name first, paths kept inside the runs folder) and `slices` (save,
list, open and delete saved slices, and their palette entries).

May import: `tui.widgets`, `tui.base`, `tui.commands`, `tui.workers`, `tui.text` and
`qa_inspect.core`; never a screen or the app. A dialog returns its answer through `dismiss`; the
screen that opened it acts on it (or the app, through `QAApp`).
"""

from __future__ import annotations

from .columns import ColumnsDialog
from .confirm import ConfirmDialog
from .export import ExportDialog, default_path, export_dir, safe_stem
from .expression import ExpressionDialog
from .frequency import FrequencyDialog
from .filters import FilterScreen
from .help import HelpScreen, section
from .labels import LabelDialog, LabelDialogData, LabelDialogResult
from .pick_run import NONE, RunPicker
from .release import ReleaseDialog, ReleaseFilter
from .run_settings import RunSettingsFilter, matches
from .served import SERVED_ENV, AnnotatorDialog, inside, outside_message
from .slices import SaveSliceDialog, SlicesProvider, SlicesScreen

__all__ = [
    "NONE",
    "SERVED_ENV",
    "AnnotatorDialog",
    "inside",
    "outside_message",
    "ColumnsDialog",
    "ConfirmDialog",
    "ExportDialog",
    "ExpressionDialog",
    "FrequencyDialog",
    "FilterScreen",
    "HelpScreen",
    "LabelDialog",
    "LabelDialogData",
    "LabelDialogResult",
    "ReleaseDialog",
    "ReleaseFilter",
    "RunPicker",
    "RunSettingsFilter",
    "SaveSliceDialog",
    "SlicesProvider",
    "SlicesScreen",
    "default_path",
    "export_dir",
    "matches",
    "safe_stem",
    "section",
]
