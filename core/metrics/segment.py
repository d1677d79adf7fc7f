"""CMRC 2018 `mixed_segmentation`, fast and with raw-string offsets.

One implementation (`_segments`) serves both the cached token path used for scoring and the
offsets path used for display, so what the UI highlights is exactly what the scorer compared.
The quirks of the official rules are listed in `qa_inspect.core.metrics.cmrc` (QUIRKS).

Speed: whole strings are cached (`prepared`), English runs are cached separately
(`_tokenize_run`), and runs that the Treebank rules provably return as `run.split()` never reach
them (~50 µs a call). `segment_reference` runs the rules on every run; tests compare both. The
rules are NLTK 3.10's, carried in `treebank` (no `nltk` import).
"""

from __future__ import annotations

import re
from functools import cache, lru_cache
from typing import Callable, NamedTuple

from .treebank import word_tokenize

__all__ = [
    "SP_CHARS",
    "Prepared",
    "cache_clear",
    "fast_path_applies",
    "nltk_tokenize",
    "prepared",
    "remove_punctuation",
    "segment",
    "segment_reference",
    "segment_spans",
    "segment_tuple",
]

SP_CHARS = "-:_*^/\\~`+=，。：？！“”；’《》·、「」（）－～『』"
"""The official `sp_char` list, one char each. Its two-char entry '……' can never equal a single
char, so it is left out: '…' is never punctuation (QUIRK)."""

_CJK = "\u4e00-\u9fa5"
_SP_CLASS = re.escape(SP_CHARS)
# One match per stretch of separators (CJK chars, or CJK and listed punctuation) or per run between
# them: a few matches per string instead of one Python step per char.
_PIECES_RM = re.compile(f"([{_CJK}]+)|([^{_CJK}]+)")
_SP_RE = re.compile(f"[{_SP_CLASS}]")  # re.sub beats str.translate ~3x on CJK text
_ALL_CJK = re.compile(f"[{_CJK}]*")  # every char a segment: most Chinese answers once punctuation is gone


@cache
def _pieces_all() -> re.Pattern[str]:
    """Separators with the listed punctuation (display and `segment(rm_punc=False)`, not scoring):
    compiled on first use, as the negated CJK class costs ~6 ms at every start otherwise."""
    return re.compile(f"([{_CJK}{_SP_CLASS}]+)|([^{_CJK}{_SP_CLASS}]+)")

# Which runs the Treebank tokenizer returns as `run.split()`: every rule of NLTKWordTokenizer
# needs a char outside [alnum . , whitespace] (quotes, brackets, ;@#$%&, ?!, *, dashes), except
#   - a '.' followed by nothing but closing brackets/quotes and whitespace up to the end
#     (final period), and '..' — so a '.' is safe when an alnum char follows it;
#   - ':' or ',' followed by a non-digit or at the end — so a ',' is safe before an ASCII digit;
#   - MacIntyre contractions, whole alnum chunks between word boundaries (cannot → can not,
#     gonna → gon na, …, matched case-insensitively with Unicode folding: 'gımme' too).
# `str.isalnum` is exactly stdlib `re`'s \w minus '_', which NLTK's contraction rules use.
_SAFE_WORD = re.compile(r"[^\W_]+(?:\.[^\W_]+|,[0-9][^\W_]*)*")
_CHUNK_SPLIT = re.compile(r"[.,]")
_CONTRACTION = re.compile(r"(?i)cannot|gimme|gonna|gotta|lemme|wanna")

def nltk_tokenize(text: str) -> list[str]:
    """NLTK's `word_tokenize(text, preserve_line=True)`: the Treebank rules carried in `treebank`
    (importing `nltk` itself would cost ~0.3 s on the first English run)."""
    return word_tokenize(text)


def fast_path_applies(run: str) -> bool:
    """True when NLTK provably returns `run.split()`: every word is alnum chunks joined by '.'
    before alnum or ',' before a digit, and no chunk is a contraction (see the rules above)."""
    for word in run.split():
        if _SAFE_WORD.fullmatch(word) is None:
            return False
        if len(word) >= 5:
            for chunk in _CHUNK_SPLIT.split(word):
                if _CONTRACTION.fullmatch(chunk):
                    return False
    return True


@lru_cache(maxsize=100_000)
def _tokenize_run(run: str) -> tuple[str, ...]:
    """Tokens of one non-CJK run, as the official `nltk.word_tokenize` call gives them."""
    if fast_path_applies(run):
        return tuple(run.split())
    return tuple(nltk_tokenize(run))


def _slow_run(run: str) -> tuple[str, ...]:
    return tuple(nltk_tokenize(run))


def remove_punctuation(text: str) -> str:
    """The official `remove_punctuation`: lower, strip, then drop the listed chars."""
    return _SP_RE.sub("", text.lower().strip())


def _normalise(text: str, rm_punc: bool) -> str:
    """`lower().strip()`, then (rm_punc) drop the listed punctuation without splitting there."""
    return remove_punctuation(text) if rm_punc else text.lower().strip()


def _segments(
    norm: str,
    rm_punc: bool,
    tokenize: Callable[[str], tuple[str, ...]],
    spans: list[tuple[int, int]] | None,
) -> list[str]:
    """Segment an already normalised string; append each segment's [start, end) in `norm` to
    `spans` when given. A separator is a CJK char or (unless rm_punc) a listed punctuation char;
    each is its own segment, and the runs between them go through the Treebank tokenizer."""
    out: list[str] = []
    for m in (_PIECES_RM if rm_punc else _pieces_all()).finditer(norm):
        chars, run = m.groups()
        if chars:
            out.extend(chars)
            if spans is not None:
                spans.extend((k, k + 1) for k in range(m.start(), m.end()))
        else:
            tokens = tokenize(run)
            out.extend(tokens)
            if spans is not None:
                at = m.start()
                spans.extend((at + a, at + b) for a, b in _align_tokens(run, tokens))
    return out


_QUOTE_TOKENS = frozenset({"``", "''", '"'})
_QUOTE_RE = re.compile(r"``|''|\"")


def _align_tokens(run: str, tokens: tuple[str, ...]) -> list[tuple[int, int]]:
    """Offsets of Treebank tokens in their run. Tokens are substrings of the run except converted
    double quotes (`"` → `` or ''); those match the next quote-like text. Never fails: an
    unmatched token gets an empty span at the current position."""
    out: list[tuple[int, int]] = []
    pos = 0
    for tok in tokens:
        start = run.find(tok, pos)
        if tok in _QUOTE_TOKENS:
            m = _QUOTE_RE.search(run, pos)
            if m is not None and (start < 0 or m.start() < start):
                out.append((m.start(), m.end()))
                pos = m.end()
                continue
        if start < 0:
            out.append((pos, pos))
            continue
        out.append((start, start + len(tok)))
        pos = start + len(tok)
    return out


class Prepared(NamedTuple):
    """What scoring needs from one string, computed once and cached.

    Exactly one of `joined` / `multi` is set. Most Chinese answers segment into single chars;
    for them the concatenation is kept instead of a tuple of 1-char strings (far less
    memory: ~36 MB for a full cache of CMRC-sized strings) and doubles as its own encoding for the LCS search."""

    em_text: str
    """`remove_punctuation(text)`, compared for EM (and the input of rm_punc segmentation)."""
    joined: str | None
    """`"".join(segs)` when every segment is one char."""
    multi: tuple[str, ...] | None
    """The segments, when some segment is longer than one char."""
    n: int = 0
    """How many segments (the F1 denominators)."""

    @property
    def segs(self) -> tuple[str, ...]:
        """`mixed_segmentation(text, rm_punc=True)`."""
        return self.multi if self.multi is not None else tuple(self.joined or "")


@lru_cache(maxsize=65_536)
def prepared(text: str) -> Prepared:
    """EM text and F1 segments of `text` in one cached step (the scoring hot path)."""
    em_text = remove_punctuation(text)
    if _ALL_CJK.fullmatch(em_text):  # what `_segments` gives such a text, without walking it
        return Prepared(em_text, em_text, None, len(em_text))
    segs = _segments(em_text, True, _tokenize_run, None)
    joined = "".join(segs)
    if len(joined) != len(segs):
        return Prepared(em_text, None, tuple(segs), len(segs))
    return Prepared(em_text, em_text if joined == em_text else joined, None, len(segs))


@lru_cache(maxsize=50_000)
def _segment_plain(text: str) -> tuple[str, ...]:
    return tuple(_segments(_normalise(text, False), False, _tokenize_run, None))


def segment_tuple(text: str, rm_punc: bool = False) -> tuple[str, ...]:
    """Cached `mixed_segmentation(text, rm_punc)` as an immutable tuple."""
    return prepared(text).segs if rm_punc else _segment_plain(text)


def segment(text: str, rm_punc: bool = False) -> list[str]:
    """The official `mixed_segmentation(text, rm_punc)`."""
    return list(segment_tuple(text, rm_punc))


def segment_reference(text: str, rm_punc: bool = False) -> list[str]:
    """Same as `segment` but NLTK on every run, no caches: the yardstick for the fast path."""
    return _segments(_normalise(text, rm_punc), rm_punc, _slow_run, None)


def segment_spans(text: str, rm_punc: bool = False) -> list[tuple[str, int, int]]:
    """Segments with their [start, end) in the raw `text`.

    The span runs from the raw char of the segment's first char to that of its last, so with
    rm_punc a token joined across dropped punctuation ("co-founder" → "cofounder") covers it.
    Lowercasing that changes length ('İ' → 'i̇') maps every produced char to its source char.
    """
    raw_index = _lower_index(text)
    lowered = text.lower()
    left = len(lowered) - len(lowered.lstrip())
    right = len(lowered.rstrip())
    norm_chars = lowered[left:right]
    index = raw_index[left:right]
    if rm_punc:
        keep = [k for k, ch in enumerate(norm_chars) if ch not in SP_CHARS]
        norm_chars = "".join(norm_chars[k] for k in keep)
        index = [index[k] for k in keep]
    spans: list[tuple[int, int]] = []
    tokens = _segments(norm_chars, rm_punc, _tokenize_run, spans)
    out: list[tuple[str, int, int]] = []
    for tok, (a, b) in zip(tokens, spans):
        if b > a:
            out.append((tok, index[a], index[b - 1] + 1))
        else:
            at = index[a] if a < len(index) else len(text)
            out.append((tok, at, at))
    return out


def _lower_index(text: str) -> list[int]:
    """For each char of `text.lower()`, the index of the raw char it came from.

    Only the final-sigma rule is context dependent and it keeps the length, so per-char lengths
    add up to the whole-string result."""
    lowered = text.lower()
    if len(lowered) == len(text):
        return list(range(len(text)))
    index: list[int] = []
    for i, ch in enumerate(text):
        index.extend([i] * len(ch.lower()))
    return index


def cache_clear() -> None:
    """Empty the segmentation caches (benchmarks measure a cold start with it)."""
    prepared.cache_clear()
    _segment_plain.cache_clear()
    _tokenize_run.cache_clear()
