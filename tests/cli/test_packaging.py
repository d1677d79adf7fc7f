"""Every package folder under core/ and tui/ is listed in pyproject.toml, so a non-editable install
(a wheel) ships it; the editable install used for development finds folders either way."""

from __future__ import annotations

import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def package_dirs(pyproject: dict) -> dict[str, Path]:
    """The `[tool.setuptools] package-dir` roots: installed name → folder of the repository."""
    return {name: REPO / folder for name, folder in pyproject["tool"]["setuptools"]["package-dir"].items()}


def packages_on_disk(roots: dict[str, Path]) -> set[str]:
    """Dotted names of every folder with an `__init__.py` under the package-dir roots."""
    found = set()
    for name, root in roots.items():
        for init in root.rglob("__init__.py"):
            rel = init.parent.relative_to(root)
            if "__pycache__" not in rel.parts:
                found.add(".".join((name, *rel.parts)))
    return found


def missing_packages(pyproject: dict) -> set[str]:
    return packages_on_disk(package_dirs(pyproject)) - set(pyproject["tool"]["setuptools"]["packages"])


def load_pyproject() -> dict:
    return tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))


def test_every_package_folder_is_listed() -> None:
    pyproject = load_pyproject()
    roots = package_dirs(pyproject)
    assert set(roots) == {"qa_inspect.core", "qa_inspect.tui"}
    on_disk = packages_on_disk(roots)
    assert {"qa_inspect.core.store", "qa_inspect.tui.cli", "qa_inspect.tui.screens"} <= on_disk  # the walk goes deep
    assert not missing_packages(pyproject), "add to [tool.setuptools] packages in pyproject.toml"
    listed = set(pyproject["tool"]["setuptools"]["packages"])
    assert not listed - on_disk, "pyproject.toml lists packages that have no folder"


def test_the_check_sees_an_omission() -> None:
    pyproject = load_pyproject()
    pyproject["tool"]["setuptools"]["packages"].remove("qa_inspect.tui.cli")
    assert missing_packages(pyproject) == {"qa_inspect.tui.cli"}
