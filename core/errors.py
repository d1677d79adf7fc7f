"""User-facing errors: one line naming the file (and record), never a traceback."""

from __future__ import annotations


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
