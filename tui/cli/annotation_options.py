"""What the annotation commands (`stale`, `stale verify`/`queue`, `label`, `alias`) share: the item,
dataset, author and output options, and how an export or an import reports what it did.

Only command modules import this module (`--help` never does: `tests/cli/test_startup.py`).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, TextIO, cast

import typer

from .common import JsonLinesOut, fail, line, print_json, say

__all__ = [
    "AuthorOpt",
    "DatasetOpt",
    "ItemArg",
    "OutputOpt",
    "import_counts",
    "report_written",
    "write_jsonl",
]

ItemArg = Annotated[
    str, typer.Argument(help="Item key (dataset id), or for items without ids the question text.", show_default=False)
]
DatasetOpt = Annotated[str | None, typer.Option("--dataset", help="Dataset name (when several are loaded).")]
AuthorOpt = Annotated[
    str | None, typer.Option("--author", help="Annotator name (default: the stored name, else the system user).")
]
OutputOpt = Annotated[Path | None, typer.Option("-o", "--output", help="File to write ('-': stdout).")]


def write_jsonl(output: Path, write: Callable[[TextIO], int]) -> int:
    """`write` JSON lines to `output` ('-': stdout, control characters escaped); what it returns
    (the number of lines). A file that cannot be opened → one line, exit 1."""
    if str(output) == "-":  # a TextIO as far as core writes to it
        return write(cast(TextIO, JsonLinesOut()))
    try:
        fh = output.open("w", encoding="utf-8")
    except OSError as exc:
        raise fail(f"{output}: cannot write ({exc.strerror})") from None
    with fh:
        return write(fh)


def report_written(n: int, what: str, output: Path, as_json: bool, **head: Any) -> None:
    """`wrote N lines (what) to FILE`: on stderr when the lines went to stdout, else on stdout or,
    with `as_json`, as JSON (`head`'s fields first, then output and lines)."""
    to_stdout = str(output) == "-"
    message = f"wrote {n} {'line' if n == 1 else 'lines'} ({what}) to {'stdout' if to_stdout else output}"
    if as_json and not to_stdout:
        print_json({**head, "output": str(output), "lines": n})
    elif to_stdout:
        say(message)
    else:
        line(message)


def import_counts(path: Path, added: int, duplicates: int) -> str:
    """`FILE: N entries added, M already here`."""
    return f"{path}: {added} entr{'y' if added == 1 else 'ies'} added, {duplicates} already here"
