"""One meaning per key: a key bound on two screens (or on a screen and the app) does the same
action family there (`tui.commands.key_family`), `u`/`U` undo and redo wherever there is something
to undo, and docs/guide/keys.md is the table made from these bindings."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from textual.binding import Binding
from textual.screen import ModalScreen

from qa_inspect.tui.app import HELP_SCREENS, QAInspectApp
from qa_inspect.tui.commands import key_family, key_meanings, own_bindings
from qa_inspect.tui.base import BaseScreen

DOCS = Path(__file__).resolve().parents[2] / "docs"
SCREENS: list[tuple[str, type[Any]]] = [(c.HELP_TITLE, c) for c in HELP_SCREENS if not issubclass(c, ModalScreen)]


def test_every_screen_of_the_app_is_checked() -> None:
    from tests.tui.test_bindings import binding_owners

    full = {c for c in binding_owners() if issubclass(c, BaseScreen)}
    assert full <= {c for _, c in SCREENS}, full - {c for _, c in SCREENS}


def test_a_key_means_one_thing_on_every_screen() -> None:
    table = key_meanings([("everywhere", QAInspectApp), *SCREENS])
    clashes = {key: {fam: [(t, b.id) for t, b in uses] for fam, uses in fams.items()}
               for key, fams in table.items() if len(fams) > 1}
    assert not clashes, clashes
    assert set(table["u"]) == {"undo"} and set(table["U"]) == {"redo"}
    assert set(table["escape"]) == {"back"} and set(table["enter"]) == {"open"}


def test_variants_of_one_action_are_one_family() -> None:
    assert key_family("stale.metrics-quiet") == key_family("stale.metrics-back") == key_family("stale.metrics")
    assert key_family("labels.toggle-3") == "toggle" and key_family("review-queue.back") == "back"
    assert key_family("browser.open") == key_family("compare.open") != key_family("detail.open-evidence")


def test_u_and_U_undo_and_redo_on_every_screen() -> None:
    for title, cls in SCREENS:
        keys = {b.key: b for b in own_bindings(cls)}
        assert "u" in keys and "U" in keys, title
        assert isinstance(keys["U"], Binding) and key_family(keys["U"].id or "") == "redo", title


def _gen_keys() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_keys", DOCS / "gen_keys.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["gen_keys"] = module
    spec.loader.exec_module(module)
    return module


def test_the_keys_page_is_made_from_the_bindings() -> None:
    gen = _gen_keys()
    assert gen.main(["--check"]) == 0, "run python docs/gen_keys.py"
    page = gen.generate()
    for _, cls in SCREENS:
        for b in own_bindings(cls):
            assert f"`{b.id}`" in page, b.id
