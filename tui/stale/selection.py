"""The item browser's selection: some items (`space`), or every item matching the filter
(`ctrl+a`, meant only while the filter keeps the same items). `s` and `S` and the labels act on it."""

from __future__ import annotations

from collections.abc import Callable

from qa_inspect.core.query import Filter

from ..present import count


class Selection:
    """Selected item ids, or a whole filter; `current` is the filter on screen."""

    def __init__(self, current: Callable[[], Filter]) -> None:
        self._current = current
        self.ids: set[int] = set()
        self._every: Filter | None = None

    @property
    def every(self) -> Filter | None:
        """"Every item matching the filter" is selected (only while the filter stays the same)."""
        f = self._every
        return f if f is not None and f.same_items(self._current()) else None

    def __bool__(self) -> bool:
        return self.every is not None or bool(self.ids)

    def has(self, item_id: int) -> bool:
        return self.every is not None or item_id in self.ids

    def toggle(self, item_id: int) -> None:
        self._every = None
        self.ids.symmetric_difference_update({item_id})

    def select_every(self) -> None:
        self._every = self._current()

    def clear(self) -> None:
        self.ids.clear()
        self._every = None

    def status_parts(self, total: int | None) -> list[tuple[str, str]]:
        """"all 1,234 selected" / "3 selected" for the status line (nothing without a selection)."""
        sep = ("  │  ", "$foreground-muted")
        if self.every is not None:
            return [sep, (f"all {count(total)} selected" if total is not None else "all selected", "bold $warning")]
        if self.ids:
            return [sep, (f"{count(len(self.ids))} selected", "bold $warning")]
        return []


__all__ = ["Selection"]
