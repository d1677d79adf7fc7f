"""Error labels by hand in the browser and the detail, over `core.labels`.

- `l` opens the label picker (`LabelDialog`) for the item under the cursor, the selection
  (`space`, `ctrl+a`) or the item on the detail screen;
- in the browser `1`–`9` put label N of the project's set on the row or the selection, or take it
  off when every one of them has it (one action: `u` undoes it, `U` redoes it, as marks).

Labels belong to run A (the browser's run, the run the detail shows). Writes go through the stale
actions' write queue (`StaleActions.write`), so labels and flags share one undo stack and
one refresh path. The project's set is `qa-inspect.toml` `[labels] set` (else the defaults) plus
names added in the picker.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from textual.binding import Binding, BindingType
from textual.content import Content
from textual.worker import get_current_worker

from qa_inspect.core import labels as L
from qa_inspect.core.errors import QAInspectError
from qa_inspect.core.load import load_manifest
from qa_inspect.core.query import Filter, item_ids

from ..base import BaseScreen
from ..dialogs import LabelDialog, LabelDialogData, LabelDialogResult
from ..stale import StaleActions
from ..stale.jobs import JobResult, plural
from ..text import clean, truncate

PICK_BINDING = Binding("l", "label_dialog", "Label", id="labels.pick", show=False,
                       tooltip="Error labels of the item or of the selection")
BROWSER_LABEL_BINDINGS: list[BindingType] = [
    PICK_BINDING,
    *(Binding(str(n), f"label_toggle({n})", f"Label {n}", show=False, id=f"labels.toggle-{n}",
              tooltip=f"Label {n} of the set on/off (the row or the selection)")
      for n in range(1, 10)),
]
DETAIL_LABEL_BINDINGS: list[BindingType] = [PICK_BINDING]

BusyCallback = Any


def project_labels(conn: sqlite3.Connection, runs_dir: Path | None) -> list[str]:
    """The project's label set: the toml's (a bad manifest: the load already said so) or the defaults."""
    configured = None
    if runs_dir is not None:
        try:
            manifest = load_manifest(runs_dir)
        except QAInspectError:
            manifest = None
        configured = manifest.labels if manifest is not None else None
    return L.label_set(conn, configured)


def _keys(conn: sqlite3.Connection, ids: list[int] | None, f: Filter | None) -> list[str]:
    return L.keys_of_items(conn, item_ids(conn, f) if f is not None else ids or [])


def _whom(keys: list[str]) -> str:
    return truncate(clean(keys[0]), 24) if len(keys) == 1 else plural(len(keys), "item")


def apply_job(run: str, keys: list[str], r: LabelDialogResult, runs_dir: Path | None, conn: sqlite3.Connection,
              on_busy: BusyCallback) -> JobResult:
    """Write what the picker says: new names into the set, labels on and off, the note."""
    known = project_labels(conn, runs_dir)
    for name in r.new_names:
        if name not in known:
            known.append(L.add_to_set(conn, name, on_busy=on_busy))
    noted = r.note_changed and len(keys) == 1
    entries = L.change_labels(conn, run, keys, add=r.add, remove=r.remove, note=r.note, set_note=noted, known=known,
                              on_busy=on_busy)
    if not entries:
        return JobResult("Labels unchanged.", False, "warning")
    parts = []
    if r.add:
        parts.append("+" + ", +".join(clean(n) for n in r.add))
    if r.remove:
        parts.append("−" + ", −".join(clean(n) for n in r.remove))
    if noted:
        parts.append("note")
    return JobResult(f"Labels of {_whom(keys)}: {' '.join(parts)}  (u undoes)")


def toggle_job(run: str, ids: list[int] | None, f: Filter | None, n: int, runs_dir: Path | None,
               conn: sqlite3.Connection, on_busy: BusyCallback) -> JobResult:
    """Label `n` of the set on every item, or off every item when all of them have it."""
    names = project_labels(conn, runs_dir)
    if n > len(names):
        return JobResult(f"No label {n}: the project's set has {len(names)} (l opens the picker).", False, "warning")
    name = names[n - 1]
    keys = _keys(conn, ids, f)
    if not keys:
        return JobResult("No item to label.", False, "warning")
    if L.label_counts(conn, run, keys).get(name, 0) >= len(keys):
        L.remove_labels(conn, run, keys, [name], on_busy=on_busy)
        return JobResult(f"Label {clean(name)} off {_whom(keys)}  (u undoes)")
    L.add_labels(conn, run, keys, [name], known=names, on_busy=on_busy)
    return JobResult(f"Labelled {_whom(keys)}: {clean(name)}  (u undoes)")


LabelScope = tuple[str | None, list[int] | None, Filter | None, bool]
"""(run, item ids or a filter whose every item is meant, whether that is a selection)."""


class LabelActions:
    """The label keys of one screen: `scope` says what they act on; writes go through the screen's
    `StaleActions` (one undo stack for flags and labels)."""

    def __init__(self, host: BaseScreen, stale: StaleActions, scope: Callable[[], LabelScope]) -> None:
        self.host = host
        self.stale = stale
        self.scope = scope

    def _scope(self) -> tuple[str, list[int] | None, Filter | None, bool] | None:
        run, ids, f, selection = self.scope()
        if not run:
            self.host.notify("Choose a run first (r): labels belong to a run's prediction of an item.",
                             severity="warning")
            return None
        if f is None and not ids:
            return None
        return run, ids, f, selection

    def pick(self) -> None:
        """`l`: the label picker for the scope, read in a worker."""
        scope = self._scope()
        if scope is not None:
            self.host.run_worker(partial(self._prepare, *scope, self.host.qa_app.runs_dir), thread=True,
                                 exclusive=True, exit_on_error=False, group="labels-prepare")

    def _prepare(self, run: str, ids: list[int] | None, f: Filter | None, selection: bool,
                 runs_dir: Path | None) -> None:
        with self.host.db.connect() as conn:
            keys = _keys(conn, ids, f)
            if not keys:
                return
            names = project_labels(conn, runs_dir)
            counts = L.label_counts(conn, run, keys)
            note = None
            if len(keys) == 1:
                dataset = L.label_targets(conn, run, keys)[0].dataset
                note = L.item_labels(conn, run, dataset, keys[0]).note
        names += [n for n in sorted(counts) if n not in names]  # labels on but no longer in the set
        title = f"Labels of {_whom(keys)} ({truncate(clean(run), 30)})"
        data = LabelDialogData(title, names, counts, len(keys), note)
        if not get_current_worker().is_cancelled:
            self.host.call_later(self._show, data, run, keys, selection)

    def _show(self, data: LabelDialogData, run: str, keys: list[str], bulk: bool) -> None:
        runs_dir = self.host.qa_app.runs_dir

        def done(result: LabelDialogResult | None) -> None:
            if result is not None and not result.empty:
                self.stale.write(partial(apply_job, run, keys, result, runs_dir),
                                 self.stale.bulk_done if bulk else None)

        self.host.app.push_screen(LabelDialog(data), done)

    def toggle(self, n: int) -> None:
        """`1`–`9`: label `n` of the set on (or off) the scope."""
        scope = self._scope()
        if scope is None:
            return
        run, ids, f, selection = scope
        self.stale.write(partial(toggle_job, run, ids, f, n, self.host.qa_app.runs_dir),
                         self.stale.bulk_done if selection else None)


def label_line(labels: L.ItemLabels | None, run: str | None) -> Content:
    """The detail's line of labels: "Labels (run): gold-wrong · paraphrase (from category)  note: …"."""
    if not run or labels is None or not (labels.labels or labels.note):
        return Content("")  # hidden: an item without labels looks as it always did
    head = (f"Labels ({truncate(clean(run), 30)}): ", "bold")
    parts: list[tuple[str, str] | str] = [head]
    for k, lab in enumerate(labels.labels):
        if k:
            parts.append((" · ", "$foreground-muted"))
        parts.append((clean(lab.label), "bold $accent"))
        if lab.source != "hand":
            parts.append((f" (from {lab.source})", "$foreground-muted"))
    if labels.note:
        parts += [("  note: ", "$foreground-muted"), clean(labels.note)]
    return Content.assemble(*parts)
