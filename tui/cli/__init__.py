"""The `qa-inspect` command line: thin Typer commands over `qa_inspect.core`.

`qa-inspect RUNS_DIR` (no sub-command) loads what changed and opens the TUI. Every command that
prints numbers has `--json`. User errors print one line and exit 1; a traceback is a bug.

Holds: `common` (the Typer `app`, shared option types, the consoles, `fail`, `print_json`,
`loaded_db`, text-cleaning for table cells), `output` (load progress and summary),
`filter_options` (the item-filter options and `build_filter`), `stat_options` (the statistics
options of `diff` and `leaderboard`), and one module per command or
command group, each registering itself on `app` when imported: `load` (`load`, `open` and `main`,
which makes a bare `qa-inspect RUNS_DIR` mean `open`), `score`, `report`, `diff`, `leaderboard`,
`export`, `slices`, `stale`.

May import: the faces of `qa_inspect.core` packages (`core.store`, `core.load`, `core.flags`,
`core.query`, `core.report`, `core.formats`, `core.metrics`) and `core.errors`/`core.model`;
`qa_inspect.tui.text` for dataset and model text; `qa_inspect.tui.app` only inside `open`, so
`--help` never imports Textual. Command modules import `common` and the helper modules, never
each other.
"""

from __future__ import annotations

# Each command module registers itself on `app` when imported; `--help` lists them in this order.
# isort: off
from . import load, score, report, diff, leaderboard, export, slices, stale  # noqa: F401
# isort: on
from .common import app
from .load import main

__all__ = ["app", "main"]
