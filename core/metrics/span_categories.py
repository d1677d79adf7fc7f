"""The span rules of the error categories (`categories`): where a span-scored prediction sits in
the passage relative to the gold: not-in-passage, boundary-long / -short / -shifted,
wrong-span-same-sentence / -other-sentence. Each rule decides its code first and writes its
reason only when read (`category.Words`)."""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from functools import lru_cache
from typing import NamedTuple

from .category import Category
from .equivalence import glued, remainder
from .sentences import sentence_of, split_sentences
from .textnorm import content_units, has_cjk, plain, strip_ends

__all__ = ["Located", "Span", "amount", "closest_pair", "occurrences", "span_category", "cache_clear"]

Span = tuple[int, int]
_WORD_CHAR = re.compile(r"[^\W_]")  # as `equivalence.glued`
_WORDS = re.compile(r"[^\W_]+")


class Located(NamedTuple):
    """A gold as the span rules see it: its index, text, located span (None: unknown), and
    whether the item has other golds (then it is named by its number)."""

    gold_index: int
    text: str
    span: Span | None
    many: bool

    @property
    def name(self) -> str:
        return f"gold {self.gold_index + 1}" if self.many else "the gold"


def amount(text: str, cjk: bool) -> str:
    """How much text that is, in words (English) or characters (CJK context, or no words)."""
    words = None if cjk or has_cjk(text) else _WORDS.findall(text)
    if words:
        n, unit = len(words), "word"
    else:
        n, unit = len("".join(text.split())), "character"
    return f"{n} {unit}{'' if n == 1 else 's'}"


def _whole_word(passage: str, start: int, end: int) -> bool:
    """No letter or digit glued to either end of a Latin-script occurrence ('Norman' in 'Normans')."""
    return not glued(passage[start - 1 : start], passage[start : start + 1]) and not glued(
        passage[end - 1 : end], passage[end : end + 1]
    )


def occurrences(passage: str, text: str, limit: int = 64) -> list[Span]:
    """Where `text` occurs in `passage`, in passage order: every exact occurrence (whole words preferred), else
    ignoring case and spacing, else without the punctuation at its ends; [] when absent."""
    out: list[Span] = []
    at = passage.find(text) if text else -1
    while at >= 0 and len(out) < limit:
        out.append((at, at + len(text)))
        at = passage.find(text, at + 1)
    if out:
        if not (_WORD_CHAR.match(text[0]) or _WORD_CHAR.match(text[-1])) or has_cjk(text[0] + text[-1]):
            return out  # no Latin letter or digit at an edge: nothing to glue to
        whole = [o for o in out if _whole_word(passage, *o)]
        return whole or out
    found = _find_loosely(passage, text)
    if found is not None:
        return [found]
    core = strip_ends(text.strip())
    return occurrences(passage, core, limit) if core and core != text else []


@lru_cache(maxsize=1024)
def _squeezed(text: str) -> tuple[str, tuple[int, ...]]:
    """`text` lower-cased without whitespace, and for each of its chars the raw index it came from."""
    chars: list[str] = []
    index: list[int] = []
    for i, ch in enumerate(text):
        if not ch.isspace():
            low = ch.lower()
            chars.append(low)
            index.extend([i] * len(low))
    return "".join(chars), tuple(index)


def _find_loosely(passage: str, text: str) -> Span | None:
    """The first place `text` occurs in `passage` ignoring case and whitespace (as `align.find_in_context`
    does, without building a regular expression per call)."""
    needle = "".join(text.lower().split())
    if not needle:
        return None
    hay, index = _squeezed(passage)
    at = hay.find(needle)
    return None if at < 0 else (index[at], index[at + len(needle) - 1] + 1)


def span_category(prediction: str, passage: str, golds: Sequence[Located]) -> Category:
    """not-in-passage, boundary-*, or wrong-span-* (golds best first)."""
    preds = occurrences(passage, prediction)
    if not preds:
        return _not_in_passage(prediction, golds)
    cjk = has_cjk(passage)
    found: list[tuple[Located, list[Span]]] = []
    seen: set[tuple[str, Span | None]] = set()
    for g in golds:
        if (g.text, g.span) in seen:
            continue  # CMRC repeats golds: the first of equal golds speaks for them
        seen.add((g.text, g.span))
        occs = [g.span] if g.span is not None else occurrences(passage, g.text)
        found.append((g, occs))
        pairs = [(min(p[1], o[1]) - max(p[0], o[0]), p, o) for p in preds for o in occs]
        best = max(pairs, default=None)
        if best is not None and best[0] > 0:
            return _boundary(passage, best[1], best[2], g, cjk)
        related = _text_relation(prediction, g, cjk)
        if related is not None:
            return related
    return _sentence_category(passage, preds, found, cjk)


def _not_in_passage(prediction: str, golds: Sequence[Located]) -> Category:
    return Category("not-in-passage", lambda: "does not occur in the passage (generated, not extracted)"
                    + _containment(prediction, golds), golds[0].gold_index if golds else None)


def _containment(prediction: str, golds: Sequence[Located]) -> str:
    """The first gold the prediction contains or lies inside, in words ("" when none)."""
    pred = plain(prediction)
    for g in golds:
        gold = plain(g.text)
        if gold and gold in pred:
            return f"; it contains {g.name}"
        if pred and pred in gold:
            return f"; it is a part of {g.name}"
    return ""


def _boundary(passage: str, p: Span, g: Span, gold: Located, cjk: bool) -> Category:
    """boundary-long / -short / -shifted from the two overlapping spans."""
    (ps, pe), (gs, ge) = p, g
    if (ps, pe) == (gs, ge):
        return Category("boundary-shifted", lambda: f"the passage span of {gold.name}, but {gold.name} is "
                        "written differently from the passage there", gold.gold_index)
    code = ("boundary-long" if ps <= gs and pe >= ge else "boundary-short" if ps >= gs and pe <= ge
            else "boundary-shifted")
    return Category(code, lambda: _boundary_words(passage, p, g, gold, cjk), gold.gold_index)


def _boundary_words(passage: str, p: Span, g: Span, gold: Located, cjk: bool) -> str:
    """The reason of a boundary category of two overlapping, unequal spans."""
    (ps, pe), (gs, ge) = p, g
    if not cjk:  # a cut inside a word is counted in characters
        cjk = not (_whole_word(passage, ps, pe) and _whole_word(passage, gs, ge))
    if ps <= gs and pe >= ge:
        parts = [f"{amount(passage[ps:gs], cjk)} before" if ps < gs else "",
                 f"{amount(passage[ge:pe], cjk)} after" if pe > ge else ""]
        return f"contains {gold.name} plus {' and '.join(x for x in parts if x)} it"
    if ps >= gs and pe <= ge:
        parts = [f"{amount(passage[gs:ps], cjk)} at its start" if ps > gs else "",
                 f"{amount(passage[pe:ge], cjk)} at its end" if pe < ge else ""]
        return f"inside {gold.name}, missing {' and '.join(x for x in parts if x)}"
    if ps < gs:
        how = (f"starts {amount(passage[ps:gs], cjk)} before it and stops {amount(passage[pe:ge], cjk)} "
               "short of its end")
    else:
        how = f"starts {amount(passage[gs:ps], cjk)} into it and runs {amount(passage[ge:pe], cjk)} past its end"
    return f"overlaps {gold.name}: {how}"


def _text_relation(prediction: str, gold: Located, cjk: bool) -> Category | None:
    """Containment by text when the spans do not meet (the gold's text found elsewhere, or a
    gold that is not a passage span at all)."""
    where = "where the passage repeats it" if gold.span is not None else "by its text"
    rest = remainder(prediction, gold.text)
    if rest is not None:
        long = rest
        return Category("boundary-long", lambda: f"contains {gold.name} ({where}) plus {amount(long, cjk)}",
                        gold.gold_index)
    rest = remainder(gold.text, prediction)
    if rest is not None:
        short = rest
        return Category("boundary-short", lambda: f"inside {gold.name} ({where}), missing {amount(short, cjk)}",
                        gold.gold_index)
    return None


def _sentence_category(
    passage: str, preds: list[Span], found: list[tuple[Located, list[Span]]], cjk: bool
) -> Category:
    """wrong-span-same-sentence / -other-sentence: the prediction's sentence against the gold's
    (the closest pair of occurrences decides)."""
    closest = closest_pair(preds, found)
    if closest is None:
        return _sentence_by_words(passage, preds[0], found[0][0])
    p, o, g = closest
    gold_sents = sentence_of(passage, *o)
    pred_sents = sentence_of(passage, *p)
    if set(pred_sents) & set(gold_sents):
        return Category("wrong-span-same-sentence", lambda: f"another span of sentence {gold_sents[0] + 1} of "
                        f"{_count(passage)}, which holds {g.name}: {_gap(passage, p, o, cjk)}", g.gold_index)
    return Category("wrong-span-other-sentence", lambda: f"a span of sentence {pred_sents[0] + 1} of "
                    f"{_count(passage)}; {g.name} is in sentence {gold_sents[0] + 1}", g.gold_index)


def closest_pair(preds: list[Span], found: list[tuple[Located, list[Span]]]) -> tuple[Span, Span, Located] | None:
    """The (prediction occurrence, gold occurrence, gold) whose starts are closest, the first such
    in the order (gold, its occurrence, prediction occurrence); None when no gold has one.
    `occurrences` gives the prediction's in passage order, so for each gold occurrence only the
    two around it can be closest (the earlier one first on a tie): a search, not every pair."""
    starts = [p[0] for p in preds]
    best: tuple[int, Span, Span, Located] | None = None
    for g, occs in found:
        for o in occs:
            at = bisect.bisect_left(starts, o[0])
            for p in preds[max(0, at - 1):at + 1]:
                d = abs(p[0] - o[0])
                if best is None or d < best[0]:
                    best = (d, p, o, g)
    return None if best is None else best[1:]


def _count(passage: str) -> int:
    return len(split_sentences(passage))


def _gap(passage: str, p: Span, o: Span, cjk: bool) -> str:
    """What lies between the prediction and the gold in their sentence, in words."""
    if p[1] <= o[0]:
        return f"{amount(passage[p[1]:o[0]], cjk)} before it"
    return f"{amount(passage[o[1]:p[0]], cjk)} after it"


def _sentence_by_words(passage: str, p: Span, g: Located) -> Category:
    """For a gold that is no passage span, its sentence is the one sharing most words with it."""
    total = len(split_sentences(passage))
    units = content_units(g.text)
    shared = [len(units & content_units(passage[a:b])) for a, b in split_sentences(passage)]
    pred_sents = sentence_of(passage, *p)
    if not shared or max(shared) == 0:
        return Category("wrong-span-other-sentence", lambda: f"a span of sentence {pred_sents[0] + 1} of {total}; "
                        f"{g.name} is not in the passage and shares no words with it", g.gold_index)
    near = shared.index(max(shared))
    if near in pred_sents:
        return Category("wrong-span-same-sentence", lambda: f"another span of sentence {near + 1} of {total}, "
                        f"the one closest to {g.name} (which is not a passage span)", g.gold_index)
    return Category("wrong-span-other-sentence", lambda: f"a span of sentence {pred_sents[0] + 1} of {total}; "
                    f"{g.name} is not a passage span, its words are in sentence {near + 1}", g.gold_index)


def cache_clear() -> None:
    """Empty the cache of squeezed passages: `clear_score_caches`."""
    _squeezed.cache_clear()
