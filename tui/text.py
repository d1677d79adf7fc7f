"""Dataset and model text made safe to show: visible control characters, CJK-aware truncation.

Text from datasets and models is data, never markup. Every helper here keeps offsets stable
(one character in, one character out) so alignment ranges and context spans computed on the raw
strings still point at the right characters after cleaning.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterable, Sequence
from typing import Any

from qa_inspect.core.visible import PLACEHOLDERS, json_visible, visible
from rich.cells import cell_len
from rich.text import Text

from . import present
from .present import MISSING

__all__ = [
    "BLOCKS",
    "ELLIPSIS",
    "bar",
    "cell_text",
    "clean",
    "copy_text",
    "count_cells",
    "escape_json",
    "escape_terminal",
    "number",
    "truncate",
    "truncate_middle",
    "shorten_ids",
]

_PLACEHOLDERS = PLACEHOLDERS  # the one table of characters shown, not obeyed (core.visible)

_INLINE = dict(_PLACEHOLDERS)
_INLINE[0x0A] = "\u23ce"  # ⏎ newline shown as a symbol in one-line cells
_INLINE[0x0D] = "\u23ce"
_INLINE[0x09] = " "

_BLOCK = dict(_PLACEHOLDERS)
del _BLOCK[0x0A]  # multi-line fields keep their line breaks
_BLOCK[0x09] = " "
_BLOCK[0x0D] = " "

_INLINE_TABLE = str.maketrans(_INLINE)
_BLOCK_TABLE = str.maketrans(_BLOCK)

ELLIPSIS = "…"


def clean(s: str | None, *, multiline: bool = False) -> str:
    """Replace control characters one-for-one with visible placeholders (`\\x1b` → `␛`).

    One line by default (newlines become ⏎); `multiline=True` keeps newlines for passages.
    The result has the same length as the input, so character offsets still apply.
    """
    if not s:
        return ""
    return s.translate(_BLOCK_TABLE if multiline else _INLINE_TABLE)


def escape_terminal(s: str) -> str:
    """Every character a terminal would act on (C0 but newline and tab, DEL, C1, bidi overrides,
    line separators) as its visible placeholder: the one step all CLI output goes through."""
    return visible(s)


def escape_json(text: str) -> str:
    """JSON text (from `json.dumps(..., ensure_ascii=False)`) with DEL, C1 and bidi controls as
    `\\uXXXX` escapes: still the same JSON value, but nothing a terminal acts on. C0 controls are
    escaped by `json.dumps` itself."""
    return json_visible(text)


def truncate(s: str, width: int) -> str:
    """At most `width` terminal cells, ending in … when cut; a CJK character counts two cells.

    Only the first `width + 1` characters are measured when they already overflow (a cell of a
    long passage or question is cut in time proportional to the cell, not to the text); printable
    ASCII, one cell a character, is cut by length."""
    if s.isascii() and s.isprintable():
        if len(s) <= width:
            return s
        return s[: width - 1] + ELLIPSIS if width > 0 else ""
    head = s[: max(width + 1, 0)]
    whole = len(head) == len(s)
    if not whole and cell_len(head) <= width:  # zero-width characters among them: measure it all
        head, whole = s, True
    if whole and cell_len(s) <= width:
        return s
    if width <= 0:
        return ""
    out: list[str] = []
    used = 0
    for ch in head:
        w = cell_len(ch)
        if used + w > width - 1:
            break
        out.append(ch)
        used += w
    return "".join(out) + ELLIPSIS


def truncate_middle(s: str, width: int) -> str:
    """At most `width` cells, cut in the middle (`DEV_1…QUERY_3`): ids differ at both ends."""
    if cell_len(s) <= width or width < 5:
        return truncate(s, width)
    tail: list[str] = []
    used = 0
    for ch in reversed(s):  # the end gets the larger half: counters and suffixes live there
        if used + cell_len(ch) > (width - 1) // 2 + (width - 1) % 2:
            break
        tail.append(ch)
        used += cell_len(ch)
    head = truncate(s, width - used)  # ends in …
    return head + "".join(reversed(tail))


def _render(s: str, shown: set[int]) -> str:
    """`s` with its characters at `shown` kept and each run of the others as one ellipsis."""
    out: list[str] = []
    for k, ch in enumerate(s):
        if k in shown:
            out.append(ch)
        elif not out or out[-1] != ELLIPSIS or k - 1 in shown:
            out.append(ELLIPSIS)
    return "".join(out)


def _masked(group: list[str], width: int) -> dict[str, str] | None:
    """Ids of one length shown at every position where they differ, then as much of their start,
    end and the neighbourhood of those positions as fits `width`: no two read alike."""
    n = len(group[0])
    vary = [k for k in range(n) if len({g[k] for g in group}) > 1]
    shown = set(vary)
    if max(cell_len(_render(g, shown)) for g in group) > width:
        return None
    anchors = [0, n - 1, *vary]
    for k in sorted(range(n), key=lambda k: (min(abs(k - a) for a in anchors), k)):
        trial = shown | {k}
        if max(cell_len(_render(g, trial)) for g in group) <= width:
            shown = trial
    return {g: _render(g, shown) for g in group}


def _head_tail(group: list[str], width: int) -> dict[str, str] | None:
    """One head/tail split (nearest the middle first) that keeps every id of `group` apart."""
    room = width - 1
    for head in sorted(range(room + 1), key=lambda h: abs(h - room // 2)):
        cut = {i: i[:head] + ELLIPSIS + i[len(i) - (room - head):] if cell_len(i) > width else i for i in group}
        if len(set(cut.values())) == len(group) and all(cell_len(v) <= width for v in cut.values()):
            return cut
    return None


def _windows(group: list[str], width: int) -> dict[str, str] | None:
    """`…` + the characters around where the ids of `group` first differ + `…`, if that keeps them apart."""
    first = min(next((k for k, (a, b) in enumerate(zip(x, y)) if a != b), min(len(x), len(y)))
                for x in group for y in group if x != y)
    size = width - 2
    cut = {}
    for i in group:
        at = max(0, min(first - size // 2, len(i) - size))
        cut[i] = ELLIPSIS + i[at:at + size] + ELLIPSIS if cell_len(i) > width else i
    ok = len(set(cut.values())) == len(group) and all(cell_len(v) <= width for v in cut.values())
    return cut if ok else None


def _apart(group: list[str], width: int) -> dict[str, str] | None:
    """The first way of cutting that keeps the ids of `group` apart: a head/tail split, a window,
    or (ids of one length) the positions where they differ."""
    one_length = len({len(i) for i in group}) == 1
    return _head_tail(group, width) or _windows(group, width) or (_masked(group, width) if one_length else None)


def shorten_ids(ids: Sequence[str], width: int) -> list[str]:
    """Every id at most `width` cells, cut in the middle as `truncate_middle` cuts (`DEV_1…QUERY_3`),
    except where two different ids would then read the same (`DEV_18…QUERY_0` for DEV_181_QUERY_0
    and DEV_182_QUERY_0): those are cut elsewhere — one head/tail split for all of them, else each
    length's ids shown where they differ — so two rows on screen never look alike. Pure: the item
    table calls it on the rows it holds."""
    shown = [truncate_middle(i, width) for i in ids]
    groups: dict[str, set[str]] = {}
    for i, text in zip(ids, shown):
        groups.setdefault(text, set()).add(i)
    clashing = sorted({i for members in groups.values() if len(members) > 1 for i in members})
    if not clashing or width < 5:
        return shown
    others = {text for text, members in groups.items() if len(members) == 1}
    fixed = _apart(clashing, width)
    if fixed is None or set(fixed.values()) & others:
        fixed = {}
        for n in sorted({len(i) for i in clashing}):  # each length alone, then what still clashes
            same_length = [i for i in clashing if len(i) == n]
            fixed.update((len(same_length) > 1 and _apart(same_length, width)) or {})
        again: dict[str, list[str]] = {}
        for i in clashing:
            again.setdefault(fixed.get(i, truncate_middle(i, width)), []).append(i)
        for group in again.values():
            if len(group) > 1:
                fixed.update(_apart(group, width) or {})
    return [fixed.get(i, text) for i, text in zip(ids, shown)]


CLIPBOARD_COMMANDS: tuple[tuple[str, ...], ...] = (
    ("pbcopy",), ("wl-copy",), ("xclip", "-selection", "clipboard"), ("xsel", "--clipboard", "--input"), ("clip.exe",),
)
"""System copy commands tried after OSC 52 (which some terminals and tmux setups ignore)."""


def copy_text(app: Any, text: str) -> str:
    """Put `text` on the clipboard: OSC 52 through the terminal (`App.copy_to_clipboard`), and
    the first system copy command found. Returns how, for the notification. In a browser
    (`qa-inspect serve`) the system command would fill the server's clipboard: OSC 52 only, which
    the page hands to the browser's clipboard."""
    app.copy_to_clipboard(text)
    if getattr(app, "is_web", False):
        return "to the browser's clipboard"
    for cmd in CLIPBOARD_COMMANDS:
        if shutil.which(cmd[0]):
            try:
                subprocess.run(cmd, input=text.encode(), timeout=2, check=True, capture_output=True)
            except (OSError, subprocess.SubprocessError):
                continue
            return f"terminal and {cmd[0]}"
    return "through the terminal"


def cell_text(s: str | None, width: int | None = None, style: str = "") -> Text:
    """A one-line table cell: cleaned, truncated to `width` cells, never parsed as markup."""
    plain = clean(s)
    if width is not None:
        plain = truncate(plain, width)
    return Text(plain, style=style, no_wrap=True, overflow="ellipsis")


def number(value: float | None, digits: int = 1, *, percent: bool = False, style: str = "") -> Text:
    """A right-aligned number cell; — for missing values."""
    if value is None:
        return Text(MISSING, style="dim", justify="right")
    shown = value * 100 if percent else value
    return Text(present.number(shown, digits), style=style, justify="right")


def count_cells(counts: Iterable[int], least: int) -> int:
    """Cells a column of counts needs, written with separators (`1,000,000`: 9), at least `least`:
    a count cut to fit (`1,000,0`) reads as another number."""
    return max([least, *(len(f"{max(n, 0):,}") for n in counts)])


BLOCKS = " ▏▎▍▌▋▊▉█"


def bar(fraction: float | None, width: int = 10) -> str:
    """A unicode block bar `width` cells wide for a fraction in [0, 1] (eighth-cell resolution)."""
    if fraction is None:
        return " " * width
    fraction = min(max(fraction, 0.0), 1.0)
    eighths = round(fraction * width * 8)
    full, rest = divmod(eighths, 8)
    out = "█" * full + (BLOCKS[rest] if rest and full < width else "")
    return out.ljust(width)
