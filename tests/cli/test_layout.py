"""The CLI package keeps the shape its `__init__` describes: command modules import only
the shared modules, never each other; no SQL of its own; no private core names; no Textual until
the UI opens."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import qa_inspect.tui.cli as cli_package

CLI = Path(cli_package.__file__).parent
SHARED = {"common", "output", "filter_options", "stat_options"}  # what command modules may import from the package
ALLOWED = {"output": set(), "common": {"output"}, "filter_options": {"common"}, "stat_options": set(),  # no circle
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


def test_no_sql_and_no_private_names_from_other_packages() -> None:
    for name, tree in modules().items():
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute):
                assert node.attr not in ("execute", "executemany", "executescript"), f"SQL in {name}.py"
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module != "__future__":
                private = [a.name for a in node.names if a.name.startswith("_")]
                private += [p for p in (node.module or "").split(".") if p.startswith("_")]
                assert not private, f"{name}.py imports private {private} from {node.module}"


def test_importing_the_cli_does_not_import_textual() -> None:
    code = "import sys, qa_inspect.tui.cli; print(sorted(m for m in sys.modules if m.split('.')[0] == 'textual'))"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert proc.stdout.strip() == "[]"
