"""Stale-answer flags: an append-only journal in `annotations`, the current state derived from it.

Holds, each module importing only those listed before it:

- `journal`: journal records (`Target`, `Entry`), appending and reading entries;
- `state`: how the deciding mark and the open proposals of a gold are derived;
- `targets`: finding the item and the golds to flag;
- `current`: the golds flagged stale now (`Flag`, `current_flags`, `flags_for_item`);
- `aliases`: answers accepted as correct for an item (`add_alias`, `remove_alias`, `accept_answer`,
  `current_aliases`, `alias_list`): `alias`/`unalias` entries of the same journal;
- `actions`: mark/unmark/verify, one gold or many; `undo`: per-author undo/redo of whole actions;
- `patch`: the patch and the journal as JSONL; `changelog`: the patch as Markdown release notes;
  `json_layout` + `release`: the dataset's own file with the proposals applied; `merge`: a patch,
  a journal or another database merged in; `journal_files`: every new entry also appended to its
  author's JSONL file in the runs folder; `journal_sync`: those files merged in by every load.

A flag is *open* while a scored (not superseded) gold of its item still has the flagged text,
*resolved* when the dataset is loaded but the text is gone (or only left as a superseded original
answer: the release rewrote it), and *orphaned* when no dataset of that name is loaded.

May import: `core.store`, `core.formats`, `core.model`, `core.keys`, `core.errors`. Metrics with
stale golds excluded live in `core.report` (they are reports over this state).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from qa_inspect.core.faces import lazy_face

__all__ = [
    "ALIAS_ACTIONS",
    "ALIAS_COLUMNS",
    "ALIAS_ENTRIES_SQL",
    "ALIAS_KIND",
    "AUTHOR_ENV",
    "CHANGELOG_COLUMNS",
    "CURRENT_ALIASES_SQL",
    "CURRENT_FLAGS_SQL",
    "DATASET_FORMATS",
    "FLAG_ENTRIES_SQL",
    "GITIGNORE",
    "JOURNAL_DIR_SETTING",
    "JOURNAL_FIELDS",
    "JOURNAL_READ_SETTING",
    "JOURNAL_KIND",
    "PATCH_KIND",
    "STALE_GOLDS_SQL",
    "Alias",
    "BusyCallback",
    "DatasetExport",
    "Entry",
    "Flag",
    "FlagError",
    "ImportResult",
    "ItemRef",
    "JournalSync",
    "JsonStyle",
    "Proposal",
    "Target",
    "UndoState",
    "accept_answer",
    "add_alias",
    "alias_list",
    "alias_records",
    "append",
    "author_file",
    "author_for",
    "bulk_mark",
    "bulk_unmark",
    "changelog",
    "current_aliases",
    "current_flags",
    "default_author",
    "describe_group",
    "dump_json",
    "export_aliases",
    "entry_record",
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
    "journal_folder",
    "journal_records",
    "mark",
    "new_uid",
    "normalise_ts",
    "queue_local_entry",
    "patch_records",
    "redo",
    "remove_alias",
    "resolve_item",
    "set_default_author",
    "set_setting",
    "sync_journal_files",
    "targets_for_item",
    "targets_for_items",
    "targets_of",
    "undo",
    "undo_state",
    "unmark",
    "verify",
    "write_records",
]

if TYPE_CHECKING:  # where each name lives; loaded on first use at run time (core/faces.py)
    from qa_inspect.core.store import (
        AUTHOR_ENV,
        author_for,
        BusyCallback,
        CURRENT_FLAGS_SQL,
        default_author,
        get_setting,
        set_default_author,
        set_setting,
        STALE_GOLDS_SQL,
    )
    from .actions import (
        bulk_mark,
        bulk_unmark,
        mark,
        unmark,
        verify,
    )
    from .aliases import (
        accept_answer,
        add_alias,
        Alias,
        ALIAS_ACTIONS,
        ALIAS_ENTRIES_SQL,
        ALIAS_KIND,
        alias_list,
        CURRENT_ALIASES_SQL,
        current_aliases,
        remove_alias,
    )
    from .changelog import (
        ALIAS_COLUMNS,
        changelog,
        CHANGELOG_COLUMNS,
    )
    from .current import (
        current_flags,
        Flag,
        flags_for_item,
        Proposal,
    )
    from .journal import (
        append,
        Entry,
        FLAG_ENTRIES_SQL,
        FlagError,
        has_entries,
        insert_entry,
        journal,
        new_uid,
        normalise_ts,
        Target,
    )
    from .journal_files import (
        author_file,
        entry_record,
        GITIGNORE,
        JOURNAL_DIR_SETTING,
        JOURNAL_FIELDS,
        queue_local_entry,
        write_records,
    )
    from .journal_sync import (
        journal_folder,
        JOURNAL_READ_SETTING,
        JournalSync,
        sync_journal_files,
    )
    from .json_layout import (
        dump_json,
        JsonStyle,
    )
    from .merge import (
        import_file,
        ImportResult,
    )
    from .patch import (
        alias_records,
        export_aliases,
        export_journal,
        export_patch,
        JOURNAL_KIND,
        journal_records,
        PATCH_KIND,
        patch_records,
    )
    from .release import (
        DATASET_FORMATS,
        DatasetExport,
        export_dataset,
    )
    from .targets import (
        item_by_id,
        ItemRef,
        resolve_item,
        targets_for_item,
        targets_for_items,
        targets_of,
    )
    from .undo import (
        describe_group,
        redo,
        undo,
        undo_state,
        UndoState,
    )

lazy_face(__name__)
