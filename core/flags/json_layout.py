"""JSON written back in a file's own layout: indentation, separators, `\\u` escaping, number literals.

A dataset written back with a few answers changed must differ from its source only there, so the
layout is detected from the source and JSON numbers keep their literal text (`39764.0`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from qa_inspect.core.formats import JSONFloat

__all__ = ["JsonStyle", "dump_json"]


@dataclass(slots=True)
class JsonStyle:
    indent: str | None = None
    item_sep: str = ", "
    key_sep: str = ": "
    ensure_ascii: bool = False
    newline_at_end: bool = False

    @classmethod
    def detect(cls, text: str, value: Any = None) -> JsonStyle:
        """The layout `text` was written with; given its parsed `value`, the candidate that
        reproduces `text` exactly wins (else the best guess)."""
        body = text.rstrip("\r\n")
        base = cls(newline_at_end=text != body, ensure_ascii=text.isascii() and "\\u" in text)
        lines = body.split("\n")
        candidates: list[JsonStyle] = []
        if len(lines) > 1:
            second = lines[1]
            indent = second[: len(second) - len(second.lstrip(" \t"))]
            candidates += [cls(indent, ",", ": ", base.ensure_ascii, base.newline_at_end),
                           cls(indent, ", ", ": ", base.ensure_ascii, base.newline_at_end)]
        else:
            for item_sep, key_sep in ((", ", ": "), (",", ":"), (",", ": "), (", ", ":")):
                candidates.append(cls(None, item_sep, key_sep, base.ensure_ascii, base.newline_at_end))
        if value is not None:
            for style in candidates:
                if dump_json(value, style) == body:
                    return style
        return candidates[0]


def dump_json(value: Any, style: JsonStyle, level: int = 0) -> str:
    """Like `json.dumps` with the style's options, but JSON numbers keep their literal text."""
    if isinstance(value, dict):
        if not value:
            return "{}"
        parts = [json.dumps(str(k), ensure_ascii=style.ensure_ascii) + style.key_sep + dump_json(v, style, level + 1)
                 for k, v in value.items()]
        return _wrap("{", "}", parts, style, level)
    if isinstance(value, list):
        if not value:
            return "[]"
        return _wrap("[", "]", [dump_json(v, style, level + 1) for v in value], style, level)
    if isinstance(value, JSONFloat):
        return value.literal
    return json.dumps(value, ensure_ascii=style.ensure_ascii)


def _wrap(open_: str, close: str, parts: list[str], style: JsonStyle, level: int) -> str:
    if style.indent is None:
        return open_ + style.item_sep.join(parts) + close
    inner = "\n" + style.indent * (level + 1)
    return open_ + inner + (style.item_sep + inner).join(parts) + "\n" + style.indent * level + close
