"""The core faces (`core/faces.py`): each public name is imported under `TYPE_CHECKING`, where static
tools read it; importing a face loads none of its modules, and each public name is, on first use,
exactly the object its module defines."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

from qa_inspect.core.faces import checked_imports

FACES = ["flags", "labels", "load", "metrics", "query", "report", "review", "stats", "store"]


@pytest.mark.parametrize("face", FACES)
def test_every_public_name_is_its_module_s_object(face: str) -> None:
    package = importlib.import_module(f"qa_inspect.core.{face}")
    exports = checked_imports(Path(str(package.__file__)).read_text(encoding="utf-8"))
    assert sorted(exports) == sorted(package.__all__)
    for name in package.__all__:
        assert getattr(package, name) is getattr(importlib.import_module(exports[name], package.__name__), name)
    assert set(package.__all__) <= set(dir(package))
    with pytest.raises(AttributeError, match="no attribute 'no_such_name'"):
        getattr(package, "no_such_name")


def test_importing_the_faces_loads_none_of_their_modules() -> None:
    code = ("import sys; import " + ", ".join(f"qa_inspect.core.{f}" for f in FACES) + "; "
            "print(sorted(m for m in sys.modules if m.count('.') > 2 and m.startswith('qa_inspect.core.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert out.stdout.strip() == "[]"


def test_a_public_name_wins_over_its_module_s_name() -> None:
    """`report.overview` is the function even when a sibling imported the module `overview` first,
    as an eager `from .overview import overview` left it."""
    code = ("import importlib, types; importlib.import_module('qa_inspect.core.report.stale_overview'); "
            "importlib.import_module('qa_inspect.core.flags.actions'); "
            "from qa_inspect.core.report import overview; from qa_inspect.core.flags import journal, undo; "
            "print([isinstance(f, types.ModuleType) or not callable(f) for f in (overview, journal, undo)])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert out.stdout.strip() == "[False, False, False]"


def test_a_name_imported_twice_is_refused() -> None:
    source = "if TYPE_CHECKING:\n    from .a import x\n    from .b import x\n"
    with pytest.raises(ImportError, match="'x' is imported from .a and .b"):
        checked_imports(source)
