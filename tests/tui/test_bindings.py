"""Every key of the UI, checked without running it: each `Binding` of every screen, dialog, widget
and the app has a stable id (keymaps rebind keys by it) and a description (the footer, the help
screen and the palette show it); the help screen lists every described key of its screens."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
from pathlib import Path
from types import ModuleType

from textual.binding import Binding
from textual.dom import DOMNode

import qa_inspect.tui
from qa_inspect.tui.app import HELP_SCREENS, QAInspectApp

ID = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*(\.[a-z0-9]+(-[a-z0-9]+)*)+")
"""Dotted, lower case, dashes inside a part: `browser.search`, `compare.outcomes.browse`."""


def ui_modules() -> list[ModuleType]:
    """Every module of `qa_inspect.tui` but the command line (which has no key bindings)."""
    out = []
    for info in pkgutil.walk_packages(qa_inspect.tui.__path__, "qa_inspect.tui."):
        if info.name.split(".")[2].startswith("cli"):
            continue
        out.append(importlib.import_module(info.name))
    return out


def binding_owners() -> list[type[DOMNode]]:
    """Classes of the UI (app, screens, dialogs, widgets) that declare BINDINGS of their own."""
    owners: dict[str, type[DOMNode]] = {}
    for module in ui_modules():
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ == module.__name__ and issubclass(cls, DOMNode) and "BINDINGS" in vars(cls):
                owners[f"{cls.__module__}.{cls.__qualname__}"] = cls
    return list(owners.values())


def test_the_walk_finds_every_kind_of_owner() -> None:
    names = {cls.__name__ for cls in binding_owners()}
    expected = {
        "QAInspectApp", "OverviewScreen", "BrowserScreen", "DetailScreen", "CompareScreen",  # app, screens
        "ConfirmDialog", "ExportDialog", "FilterScreen", "HelpScreen", "RunPicker", "SaveSliceDialog",
        "SlicesScreen", "StaleForm", "AuthorForm",  # dialogs
        "ItemTable", "FacetList", "RunsTable", "SlicesTable", "OutcomeTable", "PlainTable",  # widgets
    }
    assert expected <= names, expected - names


def test_every_binding_has_a_unique_id_and_a_description() -> None:
    by_id: dict[str, tuple[type[DOMNode], Binding]] = {}
    for cls in binding_owners():
        ids = []
        for b in vars(cls)["BINDINGS"]:
            assert isinstance(b, Binding), (cls, b)
            assert b.id and ID.fullmatch(b.id), (cls.__name__, b)
            assert b.description, (cls.__name__, b.id)
            ids.append(b.id)
            first = by_id.setdefault(b.id, (cls, b))
            # One id, one binding: a list shared by screens (the stale keys) is the same binding.
            assert first[1] == b, f"{b.id} names two bindings: {first[0].__name__} {first[1]} and {cls.__name__} {b}"
        assert len(ids) == len(set(ids)), (cls.__name__, ids)
    assert len(by_id) >= 80  # every binding of the UI, counted once


def test_help_lists_every_described_key_of_its_screens(tmp_path: Path) -> None:
    app = QAInspectApp(db_path=tmp_path / "qa.db")  # not run: the help sections need no screen
    sections = {s.title: s.rows for s in app.help_sections(None)}
    for cls in HELP_SCREENS:
        rows = sections[cls.HELP_TITLE]
        for b in cls.BINDINGS:
            if isinstance(b, Binding) and b.description:
                assert (app.get_key_display(b), b.tooltip or b.description, b.id) in rows, (cls.__name__, b.id)
        for title, widget in cls.HELP_WIDGETS:
            assert len(sections[title]) == sum(1 for b in widget.BINDINGS if isinstance(b, Binding) and b.description)
    everywhere = [row[1] for row in sections["Everywhere"]]
    for b in QAInspectApp.BINDINGS:
        assert isinstance(b, Binding) and (b.tooltip or b.description) in everywhere, b
    assert "command palette: every action by name" in everywhere


def test_help_starts_with_the_screen_it_was_opened_from(tmp_path: Path) -> None:
    app = QAInspectApp(db_path=tmp_path / "qa.db")
    for cls in HELP_SCREENS:
        screen = object.__new__(cls)  # only its type matters
        titles = [s.title for s in app.help_sections(screen)]  # type: ignore[arg-type]
        assert titles[0] == cls.HELP_TITLE and titles[1] == "Everywhere", titles
        assert sorted(titles) == sorted([c.HELP_TITLE for c in HELP_SCREENS] + ["Everywhere", "Facet panel (ctrl+f)"])
