"""Command palette and key listings: every action of the current screen by name, "open run …"
entries, the (key, what it does) rows the help screen shows, and what each key means across
screens (`key_family`, `key_meanings`: one meaning per key, docs/guide/keys.md is made from them).

Entries are (title, help, command) lists; `EntriesProvider` does discovery and fuzzy search over
them, so a provider only says what its entries are (the stale and slices providers too). Titles
are data (run names): shown literally, never as markup.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from functools import partial
from typing import Any

from textual.app import App
from textual.binding import Binding, BindingType
from textual.command import DiscoveryHit, Hit, Hits, Matcher, Provider
from textual.content import Content
from textual.markup import escape

from .base import HelpRow, qa_app
from .text import clean


Entry = tuple[str, str, Callable[[], object]]
"""(title, help, command) of one palette entry."""


def _highlight(matcher: Matcher, title: str) -> Content:
    """The title as literal text (run names are data), matched characters highlighted."""
    content = Content(clean(title))
    _, offsets = matcher.fuzzy_search.match(matcher.query, title)
    for at in offsets:
        if not title[at].isspace():
            content = content.stylize(matcher.match_style, at, at + 1)
    return content


async def _discover(entries: list[Entry]) -> Hits:
    for title, help_text, command in entries:
        yield DiscoveryHit(Content(clean(title)), command, text=title, help=escape(clean(help_text)))


async def _search(matcher: Matcher, entries: list[Entry]) -> Hits:
    for title, help_text, command in entries:
        score = matcher.match(title)
        if score > 0:
            yield Hit(score, _highlight(matcher, title), command, text=title, help=escape(clean(help_text)))


def binding_rows(app: App[Any], bindings: Iterable[BindingType]) -> list[HelpRow]:
    """(key as the footer shows it, what it does, binding id) for every binding with a description."""
    out: list[HelpRow] = []
    for b in bindings:
        if not isinstance(b, Binding) or not b.description:
            continue
        out.append((app.get_key_display(b), b.tooltip or b.description, b.id or ""))
    return out


_VARIANT = re.compile(r"-(quiet|back|\d+)$")


def key_family(binding_id: str) -> str:
    """What a binding does, whatever screen has it: the last part of its id (`browser.open` and
    `compare.open` are both "open"), variants of one action counted as one (a copy kept out of the
    footer, a mode's way back, a numbered slot: `stale.metrics-quiet`, `labels.toggle-3`)."""
    return _VARIANT.sub("", binding_id.rsplit(".", 1)[-1])


def own_bindings(cls: type[Any]) -> list[Binding]:
    """The bindings a screen (or the app) declares itself or inherits from this project's classes;
    Textual's own (focus keys, ctrl+q) are left out: they mean the same everywhere."""
    out: list[Binding] = []
    for klass in reversed(cls.__mro__):
        if klass.__module__.startswith("qa_inspect.") and "BINDINGS" in vars(klass):
            out += [b for b in vars(klass)["BINDINGS"] if isinstance(b, Binding)]
    return out


def key_meanings(owners: Iterable[tuple[str, type[Any]]]) -> dict[str, dict[str, list[tuple[str, Binding]]]]:
    """key → family → [(owner's title, binding)]: a key with two families means two things."""
    table: dict[str, dict[str, list[tuple[str, Binding]]]] = {}
    for title, cls in owners:
        for b in own_bindings(cls):
            for key in b.key.split(","):
                table.setdefault(key.strip(), {}).setdefault(key_family(b.id or b.action), []).append((title, b))
    return table


class EntriesProvider(Provider):
    """A provider whose entries are a plain list: subclasses say what, discovery and search are shared."""

    def _entries(self) -> list[Entry]:
        raise NotImplementedError

    async def discover(self) -> Hits:
        async for hit in _discover(self._entries()):
            yield hit

    async def search(self, query: str) -> Hits:
        async for hit in _search(self.matcher(query), self._entries()):
            yield hit


class ActionsProvider(EntriesProvider):
    """One entry per described binding of the current screen and the app (help, quit, …)."""

    def _entries(self) -> list[Entry]:
        screen = self.screen
        out: list[Entry] = []
        seen: set[str] = set()
        for owner, prefix in ((screen, ""), (self.app, "app.")):
            for b in getattr(type(owner), "BINDINGS", []):
                if not isinstance(b, Binding) or not b.description or b.action in seen:
                    continue
                seen.add(b.action)
                key = self.app.get_key_display(b)
                title = f"{b.description} ({key})"
                action = b.action if not prefix else prefix + b.action
                out.append((title, b.tooltip or b.description, partial(screen.run_action, action)))
        return out


class RunsProvider(EntriesProvider):
    """`Open run NAME`: jump straight to a run's items (names come from the loaded overview)."""

    def _entries(self) -> list[Entry]:
        app = qa_app(self.app)
        return [(f"Open run {name}", f"items of {name} on {dataset}", partial(app.open_run, name))
                for name, dataset in app.known_runs]


__all__ = ["ActionsProvider", "EntriesProvider", "Entry", "RunsProvider", "binding_rows"]
