"""Stale commands of the palette that have no key of their own."""

from __future__ import annotations

from qa_inspect.core.query import Filter

from ..base import qa_app
from ..present import plural
from ..commands import EntriesProvider, Entry
from ..dialogs import AnnotatorDialog, ReleaseDialog, ReleaseFilter
from .form import AuthorForm
from .selection import Selection


class StaleCommands(EntriesProvider):
    """Set the annotator name; open a release diff as a filter; clear the browser's selection (while there is one)."""

    def _entries(self) -> list[Entry]:
        out: list[Entry] = [
            ("Set annotator name…", "the name written with your stale flags (default: the system user)",
             self._set_author),
            ("Release diff…", "items whose gold a new release of the dataset changes (asks for its file)",
             lambda: self.app.push_screen(ReleaseDialog(), self._release)),
        ]
        screen = self.screen
        selection, unselect = getattr(screen, "selection", None), getattr(screen, "unselect_all", None)  # the browser's
        if isinstance(selection, Selection) and selection and callable(unselect):
            out.append(("Clear selection", "unselect every selected item", unselect))
        return out

    def _set_author(self) -> None:
        """The stored name per system user; served, this browser session's own (`AnnotatorDialog`)."""
        app = qa_app(self.app)
        if app.served:
            self.app.push_screen(AnnotatorDialog(), app.set_session_author)
        else:
            self.app.push_screen(AuthorForm())

    def _release(self, got: ReleaseFilter | None) -> None:
        """Filter the browser shown on that dataset to the changed items, else open one on them."""
        if got is None:
            return
        self.app.notify(f"{plural(len(got.keys), 'item')} of {got.dataset} with golds"
                        f" changed in {got.path}", markup=False)
        screen = self.screen
        shown, apply = getattr(screen, "filter", None), getattr(screen, "set_filter", None)  # the browser's
        if isinstance(shown, Filter) and callable(apply) and shown.dataset == got.dataset:
            apply(shown.with_(keys=got.keys))
        else:
            qa_app(self.app).open_browser(Filter(dataset=got.dataset, keys=got.keys))
