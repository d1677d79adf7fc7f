"""The project's label set: the defaults, `qa-inspect.toml` `[labels] set = [...]`, and names added
from the app (kept in the database's `settings` table, so they travel with the runs folder)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from qa_inspect.core.errors import QAInspectError, suggest
from qa_inspect.core.store import BusyCallback, get_setting, set_setting

__all__ = ["ADDED_KEY", "DEFAULT_LABELS", "LabelError", "add_to_set", "check_label_name", "label_set", "suggest"]

DEFAULT_LABELS: tuple[str, ...] = (
    "gold-wrong", "ambiguous-question", "paraphrase", "needs-world-knowledge", "multi-sentence",
    "hallucination", "format",
)
"""The set a project starts with when `qa-inspect.toml` names none."""

ADDED_KEY = "labels:added"
"""`settings` key: JSON list of label names added from the app or the CLI (`--new`)."""


class LabelError(QAInspectError):
    """A label action that cannot be done as asked (unknown run, item or label; bad name)."""


def check_label_name(name: str) -> str:
    """The name stripped; LabelError when it is empty or holds a comma, a newline or a tab
    (names are typed on command lines and listed comma-separated)."""
    text = name.strip()
    if not text or any(ch in text for ch in ",\n\r\t"):
        raise LabelError(f"label name {name!r}: expected a non-empty name without commas, tabs or newlines")
    return text


def _added(conn: Any) -> list[str]:
    raw = get_setting(conn, ADDED_KEY)
    try:
        value = json.loads(raw) if raw else []
    except ValueError:
        return []
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def label_set(conn: Any, configured: Sequence[str] | None = None) -> list[str]:
    """The labels offered, in order: `configured` (the toml's set) or the defaults, then the names
    added from the app."""
    base = list(configured) if configured is not None else list(DEFAULT_LABELS)
    return list(dict.fromkeys([*base, *_added(conn)]))


def add_to_set(conn: Any, name: str, *, on_busy: BusyCallback | None = None) -> str:
    """Add a label name to the project's set (stored in the database); returns the checked name."""
    text = check_label_name(name)
    added = _added(conn)
    if text not in added:
        set_setting(conn, ADDED_KEY, json.dumps([*added, text], ensure_ascii=False), on_busy=on_busy)
    return text
