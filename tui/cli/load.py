"""`load` (RUNS_DIR into the database), `open` (load, then the TUI) and `main`: a bare
`qa-inspect [RUNS_DIR]` means `qa-inspect open [RUNS_DIR]`."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from .common import DbOpt, JsonOpt, RunsDir, app, err, out, print_json, run_load
from .output import print_load_summary

__all__ = ["command_names", "load_cmd", "main", "open_cmd"]


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
    from qa_inspect.tui.app import (
        QAInspectApp,  # Textual is imported only when the UI opens
    )

    notices = [("warning", w["message"]) for w in summary.warnings] + [("error", e["message"]) for e in summary.errors]
    QAInspectApp(db_path=Path(summary.db), runs_dir=runs_dir.resolve(), load_notices=notices).run()


def command_names() -> set[str]:
    """Every registered command and command group (so new modules need no list to update)."""
    return set(getattr(typer.main.get_command(app), "commands", {}))


def main() -> None:
    """Entry point: a bare `qa-inspect [RUNS_DIR]` means `qa-inspect open [RUNS_DIR]`."""
    args = sys.argv[1:]
    if not args or (args[0] not in command_names() and args[0] not in ("-h", "--help")):
        sys.argv[1:1] = ["open"]
    app(prog_name="qa-inspect")
