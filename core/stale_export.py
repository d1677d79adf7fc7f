"""Stale flags out of and into the database: a patch (JSONL), the journal (JSONL), the dataset itself.

This is where callers import these names from; each piece lives beside it with its format described:

- `core.stale_jsonl_export`: the patch (`export_patch`: one line per open proposal) and the
  journal (`export_journal`: every entry, unmarks and undos included);
- `core.stale_dataset_export`: the dataset's own source file with the proposals applied
  (`export_dataset`), written back in its own layout with `core.json_layout`;
- `core.stale_import`: a patch, a journal export or another qa-inspect database merged in
  (`import_file`), one transaction per file.
"""

from __future__ import annotations

from .json_layout import JsonStyle, dump_json
from .stale_dataset_export import DATASET_FORMATS, DatasetExport, export_dataset
from .stale_import import ImportResult, import_file
from .stale_jsonl_export import JOURNAL_KIND, PATCH_KIND, export_journal, export_patch, journal_records, patch_records

__all__ = [
    "DATASET_FORMATS",
    "JOURNAL_KIND",
    "PATCH_KIND",
    "DatasetExport",
    "ImportResult",
    "JsonStyle",
    "dump_json",
    "export_dataset",
    "export_journal",
    "export_patch",
    "import_file",
    "journal_records",
    "patch_records",
]
