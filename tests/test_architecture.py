"""The house keeps its shape: the layer contracts hold and no room outgrows what one can read.

The contracts themselves are in `pyproject.toml` (`[tool.importlinter]`); `lint-imports` runs the
same check from a shell.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from tests.paths import CORE, REPO

TUI = REPO / "tui"
MAX_FILE_LINES = 500
MAX_CORE_FUNCTION_LINES = 80
MAX_CORE_ROOT_MODULES = 8


def _sources(root: Path, *suffixes: str) -> list[Path]:
    return sorted(p for s in suffixes for p in root.rglob(f"*{s}") if "__pycache__" not in p.parts)


def test_import_contracts_hold() -> None:
    """Arrows point down, core is headless, no circles (see the contracts in pyproject.toml)."""
    res = subprocess.run(
        [sys.executable, "-c", "from importlinter.cli import lint_imports_command; lint_imports_command()"],
        capture_output=True, text=True, cwd=REPO, timeout=300,
    )
    assert res.returncode == 0, res.stdout[-4000:] + res.stderr[-2000:]
    assert "broken" in res.stdout and " 0 broken" in res.stdout


def test_core_root_is_small() -> None:
    """Shared vocabulary only at core's root; everything else lives in a package named for it."""
    modules = sorted(p.name for p in CORE.glob("*.py"))
    assert len(modules) <= MAX_CORE_ROOT_MODULES, modules


@pytest.mark.parametrize("path", _sources(CORE, ".py") + _sources(TUI, ".py", ".tcss"),
                         ids=lambda p: p.relative_to(REPO).as_posix())
def test_file_is_short_enough_to_read(path: Path) -> None:
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_FILE_LINES, f"{path.relative_to(REPO)} has {lines} lines"


def test_core_functions_are_short() -> None:
    long = []
    for path in _sources(CORE, ".py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                n = (node.end_lineno or node.lineno) - node.lineno + 1
                if n > MAX_CORE_FUNCTION_LINES:
                    long.append(f"{path.relative_to(REPO)}:{node.lineno} {node.name} ({n} lines)")
    assert not long, "\n".join(long)


def test_sql_runs_in_core_and_the_ui_s_connection_pool_only() -> None:
    """No `execute(` under tui/ (screens, dialogs, CLI) except the worker pool's connection setup."""
    calls = [
        f"{path.relative_to(REPO)}:{node.lineno}"
        for path in _sources(TUI, ".py") if path.name != "workers.py"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Attribute) and node.attr in ("execute", "executemany", "executescript")
    ]
    assert not calls, calls


def test_every_package_has_a_face() -> None:
    """Each package's __init__ says what it holds (docstring), what it may import ("May import",
    but for the two roots, which hold only packages) and what it hands on (`__all__`)."""
    missing = []
    for init in sorted([*CORE.rglob("__init__.py"), *TUI.rglob("__init__.py")]):
        tree = ast.parse(init.read_text(encoding="utf-8"))
        has_all = any(
            (isinstance(n, ast.Assign) and any(getattr(t, "id", "") == "__all__" for t in n.targets))
            or (isinstance(n, ast.AnnAssign) and getattr(n.target, "id", "") == "__all__")
            for n in tree.body
        )
        doc = ast.get_docstring(tree) or ""
        says_imports = "May import" in doc or init.parent in (CORE, TUI)
        if not doc or not has_all or not says_imports:
            missing.append(str(init.relative_to(REPO)))
    assert not missing, missing


def _own_package(rel: Path) -> str | None:
    """The package a module of core/ or tui/ belongs to (`qa_inspect.core.load`); None for tests."""
    if rel.parts[0] not in ("core", "tui"):
        return None
    return ".".join(["qa_inspect", *rel.parts[:-1]])


def _private_imports(tree: ast.Module, own: str | None) -> list[tuple[int, str]]:
    """(line, what) of each import of a private name or module from outside the own package:
    absolute ones (`qa_inspect.x._y`, `from qa_inspect.x import _y`) and relative ones that climb
    out of it (`from .._y import z`); `from ._y import z` stays inside."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("qa_inspect") and any(p.startswith("_") for p in alias.name.split(".")):
                    found.append((node.lineno, alias.name))
        elif isinstance(node, ast.ImportFrom) and node.module != "__future__":
            module = node.module or ""
            if node.level == 1 or (node.level == 0 and not module.startswith("qa_inspect")):
                continue
            if node.level == 0 and own is not None and (module == own or module.startswith(own + ".")):
                continue
            private = [m for m in module.split(".") if m.startswith("_")] + [a.name for a in node.names if a.name.startswith("_")]
            if private:
                found.append((node.lineno, f"{'.' * node.level}{module}: {', '.join(private)}"))
    return found


def test_no_private_name_crosses_a_package_border() -> None:
    """A private name (`_x`) is its package's own: imported from outside it (core, tui, the CLI
    or a test), it is a leak."""
    leaks = []
    for path in _sources(CORE, ".py") + _sources(TUI, ".py") + _sources(REPO / "tests", ".py"):
        rel = path.relative_to(REPO)
        leaks += [f"{rel}:{line} {what}" for line, what in _private_imports(ast.parse(path.read_text(encoding="utf-8")),
                                                                               _own_package(rel))]
    assert not leaks, "\n".join(leaks)


def test_the_private_name_rule_sees_every_way_out() -> None:
    source = (
        "from ._mine import a\n"  # inside the package: fine
        "from qa_inspect.core.load._x import b\n"  # absolute, own package: fine
        "from qa_inspect.core.store import _c\n"
        "from .._other import d\n"
        "import qa_inspect.core.store._e\n"
    )
    found = _private_imports(ast.parse(source), "qa_inspect.core.load")
    assert [line for line, _ in found] == [3, 4, 5]
