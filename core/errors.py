"""User-facing errors: one line naming the file (and record), never a traceback."""

from __future__ import annotations

__all__ = ["FormatError", "QAInspectError", "StoreError", "UnknownNameError"]


class QAInspectError(Exception):
    """Base for errors a user can cause; `str()` is the one line we print."""


class FormatError(QAInspectError):
    """A source file that cannot be read as what it claims to be."""

    def __init__(self, path: str, message: str, record: str | int | None = None) -> None:
        self.path = path
        self.message = message
        self.record = record
        super().__init__(self.__str__())

    def __str__(self) -> str:
        where = self.path
        if self.record is not None:
            where += f", {self.record}" if isinstance(self.record, str) else f", record {self.record}"
        return f"{where}: {self.message}"


class StoreError(QAInspectError):
    """The database cannot be opened or written (locked, corrupt, not a database)."""


class UnknownNameError(QAInspectError):
    """A dataset, run, slice or scorer named by the user that does not exist; says which ones do."""

    def __init__(self, kind: str, name: str, known: list[str] | tuple[str, ...], hint: str = "") -> None:
        self.kind = kind
        self.name = name
        self.known = list(known)
        shown = ", ".join(self.known) if self.known else "none loaded"
        super().__init__(f"no {kind} named {name!r}{hint} (known: {shown})")
