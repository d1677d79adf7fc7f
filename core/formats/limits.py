"""The limits every reader keeps, defined once: how much one file, one archive member and one record
may cost, how deep JSON may nest, how long a user's file-name pattern may be.

Anything a runs folder holds is read within these bounds, so a hostile or broken file (a zip bomb,
2 GB of NUL bytes, a 5,000-deep JSON value, a pattern that would backtrack for minutes) is one clear
line naming the file, the member or record, the limit and how to raise it, never an exhausted
machine. Each limit has a documented default (`DEFAULTS`); `qa-inspect.toml` overrides it
(`[limits] max_file_bytes = "8 GiB"`, read by `core.load`) and an environment variable overrides
both (`QA_INSPECT_MAX_FILE_BYTES=8GiB`). Readers ask `active()` once per file.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, fields, replace
from typing import Any

from qa_inspect.core.errors import FormatError

__all__ = [
    "DEFAULTS",
    "ENV_PREFIX",
    "Limits",
    "active",
    "byte_size",
    "from_env",
    "parse_limits",
    "shown_size",
    "too_big",
    "use_limits",
]

ENV_PREFIX = "QA_INSPECT_"
"""`QA_INSPECT_MAX_FILE_BYTES` overrides `max_file_bytes`, and so on for every field."""

_UNITS = {"": 1, "b": 1, "k": 1 << 10, "kb": 1000, "kib": 1 << 10, "m": 1 << 20, "mb": 1000**2, "mib": 1 << 20,
          "g": 1 << 30, "gb": 1000**3, "gib": 1 << 30, "t": 1 << 40, "tb": 1000**4, "tib": 1 << 40}
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]{0,3})\s*$")


@dataclass(frozen=True, slots=True)
class Limits:
    """One set of limits (sizes in bytes). The defaults are generous for real data and small
    enough that a hostile file costs seconds and a few hundred MB."""

    max_file_bytes: int = 4 << 30
    """Bytes read from one file (a JSON/JSONL/CSV text is read whole, so this bounds its memory)."""
    max_member_bytes: int = 128 << 20
    """Bytes one archive member (an Inspect `.eval` log's header or sample) may inflate to, checked
    against the size the archive declares and against the bytes actually inflated."""
    max_archive_bytes: int = 2 << 30
    """Bytes all members of one archive may inflate to together (many small bombs are one big one)."""
    max_record_bytes: int = 64 << 20
    """Bytes of one record: a JSONL line, an archive's sample, a table cell."""
    max_json_depth: int = 900
    """Levels of nesting in a JSON value. Python's parser follows about 1,000: higher values
    change nothing, lower ones refuse shallower nesting."""
    max_pattern_chars: int = 1000
    """Characters of one user pattern (`[settings] pattern`, `ignore`, `[[link]] runs`); matching
    is linear in pattern × name, so this bounds its time."""

    def hint(self, name: str) -> str:
        """How to raise limit `name`, for an error message."""
        return f"raise [limits] {name} in qa-inspect.toml or {ENV_PREFIX}{name.upper()}"


DEFAULTS = Limits()
_NAMES = tuple(f.name for f in fields(Limits))
_current: Limits | None = None


def byte_size(text: str | int, where: str = "size") -> int:
    """`4 GiB`, `500MB`, `1048576` → bytes (binary units for `K`/`M`/`G`, as `KiB`…); ValueError says why."""
    if isinstance(text, int) and not isinstance(text, bool):
        if text < 0:
            raise ValueError(f"{where} is negative")
        return text
    match = _SIZE.match(str(text))
    unit = match.group(2).lower() if match else ""
    if match is None or unit not in _UNITS:
        raise ValueError(f"{where}: {str(text)[:40]!r} is not a size (e.g. \"4 GiB\", \"500 MB\", 1048576)")
    return int(float(match.group(1)) * _UNITS[unit])


def shown_size(n: int) -> str:
    """A byte count for a message: `4 GiB`, `1.5 MiB`, `300 bytes`."""
    for unit, size in (("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            value = n / size
            return f"{value:.0f} {unit}" if value == int(value) else f"{value:.1f} {unit}"
    return f"{n:,} bytes"


def _value(name: str, raw: Any, where: str) -> int:
    if name.endswith("_bytes"):
        value = byte_size(raw, where)
    elif isinstance(raw, int) and not isinstance(raw, bool) or isinstance(raw, str) and raw.strip().isdigit():
        value = int(raw)
    else:
        raise ValueError(f"{where}: expected a whole number, got {str(raw)[:40]!r}")
    if value <= 0:
        raise ValueError(f"{where}: must be more than 0")
    return value


def parse_limits(table: Mapping[str, Any], base: Limits = DEFAULTS, source: str = "[limits]") -> Limits:
    """`base` with the fields `table` sets; ValueError names an unknown key or a bad value."""
    changes: dict[str, int] = {}
    for key, raw in table.items():
        if key not in _NAMES:
            raise ValueError(f"{source} {key}: unknown limit (known: {', '.join(_NAMES)})")
        changes[key] = _value(key, raw, f"{source} {key}")
    return replace(base, **changes)


def from_env(base: Limits = DEFAULTS, environ: Mapping[str, str] | None = None) -> Limits:
    """`base` with the `QA_INSPECT_MAX_…` variables applied (a bad value is a ValueError naming it)."""
    env = os.environ if environ is None else environ
    changes = {name: _value(name, env[ENV_PREFIX + name.upper()], ENV_PREFIX + name.upper())
               for name in _NAMES if ENV_PREFIX + name.upper() in env}
    return replace(base, **changes) if changes else base


def active() -> Limits:
    """The limits in force: `use_limits`' (the manifest's) under the environment's, else the defaults
    under the environment's. A bad environment value is a FormatError (one line, not a traceback)."""
    try:
        return from_env(_current or DEFAULTS)
    except ValueError as exc:
        raise FormatError("environment", str(exc)) from None


@contextmanager
def use_limits(limits: Limits | None) -> Iterator[None]:
    """Make `limits` (a runs folder's `[limits]`) the base of `active()` while the block runs, in
    every thread (loads run in workers): one process loads one folder at a time."""
    global _current
    before, _current = _current, limits
    try:
        yield
    finally:
        _current = before


def too_big(limits: Limits, name: str, size: int | None, what: str) -> str:
    """The message for `what` exceeding limit `name`; `size` None when only "more" is known (a
    member stopped while inflating)."""
    limit = getattr(limits, name)
    cap = shown_size(limit) if name.endswith("_bytes") else f"{limit:,}"
    if size is None:
        return f"{what} inflates to more than the {name} limit of {cap} ({limits.hint(name)})"
    shown = shown_size(size) if name.endswith("_bytes") else f"{size:,}"
    return f"{what} is {shown}, over the {name} limit of {cap} ({limits.hint(name)})"
