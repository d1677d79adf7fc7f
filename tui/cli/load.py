"""`load` (RUNS_DIR into the database) and `open` (load, then the TUI; a bare `qa-inspect [RUNS_DIR]`
means `qa-inspect open [RUNS_DIR]`, see `main` in the package)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from .common import DbOpt, JsonOpt, RunsDir, app, err, fail, out, print_json, run_load
from .output import print_load_summary

if TYPE_CHECKING:
    from textual.notifications import SeverityLevel

    from qa_inspect.core.query import Filter

__all__ = ["load_cmd", "open_cmd"]


@app.command("load")
def load_cmd(runs_dir: RunsDir, db: DbOpt = None, as_json: JsonOpt = False) -> None:
    """Load datasets and runs from RUNS_DIR into the database (only what changed)."""
    summary = run_load(runs_dir, db, as_json=as_json)
    if as_json:
        print_json(summary.to_dict())
    else:
        print_load_summary(out, summary)
    if summary.errors:
        raise typer.Exit(1)


@app.command("open")
def open_cmd(
    runs_dir: Annotated[Path, typer.Argument(help="Folder holding datasets and model runs.")] = Path("."),
    db: DbOpt = None,
    run: Annotated[str | None, typer.Option("--run", help="Open the item browser on this run.")] = None,
    compare: Annotated[str | None, typer.Option("--compare", help="With run B's columns beside it.")] = None,
    filter_text: Annotated[str | None, typer.Option(
        "--filter", help="The browser's filter: the JSON of a filter (as Y copies it) or a saved slice's name.")] = None,
    sort: Annotated[str | None, typer.Option("--sort", help="Sort column (id is `key`), `:desc` for descending.")] = None,
    item: Annotated[str | None, typer.Option("--item", help="Open this item (its dataset key) in the detail view.")] = None,
) -> None:
    """Load what changed in RUNS_DIR, then open the terminal UI (the default command).

    With --run, --compare, --filter, --sort or --item it opens on that view: `Y` in the app copies
    the line that reopens the view on screen."""
    summary = run_load(runs_dir, db, as_json=False)
    for e in summary.errors:
        err.print(f"qa-inspect: {e['message']}", markup=False, highlight=False)
    start = _start_view(Path(summary.db), run, compare, filter_text, sort, item)
    from qa_inspect.tui.app import (
        QAInspectApp,  # Textual is imported only when the UI opens
    )

    notices: list[tuple[SeverityLevel, str]] = [("warning", w["message"]) for w in summary.warnings] + [("error", e["message"]) for e in summary.errors]
    QAInspectApp(db_path=Path(summary.db), runs_dir=runs_dir.resolve(), load_notices=notices, start=start).run()


def _start_view(db: Path, run: str | None, compare: str | None, filter_text: str | None, sort: str | None,
                item: str | None) -> tuple[Filter, int | None] | None:
    """The view `open`'s options ask for (None: the overview); one line and exit 1 for a name it
    cannot find or a filter it cannot read."""
    if not any((run, compare, filter_text, sort, item)):
        return None
    from qa_inspect.core.errors import QAInspectError
    from qa_inspect.core.query import view_filter, view_item
    from qa_inspect.core.store import open_db

    store = open_db(db)
    try:
        f = view_filter(store.conn, run=run, compare=compare, filter_text=filter_text, sort=sort)
        return f, view_item(store.conn, f, item) if item else None
    except QAInspectError as exc:
        raise fail(str(exc)) from None
    finally:
        store.conn.close()
