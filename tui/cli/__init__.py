"""The `qa-inspect` command line: thin Typer commands over `qa_inspect.core`.

`qa-inspect RUNS_DIR` (no sub-command) loads what changed and opens the TUI. Every command that
prints numbers has `--json`. User errors print one line and exit 1; a traceback is a bug.

Holds: `common` (the Typer `app` and its command table `COMMANDS`, shared option types, the
consoles, `fail`, `print_json`, `loaded_db`, text-cleaning for table cells), `output` (the safe
console, load progress and summary), `annotation_options` (the item, dataset, author and output options
the annotation commands share), `filter_options` (the item-filter options and
`build_filter`), `stat_options` (the statistics options of `diff` and `leaderboard`), and one
module per command or command group, each registering itself on `app` when imported: `load`
(`load` and `open`), `score`, `report`, `diff`, `leaderboard`, `export`, `schema`, `agree`, `serve`, `publish`, `slices`,
`stale`, `release`, `label`, `alias`, `judge`.

Start-up is kept short: `main` imports only the module of the command asked for, and
`--help` none (it lists `COMMANDS`); `app` from this package is the whole app, every module imported.

May import: the faces of `qa_inspect.core` packages (`core.store`, `core.load`, `core.flags`,
`core.query`, `core.report`, `core.formats`, `core.metrics`, `core.labels`) and `core.errors`/`core.model`;
`qa_inspect.tui.text` for dataset and model text; `qa_inspect.tui.app` only inside `open`, so
`--help` never imports Textual. Command modules import `common` and the helper modules, never
each other.
"""

from __future__ import annotations

import sys
from importlib import import_module
from typing import Any

from . import common

__all__ = ["app", "main"]


def main() -> None:
    """Entry point: a bare `qa-inspect [RUNS_DIR]` means `qa-inspect open [RUNS_DIR]`."""
    args = sys.argv[1:]
    if not args or (args[0] not in common.COMMANDS and args[0] not in ("-h", "--help")):
        sys.argv[1:1] = ["open"]
    common.app(prog_name="qa-inspect")


def __getattr__(name: str) -> Any:
    """`app`: the Typer app with every command module imported (tests, `typer.main.get_command`)."""
    if name == "app":
        for module in dict.fromkeys(c.module for c in common.COMMANDS.values()):
            import_module(f"{__name__}.{module}")
        return common.app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
