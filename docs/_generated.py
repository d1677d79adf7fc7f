"""What the page generators (`gen_cli.py`, `gen_schema.py`) share: `--check`, or write the page.

Those scripts import it as `_generated` (a script's own folder is `sys.path[0]`).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def regenerate(script: str, page: Path, generate: Callable[[], str], argv: list[str] | None, *,
               description: str, same: Callable[[str, str], bool] = str.__eq__) -> int:
    """The command line of the page generator `script` (its `__file__`): with `--check`, exit 1
    when `generate()` is not `same` as the page on disk, saying what to run; else write the page
    if it changed. The exit status."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--check", action="store_true", help="only report whether the page is current; exit 1 if not")
    args = parser.parse_args(argv)
    text = generate()
    current = page.read_text(encoding="utf-8") if page.is_file() else ""
    name = page.relative_to(REPO).as_posix()
    if args.check:
        if not same(text, current):
            print(f"{name} is out of date: run python {Path(script).resolve().relative_to(REPO).as_posix()}")
            return 1
        return 0
    if text != current:
        page.write_text(text, encoding="utf-8")
        print(f"wrote {name}")
    return 0
