"""Regenerate `docs/cli-options.md`: the `--help` text of every command, as the CLI prints it.

`docs/cli.md` says what each command is for; the options themselves are read off the Typer app
here, so the reference cannot drift from the code. Run `python docs/gen_cli.py` after changing a
command; `--check` reports a stale page and exits 1 (the docs test runs it).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from _generated import regenerate

REPO = Path(__file__).resolve().parents[1]
PAGE = REPO / "docs" / "cli-options.md"
WIDTH = 100

HEADER = """# Every option (generated)

The `--help` text of every command, read from the CLI itself by `docs/gen_cli.py` (do not edit by
hand; run that script after changing a command). What each command is for, and the conventions
they share, is in [Command line](cli.md).
"""


def command_paths(command: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    """Every command and group of the Click command tree, in the order `--help` lists them."""
    yield path
    commands = getattr(command, "commands", None)
    if commands:
        import click

        ctx = click.Context(command)
        for name in command.list_commands(ctx):
            yield from command_paths(commands[name], (*path, name))


def generate() -> str:
    """The page's Markdown: one section per command path, its help text in a code block."""
    import typer
    from qa_inspect.tui.cli import app
    from typer.testing import CliRunner

    runner = CliRunner()
    parts = [HEADER]
    for path in command_paths(typer.main.get_command(app)):
        result = runner.invoke(app, [*path, "--help"], env={"COLUMNS": str(WIDTH), "TERM": "dumb"},
                               terminal_width=WIDTH, prog_name="qa-inspect")
        if result.exit_code != 0:
            raise SystemExit(f"qa-inspect {' '.join(path)} --help failed: {result.output[-500:]}")
        title = " ".join(("qa-inspect", *path))
        text = "\n".join(line.rstrip() for line in result.output.strip("\n").splitlines())
        parts.append(f"## `{title}`\n\n```text\n{text}\n```\n")
    return "\n".join(parts)


def main(argv: list[str] | None = None) -> int:
    # Whitespace aside: another click/typer release may wrap and pad the same help differently.
    return regenerate(__file__, PAGE, generate, argv,
                      description="Regenerate docs/cli-options.md from the CLI's --help.",
                      same=lambda page, current: page.split() == current.split())


if __name__ == "__main__":
    sys.exit(main())
