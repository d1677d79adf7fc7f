"""File-name patterns (`[settings] pattern = "{model}_{prompt}_{shots}shot.jsonl"`) matched in
linear time.

Why not a regex: `{key}` is "one path part up to the next literal text", which as `[^/]+?` between
literals that recur (`_`) backtracks exponentially: 8 placeholders took a minute, 10 never
finished, on one file name. Here the pattern is split into literal text, `{key}` and `*`, and one
table per token says from which positions of the name the rest of the pattern can still match
(built right to left, each position once). Walking left to right, each token then takes the
shortest text that leaves a match possible: the same answer the lazy regex gave, in
O(tokens × name length), whatever the pattern.

A `{key}` that appears twice must repeat the text its first occurrence took (shortest first); the
rare pattern where only a longer first choice would make the repeat fit does not match.
"""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = ["NamePattern", "compile_pattern", "match_pattern"]

_TOKEN = re.compile(r"(\{[A-Za-z_][A-Za-z0-9_]*\}|\*)")
_NEVER = 1 << 62


class NamePattern:
    """A parsed pattern: tokens are ("text", s), ("key", name) or ("star", "")."""

    __slots__ = ("keys", "pattern", "tokens")

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self.tokens: list[tuple[str, str]] = []
        for part in _TOKEN.split(pattern):
            if part == "*":
                self.tokens.append(("star", ""))
            elif part.startswith("{") and part.endswith("}") and _TOKEN.fullmatch(part):
                self.tokens.append(("key", part[1:-1]))
            elif part:
                self.tokens.append(("text", part))
        self.keys = tuple(dict.fromkeys(name for kind, name in self.tokens if kind == "key"))

    def match(self, name: str) -> dict[str, str] | None:
        """`{key: text}` when the whole of `name` matches, else None."""
        n = len(name)
        slash = _next_slash(name)
        tables = self._tables(name, slash)
        if not tables[0][0]:
            return None
        found: dict[str, str] = {}
        pos = 0
        for i, (kind, value) in enumerate(self.tokens):
            ok = tables[i + 1]
            if kind == "text":
                pos += len(value)
            elif kind == "key" and value in found:
                if not name.startswith(found[value], pos) or not ok[pos + len(found[value])]:
                    return None
                pos += len(found[value])
            else:
                end = next((e for e in range(pos + (kind == "key"), n + 1) if ok[e]), _NEVER)
                if end == _NEVER or (kind == "key" and end > slash[pos]):
                    return None
                if kind == "key":
                    found[value] = name[pos:end]
                pos = end
        return found if pos == n else None

    def _tables(self, name: str, slash: list[int]) -> list[list[bool]]:
        """`tables[i][p]`: tokens i… can match name[p:] (ignoring repeats of a key)."""
        n = len(name)
        ok = [p == n for p in range(n + 1)]
        tables = [ok]
        for kind, value in reversed(self.tokens):
            nearest = [_NEVER] * (n + 2)  # nearest[q]: the smallest e >= q with ok[e]
            for q in range(n, -1, -1):
                nearest[q] = q if ok[q] else nearest[q + 1]
            if kind == "text":
                size = len(value)
                new = [p + size <= n and ok[p + size] and name.startswith(value, p) for p in range(n + 1)]
            elif kind == "star":
                new = [nearest[p] != _NEVER for p in range(n + 1)]
            else:
                new = [p < n and nearest[p + 1] <= slash[p] for p in range(n + 1)]
            ok = new
            tables.append(ok)
        tables.reverse()
        return tables


def _next_slash(name: str) -> list[int]:
    """For each position p, the position of the first '/' at or after p (len(name) when none):
    a `{key}` starting at p ends there at the latest."""
    out = [len(name)] * (len(name) + 1)
    for p in range(len(name) - 1, -1, -1):
        out[p] = p if name[p] == "/" else out[p + 1]
    return out


@lru_cache(maxsize=64)
def compile_pattern(pattern: str) -> NamePattern:
    """The parsed pattern (cached: one manifest's patterns are matched against every run)."""
    return NamePattern(pattern)


def match_pattern(pattern: str, name: str) -> dict[str, str] | None:
    """`{key: text}` when `name` matches `pattern` (`{key}`: one path part up to the next
    literal text, `*`: anything), else None."""
    return compile_pattern(pattern).match(name)
