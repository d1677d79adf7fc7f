"""The UI's layout rules, checked on its source: SQL only in the connection pool, imports at the top
and only of public names across a package border, a face on every package. (File sizes and the
import-linter contracts for the whole house: tests/test_architecture.py.)"""

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


def test_only_the_connection_pool_runs_sql() -> None:
    calls = [f"{p.relative_to(ROOT)}:{n.lineno}" for p in ui_files(".py") if p.name != "workers.py"
             for n in ast.walk(parsed(p)) if isinstance(n, ast.Attribute) and n.attr in ("execute", "executemany")]
    assert calls == []


def test_imports_at_the_top() -> None:
    """A function-local import hides a dependency (and used to dodge import circles)."""
    local = []
    for p in ui_files(".py"):
        for fn in ast.walk(parsed(p)):
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                local += [f"{p.relative_to(ROOT)}:{n.lineno}" for n in ast.walk(fn) if isinstance(n, (ast.Import, ast.ImportFrom))]
    assert local == []


def test_no_private_name_crosses_a_package_border() -> None:
    """`from .x import _y` inside a package is fine; from a parent or another package it is not."""
    crossing = []
    for p in ui_files(".py"):
        for n in ast.walk(parsed(p)):
            if isinstance(n, ast.ImportFrom) and n.level != 1:
                modules, names = (n.module or "").split("."), [a.name for a in n.names]
            elif isinstance(n, ast.Import):
                modules, names = [part for a in n.names for part in a.name.split(".")], []
            else:
                continue
            if any(m.startswith("_") and m != "__future__" for m in modules) or any(x.startswith("_") for x in names):
                crossing.append(f"{p.relative_to(ROOT)}:{n.lineno}")
    assert crossing == []


def test_every_package_has_a_face() -> None:
    """Each package's __init__ says what it holds and what it may import, and lists its public names."""
    for init in ui_files(".py"):
        if init.name != "__init__.py" or init.parent == TUI:
            continue
        tree = parsed(init)
        doc = ast.get_docstring(tree) or ""
        assert "May import" in doc, init
        exported = [n for n in tree.body if isinstance(n, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in n.targets)]
        assert exported, init
