"""The `qa-inspect` command line: thin Typer commands over `qa_inspect.core`.

`qa-inspect RUNS_DIR` (no sub-command) loads what changed and opens the TUI. Every command that
prints numbers has `--json`. User errors print one line and exit 1; a traceback is a bug.
"""

from __future__ import annotations

import json
import sqlite3
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from qa_inspect.core.errors import QAInspectError
from qa_inspect.core.load import LoadSummary, load_runs
from qa_inspect.core.store import open_db

from .cli_output import load_progress, print_load_summary

app = typer.Typer(
    add_completion=False,
    no_args_is_help=False,
    rich_markup_mode=None,
    help="Error analysis of question-answering model runs, in the terminal.",
    context_settings={"help_option_names": ["-h", "--help"]},
)
# Piped output is read by people and scripts alike: don't squeeze tables into 80 columns there.
out = Console(soft_wrap=True, width=None if sys.stdout.isatty() else 200)
err = Console(stderr=True, soft_wrap=True)

RunsDir = Annotated[Path, typer.Argument(help="Folder holding datasets and model runs.", show_default=False)]
DbOpt = Annotated[
    Path | None,
    typer.Option("--db", help="SQLite database (default: RUNS_DIR/.qa-inspect/qa.db).", show_default=False),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON object instead of tables.")]


def fail(message: str) -> typer.Exit:
    """One line on stderr, exit status 1."""
    err.print(f"qa-inspect: {message}", markup=False, highlight=False)
    return typer.Exit(1)


def print_json(obj: Any) -> None:
    sys.stdout.write(json.dumps(obj, ensure_ascii=False, indent=2) + "\n")


def run_load(runs_dir: Path, db: Path | None, *, as_json: bool) -> LoadSummary:
    if not runs_dir.is_dir():
        raise fail(f"{runs_dir}: no such folder")
    try:
        with load_progress(err, enabled=not as_json) as progress:
            return load_runs(runs_dir, db, on_progress=progress)
    except QAInspectError as exc:
        raise fail(str(exc)) from None


@contextmanager
def loaded_db(runs_dir: Path, db: Path | None) -> Iterator[sqlite3.Connection]:
    """Load what changed, then a connection to the database; core user errors become one line."""
    summary = run_load(runs_dir, db, as_json=True)
    try:
        conn = open_db(Path(summary.db)).conn
    except QAInspectError as exc:
        raise fail(str(exc)) from None
    try:
        yield conn
    except QAInspectError as exc:
        raise fail(str(exc)) from None
    finally:
        conn.close()


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
) -> None:
    """Load what changed in RUNS_DIR, then open the terminal UI (the default command)."""
    summary = run_load(runs_dir, db, as_json=False)
    for e in summary.errors:
        err.print(f"qa-inspect: {e['message']}", markup=False, highlight=False)
    from .app import QAInspectApp  # Textual is imported only when the UI opens

    QAInspectApp(db_path=Path(summary.db), runs_dir=runs_dir.resolve()).run()


def command_names() -> set[str]:
    """Every registered command and command group (so new modules need no list to update)."""
    names = {c.name or (c.callback.__name__ if c.callback else "") for c in app.registered_commands}
    return names | {g.name for g in app.registered_groups if g.name}


def main() -> None:
    """Entry point: a bare `qa-inspect [RUNS_DIR]` means `qa-inspect open [RUNS_DIR]`."""
    args = sys.argv[1:]
    if not args or (args[0] not in command_names() and args[0] not in ("-h", "--help")):
        sys.argv[1:1] = ["open"]
    app(prog_name="qa-inspect")


# Commands defined in their own modules register themselves on `app` when imported.
from . import cli_score  # noqa: E402,F401
from . import cli_diff  # noqa: E402,F401
from . import cli_stale  # noqa: E402,F401
