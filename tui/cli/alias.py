"""`qa-inspect alias …`: accepted aliases — add, remove, list, export, import.

An alias says "this answer is correct for this item" beside the official golds: a journal entry
with author, time and the run whose answer it was (`qa_inspect.core.flags.aliases`). Official
scores never change; `report --adjudicated` (and `diff`, `leaderboard`, `table`) show the numbers
with aliases counted as golds, labelled "adjudicated". Undo/redo are the journal's (`stale undo`).
Items are named as `stale mark` names them: the item key, else the question text (`--dataset`
when several datasets are loaded).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from qa_inspect.core import flags as F
from qa_inspect.tui.text import clean
from rich.table import Table
from rich.text import Text

from .annotation_options import AuthorOpt, DatasetOpt, OutputOpt, import_counts, report_written, write_jsonl
from .common import DbOpt, JsonOpt, RunsDir, command_group, fail, line, loaded_db, out, print_json, say, short

__all__ = ["add_cmd", "alias_app", "export_cmd", "import_cmd", "list_cmd", "remove_cmd"]

alias_app = command_group(
    "alias", "Accepted aliases (answers correct for an item beside its golds): add, remove, list, export, import."
)

ItemArg = Annotated[str, typer.Argument(help="Item key, or the question text for items without ids.", show_default=False)]


def _done(entry: F.Entry | None, what: str, as_json: bool, item: str) -> None:
    if as_json:
        print_json(entry.to_dict() if entry is not None else None)
    elif entry is None:
        line(f"nothing added: that answer is already an accepted alias of {clean(item)}")
    else:
        run = f" (answer of {clean(entry.run)})" if entry.run else ""
        line(f"{what}: {clean(entry.gold_text)!r} for {clean(entry.dataset)} {clean(entry.item_key)}{run}"
             f" (by {clean(entry.author)})")


@alias_app.command("add")
def add_cmd(
    runs_dir: RunsDir,
    item_id: ItemArg,
    text: Annotated[str | None, typer.Argument(
        help="The answer to accept (default: what --run answered on the item).", show_default=False)] = None,
    run: Annotated[str | None, typer.Option("--run", help="The run whose answer it is (provenance).")] = None,
    dataset: DatasetOpt = None,
    note: Annotated[str | None, typer.Option("--note", help="Why it is acceptable.")] = None,
    author: AuthorOpt = None, db: DbOpt = None, as_json: JsonOpt = False,
) -> None:
    """Accept an answer as correct for an item (an extra gold in adjudicated numbers and the release)."""
    if text is None and run is None:
        raise fail("give the answer to accept, or --run RUN to accept what that run answered")
    with loaded_db(runs_dir, db) as conn:
        ref = F.resolve_item(conn, item_id, dataset)
        if text is None:
            assert run is not None
            entry = F.accept_answer(conn, run, ref.key, note=note, author=author, on_busy=say)
        else:
            entry = F.add_alias(conn, ref.dataset, ref.key, text, run=run, note=note, author=author, on_busy=say)
    _done(entry, "accepted", as_json, ref.key)


@alias_app.command("remove")
def remove_cmd(
    runs_dir: RunsDir, item_id: ItemArg,
    text: Annotated[str, typer.Argument(help="The accepted answer to withdraw.", show_default=False)],
    dataset: DatasetOpt = None, author: AuthorOpt = None, db: DbOpt = None, as_json: JsonOpt = False,
) -> None:
    """Withdraw an accepted alias (`stale undo` brings it back)."""
    with loaded_db(runs_dir, db) as conn:
        ref = F.resolve_item(conn, item_id, dataset)
        entry = F.remove_alias(conn, ref.dataset, ref.key, text, author=author, on_busy=say)
    _done(entry, "withdrawn", as_json, ref.key)


@alias_app.command("list")
def list_cmd(
    runs_dir: RunsDir, dataset: DatasetOpt = None,
    item: Annotated[str | None, typer.Option("--item", help="Only this item key.")] = None,
    db: DbOpt = None, as_json: JsonOpt = False,
) -> None:
    """Aliases accepted now, with the run they came from, author, time and note."""
    with loaded_db(runs_dir, db) as conn:
        aliases = F.alias_list(conn, dataset, item_key=item)
    if as_json:
        print_json([a.to_dict() for a in aliases])
        return
    if not aliases:
        line("no accepted aliases")
        return
    t = Table(show_edge=False)
    for col in ("dataset", "item", "question", "alias", "from run", "author", "time", "note", "status"):
        t.add_column(col)
    for a in aliases:
        t.add_row(*(Text(v) for v in (short(a.dataset, 30), short(a.item_key, 24), short(a.question or "", 30),
                                      short(a.text), short(a.run or "—", 30), short(a.author, 20),
                                      a.ts[:16].replace("T", " "), short(a.note or ""), a.status)))
    out.print(t)
    items = len({(a.dataset, a.item_key) for a in aliases})
    line(f"{len(aliases)} alias{'es' if len(aliases) != 1 else ''} on {items} item{'s' if items != 1 else ''}")


@alias_app.command("export")
def export_cmd(
    runs_dir: RunsDir,
    output: OutputOpt = None,
    dataset: DatasetOpt = None, db: DbOpt = None, as_json: JsonOpt = False,
) -> None:
    """Write the alias entries of the journal (alias, unalias, their undos) as JSONL, for `alias import`."""
    if output is None:
        raise fail("give the file to write with -o FILE")
    with loaded_db(runs_dir, db) as conn:
        n = write_jsonl(output, lambda fh: F.export_aliases(conn, fh, dataset))
    report_written(n, "alias journal", output, as_json)


@alias_app.command("import")
def import_cmd(
    runs_dir: RunsDir,
    path: Annotated[Path, typer.Argument(
        help="An `alias export`, a stale journal or patch, or another qa-inspect database.", show_default=False)],
    keep_unknown: Annotated[bool, typer.Option("--keep-unknown", help="Import entries naming items not here.")] = False,
    db: DbOpt = None, as_json: JsonOpt = False,
) -> None:
    """Merge aliases in: entries already here (same uid) are skipped; items bind by dataset content."""
    with loaded_db(runs_dir, db) as conn:
        result = F.import_file(conn, path, keep_unknown=keep_unknown, on_busy=say)
    if as_json:
        print_json(result.to_dict())
        return
    line(import_counts(path, result.added, result.duplicates))
    if result.unknown_line:
        say(clean(result.unknown_line))
