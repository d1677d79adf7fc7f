"""User-facing errors: one line naming the file (and record), never a traceback."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

__all__ = ["FormatError", "QAInspectError", "StoreError", "UnknownNameError", "suggest", "unknown_name"]

KNOWN_SHOWN = 20
"""Known names an unknown-name message lists before "… and N more": a loaded folder may hold hundreds of runs."""


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


def suggest(name: str, known: Iterable[str]) -> str:
    """" (did you mean 'x'?)" for the closest known names, or "" when none is close."""
    close = difflib.get_close_matches(name, list(known), n=3, cutoff=0.7)
    return f" (did you mean {', '.join(repr(c) for c in close)}?)" if close else ""


def unknown_name(kind: str, name: str, known: Iterable[str], *, hint: str = "", none: str = "none") -> str:
    """The one wording of "that name does not exist": `unknown run 'x'; known: a, b, c (did you mean 'b'?)`.

    Every place that reports an unknown run, dataset, slice, scorer, label, column, metric or setting
    words it here, so a user reads one shape everywhere. `hint` follows the name (" linked to a
    dataset"); `none` says what an empty `known` means ("none loaded", "none saved")."""
    names = list(dict.fromkeys(str(k) for k in known))
    shown = ", ".join(names[:KNOWN_SHOWN]) if names else none
    if len(names) > KNOWN_SHOWN:
        shown += f" … and {len(names) - KNOWN_SHOWN} more"
    return f"unknown {kind} {name!r}{hint}; known: {shown}{suggest(name, names)}"


class UnknownNameError(QAInspectError):
    """A dataset, run, slice or scorer named by the user that does not exist; says which ones do."""

    def __init__(self, kind: str, name: str, known: Iterable[str], hint: str = "", none: str = "none loaded") -> None:
        self.kind = kind
        self.name = name
        self.known = list(known)
        super().__init__(unknown_name(kind, name, self.known, hint=hint, none=none))
