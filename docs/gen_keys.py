"""Regenerate `docs/guide/keys.md`: every key of every screen and what it means, read off the bindings.

A key means one thing on every screen (tests/tui/test_key_meanings.py holds the app to that); this
page lists each key once with the screens that have it, so the table cannot drift from the code.
Run `python docs/gen_keys.py` after changing a binding; `--check` reports a stale page and exits 1.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PAGE = REPO / "docs" / "guide" / "keys.md"

HEADER = """# Keys (generated)

Every key of the app's screens, read from their bindings by `docs/gen_keys.py` (do not edit by hand).
A key means one thing wherever it is bound: `u` undoes and `U` redoes on every screen, `f` filters,
`o` sorts, `r` chooses a run, `enter` opens, `escape` goes back. A key that has nothing to do on a
screen says why instead of doing nothing. Press `?` (or F1) anywhere for this list, type to search
it; `ctrl+b` in the help shows each key's binding id, the name a keymap in `config.toml` uses to move it.

Dialogs and the facet panel have keys of their own while they have the focus (`space` ticks a
value, `enter` applies, `escape` cancels); the help lists those too.
"""


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def generate() -> str:
    """The page's Markdown: one row per key, its meaning, the screens and the binding ids."""
    from textual.keys import format_key
    from textual.screen import ModalScreen

    from qa_inspect.tui.app import HELP_SCREENS, QAInspectApp
    from qa_inspect.tui.commands import key_meanings

    owners = [("everywhere", QAInspectApp)] + [(c.HELP_TITLE, c) for c in HELP_SCREENS if not issubclass(c, ModalScreen)]
    lines = [HEADER, "| Key | What it does | Where | Binding ids |", "|---|---|---|---|"]
    for key, families in sorted(key_meanings(owners).items(), key=lambda kv: (kv[0].lower(), kv[0])):
        for family, uses in families.items():
            first = uses[0][1]
            where = ", ".join(dict.fromkeys(title for title, _ in uses))
            ids = ", ".join(f"`{i}`" for i in dict.fromkeys(b.id or "" for _, b in uses))
            what = first.tooltip or first.description
            lines.append(f"| `{format_key(key)}` | {_cell(what)} | {_cell(where)} | {ids} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Regenerate docs/guide/keys.md from the screens' bindings.")
    parser.add_argument("--check", action="store_true", help="only report whether the page is current; exit 1 if not")
    args = parser.parse_args(argv)
    page = generate()
    current = PAGE.read_text(encoding="utf-8") if PAGE.is_file() else ""
    if args.check:
        if page != current:
            print("docs/guide/keys.md is out of date: run python docs/gen_keys.py")
            return 1
        return 0
    if page != current:
        PAGE.write_text(page, encoding="utf-8")
        print("wrote docs/guide/keys.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
