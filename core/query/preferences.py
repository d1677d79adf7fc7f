"""What the app remembers for each user of a database: theme, metrics mode and the last browser
filter (run, compare run, filters, sort), so a restart opens where the user left off.

Kept in the `settings` table as `prefs:<system user>` (JSON). A value that cannot be read back (an
older or hand-edited one) is dropped on its own, never an error: preferences are a convenience.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field
from typing import Any

from qa_inspect.core.errors import QAInspectError
from qa_inspect.core.store import default_author, get_setting, sqlite_connection, write_transaction

from .filters import Filter

__all__ = ["ColumnLayout", "Preferences", "load_preferences", "save_preferences"]


@dataclass(frozen=True, slots=True)
class ColumnLayout:
    """The item table's columns for one dataset: which the user hid, and their order."""

    hidden: tuple[str, ...] = ()
    order: tuple[str, ...] = ()
    """Column keys in the order shown; columns not named keep their own order after these."""

    def apply(self, keys: list[str]) -> list[str]:
        """`keys` (the columns worth showing now) without the hidden ones, in the user's order;
        the first (the item id) always stays first."""
        head, rest = keys[:1], [k for k in keys[1:] if k not in self.hidden]
        rank = {k: i for i, k in enumerate(self.order)}
        return head + sorted(rest, key=lambda k: (rank.get(k, len(rank)), keys.index(k)))


@dataclass(frozen=True, slots=True)
class Preferences:
    theme: str | None = None
    exclude_stale: bool = False
    filter: Filter | None = None
    """The last item browser's filter (None: the app opens on the overview)."""
    columns: dict[str, ColumnLayout] = field(default_factory=dict)
    """Per dataset: the item table's columns the user hid and the order they put them in."""
    adjudicated: bool = False
    """The adjudicated metrics mode (accepted aliases counted as golds); never on with `exclude_stale`."""

    def to_dict(self) -> dict[str, Any]:
        return {"theme": self.theme, "exclude_stale": self.exclude_stale, "adjudicated": self.adjudicated,
                "filter": self.filter.to_dict() if self.filter is not None else None,
                "columns": {ds: {"hidden": list(c.hidden), "order": list(c.order)} for ds, c in self.columns.items()}}

    @classmethod
    def from_dict(cls, data: Any) -> Preferences:
        """Whatever can be read back; the rest is left at its default."""
        if not isinstance(data, dict):
            return cls()
        theme = data.get("theme") if isinstance(data.get("theme"), str) else None
        f = None
        if isinstance(data.get("filter"), dict):
            try:
                f = Filter.from_dict(data["filter"])
            except (QAInspectError, TypeError, ValueError):
                f = None
        columns = {}
        for ds, layout in (data.get("columns") or {}).items() if isinstance(data.get("columns"), dict) else ():
            if isinstance(layout, dict):
                hidden = tuple(x for x in layout.get("hidden", ()) if isinstance(x, str))
                order = tuple(x for x in layout.get("order", ()) if isinstance(x, str))
                columns[str(ds)] = ColumnLayout(hidden, order)
        adjudicated = data.get("adjudicated") is True
        return cls(theme, data.get("exclude_stale") is True and not adjudicated, f, columns, adjudicated)


def _key(user: str | None) -> str:
    return f"prefs:{user or default_author()}"


def load_preferences(conn: Any, user: str | None = None) -> Preferences:
    """The user's preferences in this database (defaults when none were saved)."""
    stored = get_setting(conn, _key(user))
    try:
        return Preferences.from_dict(json.loads(stored)) if stored else Preferences()
    except ValueError:
        return Preferences()


def save_preferences(conn: Any, prefs: Preferences, user: str | None = None) -> bool:
    """Remember `prefs`; False when the database could not take it now (busy, read-only, full)."""
    value = json.dumps(prefs.to_dict(), ensure_ascii=False, sort_keys=True)
    raw = sqlite_connection(conn)
    if get_setting(raw, _key(user)) == value:
        return True

    def work(c: sqlite3.Connection) -> None:
        c.execute("INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)", (_key(user), value))

    try:
        write_transaction(raw, work, deadline=1.0)
    except QAInspectError:
        return False
    return True
