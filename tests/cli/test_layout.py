"""The CLI package keeps the shape its `__init__` describes: command modules import only the shared
modules, never each other. (No SQL, no private names across a package border: tests/test_architecture.py;
no Textual at start: tests/cli/test_startup.py.)"""

from __future__ import annotations

import ast
from pathlib import Path

import qa_inspect.tui.cli as cli_package

CLI = Path(cli_package.__file__).parent
SHARED = {"common", "output", "filter_options", "stat_options", "annotation_options"}  # what command modules may import from the package
ALLOWED = {"output": set(), "common": {"output"}, "filter_options": {"common"}, "stat_options": set(),  # no circle
           "annotation_options": {"common"},
           "stale": SHARED | {"stale_review"},  # stale registers its companion's commands (stale verify, queue)
           "slices": SHARED | {"slices_find"}}  # and slices its slice finder


def modules() -> dict[str, ast.Module]:
    return {path.stem: ast.parse(path.read_text(encoding="utf-8")) for path in sorted(CLI.glob("*.py"))}


def relative_imports(tree: ast.Module) -> set[str]:
    """Modules of this package a module imports (`from .common import app` → common)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            found.update([node.module] if node.module else [a.name for a in node.names])
    return found


def test_command_modules_import_only_the_shared_modules() -> None:
    trees = modules()
    assert {"common", "load", "stale"} <= set(trees)
    for name, tree in trees.items():
        if name == "__init__":
            continue
        allowed = ALLOWED.get(name, SHARED)
        assert relative_imports(tree) <= allowed, f"{name}.py imports {relative_imports(tree) - allowed}"
