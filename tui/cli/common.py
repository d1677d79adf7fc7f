"""What every command module shares: the Typer `app`, option types, consoles, one-line errors, loading.

Command modules import this module (and the helper modules `output`, `filter_options`), never
each other, so adding a command is adding one module that registers itself on `app`.
"""

from __future__ import annotations

import json
import sqlite3
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer
from qa_inspect.core.errors import QAInspectError, StoreError
from qa_inspect.core.load import LoadSummary, load_runs
from qa_inspect.core.store import open_db, place_db
from qa_inspect.tui.text import clean, escape_json, escape_terminal, truncate
from rich.console import Console
from rich.segment import Segment
from rich.text import Text

from .output import load_progress

__all__ = [
    "DbOpt",
    "JsonLinesOut",
    "JsonOpt",
    "MarkdownOpt",
    "RunsDir",
    "SafeConsole",
    "SliceOpt",
    "app",
    "err",
    "fail",
    "line",
    "loaded_db",
    "out",
    "print_json",
    "run_load",
    "say",
    "short",
    "write_text",
]

app = typer.Typer(
    add_completion=False,
    no_args_is_help=False,
    rich_markup_mode=None,
    help="Error analysis of question-answering model runs, in the terminal.",
    context_settings={"help_option_names": ["-h", "--help"]},
)
class SafeConsole(Console):
    """A Rich console that never lets dataset or model text drive the terminal: every character of
    printed text a terminal would act on (ESC, C1, bidi overrides …) is shown as a visible
    placeholder (`tui.text.escape_terminal`); Rich's own styling and cursor codes pass untouched."""

    def _render_buffer(self, buffer: Iterable[Segment]) -> str:
        safe = (seg if seg.control else Segment(escape_terminal(seg.text), seg.style) for seg in buffer)
        return super()._render_buffer(safe)


# Piped output is read by people and scripts alike: don't squeeze tables into 80 columns there.
out = SafeConsole(soft_wrap=True, width=None if sys.stdout.isatty() else 200)
err = SafeConsole(stderr=True, soft_wrap=True)

RunsDir = Annotated[Path, typer.Argument(help="Folder holding datasets and model runs.", show_default=False)]
DbOpt = Annotated[
    Path | None,
    typer.Option("--db", help="SQLite database (default: RUNS_DIR/.qa-inspect/qa.db).", show_default=False),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON object instead of tables.")]
MarkdownOpt = Annotated[bool, typer.Option("--markdown", help="Print Markdown tables.")]
SliceOpt = Annotated[
    str | None, typer.Option("--slice", help="A saved slice (see `qa-inspect slices list`).", show_default=False)
]


def say(message: str) -> None:
    """One `qa-inspect: …` line on stderr (notes, busy-database waits), exit status unchanged."""
    err.print(f"qa-inspect: {message}", markup=False, highlight=False)


def fail(message: str) -> typer.Exit:
    """One line on stderr, exit status 1: `raise fail(...)`."""
    say(message)
    return typer.Exit(1)


def write_text(text: str) -> None:
    """CSV, Markdown or other plain text to stdout, through the same escaping as every other line."""
    out.file.write(escape_terminal(text))


class JsonLinesOut:
    """stdout for JSON lines written by core (`stale export -o -`): control characters escaped."""

    def write(self, text: str) -> int:
        return sys.stdout.write(escape_json(text))

    def flush(self) -> None:
        sys.stdout.flush()


def print_json(obj: Any) -> None:
    """`obj` as indented JSON on stdout, non-ASCII kept (what scripts read)."""
    sys.stdout.write(escape_json(json.dumps(obj, ensure_ascii=False, indent=2)) + "\n")


def line(text: str) -> None:
    """One line of plain text on stdout, never parsed as markup."""
    out.print(Text(text), soft_wrap=True)


def short(text: str | None, width: int = 40) -> str:
    """Dataset text for a table cell: control characters made visible, at most `width` cells (CJK: 2)."""
    return truncate(clean(text), width) if text else ""


def run_load(runs_dir: Path, db: Path | None, *, as_json: bool) -> LoadSummary:
    """Load what changed in `runs_dir` (progress on stderr unless `as_json`); user errors → one line."""
    if not runs_dir.is_dir():
        raise fail(f"{runs_dir}: no such folder")
    try:
        with load_progress(err, enabled=not as_json) as progress:
            return load_runs(runs_dir, db, on_progress=progress)
    except QAInspectError as exc:
        raise fail(str(exc)) from None


def _bring_up_to_date(runs_dir: Path, db: Path | None) -> Path:
    """Load what changed for a command that works on the database; returns the database's path.

    Files that fail to load do not stop the command (one line says the database may not match the
    folder); nor does a database the load cannot write to (full disk, locked by a writer): the
    command then works on the database as it is, and says so."""
    if not runs_dir.is_dir():
        raise fail(f"{runs_dir}: no such folder")
    try:
        summary = load_runs(runs_dir, db)
    except StoreError as exc:
        path = place_db(runs_dir.resolve(), db).path
        if not path.is_file():
            raise fail(str(exc)) from None
        say(clean(f"{exc}; working on the database as it is (it may not match the folder)"))
        return path
    except QAInspectError as exc:
        raise fail(str(exc)) from None
    for note in summary.database_notes:
        say(clean(note))
    if summary.errors:
        first = summary.errors[0]["path"]
        more = f" and {len(summary.errors) - 1} more" if len(summary.errors) > 1 else ""
        say(clean(f"{first}{more} could not be read; the database may not match the folder"
                  " (`qa-inspect load` says why)"))
    return Path(summary.db)


@contextmanager
def loaded_db(runs_dir: Path, db: Path | None) -> Iterator[sqlite3.Connection]:
    """Load what changed (see `_bring_up_to_date`), then a connection to the database; core user
    errors become one line."""
    path = _bring_up_to_date(runs_dir, db)
    try:
        conn = open_db(path).conn
    except QAInspectError as exc:
        raise fail(str(exc)) from None
    try:
        yield conn
    except QAInspectError as exc:
        raise fail(str(exc)) from None
    finally:
        conn.close()
