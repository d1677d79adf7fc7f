"""An error category as the rules give it: its code, its reason in words and the gold it speaks of.

A load stores only the code of every prediction (hundreds of thousands a sweep) while the TUI shows
the reason of one: so a rule decides its code first and hands over how to write its words (`Words`),
which are written on the first read of `Category.reason` and never for a prediction nobody reads.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["Category", "Words"]

Words = str | Callable[[], str]
"""A reason, or how to write it: the rules decide the code first and write their words only when
the reason is read (a load stores the code alone; the TUI shows the reason)."""


class Category:
    """An error category: its code (one of `CATEGORY_CODES`), the reason in words, and the index
    of the gold the reason speaks of (None when no gold is involved). Immutable; the reason is
    written on first read (`Words`), so equality, hashing and pickling read it."""

    __slots__ = ("_code", "_gold", "_reason")

    def __init__(self, code: str, reason: Words, gold: int | None = None) -> None:
        self._code, self._reason, self._gold = code, reason, gold

    @property
    def code(self) -> str:
        return self._code

    @property
    def gold(self) -> int | None:
        return self._gold

    @property
    def reason(self) -> str:
        if not isinstance(self._reason, str):
            self._reason = self._reason()
        return self._reason

    def _key(self) -> tuple[str, str, int | None]:
        return self._code, self.reason, self._gold

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Category) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"Category(code={self._code!r}, reason={self.reason!r}, gold={self._gold!r})"

    def __reduce__(self) -> tuple[type[Category], tuple[str, str, int | None]]:
        return Category, self._key()

