"""Error labels by hand: the researcher's own taxonomy, kept in the annotation journal.

A label is put on a (run, item): the run by the name the store keeps, the item by its dataset
(bound by content fingerprint, as stale flags are: labels survive reloads, renamed files and
dataset releases where the item remains) and its stable key. Entries are journal entries
(`core.flags`): `label`, `unlabel` and `note`, with author, time and uid, `undo`/`redo` shared with
stale flags; `label_source` says whether a label was set by hand or accepted from the automatic
error category.

Holds, each module importing only those listed before it:

- `labelset`: the project's set (defaults, `qa-inspect.toml` `[labels] set`, names added from the app);
- `current`: labels and notes on now, derived from the journal (labels read from the tables the store
  keeps in step with it by triggers, `core.store.label_state`; `CURRENT_LABELS_SQL`: the rule itself);
- `actions`: add/remove/set labels and notes, on one item or many (one undo step);
- `transfer`: export and import as JSONL (idempotent by uid; conflicts reported).

May import: `core.store`, `core.flags`, `core.errors`, `core.keys`, `core.model`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from qa_inspect.core.faces import lazy_face

__all__ = [
    "ADDED_KEY",
    "CURRENT_LABELS_SQL",
    "CURRENT_NOTES_SQL",
    "DEFAULT_LABELS",
    "LABEL_JOURNAL_KIND",
    "SOURCES",
    "ItemLabels",
    "Label",
    "LabelConflict",
    "LabelError",
    "LabelImport",
    "LabelTarget",
    "add_labels",
    "add_to_set",
    "change_labels",
    "check_label_name",
    "current_labels",
    "export_labels",
    "import_labels",
    "item_labels",
    "keys_of_items",
    "label_counts",
    "label_records",
    "label_set",
    "label_targets",
    "labels_of_sql",
    "remove_labels",
    "set_labels",
    "set_note",
    "suggest",
]

if TYPE_CHECKING:  # where each name lives; loaded on first use at run time (core/faces.py)
    from .labelset import (
        add_to_set,
        ADDED_KEY,
        check_label_name,
        DEFAULT_LABELS,
        label_set,
        LabelError,
        suggest,
    )
    from .current import (
        current_labels,
        CURRENT_LABELS_SQL,
        CURRENT_NOTES_SQL,
        item_labels,
        ItemLabels,
        Label,
        label_counts,
        labels_of_sql,
    )
    from .actions import (
        add_labels,
        change_labels,
        keys_of_items,
        label_targets,
        LabelTarget,
        remove_labels,
        set_labels,
        set_note,
        SOURCES,
    )
    from .transfer import (
        export_labels,
        import_labels,
        LABEL_JOURNAL_KIND,
        label_records,
        LabelConflict,
        LabelImport,
    )

lazy_face(__name__)
