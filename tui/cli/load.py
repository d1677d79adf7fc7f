"""`load` (RUNS_DIR into the database) and `open` (load, then the TUI; a bare `qa-inspect [RUNS_DIR]`
means `qa-inspect open [RUNS_DIR]`, see `main` in the package)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from .common import DbOpt, JsonOpt, RunsDir, app, err, out, print_json, run_load
from .output import print_load_summary

if TYPE_CHECKING:
    from textual.notifications import SeverityLevel

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
) -> None:
    """Load what changed in RUNS_DIR, then open the terminal UI (the default command)."""
    summary = run_load(runs_dir, db, as_json=False)
    for e in summary.errors:
        err.print(f"qa-inspect: {e['message']}", markup=False, highlight=False)
    from qa_inspect.tui.app import (
        QAInspectApp,  # Textual is imported only when the UI opens
    )

    notices: list[tuple[SeverityLevel, str]] = [("warning", w["message"]) for w in summary.warnings] + [("error", e["message"]) for e in summary.errors]
    QAInspectApp(db_path=Path(summary.db), runs_dir=runs_dir.resolve(), load_notices=notices).run()
