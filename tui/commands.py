"""Command palette and key listings: every action of the current screen by name, "open run …"
entries, and the (key, what it does) rows the help screen shows.

Entries are (title, help, command) lists; `EntriesProvider` does discovery and fuzzy search over
them, so a provider only says what its entries are (the stale and slices providers too). Titles
are data (run names): shown literally, never as markup.
"""

from __future__ import annotations

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
