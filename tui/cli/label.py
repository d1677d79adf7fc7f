"""`qa-inspect label …`: error labels by hand — add, remove, set, list, export, import.

Every sub-command first brings the database in line with RUNS_DIR (like `stale`), then acts
through `qa_inspect.core.labels`. The label set is the project's: `qa-inspect.toml` `[labels] set`
(else the defaults) plus names added with `--new` or from the app. User errors (unknown run, item
or label: close names suggested) print one line and exit 1.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Annotated

import typer
from qa_inspect.core import labels as L
from qa_inspect.core.flags import Entry
from qa_inspect.core.load import load_manifest
from qa_inspect.tui.text import clean
from rich.table import Table
from rich.text import Text

from .annotation_options import AuthorOpt, OutputOpt, import_counts, report_written, write_jsonl
from .common import DbOpt, JsonOpt, RunsDir, command_group, fail, line, loaded_db, out, print_json, say, short

__all__ = ["add_cmd", "export_cmd", "import_cmd", "label_app", "list_cmd", "remove_cmd", "set_cmd"]

label_app = command_group(
    "label", "Error labels by hand: add, remove, set, list, export, import (the project's own taxonomy)."
)

RunArg = Annotated[str, typer.Argument(help="Run name (as `qa-inspect report` lists it).", show_default=False)]
ItemsArg = Annotated[list[str], typer.Argument(help="Item keys (dataset ids), one or more.", show_default=False)]
LabelOpt = Annotated[
    list[str] | None, typer.Option("--label", "-l", help="A label (repeat, or comma-separate several).")
]


def _names(labels: list[str] | None) -> list[str]:
    return [n.strip() for text in labels or [] for n in text.split(",") if n.strip()]


def project_labels(conn: sqlite3.Connection, runs_dir: Path) -> list[str]:
    """The project's label set: the toml's `[labels] set` (else the defaults) and names added."""
    manifest = load_manifest(runs_dir)
    return L.label_set(conn, manifest.labels if manifest else None)


def _print(entries: list[Entry], done: str, as_json: bool) -> None:
    if as_json:
        print_json([e.to_dict() for e in entries])
        return
    if not entries:
        line(f"nothing {done} (already so)")
    for e in entries:
        line(f"{done}: {clean(e.label)} on {clean(e.run)} {clean(e.item_key)} (by {clean(e.author)})")


@label_app.command("add")
def add_cmd(
    runs_dir: RunsDir, run: RunArg, items: ItemsArg, labels: LabelOpt = None,
    note: Annotated[str | None, typer.Option("--note", help="A note on each label added.")] = None,
    new: Annotated[bool, typer.Option("--new", help="Add label names not yet in the project's set to it.")] = False,
    source: Annotated[str, typer.Option("--source", help="hand, or category (accepted from the automatic category).")] = "hand",
    author: AuthorOpt = None, db: DbOpt = None, as_json: JsonOpt = False,
) -> None:
    """Put labels on items of a run."""
    names = _names(labels)
    if not names:
        raise fail("give at least one --label")
    with loaded_db(runs_dir, db) as conn:
        known = project_labels(conn, runs_dir)
        if new:
            L.label_targets(conn, run, items)  # check run and items before the set changes
            for n in names:
                if n not in known:
                    known.append(L.add_to_set(conn, n, on_busy=say))
        entries = L.add_labels(conn, run, items, names, note=note, source=source, known=known, author=author,
                               on_busy=say)
    _print(entries, "labelled", as_json)


@label_app.command("remove")
def remove_cmd(
    runs_dir: RunsDir, run: RunArg, items: ItemsArg, labels: LabelOpt = None, author: AuthorOpt = None,
    db: DbOpt = None, as_json: JsonOpt = False,
) -> None:
    """Take labels off items of a run (labels not on are skipped)."""
    names = _names(labels)
    if not names:
        raise fail("give at least one --label")
    with loaded_db(runs_dir, db) as conn:
        entries = L.remove_labels(conn, run, items, names, author=author, on_busy=say)
    _print(entries, "unlabelled", as_json)


@label_app.command("set")
def set_cmd(
    runs_dir: RunsDir, run: RunArg, items: ItemsArg, labels: LabelOpt = None, author: AuthorOpt = None,
    db: DbOpt = None, as_json: JsonOpt = False,
) -> None:
    """Make the given labels exactly the labels of items of a run (no --label: remove them all)."""
    with loaded_db(runs_dir, db) as conn:
        entries = L.set_labels(conn, run, items, _names(labels), known=project_labels(conn, runs_dir), author=author,
                               on_busy=say)
    if as_json:
        print_json([e.to_dict() for e in entries])
        return
    for e in entries:
        line(f"{'labelled' if e.action == 'label' else 'unlabelled'}: {clean(e.label)} on {clean(e.run)}"
             f" {clean(e.item_key)}")
    if not entries:
        line("nothing changed")


@label_app.command("list")
def list_cmd(
    runs_dir: RunsDir,
    run: Annotated[str | None, typer.Option("--run", help="Only this run.")] = None,
    label: Annotated[str | None, typer.Option("--label", "-l", help="Only this label.")] = None,
    item: Annotated[str | None, typer.Option("--item", help="Only this item key.")] = None,
    show_set: Annotated[bool, typer.Option("--set", help="List the project's label set instead.")] = False,
    db: DbOpt = None, as_json: JsonOpt = False,
) -> None:
    """Labels on now (with source, author, time and note), or the project's label set."""
    with loaded_db(runs_dir, db) as conn:
        if show_set:
            names = project_labels(conn, runs_dir)
            if as_json:
                print_json(names)
            for name in [] if as_json else names:
                line(name)
            return
        if run is not None:
            L.label_targets(conn, run, [])  # an unknown run: one line with close names
        labels = L.current_labels(conn, run=run, label=label, item_key=item)
    if as_json:
        print_json([lab.to_dict() for lab in labels])
        return
    if not labels:
        line("no labels")
        return
    t = Table(show_edge=False)
    for col in ("run", "dataset", "item", "label", "source", "author", "time", "note"):
        t.add_column(col)
    for lab in labels:
        t.add_row(*(Text(v) for v in (short(lab.run, 30), short(lab.dataset, 30), short(lab.item_key, 24),
                                      short(lab.label, 30), lab.source, short(lab.author, 20),
                                      lab.ts[:16].replace("T", " "), short(lab.note))))
    out.print(t)
    line(f"{len(labels)} label{'s' if len(labels) != 1 else ''} on {len({(x.run, x.item_key) for x in labels})} items")


@label_app.command("export")
def export_cmd(
    runs_dir: RunsDir,
    output: OutputOpt = None,
    run: Annotated[str | None, typer.Option("--run", help="Only this run's entries.")] = None,
    db: DbOpt = None, as_json: JsonOpt = False,
) -> None:
    """Write every label entry (label, unlabel, note, undo) as JSONL, for `label import` elsewhere."""
    if output is None:
        raise fail("give the file to write with -o FILE")
    with loaded_db(runs_dir, db) as conn:
        n = write_jsonl(output, lambda fh: L.export_labels(conn, fh, run))
    report_written(n, "label journal", output, as_json)


@label_app.command("import")
def import_cmd(
    runs_dir: RunsDir,
    path: Annotated[Path, typer.Argument(help="A label journal written by `label export`.", show_default=False)],
    keep_unknown: Annotated[bool, typer.Option("--keep-unknown", help="Import entries naming runs or items not here.")] = False,
    db: DbOpt = None, as_json: JsonOpt = False,
) -> None:
    """Merge a label export: entries already here are skipped, disagreements between authors reported."""
    with loaded_db(runs_dir, db) as conn:
        result = L.import_labels(conn, path, keep_unknown=keep_unknown, on_busy=say)
    if as_json:
        print_json(result.to_dict())
        return
    line(import_counts(path, result.added, result.duplicates))
    if result.unknown:
        done = "imported anyway" if keep_unknown else "not imported (--keep-unknown imports them)"
        say(clean(f"{len(result.unknown)} name what this database does not hold ({'; '.join(result.unknown[:3])}); {done}"))
    for c in result.conflicts:
        says = ", ".join(f"{a}: {v}" for a, v in c.by_author.items())
        what = f"label {c.label!r}" if c.label else "note"
        line(clean(f"conflict: {what} on {c.run} {c.item_key} ({says}); the latest decides"))
