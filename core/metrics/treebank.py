"""NLTK's Treebank word tokenizer (`NLTKWordTokenizer`, NLTK 3.10), carried here as data.

The official CMRC 2018 scorer tokenises every non-CJK run with `nltk.word_tokenize`; the
conformance answers were made with NLTK 3.10's `word_tokenize(text, preserve_line=True)`, which is
`NLTKWordTokenizer().tokenize(text)` with no sentence splitting and no parenthesis conversion.
Importing any `nltk` submodule runs the `nltk` package's `__init__` (~0.2–0.6 s); these are the
same rules, in the same order, compiled with the standard library's `re`, so scoring English costs
nothing at start-up and the rules stay pinned whatever NLTK release is installed.

Pinned to stdlib `re` semantics, as NLTK wrote the rules. NLTK 3.10.4 routes most of them through
the third-party `regex` engine, whose classes differ from `re`'s on a few inputs no dataset of
ours holds: `\\w` (combining marks and `² ½`-like numbers, which matter only right after an
apostrophe), `\\s` (U+001C–U+001F) and `\\d` (digits newer than Python's Unicode tables).
`tests/core/metrics/test_treebank.py` compares this module with NLTK on the real data and on
random text away from those classes, and pins the differing cases.
"""

from __future__ import annotations

import re
from functools import cache

__all__ = ["RULES", "word_tokenize"]

_STARTING_QUOTES = [
    ("([«“‘„]|[`]+)", r" \1 "),
    (r"^\"", r"``"),
    (r"(``)", r" \1 "),
    (r"([ \(\[{<])(\"|\'{2})", r"\1 `` "),
    (r"(?i)(?<!\w)(\')(?!(?:re|ve|ll|m|t|s|d|n)\b)(?=\w)", r"\1 "),
]

_PUNCTUATION = [
    # NLTK's possessive form of the final-period rule (same spans, linear time).
    (r'([^\.])(\.)([\]\)}>"\'' "»”’ " r"]*+)\s*$", r"\1 \2 \3 "),
    (r"([:,])([^\d])", r" \1 \2"),
    (r"([:,])$", r" \1 "),
    (r"\.{2,}", r" \g<0> "),
    (r"[;@#$%&]", r" \g<0> "),
    (r"[\u2012-\u2015]", r" \g<0> "),  # figure dash, en/em dashes, horizontal bar
    (r'([^\.])(\.)([\]\)}>"\']*)\s*$', r"\1 \2\3 "),  # the final period
    (r"[?!]", r" \g<0> "),
    (r"([^'])' ", r"\1 ' "),
    (r"[*]", r" \g<0> "),
]

_PARENS_BRACKETS = (r"[\]\[\(\)\{\}\<\>]", r" \g<0> ")
_DOUBLE_DASHES = (r"--", r" -- ")

_ENDING_QUOTES = [
    ("([»”’])", r" \1 "),
    (r"''", " '' "),
    (r'"', " '' "),
    (r"\s+", " "),
    (r"([^' ])('[sS]|'[mM]|'[dD]|') ", r"\1 \2 "),
    (r"([^' ])('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) ", r"\1 \2 "),
]

# Robert MacIntyre's contractions (NLTK compiles these with stdlib `re` too); CONTRACTIONS4 is
# unused by NLTK as well.
_CONTRACTIONS = [
    (p, r" \1 \2 ")
    for p in (
        r"(?i)\b(can)(?#X)(not)\b",
        r"(?i)\b(d)(?#X)('ye)\b",
        r"(?i)\b(gim)(?#X)(me)\b",
        r"(?i)\b(gon)(?#X)(na)\b",
        r"(?i)\b(got)(?#X)(ta)\b",
        r"(?i)\b(lem)(?#X)(me)\b",
        r"(?i)\b(more)(?#X)('n)\b",
        r"(?i)\b(wan)(?#X)(na)(?=\s)",
        r"(?i) ('t)(?#X)(is)\b",
        r"(?i) ('t)(?#X)(was)\b",
    )
]

RULES: tuple[tuple[str, str], ...] = (
    *_STARTING_QUOTES,
    *_PUNCTUATION,
    _PARENS_BRACKETS,
    _DOUBLE_DASHES,
)
"""(pattern, replacement) of every substitution before the padding space is added, in NLTK's order."""

_AFTER_PADDING: tuple[tuple[str, str], ...] = (*_ENDING_QUOTES, *_CONTRACTIONS)


@cache
def _compiled() -> tuple[list[tuple[re.Pattern[str], str]], list[tuple[re.Pattern[str], str]]]:
    """The rules compiled on the first English run (most processes never tokenise one)."""
    return ([(re.compile(p), r) for p, r in RULES], [(re.compile(p), r) for p, r in _AFTER_PADDING])


def word_tokenize(text: str) -> list[str]:
    """`nltk.word_tokenize(text, preserve_line=True)`: the Treebank rules, no sentence splitting."""
    before, after = _compiled()
    for regexp, substitution in before:
        text = regexp.sub(substitution, text)
    text = " " + text + " "
    for regexp, substitution in after:
        text = regexp.sub(substitution, text)
    return text.split()
