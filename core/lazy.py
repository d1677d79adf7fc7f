"""Lazy package faces: a public name loads its module on first use, so importing a face is free.

`qa-inspect --help` and a re-load of an unchanged folder must not pay for polars, sqlite-utils or
every module of every package (issue 16). Each face (`core/<package>/__init__.py`) keeps its
docstring and `__all__`, and ends with `lazy_face(__name__, {".module": ("name", ...), ...})`:
`from qa_inspect.core.query import SORTS` then imports `core/query/filters.py` only.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Mapping, Sequence
from types import ModuleType
from typing import Any

__all__ = ["lazy_face"]


class _Face(ModuleType):
    """A package whose public names are imported from their modules when first looked up."""

    _lazy_exports: dict[str, str]
    """public name → the module (relative, ".loader") that defines it."""

    def __getattr__(self, name: str) -> Any:
        # Only called when normal lookup fails: the name is not loaded yet (or does not exist).
        module = self.__dict__["_lazy_exports"].get(name)
        if module is None:
            raise AttributeError(f"module {self.__name__!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module, self.__name__), name)
        ModuleType.__setattr__(self, name, value)
        return value

    def __setattr__(self, name: str, value: Any) -> None:
        # The import system binds every imported submodule on its package. Where a public name is
        # also its module's name (report.overview, flags.journal), the public object keeps the name,
        # as `from .overview import overview` in an eager face would have left it.
        exports = self.__dict__.get("_lazy_exports", {})
        if isinstance(value, ModuleType) and exports.get(name) == f".{name}" and hasattr(value, name):
            value = getattr(value, name)
        ModuleType.__setattr__(self, name, value)

    def __dir__(self) -> list[str]:
        return sorted({*self.__dict__, *self.__dict__["_lazy_exports"]})


def lazy_face(package: str, exports: Mapping[str, Sequence[str]]) -> None:
    """Make the (already executing) package `package` load each exported name from its module on
    first use. `exports` maps a relative module (".loader") to the public names it defines."""
    face = sys.modules[package]
    table: dict[str, str] = {}
    for module, names in exports.items():
        for name in names:
            if name in table:  # a merge slip: one name listed twice
                raise ImportError(f"{package}: {name!r} is listed under {table[name]} and {module}")
            table[name] = module
    face.__dict__["_lazy_exports"] = table
    face.__class__ = _Face
