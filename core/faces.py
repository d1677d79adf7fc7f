"""Package faces that cost nothing to import and that static tools can read.

Each package's `__init__` lists its public names in `__all__` and imports them under
`if TYPE_CHECKING:` — the one place a name's home is written, which mypy, IDEs and import-linter
read like any import. At run time the face ends with `lazy_face(__name__)`: a public name imports
its module on first use, found from those same import statements, so `qa-inspect --help`, a
re-load and the app's start load only the modules they use (`tests/bench/bench_startup.py`: eager
faces cost the app 0.1 s more at start). Textual's `textual.widgets` solves the same problem the
same way (module `__getattr__`, imports for type checkers).
"""

from __future__ import annotations

import ast
import importlib
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

__all__ = ["checked_imports", "lazy_face"]


def checked_imports(source: str) -> dict[str, str]:
    """public name → module (".actions", or an absolute one) from the `if TYPE_CHECKING:` imports
    at the top level of a face's source."""
    table: dict[str, str] = {}
    for node in ast.parse(source).body:
        if not (isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"):
            continue
        for stmt in node.body:
            if isinstance(stmt, ast.ImportFrom):
                module = "." * stmt.level + (stmt.module or "")
                for alias in stmt.names:
                    name = alias.asname or alias.name
                    if name in table:  # a merge slip: one name imported twice
                        raise ImportError(f"{name!r} is imported from {table[name]} and {module}")
                    table[name] = module
    return table


class _Face(ModuleType):
    """A package whose public names are imported from their modules when first looked up."""

    def _exports(self) -> dict[str, str]:
        table = self.__dict__.get("_checked_imports")
        if table is None:
            table = checked_imports(Path(str(self.__file__)).read_text(encoding="utf-8"))
            ModuleType.__setattr__(self, "_checked_imports", table)
        return table

    def __getattr__(self, name: str) -> Any:
        # Only called when normal lookup fails: the name is not loaded yet (or does not exist).
        if name.startswith("__"):
            raise AttributeError(f"module {self.__name__!r} has no attribute {name!r}")
        module = self._exports().get(name)
        if module is None:
            raise AttributeError(f"module {self.__name__!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module, self.__name__), name)
        ModuleType.__setattr__(self, name, value)
        return value

    def __setattr__(self, name: str, value: Any) -> None:
        # The import system binds every imported submodule on its package. Where a public name is
        # also its module's name (report.overview, flags.journal), the public object keeps the name,
        # as `from .overview import overview` in an eager face would have left it.
        if isinstance(value, ModuleType) and hasattr(value, name) and self._exports().get(name) == f".{name}":
            value = getattr(value, name)
        ModuleType.__setattr__(self, name, value)

    def __dir__(self) -> list[str]:
        return sorted({*self.__dict__, *self._exports()})


def lazy_face(package: str) -> None:
    """Make the (already executing) package `package` load each public name from its module on
    first use, as its `if TYPE_CHECKING:` imports say."""
    sys.modules[package].__class__ = _Face
