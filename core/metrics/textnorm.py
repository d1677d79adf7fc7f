"""The "written the same way" normal form, and lexical units for overlap.

`plain` decides `format-only` (an answer the metric scores down although it *is* the gold,
written differently) and text containment in the error categories. It folds exactly what a
reader would call format: full-/half-width forms (NFKC, which also turns `H₂O` into `H2O`), case,
numbers written as 中文数字 (`二〇二三` → 2023, `五十九` → 59), spacing, thousands separators and
punctuation at either end. It never decides a score: scorers keep their own normalisation.

`content_units` are what question–sentence overlap counts: CJK character bigrams (single
characters carry too little: 的, 是, 在) and lower-cased words of other scripts, minus a short
list of English function words and single letters.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

__all__ = [
    "FOLDS", "cache_clear", "content_units", "folds_needed", "has_cjk", "nfkc", "plain", "strip_ends",
    "zh_numbers_to_digits",
]

FOLDS: tuple[str, ...] = ("width", "case", "numerals", "spacing", "separators", "end punctuation")
"""The normalisations of `plain`, in the order they are applied (names used in reasons)."""

_ZH_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_ZH_UNITS = {"十": 10, "百": 100, "千": 1000}
_ZH_BIG = {"万": 10_000, "亿": 100_000_000}
_ZH_RUN = re.compile("[零〇一二两三四五六七八九十百千万亿]+")
_SEPARATOR = re.compile(r"(?<=\d)[,，](?=\d{3}(?!\d))")
_CJK = re.compile("[\u3400-\u9fff\uf900-\ufaff]")
_UNITS_RE = re.compile(r"([\u3400-\u9fff\uf900-\ufaff]+)|([^\W_\u3400-\u9fff\uf900-\ufaff]+)")
_STOPWORDS = frozenset(
    "a an the of in on at to for from by with and or but is are was were be been being do does did "
    "what which who whom whose when where why how that this these those it its as into than then "
    "there their they he she his her him i you we our your not no".split()
)


# NFKC costs ~7 µs on a short Chinese string. Text made only of the chars below (ASCII, CJK
# ideographs, CJK and general punctuation that NFKC leaves alone, full-width ASCII forms) needs
# no more than a translation table; anything else goes through `unicodedata`. A test checks
# every char of these ranges against NFKC.
_NFKC_SIMPLE = re.compile(
    "[^\x00-\x9f\u00b7\u2014\u2018\u2019\u201c\u201d\u2026\u3000-\u3029\u3030-\u3035\u3037"
    "\u303b-\u303f\u4e00-\u9fff\uff01-\uff5e]"
)
_NFKC_TABLE = {c: c - 0xFEE0 for c in range(0xFF01, 0xFF5F)} | {0x3000: " ", 0x2026: "..."}
_NFKC_TABLED = re.compile("[\uff01-\uff5e\u3000\u2026]")  # the keys of `_NFKC_TABLE`: most text has none


def nfkc(text: str) -> str:
    """`unicodedata.normalize("NFKC", text)`, fast for ASCII and Chinese text."""
    if _NFKC_SIMPLE.search(text) is None:
        return text.translate(_NFKC_TABLE) if _NFKC_TABLED.search(text) else text
    return unicodedata.normalize("NFKC", text)


def has_cjk(text: str) -> bool:
    """Whether `text` holds a CJK ideograph (lengths are then counted in characters, not words)."""
    return _CJK.search(text) is not None


@lru_cache(maxsize=4096)
def _zh_value(run: str) -> str:
    """One run of Chinese numerals as digits; digit-by-digit without unit chars (二〇二三 → 2023).
    A run with neither a digit char nor a leading 十 (万, 千万) is a word, not a number: kept."""
    if not any(ch in _ZH_DIGITS for ch in run) and not run.startswith("十"):
        return run
    if not any(ch in _ZH_UNITS or ch in _ZH_BIG for ch in run):
        return "".join(str(_ZH_DIGITS[ch]) for ch in run)
    total = part = section = digit = 0  # done 亿 groups, since the last 亿, since the last 万, last digit
    for ch in run:
        if ch in _ZH_DIGITS:
            digit = _ZH_DIGITS[ch]
        elif ch in _ZH_UNITS:
            section += (digit or 1) * _ZH_UNITS[ch]
            digit = 0
        elif ch == "万":
            part += (section + digit) * _ZH_BIG[ch]
            section = digit = 0
        else:
            total += (part + section + digit) * _ZH_BIG[ch]
            part = section = digit = 0
    return str(total + part + section + digit)


def zh_numbers_to_digits(text: str) -> str:
    """Replace each run of 中文数字 by its value in digits (一百零五 → 105, 五场 → 5场)."""
    return _ZH_RUN.sub(lambda m: _zh_value(m.group()), text)


def strip_ends(text: str) -> str:
    """Drop punctuation and symbols (Unicode P* and S*) at both ends. A letter or digit at both
    ends (`str.isalnum`: never P* or S*, a test checks every code point) leaves the text as it is."""
    if text[:1].isalnum() and text[-1:].isalnum():
        return text
    start, end = 0, len(text)
    while start < end and unicodedata.category(text[start])[0] in "PS":
        start += 1
    while end > start and unicodedata.category(text[end - 1])[0] in "PS":
        end -= 1
    return text[start:end]


_STEPS = (
    nfkc,
    str.casefold,
    zh_numbers_to_digits,
    lambda s: "".join(s.split()),
    lambda s: _SEPARATOR.sub("", s) if "," in s or "，" in s else s,  # the regex's only chars first
    strip_ends,
)


@lru_cache(maxsize=65_536)
def plain(text: str) -> str:
    """`text` with every fold of `FOLDS` applied: what "written the same way" compares.

    The first fold is NFKC, which is idempotent: a text it changes has the form of its NFKC form,
    kept once for both (`equivalence.wide_form` asks it of an answer's NFKC form, `remainder` of
    the answer: a third of Chinese answers hold a full-width comma or bracket)."""
    folded = nfkc(text)
    if folded != text:
        return plain(folded)
    for step in _STEPS[1:]:
        text = step(text)
    return text


def _apply(text: str, skip: int | None = None) -> str:
    for k, step in enumerate(_STEPS):
        if k != skip:
            text = step(text)
    return text


def folds_needed(a: str, b: str) -> list[str]:
    """The folds without which `a` and `b` would not be written the same way (for reasons);
    when no single fold is needed, those that changed either string."""
    needed = [FOLDS[k] for k in range(len(_STEPS)) if _apply(a, k) != _apply(b, k)]
    if needed:
        return needed
    return [name for name, step in zip(FOLDS, _STEPS) if step(a) != a or step(b) != b]


@lru_cache(maxsize=65_536)
def content_units(text: str) -> frozenset[str]:
    """CJK character bigrams and lower-cased words (minus English function words) of `text`."""
    units: set[str] = set()
    for cjk, word in _UNITS_RE.findall(nfkc(text)):
        if cjk:
            units.update(cjk[k : k + 2] for k in range(len(cjk) - 1))
        else:
            w = word.lower()
            if w not in _STOPWORDS and (len(w) > 1 or w.isdigit()):  # not the s of Robert's
                units.add(w)
    return frozenset(units)


def cache_clear() -> None:
    """Empty the per-text caches (`plain`, content units, numeral runs): `clear_score_caches`."""
    for cached in (plain, content_units, _zh_value):
        cached.cache_clear()
