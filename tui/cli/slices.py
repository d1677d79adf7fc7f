"""`slices list|save|delete`: saved slices, named item filters stored in the database (and `slices find`,
the slice finder, from `slices_find`)."""

from __future__ import annotations

from typing import Annotated

import typer
from qa_inspect.core.errors import unknown_name
from qa_inspect.core.query import (
    Filter,
    delete_slice,
    describe,
    list_slices,
    save_slice,
)
from rich.table import Table
from rich.text import Text

from .common import DbOpt, JsonOpt, RunsDir, app, fail, loaded_db, out, print_json
from .filter_options import FilterArgs, build_filter, filter_options

__all__ = ["slices_app", "slices_delete_cmd", "slices_list_cmd", "slices_save_cmd"]


slices_app = typer.Typer(
    help="Saved slices: named item filters stored in the database; `slices find`, the slice finder.",
    no_args_is_help=True,
    rich_markup_mode=None,
)
app.add_typer(slices_app, name="slices")


@slices_app.command("list")
def slices_list_cmd(runs_dir: RunsDir, db: DbOpt = None, as_json: JsonOpt = False) -> None:
    """Every saved slice with its filter, author and time."""
    with loaded_db(runs_dir, db) as conn:
        saved = list_slices(conn)
    if as_json:
        print_json(
            [{"name": s.name, "filter": s.filter.to_dict(), "created_at": s.created_at, "author": s.author,
              "error": s.error} for s in saved]
        )
        return
    if not saved:
        out.print(Text("No saved slices.", style="dim"))
        return
    t = Table(show_edge=False)
    for c in ("name", "filter", "author", "created"):
        t.add_column(c, overflow="fold")
    for s in saved:
        shown = Text(f"invalid: {s.error}", style="red") if s.error else Text(describe(s.filter))
        t.add_row(Text(s.name), shown, Text(s.author or "—"), Text(s.created_at))
    out.print(t)


@slices_app.command("save")
@filter_options()
def slices_save_cmd(
    runs_dir: RunsDir,
    name: Annotated[str, typer.Argument(help="Name of the slice.", show_default=False)],
    filters: FilterArgs = FilterArgs(),
    force: Annotated[bool, typer.Option("--force", help="Replace a slice of the same name.")] = False,
    author: Annotated[str | None, typer.Option("--author", help="Who saves it (default: login name).")] = None,
    db: DbOpt = None,
) -> None:
    """Save the filter given by the options under NAME."""
    with loaded_db(runs_dir, db) as conn:
        f = build_filter(conn, Filter(), filters)
        s = save_slice(conn, name, f, author, overwrite=force)
    out.print(Text(f"saved slice {s.name!r}: {describe(s.filter)}"))


@slices_app.command("delete")
def slices_delete_cmd(
    runs_dir: RunsDir,
    name: Annotated[str, typer.Argument(help="Name of the slice.", show_default=False)],
    db: DbOpt = None,
) -> None:
    """Delete a saved slice."""
    with loaded_db(runs_dir, db) as conn:
        if not delete_slice(conn, name):
            raise fail(unknown_name("slice", name, [s.name for s in list_slices(conn)], none="none saved"))
    out.print(Text(f"deleted slice {name!r}"))


def _register_find() -> None:
    """`slices find` lives in `slices_find` (this file stays about saved slices)."""
    from . import slices_find

    slices_app.command("find")(slices_find.find_cmd)


_register_find()
