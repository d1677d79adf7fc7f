"""Characters a terminal or a renderer would act on, and the visible stand-in each one shows as.

Text from datasets and models is data: an escape (ESC, CSI), a bidi override or a line separator
inside a question must be seen, not obeyed, on screen and in every written table. This is the one
table of such characters; `tui.text` builds its cell and terminal cleaning on it and
`core.query.markdown_cell` writes Markdown cells with it. Each stand-in is one character, so
offsets into the text stay valid.
"""

from __future__ import annotations

__all__ = ["PLACEHOLDERS", "visible"]

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

_ONE_LINE = str.maketrans({**PLACEHOLDERS, 0x09: " "})


def visible(text: str) -> str:
    """`text` on one line with every control character visible (tab as a space, newline as ␊):
    callers that keep line breaks in their own way (Markdown's <br>) replace them first."""
    return text.translate(_ONE_LINE)
