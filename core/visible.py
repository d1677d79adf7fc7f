"""Text from datasets and models made safe to show or hand on: the one rule for the terminal,
CSV and Markdown.

- Characters a terminal or viewer acts on (C0 controls, DEL, C1 controls such as CSI U+009B,
  bidi controls such as U+202E, line and paragraph separators) are replaced one for one by a
  visible placeholder (`\\x1b` → `␛`, C1 and bidi → `�`, U+2028 → `⏎`): offsets stay valid and
  what a reader sees is what the file holds. Line breaks and tabs are layout: kept by `visible`
  (CSV quotes them), shown by `one_line` (a tab as a space, a newline as ␊) for one-line cells —
  the terminal's table cells (`tui.text`) and Markdown cells (`core.query.markdown_cell`).
- A cell a spreadsheet would run as a formula (OWASP "CSV injection": it starts with `=`, `+`,
  `-`, `@`, tab or carriage return) gets a leading `'`, which spreadsheets show as text; `raw=True`
  keeps it as is, for people who feed the CSV to a program rather than a spreadsheet.

The terminal (`tui.text`), every CSV and Markdown writer (`core.query.export`, the stale patch and
changelog, the label export, `report --csv/--markdown`) go through here.
"""

from __future__ import annotations

__all__ = ["FORMULA_PATTERN", "FORMULA_STARTS", "PLACEHOLDERS", "VISIBLE", "csv_cell", "json_line", "json_visible", "neutral_formula", "one_line", "visible"]

PLACEHOLDERS: dict[int, str] = {i: chr(0x2400 + i) for i in range(0x20)}  # ␀ … ␟ (␛ for ESC)
PLACEHOLDERS[0x7F] = "\u2421"  # ␡
for _cp in range(0x80, 0xA0):  # C1 controls (CSI 0x9B among them)
    PLACEHOLDERS[_cp] = "\ufffd"
for _cp in (*range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x200E, 0x200F, 0x061C):
    PLACEHOLDERS[_cp] = "\ufffd"  # bidi controls would reorder the rest of the line
PLACEHOLDERS[0x2028] = "\u23ce"  # line / paragraph separators break rows
PLACEHOLDERS[0x2029] = "\u23ce"
"""Code point → its visible stand-in: C0 controls as their Control Pictures, DEL as ␡, C1 and bidi
controls as �, line and paragraph separators as ⏎."""

VISIBLE: dict[str, str] = {chr(cp): shown for cp, shown in PLACEHOLDERS.items() if cp not in (0x0A, 0x09)}
"""Character → placeholder as `visible` maps them (for writers that apply the table column-wise)."""
_VISIBLE_TABLE = str.maketrans(VISIBLE)

_JSON_ESCAPED = str.maketrans({cp: f"\\u{cp:04x}" for cp in PLACEHOLDERS if cp >= 0x7F})
"""Characters `json.dumps(ensure_ascii=False)` leaves raw that a terminal acts on (DEL, C1 such as
CSI U+009B, bidi controls such as U+202E, line separators): written as \\u escapes instead."""

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
"""First characters that make a spreadsheet read a cell as a formula (OWASP)."""
FORMULA_PATTERN = "^[" + "".join("\\" + c if c in "-\\]^" else c for c in FORMULA_STARTS) + "]"
"""A regular expression matching text that starts with one of `FORMULA_STARTS` (column-wise writers)."""


def visible(text: str) -> str:
    """Every character a terminal would act on (C0 but newline and tab, DEL, C1, bidi controls,
    line separators) as its visible placeholder, one for one."""
    return text.translate(_VISIBLE_TABLE)


_ONE_LINE = str.maketrans({**PLACEHOLDERS, 0x09: " "})


def one_line(text: str) -> str:
    """`text` on one line with every control character visible (tab as a space, newline as ␊):
    callers that keep line breaks in their own way (Markdown's <br>) replace them first."""
    return text.translate(_ONE_LINE)


def neutral_formula(text: str) -> str:
    """`text` with a leading `'` when a spreadsheet would run it as a formula; else unchanged."""
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def csv_cell(value: object, *, raw: bool = False) -> object:
    """A value bound for a CSV cell: text made `visible` and, unless `raw`, kept from being a
    formula; anything but text passes unchanged (numbers stay numbers)."""
    if not isinstance(value, str):
        return value
    text = visible(value)
    return text if raw else neutral_formula(text)


def json_visible(text: str) -> str:
    """JSON text (from `json.dumps(..., ensure_ascii=False)`) with DEL, C1 and bidi controls as
    `\\uXXXX` escapes: the same JSON value, nothing a terminal or editor acts on (C0 controls are
    escaped by `json.dumps` itself)."""
    return text.translate(_JSON_ESCAPED)


def json_line(record: object) -> str:
    """One JSONL line (newline included) of an exported record: readable text, every character a
    viewer acts on escaped, and still the same value for whoever imports it."""
    import json

    return json_visible(json.dumps(record, ensure_ascii=False)) + "\n"
