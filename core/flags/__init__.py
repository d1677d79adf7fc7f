"""Stale-answer flags: an append-only journal in `annotations`, the current state derived from it.

Holds, each module importing only those listed before it:

- `journal`: journal records (`Target`, `Entry`), appending and reading entries;
- `state`: how the deciding mark and the open proposals of a gold are derived;
- `targets`: finding the item and the golds to flag;
- `current`: the golds flagged stale now (`Flag`, `current_flags`, `flags_for_item`);
- `actions`: mark/unmark/verify, one gold or many; `undo`: per-author undo/redo of whole actions;
- `patch`: the patch and the journal as JSONL; `changelog`: the patch as Markdown release notes;
  `json_layout` + `release`: the dataset's own file with the proposals applied; `merge`: a patch,
  a journal or another database merged in.

A flag is *open* while a scored (not superseded) gold of its item still has the flagged text,
*resolved* when the dataset is loaded but the text is gone (or only left as a superseded original
answer: the release rewrote it), and *orphaned* when no dataset of that name is loaded.

May import: `core.store`, `core.formats`, `core.model`, `core.keys`, `core.errors`. Metrics with
stale golds excluded live in `core.report` (they are reports over this state).
"""

from __future__ import annotations

from qa_inspect.core.lazy import lazy_face

__all__ = [
    "AUTHOR_ENV",
    "CHANGELOG_COLUMNS",
    "CURRENT_FLAGS_SQL",
    "DATASET_FORMATS",
    "FLAG_ENTRIES_SQL",
    "JOURNAL_KIND",
    "PATCH_KIND",
    "STALE_GOLDS_SQL",
    "BusyCallback",
    "DatasetExport",
    "Entry",
    "Flag",
    "FlagError",
    "ImportResult",
    "ItemRef",
    "JsonStyle",
    "Proposal",
    "Target",
    "UndoState",
    "append",
    "author_for",
    "bulk_mark",
    "bulk_unmark",
    "changelog",
    "current_flags",
    "default_author",
    "describe_group",
    "dump_json",
    "export_dataset",
    "export_journal",
    "export_patch",
    "flags_for_item",
    "get_setting",
    "has_entries",
    "import_file",
    "insert_entry",
    "item_by_id",
    "journal",
    "journal_records",
    "mark",
    "new_uid",
    "normalise_ts",
    "patch_records",
    "redo",
    "resolve_item",
    "set_default_author",
    "set_setting",
    "targets_for_item",
    "targets_for_items",
    "targets_of",
    "undo",
    "undo_state",
    "unmark",
    "verify",
]

# Each name is imported from its module on first use (start-up time: see `core/lazy.py`).
lazy_face(__name__, {
    "qa_inspect.core.store": (
        "AUTHOR_ENV", "CURRENT_FLAGS_SQL", "STALE_GOLDS_SQL", "BusyCallback", "author_for",
        "default_author", "get_setting", "set_default_author", "set_setting",
    ),
    ".actions": ("bulk_mark", "bulk_unmark", "mark", "unmark", "verify"),
    ".changelog": ("CHANGELOG_COLUMNS", "changelog"),
    ".current": ("Flag", "Proposal", "current_flags", "flags_for_item"),
    ".journal": (
        "FLAG_ENTRIES_SQL", "Entry", "FlagError", "Target", "append", "has_entries", "insert_entry", "journal", "new_uid",
        "normalise_ts",
    ),
    ".json_layout": ("JsonStyle", "dump_json"),
    ".merge": ("ImportResult", "import_file"),
    ".patch": (
        "JOURNAL_KIND", "PATCH_KIND", "export_journal", "export_patch", "journal_records", "patch_records",
    ),
    ".release": ("DATASET_FORMATS", "DatasetExport", "export_dataset"),
    ".targets": (
        "ItemRef", "item_by_id", "resolve_item", "targets_for_item", "targets_for_items", "targets_of",
    ),
    ".undo": ("UndoState", "describe_group", "redo", "undo", "undo_state"),
})
