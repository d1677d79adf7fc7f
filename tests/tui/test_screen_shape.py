"""Screens are built from widgets and controllers they own, not from mixins sharing a bag of
attributes: no `self.__dict__` tricks, no screen with mixins beside its base, no module named
for a size cap (`*_parts`)."""

from __future__ import annotations

import inspect
import re

from qa_inspect.tui import screens
from qa_inspect.tui.base import BaseScreen, HelpEntries, WorkerErrors
from qa_inspect.tui.stale import StaleScreen
from tests.paths import REPO

TUI = REPO / "tui"
OUR_BASES = {StaleScreen, BaseScreen, WorkerErrors, HelpEntries}
"""The only classes of ours a screen may inherit from: a base per kind of screen."""


def test_nothing_under_tui_reaches_into_an_instance_dict() -> None:
    hits = [f"{p.relative_to(REPO)}:{n}" for p in sorted(TUI.rglob("*.py"))
            for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if "__dict__" in line]
    assert not hits, hits


def test_no_module_is_named_for_a_size_cap() -> None:
    parts = [p.relative_to(REPO).as_posix() for p in TUI.rglob("*.py") if re.search(r"_parts?$", p.stem)]
    assert not parts, parts


def test_screens_inherit_a_base_not_mixins() -> None:
    found = [c for name in screens.__all__ if inspect.isclass(c := getattr(screens, name))
             and issubclass(c, BaseScreen)]
    assert len(found) >= 8
    for screen in found:
        ours = {k for k in screen.__mro__[1:] if k.__module__.startswith("qa_inspect")}
        assert ours <= OUR_BASES, (screen.__name__, ours - OUR_BASES)
        assert len([b for b in screen.__bases__ if b in OUR_BASES]) <= 2
