"""The UI's own layout rule, checked on its source: imports at the top. (The rules of the whole house
— SQL only in the connection pool, no private name across a package border, a face on every
package, file sizes, the import-linter contracts — are in tests/test_architecture.py, once.)"""

from __future__ import annotations

import ast
from pathlib import Path


import qa_inspect.tui

TUI = Path(qa_inspect.tui.__file__).parent
ROOT = TUI.parent


def ui_files(*suffixes: str) -> list[Path]:
    """The UI's own files: the command line (`cli*`) is another layer with its own rules."""
    return sorted(p for p in TUI.rglob("*") if p.suffix in suffixes
                  and not p.relative_to(TUI).parts[0].startswith("cli") and "__pycache__" not in p.parts)


def parsed(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), str(path))


def test_imports_at_the_top() -> None:
    """A function-local import hides a dependency (and used to dodge import circles)."""
    local = []
    for p in ui_files(".py"):
        for fn in ast.walk(parsed(p)):
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                local += [f"{p.relative_to(ROOT)}:{n.lineno}" for n in ast.walk(fn) if isinstance(n, (ast.Import, ast.ImportFrom))]
    assert local == []
