"""Sentence boundaries for Chinese and English passages, as character ranges.

Error categories ask "is the wrong span in the gold's sentence?" and question features ask "is
the sentence that best matches the question the one holding the gold?": both need one splitter
that knows Chinese and English punctuation and never loses a character.

Rules (one pass over the text):

- Chinese: a run of `。！？；…` ends a sentence, with the closing quotes and brackets right after
  it (`。”`, `？」`, `……）`); so does a line break.
- ASCII `!` / `?` end a sentence before a CJK character, and like `.` before whitespace.
- ASCII `.` (and `!`, `?`) end a sentence before whitespace (or the end) unless the next word
  starts with a lower-case letter ("Wow! eye Taiwan") or, for `.`, the word it closes is an
  abbreviation (`Mr.`, `St.`, `e.g.`, `U.S.`, `c.`, an initial `A.`); `3.5` and `u.s.a` never split.

The ranges cover the text without gaps, in order: whitespace after a sentence belongs to it.
Splitting is cached per text (passages repeat across questions and runs).
"""

from __future__ import annotations

import bisect
import re
from functools import lru_cache

__all__ = ["sentence_index", "sentence_of", "split_sentences", "cache_clear"]

_CLOSERS = "”’」』）)】》〉\"'\\]"
_CJK_END = "。！？；…"
_TERMINATOR = re.compile(f"(?:[{_CJK_END}]+|[!?]+|\\.+|\\n+)[{_CLOSERS}]*")
_CJK_CHAR = re.compile("[\u3400-\u9fff\uf900-\ufaff]")
_WORD_BEFORE = re.compile(r"([A-Za-z][A-Za-z.]*)$")
_NEXT_CHAR = re.compile(r"\s*(\S)")
_ABBREVIATIONS = frozenset(
    "mr mrs ms dr st jr sr prof gen col lt sgt capt rev fr mt ft vs etc eg e.g ie i.e cf al ca c "
    "approx no vol pp ed eds inc ltd co corp jan feb mar apr jun jul aug sep sept oct nov dec "
    "u.s u.k u.n a.d b.c".split()
)


def _ends_sentence(text: str, start: int, end: int) -> bool:
    """Whether the terminator `text[start:end]` closes a sentence (see the module rules)."""
    mark = text[start]
    after = text[end : end + 1]
    if mark in _CJK_END or mark == "\n":
        return True
    if after and not after.isspace():
        return mark in "!?" and _CJK_CHAR.match(after) is not None  # 3.5, u.s.a: no end; 好!然后: end
    following = _NEXT_CHAR.match(text, end)
    if following is not None and following.group(1).islower():
        return False  # "Wow! eye Taiwan", "approx. two"
    if mark != ".":
        return True
    m = _WORD_BEFORE.search(text, max(0, start - 24), start)
    if m is None:
        return True
    word = m.group(1).lower()
    return not (word in _ABBREVIATIONS or (len(word) == 1 and text[start - 1].isupper()))


@lru_cache(maxsize=4096)
def split_sentences(text: str) -> tuple[tuple[int, int], ...]:
    """[start, end) of each sentence of `text`, covering it without gaps ((0, 0) for "")."""
    bounds: list[tuple[int, int]] = []
    start = 0
    for m in _TERMINATOR.finditer(text):
        if _ends_sentence(text, m.start(), m.end()):
            end = m.end()
            while end < len(text) and text[end].isspace():
                end += 1  # trailing whitespace stays with the sentence it follows
            if end > start:
                bounds.append((start, end))
                start = end
    if start < len(text) or not bounds:
        bounds.append((start, len(text)))
    return tuple(bounds)


@lru_cache(maxsize=4096)
def _starts(text: str) -> tuple[int, ...]:
    return tuple(s for s, _ in split_sentences(text))


def sentence_index(text: str, offset: int) -> int:
    """Index of the sentence of `text` that holds character `offset` (clamped to the text)."""
    return max(0, bisect.bisect_right(_starts(text), max(0, offset)) - 1)


def sentence_of(text: str, start: int, end: int) -> tuple[int, ...]:
    """Indexes of the sentences that the range [start, end) touches (one for an empty range)."""
    first = sentence_index(text, start)
    last = sentence_index(text, max(start, end - 1))
    return tuple(range(first, last + 1))


def cache_clear() -> None:
    """Empty the caches of passages' sentences: `clear_score_caches`."""
    split_sentences.cache_clear()
    _starts.cache_clear()
