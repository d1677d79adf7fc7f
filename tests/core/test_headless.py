"""`core/` is headless: it never imports Textual or Rich (DESIGN.md, "Layers").

Imports written as imports are the import-linter contract's ("core is headless", run by
tests/test_architecture.py); here, what it cannot see: a module imported by name
(`importlib.import_module("textual.app")`), and what importing core loads at run time."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from tests.paths import CORE

CORE = CORE
FORBIDDEN = ("textual", "rich")


def _imports(path: Path) -> list[tuple[int, str]]:
    """Module names imported by name anywhere in the file (`import_module("x")`, `__import__("x")`)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, (ast.Name, ast.Attribute))
            and (node.func.id if isinstance(node.func, ast.Name) else node.func.attr) in ("import_module", "__import__")
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            found.append((node.lineno, node.args[0].value))
    return found


CORE_FILES = sorted(p for p in CORE.rglob("*.py") if "__pycache__" not in p.parts)


def test_core_files_found() -> None:
    names = {p.relative_to(CORE).as_posix() for p in CORE_FILES}
    assert {"load/loader.py", "store/schema.py", "load/ingest.py", "report/metrics.py", "formats/__init__.py"} <= names


@pytest.mark.parametrize("path", CORE_FILES, ids=lambda p: p.relative_to(CORE).as_posix())
def test_core_never_imports_ui_libraries_by_name(path: Path) -> None:
    bad = [
        f"{path.relative_to(CORE)}:{line}: imports {name}"
        for line, name in _imports(path)
        if name.split(".")[0] in FORBIDDEN or name.startswith("qa_inspect.tui")
    ]
    assert not bad, "\n".join(bad)


def test_scanner_sees_nested_and_dynamic_imports(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text(
        "import os\n"
        "def f():\n    from rich.table import Table\n"
        "def g():\n    import importlib\n    importlib.import_module('textual.app')\n",
        encoding="utf-8",
    )
    names = [n for _, n in _imports(probe)]
    assert names == ["textual.app"]  # `from rich.table import Table` is the contract's to see


def test_importing_core_loads_no_ui_library() -> None:
    code = (
        "import sys\n"
        "import qa_inspect.core.load, qa_inspect.core.report, qa_inspect.core.query, qa_inspect.core.flags\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich')))\n"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "[]"
