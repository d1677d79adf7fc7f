"""How an answer relates to an item's golds: the one equivalence judgement. Pure (no I/O).

Official scores say how much an answer overlaps a gold; a judgement says what the answer *is*.
The error categories, the review queue's consensus and adjudicated numbers all ask `relation`,
so "the same answer", "written differently" and "a part of it" mean one thing everywhere.

| relation | the answer … |
|---|---|
| `same` | is a gold, or equals one after the scorer's own normalisation (`scorer_form`) |
| `format` | equals a gold, or one of its `/` alternatives, after the wider normalisation (`wide_form`): width, case, spacing, Traditional → Simplified (OpenCC t2s), 中文数字 → digits (cn2an: 二〇二三年 → 2023年, 第十七届 → 第17届), a leading 第 before a number, a measure word after one (届, 年, 个 …), punctuation at the ends |
| `alias` | equals (as for `same` or `format`) an accepted alias of the item |
| `superseded` | equals (as for `same` or `format`) a gold the dataset has replaced |
| `partial` | is a prefix, suffix or other part of a gold or of one of its alternatives, or contains one (Latin words are never cut: "Fran" is no part of "France") |
| `different` | none of these |

The first row that holds wins, except that `alias` and `superseded` are tried before `partial`: an
answer equal to a replaced gold says more than its overlap with the new one. Which gold matched is
returned with the relation (`Equivalence`). The wider normalisation is cached per distinct string
(OpenCC takes ~2 µs; cn2an ~40 µs a call, so it is only asked when a Chinese numeral is present,
and then once per distinct run of the characters its patterns touch: `cn2an_digits`).
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache
from typing import Any

from . import cdqa
from .segment import prepared
from .squad import normalize_answer
from .textnorm import has_cjk, nfkc, plain

__all__ = [
    "RELATIONS",
    "WIDE_FOLDS",
    "Equivalence",
    "Relation",
    "alternatives",
    "cn2an_digits",
    "glued",
    "relation",
    "remainder",
    "scorer_form",
    "t2s",
    "wide_form",
    "wide_folds_needed",
    "cache_clear",
]


class Relation(StrEnum):
    """The relation of an answer to an item's golds (stored as its value in `predictions.relation`)."""

    SAME = "same"
    FORMAT = "format"
    ALIAS = "alias"
    SUPERSEDED = "superseded"
    PARTIAL = "partial"
    DIFFERENT = "different"


RELATIONS: tuple[str, ...] = tuple(r.value for r in Relation)


@dataclass(frozen=True, slots=True)
class Equivalence:
    """A relation and what it was found against.

    `index` is the position of the matched text in the list the relation speaks of (`golds` for
    same/format/partial, `superseded` for superseded, `aliases` for alias); `alternative` the
    `/`-separated part of that gold that matched, when not the whole of it; `contains` (partial
    only) whether the answer holds the gold (True) or lies inside it (False)."""

    relation: Relation
    index: int | None = None
    text: str | None = None
    alternative: str | None = None
    contains: bool = False


DIFFERENT = Equivalence(Relation.DIFFERENT)

# Measure words dropped after a number ("17届" = "17", "2023年" = "2023"); never 万/亿 (magnitudes).
_UNITS = "届年个名次人元岁位项家件场期号座部条天周"
_UNIT_AFTER_NUMBER = re.compile(f"(?<=\\d)[{_UNITS}]$")
_ORDINAL = re.compile(r"^第(?=\d)")
_ZH_NUMERAL = re.compile("[零〇一二两三四五六七八九十百千万亿]")
_WORD_CHAR = re.compile(r"[^\W_]")
_converter: Any = None


def scorer_form(text: str, scorer: str | None) -> str:
    """The answer as the scorer compares it: CDQA's jieba tokens without its dropped punctuation,
    SQuAD's `normalize_answer`, CMRC's `remove_punctuation` (the EM text)."""
    if scorer is None or scorer == "cdqa-f1-recall":
        return "".join(cdqa.tokens(text))
    if scorer.startswith("squad"):
        return normalize_answer(text)
    return prepared(text).em_text  # `remove_punctuation`, as scoring left it in its cache


def t2s(text: str) -> str:
    """Traditional → Simplified Chinese (OpenCC's t2s)."""
    global _converter
    if _converter is None:
        import opencc  # imported on first use: loading the tool should not pay for it

        _converter = opencc.OpenCC("t2s")
    return str(_converter.convert(text))


def cn2an_digits(text: str) -> str:
    """Chinese numerals as digits (cn2an's "cn2an" transform); text without one is not passed on.

    cn2an's patterns only match, and only look at, chars of `_cn2an_parts`' class (numerals,
    units, 点/负/年/月/日/分之/摄氏度, measure words, ASCII digits): the text is cut between
    them and each part is transformed once per distinct part (`_cn2an_part`), which gives
    exactly the one call's result (a test holds it) at a fraction of its cost."""
    if _ZH_NUMERAL.search(text) is None:
        return text
    out: list[str] = []
    last = 0
    for m in _cn2an_parts().finditer(text):
        part = _cn2an_part(m.group())
        if part is None:  # the library failed on this part, so it would have failed on the text
            return text
        out += (text[last:m.start()], part)
        last = m.end()
    out.append(text[last:])
    return "".join(out)


@lru_cache(maxsize=1)
def _cn2an_parts() -> re.Pattern[str]:
    """Runs of the chars cn2an's "cn2an" transform can match or look at, from its own tables."""
    import cn2an  # ~0.15 s to import: only when a Chinese numeral is there to convert

    t = cn2an.transform.__self__
    chars = set(t.all_num + t.all_unit + t.upper_num + t.measure_words.replace("|", ""))
    chars |= set("两点负年月日分之百零下摄氏度廿半0123456789.-")
    return re.compile(f"[{re.escape(''.join(sorted(chars)))}]+")


@lru_cache(maxsize=65_536)
def _cn2an_part(part: str) -> str | None:
    """One run of `_cn2an_parts` through cn2an; None when the library fails on it."""
    import cn2an

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # cn2an warns about runs it leaves alone (万一)
        try:
            return str(cn2an.transform(part, "cn2an"))
        except Exception:  # noqa: BLE001 - a library failure leaves the text as it was
            return None


def _script(text: str) -> str:
    return t2s(text) if has_cjk(text) else text


def _numerals(text: str) -> str:
    return cn2an_digits(text) if has_cjk(text) else text


_WIDE_STEPS = (
    ("script", _script),
    ("numerals", _numerals),
    ("", plain),  # width, case, 中文数字, spacing, separators, end punctuation (`textnorm.FOLDS`)
    ("第", lambda s: _ORDINAL.sub("", s) if s.startswith("第") else s),  # each regex asked only where it may match
    ("measure word", lambda s: _UNIT_AFTER_NUMBER.sub("", s) if s[-1:] in _UNITS else s),  # `plain` left no \n before `$`
)
WIDE_FOLDS: tuple[str, ...] = tuple(name for name, _ in _WIDE_STEPS if name)
"""What `wide_form` folds beyond `textnorm.plain`, as named in reasons."""


def _wide(text: str, skip: str | None = None) -> str:
    text = nfkc(text)
    for name, step in _WIDE_STEPS:
        if name != skip or not name:
            text = step(text)
    return text


@lru_cache(maxsize=131_072)
def wide_form(text: str) -> str:
    """`text` under the wider normalisation of `format` (module table)."""
    return _wide(text)


def wide_folds_needed(a: str, b: str) -> list[str]:
    """The folds of `WIDE_FOLDS` without which `a` and `b` would differ (for reasons)."""
    return [name for name in WIDE_FOLDS if _wide(a, name) != _wide(b, name)]


@lru_cache(maxsize=65_536)
def alternatives(gold: str) -> tuple[str, ...]:
    """The `/`-separated parts of a gold ("100多/100余项" → 100多, 100余项); () when it has none."""
    parts = [p.strip() for p in nfkc(gold).split("/")]
    return tuple(p for p in parts if p) if len(parts) > 1 and sum(bool(p) for p in parts) > 1 else ()


@lru_cache(maxsize=16_384)
def glued(a: str, b: str) -> bool:
    """Two adjacent chars of one Latin-script word (letters or digits, no CJK). Kept per pair of
    chars: every containment test asks it at both ends, of the few pairs a language has."""
    return bool(a and b and _WORD_CHAR.match(a) and _WORD_CHAR.match(b) and not has_cjk(a + b))


@lru_cache(maxsize=65_536)
def _fold(text: str) -> str:
    """Width and case folded, spacing collapsed (words stay countable, unlike `plain`)."""
    return " ".join(nfkc(text).casefold().split())


def remainder(outer: str, inner: str) -> str | None:
    """What `outer` says besides `inner`, when it contains `inner` written the same way and at
    word edges ("300" is not in "30,000", "Fran" not in "France"; 绍兴 is in 绍兴市); else None."""
    o, i = plain(outer), plain(inner)
    if not i or i not in o or o == i:
        return None
    for fold in (_fold, plain):  # `_fold` keeps spaces, so that English words can be counted
        o, i = fold(outer), fold(inner)
        at = o.find(i) if i else -1
        while at >= 0:
            end = at + len(i)
            if not glued(o[at - 1 : at], o[at : at + 1]) and not glued(o[end - 1 : end], o[end : end + 1]):
                return o[:at] + " " + o[end:]
            at = o.find(i, at + 1)
    return None


@lru_cache(maxsize=65_536)
def _compared(texts: tuple[str, ...], scorer: str | None) -> tuple[tuple[int, str, str, str, tuple[tuple[str, str], ...]], ...]:
    """Each text as `_equal` compares it: its index, stripped, in the scorer's form, in the wide
    form, and its alternatives with their wide forms. A text equal to an earlier one is left out
    (CMRC repeats golds: it would match only where the earlier one did). An item's golds meet every
    answer to the item: kept per gold tuple, apart from the per-string caches the stream of
    distinct answers turns over."""
    return tuple((k, t.strip(), scorer_form(t, scorer), wide_form(t), tuple((a, wide_form(a)) for a in alternatives(t)))
                 for k, t in enumerate(texts) if t not in texts[:k])


def _equal(answer: str, texts: Sequence[str], scorer: str | None) -> tuple[Relation, int, str | None] | None:
    """(same or format, index, alternative) of the first text the answer equals; None when none."""
    if not texts:
        return None
    compared = _compared(tuple(texts), scorer)
    mine = scorer_form(answer, scorer)
    bare = answer.strip()
    for k, text, form, _, _ in compared:
        if bare == text or (mine and mine == form):
            return Relation.SAME, k, None
    wide = wide_form(answer)
    if not wide:
        return None
    for k, _, _, text_wide, _ in compared:
        if wide == text_wide:
            return Relation.FORMAT, k, None
    for k, _, _, _, alts in compared:
        for alt, alt_wide in alts:
            if wide == alt_wide:
                return Relation.FORMAT, k, alt
    return None


def _partial(answer: str, golds: Sequence[str]) -> Equivalence | None:
    """The first gold (or alternative) the answer contains, else the first it lies inside: by
    `remainder`, else once both are widely normalised (Chinese text only: no word edges there).
    `remainder` finds nothing unless the plain forms contain one another, so it is asked only
    then, and the golds' forms are kept per gold tuple (`_parts`): most answers meet a gold in a
    few substring tests."""
    if not golds:
        return None
    mine, mine_wide = plain(answer), wide_form(answer)
    for contains in (True, False):
        for k, gold, forms in _parts(tuple(golds)):
            for part, form, wide in forms:
                if contains:
                    outer, inner, o, i, wo, wi = answer, part, mine, form, mine_wide, wide
                else:
                    outer, inner, o, i, wo, wi = part, answer, form, mine, wide, mine_wide
                if ((i and i in o and o != i and remainder(outer, inner) is not None)
                        or (wi and wi != wo and wi in wo and has_cjk(wo))):
                    return Equivalence(Relation.PARTIAL, k, gold, None if part == gold else part, contains)
    return None


@lru_cache(maxsize=65_536)
def _parts(golds: tuple[str, ...]) -> tuple[tuple[int, str, tuple[tuple[str, str, str], ...]], ...]:
    """What `_partial` compares of an item's golds, kept per gold tuple (every answer to the item
    meets them): each gold not equal to an earlier one (CMRC repeats golds: a repeat would fail as
    its first did) with its index, and its parts (itself, then its `/` alternatives) each with its
    `plain` and `wide_form`."""
    first = [k for k, gold in enumerate(golds) if gold not in golds[:k]]
    return tuple((k, golds[k], tuple((part, plain(part), wide_form(part)) for part in (golds[k], *alternatives(golds[k]))))
                 for k in first)


def relation(
    answer: str,
    golds: Sequence[str],
    *,
    scorer: str | None,
    superseded: Sequence[str] = (),
    aliases: Sequence[str] = (),
) -> Equivalence:
    """How `answer` relates to the scored `golds` (module table); never raises on any text."""
    if not answer or not answer.strip():
        return DIFFERENT
    found = _equal(answer, golds, scorer)
    if found is not None:
        rel, k, alt = found
        return Equivalence(rel, k, golds[k], alt)
    for rel, texts in ((Relation.ALIAS, aliases), (Relation.SUPERSEDED, superseded)):
        match = _equal(answer, texts, scorer) if texts else None
        if match is not None:
            return Equivalence(rel, match[1], texts[match[1]], match[2])
    return _partial(answer, golds) or DIFFERENT


def cache_clear() -> None:
    """Empty the per-text caches (normal forms, an item's golds as compared): `clear_score_caches`."""
    for cached in (wide_form, _fold, glued, _compared, _parts, alternatives, _cn2an_part):
        cached.cache_clear()
