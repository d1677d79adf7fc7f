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

__all__ = ["RULES", "word_tokenize"]

_Rule = tuple[re.Pattern[str], str]

_STARTING_QUOTES: list[_Rule] = [
    (re.compile("([«“‘„]|[`]+)"), r" \1 "),
    (re.compile(r"^\""), r"``"),
    (re.compile(r"(``)"), r" \1 "),
    (re.compile(r"([ \(\[{<])(\"|\'{2})"), r"\1 `` "),
    (re.compile(r"(?i)(?<!\w)(\')(?!(?:re|ve|ll|m|t|s|d|n)\b)(?=\w)"), r"\1 "),
]

_PUNCTUATION: list[_Rule] = [
    # NLTK's possessive form of the final-period rule (same spans, linear time).
    (re.compile(r'([^\.])(\.)([\]\)}>"\'' "»”’ " r"]*+)\s*$"), r"\1 \2 \3 "),
    (re.compile(r"([:,])([^\d])"), r" \1 \2"),
    (re.compile(r"([:,])$"), r" \1 "),
    (re.compile(r"\.{2,}"), r" \g<0> "),
    (re.compile(r"[;@#$%&]"), r" \g<0> "),
    (re.compile(r"[\u2012-\u2015]"), r" \g<0> "),  # figure dash, en/em dashes, horizontal bar
    (re.compile(r'([^\.])(\.)([\]\)}>"\']*)\s*$'), r"\1 \2\3 "),  # the final period
    (re.compile(r"[?!]"), r" \g<0> "),
    (re.compile(r"([^'])' "), r"\1 ' "),
    (re.compile(r"[*]"), r" \g<0> "),
]

_PARENS_BRACKETS: _Rule = (re.compile(r"[\]\[\(\)\{\}\<\>]"), r" \g<0> ")
_DOUBLE_DASHES: _Rule = (re.compile(r"--"), r" -- ")

_ENDING_QUOTES: list[_Rule] = [
    (re.compile("([»”’])"), r" \1 "),
    (re.compile(r"''"), " '' "),
    (re.compile(r'"'), " '' "),
    (re.compile(r"\s+"), " "),
    (re.compile(r"([^' ])('[sS]|'[mM]|'[dD]|') "), r"\1 \2 "),
    (re.compile(r"([^' ])('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) "), r"\1 \2 "),
]

# Robert MacIntyre's contractions (NLTK compiles these with stdlib `re` too); CONTRACTIONS4 is
# unused by NLTK as well.
_CONTRACTIONS: list[_Rule] = [
    (re.compile(p), r" \1 \2 ")
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

RULES: tuple[_Rule, ...] = (
    *_STARTING_QUOTES,
    *_PUNCTUATION,
    _PARENS_BRACKETS,
    _DOUBLE_DASHES,
)
"""Every substitution before the padding space is added, in NLTK's order."""

_AFTER_PADDING: tuple[_Rule, ...] = (*_ENDING_QUOTES, *_CONTRACTIONS)


def word_tokenize(text: str) -> list[str]:
    """`nltk.word_tokenize(text, preserve_line=True)`: the Treebank rules, no sentence splitting."""
    for regexp, substitution in RULES:
        text = regexp.sub(substitution, text)
    text = " " + text + " "
    for regexp, substitution in _AFTER_PADDING:
        text = regexp.sub(substitution, text)
    return text.split()
