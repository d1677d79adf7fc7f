"""CMRC 2018 `mixed_segmentation`, fast and with raw-string offsets.

One implementation (`_segments`) serves both the cached token path used for scoring and the
offsets path used for display, so what the UI highlights is exactly what the scorer compared.
The quirks of the official rules are listed in `qa_inspect.core.metrics.cmrc` (QUIRKS).

Speed: whole strings are cached (`segment_tuple`), English runs are cached separately
(`_tokenize_run`), and runs that NLTK provably returns as `run.split()` never reach NLTK (it costs
~90 µs a call). `segment_reference` runs NLTK on every run; tests compare both.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Callable

SP_CHARS = "-:_*^/\\~`+=，。：？！“”；’《》·、「」（）－～『』"
"""The official `sp_char` list, one char each. Its two-char entry '……' can never equal a single
char, so it is left out: '…' is never punctuation (QUIRK)."""

_CJK = "\u4e00-\u9fa5"
_SPLIT_ALL = re.compile(f"([{_CJK}{re.escape(SP_CHARS)}])")
_SPLIT_CJK = re.compile(f"([{_CJK}])")
_DROP_SP = str.maketrans("", "", SP_CHARS)

# Runs of ASCII letters/digits separated by whitespace come back from the Treebank tokenizer as
# `run.split()`, except for MacIntyre contractions (cannot → can not, gonna → gon na, …).
_CONTRACTION_WORDS = frozenset({"cannot", "gimme", "gonna", "gotta", "lemme", "wanna"})

_tokenizer: Callable[[str], list[str]] | None = None


def nltk_tokenize(text: str) -> list[str]:
    """NLTK `word_tokenize(text, preserve_line=True)`; imported lazily (nltk costs ~0.25 s)."""
    global _tokenizer
    if _tokenizer is None:
        from nltk.tokenize.destructive import NLTKWordTokenizer

        _tokenizer = NLTKWordTokenizer().tokenize
    return _tokenizer(text)


def fast_path_applies(run: str) -> bool:
    """True when `run` is ASCII alnum words and whitespace and no word is a contraction."""
    if not run.isascii():
        return False
    for word in run.split():
        if not word.isalnum() or word.lower() in _CONTRACTION_WORDS:
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


def _normalise(text: str, rm_punc: bool) -> str:
    """`lower().strip()`, then (rm_punc) drop the listed punctuation without splitting there."""
    norm = text.lower().strip()
    return norm.translate(_DROP_SP) if rm_punc else norm


def _segments(
    norm: str,
    rm_punc: bool,
    tokenize: Callable[[str], tuple[str, ...]],
    spans: list[tuple[int, int]] | None,
) -> list[str]:
    """Segment an already normalised string; append each segment's [start, end) in `norm` to
    `spans` when given. A separator is a CJK char or (unless rm_punc) a listed punctuation char."""
    parts = (_SPLIT_CJK if rm_punc else _SPLIT_ALL).split(norm)
    out: list[str] = []
    pos = 0
    for k, part in enumerate(parts):
        if k & 1:
            out.append(part)
            if spans is not None:
                spans.append((pos, pos + 1))
        elif part:
            tokens = tokenize(part)
            out.extend(tokens)
            if spans is not None:
                spans.extend((pos + a, pos + b) for a, b in _align_tokens(part, tokens))
        pos += len(part)
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


@lru_cache(maxsize=200_000)
def segment_tuple(text: str, rm_punc: bool = False) -> tuple[str, ...]:
    """Cached `mixed_segmentation(text, rm_punc)` as an immutable tuple (the scoring hot path)."""
    return tuple(_segments(_normalise(text, rm_punc), rm_punc, _tokenize_run, None))


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
    segment_tuple.cache_clear()
    _tokenize_run.cache_clear()
