"""What every command module shares: the Typer `app`, option types, consoles, one-line errors, loading.

Command modules import this module (and the helper modules `output`, `filter_options`), never
each other, so adding a command is adding one module that registers itself on `app` and one row in
`COMMANDS`. Importing this module is cheap (no Rich, no core beyond its errors): `qa-inspect --help`
imports nothing else, and a command imports only its own module (`LazyGroup`).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NamedTuple

import typer
from qa_inspect.core.errors import QAInspectError, StoreError
from typer.core import TyperCommand, TyperGroup

if TYPE_CHECKING:
    import sqlite3

    from qa_inspect.core.load import LoadSummary

    from .output import SafeConsole

__all__ = [
    "COMMANDS",
    "Command",
    "DbOpt",
    "JsonLinesOut",
    "JsonOpt",
    "LazyGroup",
    "MarkdownOpt",
    "RunsDir",
    "SliceOpt",
    "app",
    "console",
    "command_group",
    "err",
    "fail",
    "line",
    "load_runs",
    "loaded_db",
    "out",
    "print_json",
    "run_load",
    "say",
    "short",
    "write_text",
]


class Command(NamedTuple):
    """Where a top-level command lives, and the first paragraph of its help (what `--help` lists)."""

    module: str
    summary: str


COMMANDS: dict[str, Command] = {
    "load": Command("load", "Load datasets and runs from RUNS_DIR into the database (only what changed)."),
    "open": Command("load", "Load what changed in RUNS_DIR, then open the terminal UI (the default command)."),
    "score": Command("score", "Score one prediction file against one dataset file, as the official scorers do."),
    "report": Command("report", "Every run × slice: counts, EM/F1 or F1-recall/answer rate, each slice's share "
                                "of errors."),
    "diff": Command("diff", "What run B fixed and broke relative to run A, per-slice metric deltas with "
                            "confidence intervals and p-values, and the largest F1 changes, on the items both "
                            "runs answer."),
    "leaderboard": Command("leaderboard", "Runs of each dataset ranked, every headline metric with its "
                                          "confidence interval, and which runs cannot be told apart (paired "
                                          "tests of every pair, Holm-corrected)."),
    "table": Command("table", "A paper's table from many runs: rows of run settings (model, prompt, shots …), "
                     "columns of slices or settings, best per column in bold; text, Markdown, LaTeX, CSV, JSON."),
    "export": Command("export", "Write an item list (a saved slice and/or filter options) with its golds and "
                                "scores to a file; the format follows the extension."),
    "schema": Command("schema", "The database's tables: columns (type, NOT NULL, primary key), indexes and "
                                "foreign keys."),
    "agree": Command("agree", "Inter-annotator agreement on what two or more annotators judged: Cohen's κ per pair, "
                              "Fleiss' κ and Krippendorff's α with bootstrap intervals, per tag and answer type; "
                              "the disagreements."),
    "serve": Command("serve", "Serve the app to browsers (textual-serve): one app process per browser session, "
                              "one database."),
    "publish": Command("publish", "Write a read-only copy of the database and Datasette metadata (descriptions, "
                                  "facets, canned queries)."),
    "slices": Command("slices", "Saved slices: named item filters stored in the database; `slices find`, the slice finder."),
    "stale": Command("stale", "Flag outdated (stale) gold answers, undo/redo, list, export a patch or a new "
                              "release, import."),
    "release": Command("release", "Compare two releases of a dataset: items, golds, open stale flags, each run's "
                                  "score."),
    "label": Command("label", "Error labels by hand: add, remove, set, list, export, import (the project's own "
                              "taxonomy)."),
    "alias": Command("alias", "Accepted aliases (answers correct for an item beside its golds): add, remove, list, "
                              "export, import."),
    "judge": Command("judge", "Imported LLM-judge verdicts: how far they agree with hand judgements and the "
                              "official score."),
}
"""Every top-level command in `--help` order. `tests/cli/test_startup.py` checks this against the
commands the modules register and the help they give."""


class LazyGroup(TyperGroup):
    """The root command: lists `COMMANDS` without importing them, imports a command's module when
    that command runs (Polars, SQLite or Textual load only for the commands that use them).

    The overrides take `typer.Context`, what typer passes; TyperGroup declares the click Context it
    derives from (typer 0.28: its private vendored `typer._click`), hence the ignores."""

    def list_commands(self, ctx: typer.Context) -> list[str]:  # type: ignore[override]
        return list(COMMANDS)

    def get_command(self, ctx: typer.Context, cmd_name: str) -> Any:  # type: ignore[override]
        if cmd_name not in self.commands and cmd_name in COMMANDS:
            import_module(f"{__package__}.{COMMANDS[cmd_name].module}")  # registers its commands on `app`
            self.commands.update(getattr(typer.main.get_command(app), "commands", {}))
        return self.commands.get(cmd_name)

    def format_commands(self, ctx: typer.Context, formatter: Any) -> None:  # type: ignore[override]
        # TyperGroup.format_commands, with each command's summary from the table (no import).
        limit = formatter.width - 6 - max(len(name) for name in COMMANDS)
        rows = [(name, TyperCommand(name, help=c.summary).get_short_help_str(limit)) for name, c in COMMANDS.items()]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


app = typer.Typer(
    cls=LazyGroup,
    add_completion=False,
    no_args_is_help=False,
    rich_markup_mode=None,
    help="Error analysis of question-answering model runs, in the terminal.",
    context_settings={"help_option_names": ["-h", "--help"]},
)


@app.callback()
def _root() -> None:
    # No options of its own; it keeps `app` a group however few command modules are imported.
    pass


def command_group(name: str, help: str) -> typer.Typer:
    """A command with sub-commands (`stale mark`, `label add` …), registered on `app` as `name`:
    without a sub-command it prints its help; `-h` works as `--help`."""
    group = typer.Typer(
        help=help,
        no_args_is_help=True,
        rich_markup_mode=None,
        context_settings={"help_option_names": ["-h", "--help"]},
    )
    app.add_typer(group, name=name)
    return group


_consoles: dict[str, SafeConsole] = {}


def console(name: str) -> SafeConsole:
    """`out` (stdout) or `err` (stderr), made on first use so that `--help` never imports Rich.
    Piped output is read by people and scripts alike: stdout is 200 columns wide there."""
    if name not in _consoles:
        from .output import SafeConsole

        _consoles["out"] = SafeConsole(soft_wrap=True, width=None if sys.stdout.isatty() else 200)
        _consoles["err"] = SafeConsole(stderr=True, soft_wrap=True)
    return _consoles[name]


def __getattr__(name: str) -> Any:
    """`from .common import out, err`: the consoles, made on first use."""
    if name in ("out", "err"):
        return console(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
    console("err").print(f"qa-inspect: {message}", markup=False, highlight=False)


def fail(message: str) -> typer.Exit:
    """One line on stderr, exit status 1: `raise fail(...)`."""
    say(message)
    return typer.Exit(1)


def write_text(text: str) -> None:
    """CSV, Markdown or other plain text to stdout, through the same escaping as every other line."""
    from qa_inspect.tui.text import escape_terminal

    console("out").file.write(escape_terminal(text))


class JsonLinesOut:
    """stdout for JSON lines written by core (`stale export -o -`): control characters escaped."""

    def write(self, text: str) -> int:
        from qa_inspect.tui.text import escape_json

        return sys.stdout.write(escape_json(text))

    def flush(self) -> None:
        sys.stdout.flush()


def print_json(obj: Any) -> None:
    """`obj` as indented JSON on stdout, non-ASCII kept (what scripts read)."""
    import json

    from qa_inspect.tui.text import escape_json

    sys.stdout.write(escape_json(json.dumps(obj, ensure_ascii=False, indent=2)) + "\n")


def line(text: str) -> None:
    """One line of plain text on stdout, never parsed as markup."""
    from rich.text import Text

    console("out").print(Text(text), soft_wrap=True)


def short(text: str | None, width: int = 40) -> str:
    """Dataset text for a table cell: control characters made visible, at most `width` cells (CJK: 2)."""
    from qa_inspect.tui.text import clean, truncate

    return truncate(clean(text), width) if text else ""


def load_runs(runs_dir: Path, db: Path | None, **options: Any) -> LoadSummary:
    """`core.load.load_runs`, imported on first use (the loader brings SQLite and every reader).
    The load itself stores the overview's first-paint sums (`core.load.warm_overview`); after a
    load that changed something, every big run's facet and count frame is stored too
    (`core.query.warm_frames`, a layer above the loader: about a second a run at a million
    items), so the first facet panel of any run reads blobs, not a million rows."""
    from qa_inspect.core.load import load_runs as load
    from qa_inspect.core.store import LARGE_DATASET

    summary = load(runs_dir, db, **options)
    if summary.changed and any(d.items >= LARGE_DATASET for d in summary.datasets):  # small: no frames stored
        from qa_inspect.core.query import store_frames

        progress = options.get("on_progress")
        if progress is not None:
            progress(0, 1, "frames of the facet panel")
        store_frames(Path(summary.db))
    return summary


def run_load(runs_dir: Path, db: Path | None, *, as_json: bool) -> LoadSummary:
    """Load what changed in `runs_dir` (progress on stderr unless `as_json`); user errors → one line."""
    from .output import load_progress

    if not runs_dir.is_dir():
        raise fail(f"{runs_dir}: no such folder")
    try:
        with load_progress(console("err"), enabled=not as_json) as progress:
            return load_runs(runs_dir, db, on_progress=progress)
    except QAInspectError as exc:
        raise fail(str(exc)) from None


def _bring_up_to_date(runs_dir: Path, db: Path | None) -> Path:
    """Load what changed for a command that works on the database; returns the database's path.

    Files that fail to load do not stop the command (one line says the database may not match the
    folder); nor does a database the load cannot write to (full disk, locked by a writer): the
    command then works on the database as it is, and says so."""
    from qa_inspect.core.store import place_db
    from qa_inspect.tui.text import clean

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
def loaded_db(runs_dir: Path, db: Path | None, *, read_only: bool = False) -> Iterator[sqlite3.Connection]:
    """Load what changed (see `_bring_up_to_date`), then a connection to the database; core user
    errors become one line. `read_only`: a command that only reads (`stale list`, `stale export`)
    works on a database it cannot open for writing (a full disk has no room for the WAL a normal
    open creates) through a connection that writes nothing (`core.store.open_read_only`)."""
    from qa_inspect.core.store import open_db, open_read_only

    path = _bring_up_to_date(runs_dir, db)
    try:
        conn = open_db(path).conn
    except QAInspectError as exc:
        if not read_only or not path.is_file():
            raise fail(str(exc)) from None
        try:
            conn = open_read_only(path)
        except QAInspectError as second:
            raise fail(str(second)) from None
    try:
        yield conn
    except QAInspectError as exc:
        raise fail(str(exc)) from None
    finally:
        conn.close()
