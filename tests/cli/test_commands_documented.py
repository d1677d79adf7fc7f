"""Every command the CLI registers is in the command table of the docs' CLI reference
(`docs/cli.md`), and `--help` lists them in the order of that table's story (load, open, then the
reports)."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import typer

from qa_inspect.tui.cli import app
from tests.cli.helpers import invoke

CLI_PAGE = Path(__file__).resolve().parents[2] / "docs" / "cli.md"
_CELL_SPLIT = re.compile(r"(?<!\\)\|")  # `\|` inside a cell is an escaped bar, not a border
_WORD = re.compile(r"[a-z][a-z0-9-]*(?:\\\|[a-z][a-z0-9-]*)*")  # `list\|save\|delete`


def registered(command: Any = None, path: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    """Every command and command group of the Typer app, as word paths (`("stale", "mark")`)."""
    command = command if command is not None else typer.main.get_command(app)
    for name, sub in getattr(command, "commands", {}).items():
        yield (*path, name)
        yield from registered(sub, (*path, name))


def command_table(page: str) -> list[str]:
    """The first cell (backticks stripped) of each row of the table under `## Commands` that
    starts with `qa-inspect`."""
    section = page.split("\n## Commands", 1)[1].split("\n## ", 1)[0]
    cells = []
    for line in section.splitlines():
        if not line.startswith("|"):
            continue
        first = _CELL_SPLIT.split(line.strip().strip("|"))[0].strip()
        if first.startswith("`qa-inspect") and first.endswith("`"):
            cells.append(first.strip("`"))
    return cells


def documented(cells: list[str]) -> set[tuple[str, ...]]:
    """The command paths the table names: `qa-inspect stale mark\\|unmark …` → stale, stale mark,
    stale unmark. Words stop at the first argument or option (`RUNS_DIR`, `[--db PATH]`)."""
    paths: set[tuple[str, ...]] = set()
    for cell in cells:
        words = []
        for token in cell.split()[1:]:
            if not _WORD.fullmatch(token):
                break
            words.append(token.split("\\|"))
        for n in range(1, len(words) + 1):
            paths.update(itertools.product(*words[:n]))
    return paths


def test_every_registered_command_is_in_the_docs_table() -> None:
    commands = set(registered())
    assert {("load",), ("stale",), ("stale", "mark"), ("slices", "save")} <= commands  # the walk goes deep
    table = documented(command_table(CLI_PAGE.read_text(encoding="utf-8")))
    missing = sorted(" ".join(p) for p in commands - table)
    assert not missing, f"commands missing from the Commands table of docs/cli.md: {missing}"
    unknown = sorted(" ".join(p) for p in table - commands)
    assert not unknown, f"the Commands table of docs/cli.md names commands that do not exist: {unknown}"


def test_the_check_sees_an_omission() -> None:
    page = CLI_PAGE.read_text(encoding="utf-8")
    cells = command_table(page)
    assert any(c.startswith("qa-inspect stale ") for c in cells)
    without_stale = [c for c in cells if not c.startswith("qa-inspect stale ")]
    assert ("stale", "undo") not in documented(without_stale)
    assert ("stale", "undo") in documented(cells)
    one_less = page.replace("\\|redo\\|", "\\|")
    assert ("stale", "redo") not in documented(command_table(one_less))


def test_the_table_parser_reads_alternatives_and_stops_at_arguments() -> None:
    cells = command_table(
        "intro\n## Commands\n\n| command | what |\n|---|---|\n"
        "| `qa-inspect [RUNS_DIR]` | bare |\n| `qa-inspect report RUNS_DIR [--json\\|--csv]` | r |\n"
        "| `qa-inspect slices list\\|save RUNS_DIR …` | s |\n| `not-us x` | no |\n\n## Next\n| `qa-inspect gone` | x |\n"
    )
    assert cells == ["qa-inspect [RUNS_DIR]", "qa-inspect report RUNS_DIR [--json\\|--csv]",
                     "qa-inspect slices list\\|save RUNS_DIR …"]
    assert documented(cells) == {("report",), ("slices",), ("slices", "list"), ("slices", "save")}


def test_help_lists_the_commands_in_their_order() -> None:
    res = invoke("--help")
    assert res.exit_code == 0
    listed = re.findall(r"^  ([a-z]+) ", res.stdout.split("Commands:", 1)[1], flags=re.MULTILINE)
    assert listed == ["load", "open", "score", "report", "diff", "leaderboard", "table", "export", "schema", "agree", "slices",
                      "stale", "release", "label", "alias", "judge"]
    res = invoke("stale", "--help")
    listed = re.findall(r"^  ([a-z]+) ", res.stdout.split("Commands:", 1)[1], flags=re.MULTILINE)
    assert listed == ["mark", "unmark", "undo", "redo", "list", "export", "import", "author", "score", "verify",
                      "queue"]
