"""Why a prediction is wrong: exactly one error category per prediction, with the reason in words.

A score says *that* an answer is wrong; a category says *how*, in groups that can be counted,
filtered and compared across runs. `error_category` is a pure function of the prediction, the
golds, the passage (None when there is none) and the scorer; the first rule that applies wins.

| code | runs | the prediction … |
|---|---|---|
| `exact` | all | gets full credit: EM 1 (span scorers: `exact` iff EM = 1), or the gold with F1-recall 1 |
| `refused` | LLM | is a refusal (the CDQA phrases, or the stored `refused` flag) |
| `empty` | all | is empty once the scorer normalises it (`""`, `"。"`, `"the"`) |
| `false-abstain` | span | is empty on an answerable question under `squad-v2`, where "no answer" is an answer |
| `false-answer` | span | answers a question that has no answer |
| `format-only` | all | is a gold written differently (`equivalence.relation` same/format: width, case, 中文数字, 繁/简, 第, measure words, spacing, end punctuation), scored less |
| `not-in-passage` | span | does not occur in the passage: generated, not extracted |
| `boundary-long` | span | contains the gold and more |
| `boundary-short` | span | lies inside the gold |
| `boundary-shifted` | span | overlaps the gold, neither containing the other |
| `wrong-span-same-sentence` | span | is another span of the sentence that holds the gold |
| `wrong-span-other-sentence` | span | is a span of another sentence |
| `verbose-contains-gold` | LLM | contains the gold inside a longer answer (`equivalence.relation` partial, containing) |
| `partial` | LLM | is a part of a gold (`equivalence.relation` partial), or shares most of it (F1 or F1-recall > 0.5) |
| `wrong` | LLM | shares nothing or little (≤ 0.5) with any gold |

Span rules apply when the scorer is a span scorer (`cmrc2018-official`, `squad-v1.1`,
`squad-v2`) and the passage is known; `cdqa-f1-recall`, or a span scorer without a passage, takes
the LLM rules. Which gold: the best-scoring gold first, then the others; a relation to any gold
counts. Positions: the gold's located span when given (`gold_spans`, as the store keeps them),
else every occurrence of its text; the prediction's occurrence nearest the gold. Whether the
prediction is "in the passage" is tested exactly, then ignoring case and spacing, then without
punctuation at its ends. Sentences: `sentences.split_sentences` (Chinese and English).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

from qa_inspect.core.errors import unknown_name

from . import cdqa, cmrc, squad
from .registry import CDQA_F1_RECALL, CMRC_OFFICIAL, SCORERS, SQUAD_V2, SQUAD_V11, ScoreRow, score_prediction
from .segment import prepared
from .equivalence import Equivalence, Relation, glued, relation, remainder, wide_folds_needed, wide_form
from .sentences import sentence_of, split_sentences
from .textnorm import content_units, folds_needed, has_cjk, plain, strip_ends

__all__ = ["CATEGORIES", "CATEGORY_CODES", "Category", "CategoryDef", "category_and_relation", "error_category"]


class CategoryDef(NamedTuple):
    """One row of the category table: its code, the runs it applies to and what it means."""

    code: str
    runs: str
    description: str


CATEGORIES: tuple[CategoryDef, ...] = (
    CategoryDef("exact", "all", "full credit: EM 1, or the gold itself with F1-recall 1"),
    CategoryDef("refused", "llm", "a refusal (CDQA phrases or the stored refused flag)"),
    CategoryDef("empty", "all", "empty once the scorer normalises it"),
    CategoryDef("false-abstain", "span", "no answer to an answerable question (squad-v2)"),
    CategoryDef("false-answer", "span", "an answer to a question that has none"),
    CategoryDef("format-only", "all", "the gold written differently (width, 中文数字, 繁/简, 第, measure word, punctuation, case)"),
    CategoryDef("not-in-passage", "span", "not a span of the passage: generated, not extracted"),
    CategoryDef("boundary-long", "span", "contains the gold and more"),
    CategoryDef("boundary-short", "span", "inside the gold"),
    CategoryDef("boundary-shifted", "span", "overlaps the gold, neither containing the other"),
    CategoryDef("wrong-span-same-sentence", "span", "another span of the gold's sentence"),
    CategoryDef("wrong-span-other-sentence", "span", "a span of another sentence"),
    CategoryDef("verbose-contains-gold", "llm", "the gold inside a longer answer"),
    CategoryDef("partial", "llm", "a part of a gold, or most of it (F1 / F1-recall > 0.5)"),
    CategoryDef("wrong", "llm", "little or nothing in common with any gold"),
)
CATEGORY_CODES: tuple[str, ...] = tuple(c.code for c in CATEGORIES)


@dataclass(frozen=True, slots=True)
class Category:
    """An error category: its code (one of `CATEGORY_CODES`), the reason in words, and the index
    of the gold the reason speaks of (None when no gold is involved)."""

    code: str
    reason: str
    gold: int | None = None


def _order(best: int | None, n: int) -> list[int]:
    """Gold indexes, the scorer's best gold first, then the others in dataset order."""
    rest = [k for k in range(n) if k != best]
    return rest if best is None or not 0 <= best < n else [best, *rest]


def _gold_score(scorer: str, prediction: str, gold: str) -> float:
    """The scorer's F1 (F1-recall for CDQA) of the prediction against one gold."""
    if scorer == CMRC_OFFICIAL:
        return cmrc.score(prediction, [gold]).f1
    if scorer == SQUAD_V11:
        return squad.compute_f1_v11(prediction, gold)
    if scorer == SQUAD_V2:
        return squad.compute_f1_v2(gold, prediction) if squad.normalize_answer(gold) else 0.0
    return cdqa.per_gold(prediction, [gold])[0]


def _scored(scorer: str, value: float) -> str:
    return f"F1-recall {value:.2f}" if scorer == CDQA_F1_RECALL else f"EM 0, F1 {value:.2f}"


def _blank(prediction: str, scorer: str) -> bool:
    """Nothing left once the scorer normalises the prediction."""
    if scorer in (SQUAD_V11, SQUAD_V2):
        return squad.normalize_answer(prediction) == ""
    if scorer == CMRC_OFFICIAL:
        return prepared(prediction).em_text.strip() == ""  # cached by scoring
    return prediction.strip() == "" or not cdqa.tokens(prediction)


def _blank_words(prediction: str) -> str:
    if prediction == "":
        return "an empty string"
    if prediction.strip() == "":
        return "only whitespace"
    return "nothing the scorer counts"


def _gold_name(golds: Sequence[str], k: int) -> str:
    return "the gold" if len(set(golds)) == 1 else f"gold {k + 1}"


def error_category(
    prediction: str,
    golds: Sequence[str],
    passage: str | None,
    scorer: str,
    *,
    unanswerable: bool = False,
    refused: bool | None = None,
    gold_spans: Sequence[tuple[int, int] | None] | None = None,
    score: ScoreRow | None = None,
) -> Category:
    """The one error category of `prediction` (see the module table).

    `golds` are the scored golds (superseded ones left out), `gold_spans[k]` gold k's
    [start, end) in `passage` when known, `refused` the stored refusal (None: CDQA's phrases
    decide under `cdqa-f1-recall`), `score` the prediction's stored score with this scorer
    (None: scored here). An item without a non-blank gold counts as unanswerable."""
    return _categorise(prediction, golds, passage, scorer, unanswerable, refused, gold_spans, score)[0]


def category_and_relation(
    prediction: str,
    golds: Sequence[str],
    passage: str | None,
    scorer: str,
    *,
    unanswerable: bool = False,
    refused: bool | None = None,
    gold_spans: Sequence[tuple[int, int] | None] | None = None,
    score: ScoreRow | None = None,
    superseded: Sequence[str] = (),
) -> tuple[Category, Relation]:
    """`error_category` and `relation(prediction, golds, superseded=superseded)` together, asking
    the relation once (what a load stores for every prediction). The category asks it of the golds
    best first; `relation` tries every gold at each step, so the order changes only which gold is
    named, never the relation; `superseded` is tried only when no gold is the same or a format."""
    category, eq = _categorise(prediction, golds, passage, scorer, unanswerable, refused, gold_spans, score)
    if eq is None or (superseded and eq.relation not in (Relation.SAME, Relation.FORMAT)):
        eq = relation(prediction, golds, scorer=scorer, superseded=superseded)
    return category, eq.relation


def _categorise(
    prediction: str,
    golds: Sequence[str],
    passage: str | None,
    scorer: str,
    unanswerable: bool,
    refused: bool | None,
    gold_spans: Sequence[tuple[int, int] | None] | None,
    score: ScoreRow | None,
) -> tuple[Category, Equivalence | None]:
    """The category, and the relation to the golds best first when the rules asked it."""
    if scorer not in SCORERS:
        raise ValueError(unknown_name("scorer", scorer, SCORERS))
    if refused is None:
        refused = scorer == CDQA_F1_RECALL and cdqa.is_refusal(prediction)
    if refused:
        said = [p for p in cdqa.DEFAULT_REFUSAL_PHRASES if p in prediction]
        return Category("refused", f"a refusal ({said[0]})" if said else "a refusal (flagged by the run)"), None
    if score is None or score.scorer != scorer:
        score = score_prediction(scorer, prediction, golds, refusal_phrases=())
    order = _order(score.best_gold, len(golds))
    if score.em == 1 or (scorer == CDQA_F1_RECALL and _cdqa_exact(prediction, golds)):
        k = order[0] if order else None
        what = "no answer, as the item has none" if k is None else f"{_gold_name(golds, k)} as the scorer reads it"
        return Category("exact", f"full credit: {what}", k), None
    if unanswerable or not any(g.strip() for g in golds):
        return _unanswerable(prediction, scorer), None
    if _blank(prediction, scorer):
        code = "false-abstain" if scorer == SQUAD_V2 else "empty"
        return Category(code, f"no answer ({_blank_words(prediction)}) to an answerable question"), None
    eq = relation(prediction, [golds[k] for k in order], scorer=scorer)  # best gold first
    k = order[eq.index] if eq.index is not None else None
    if k is not None and eq.relation in (Relation.SAME, Relation.FORMAT):
        return Category("format-only", f"{_gold_name(golds, k)} written differently ({_folds(prediction, eq)}); "
                        f"scored {_scored(scorer, _gold_score(scorer, prediction, golds[k]))}", k), eq
    if passage and passage.strip() and scorer != CDQA_F1_RECALL:
        spans = list(gold_spans or ())
        many = len(set(golds)) > 1
        located = [_Gold(k, golds[k], spans[k] if k < len(spans) else None, f"gold {k + 1}" if many else "the gold")
                   for k in order]
        return _span_category(prediction, passage, located), eq
    return _llm_category(prediction, golds, scorer, order, eq), eq


def _folds(prediction: str, eq: Equivalence) -> str:
    """The folds that make the prediction the gold, in words (for the format-only reason)."""
    if eq.alternative is not None:
        return f"one of its / alternatives, {eq.alternative}"
    gold = eq.text or ""
    if plain(gold) == plain(prediction):
        return ", ".join(folds_needed(prediction, gold)) or "Unicode forms"
    return ", ".join(wide_folds_needed(prediction, gold)) or "Unicode forms"


def _cdqa_exact(prediction: str, golds: Sequence[str]) -> bool:
    """CDQA full credit for the gold itself: F1-recall 1 and the same text as the scorer sees
    it (its tokens) or written the same way. Extra words with recall 1 are verbose, not exact."""
    pred_tokens = cdqa.tokens(prediction)
    return any(
        s == 1.0 and (cdqa.tokens(g) == pred_tokens or plain(g) == plain(prediction))
        for g, s in zip(golds, cdqa.per_gold(prediction, golds))
    )


def _unanswerable(prediction: str, scorer: str) -> Category:
    """The item has no answer and the prediction did not get full credit for saying so."""
    if _blank(prediction, scorer):
        return Category("empty", f"no answer ({_blank_words(prediction)}), as the item has none, "
                        f"but {scorer} gives no credit for it")
    return Category("false-answer", "an answer to a question that has no answer")


def _llm_category(prediction: str, golds: Sequence[str], scorer: str, order: list[int], eq: Equivalence) -> Category:
    """verbose-contains-gold, partial or wrong: an answer judged as text, not as a span (`eq`:
    its relation to the golds, best gold first)."""
    cjk = has_cjk(prediction) or any(has_cjk(g) for g in golds)
    if eq.relation == Relation.PARTIAL and eq.index is not None:
        j = order[eq.index]
        part = eq.alternative or golds[j]
        outer, inner = (prediction, part) if eq.contains else (part, prediction)
        rest = remainder(outer, inner)
        if rest is None:  # a part only once both are widely normalised
            rest = wide_form(outer).replace(wide_form(inner), " ", 1)
        scored = _scored(scorer, _gold_score(scorer, prediction, golds[j]))
        if eq.contains:
            return Category("verbose-contains-gold", f"contains {_gold_name(golds, j)} plus "
                            f"{_amount(rest, cjk)} of other text; scored {scored}", j)
        return Category("partial", f"a part of {_gold_name(golds, j)}, {_amount(rest, cjk)} missing; scored {scored}", j)
    if not order:
        return Category("wrong", "shares nothing with any gold")
    k = order[0]
    value = _gold_score(scorer, prediction, golds[k])
    if value > 0.5:
        return Category("partial", f"shares most words with {_gold_name(golds, k)}: scored {_scored(scorer, value)}", k)
    if value > 0:
        return Category("wrong", f"shares little with any gold: scored {_scored(scorer, value)} "
                        f"against {_gold_name(golds, k)}", k)
    return Category("wrong", "shares nothing with any gold")


# --- span runs: where the prediction sits in the passage relative to the gold ------------------

Span = tuple[int, int]
_WORD_CHAR = re.compile(r"[^\W_]")  # as `equivalence.glued`
_WORDS = re.compile(r"[^\W_]+")


class _Gold(NamedTuple):
    gold_index: int
    text: str
    span: Span | None
    name: str


def _amount(text: str, cjk: bool) -> str:
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


def _occurrences(passage: str, text: str, limit: int = 64) -> list[Span]:
    """Where `text` occurs in `passage`: every exact occurrence (whole words preferred), else
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
    return _occurrences(passage, core, limit) if core and core != text else []


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


def _span_category(prediction: str, passage: str, golds: list[_Gold]) -> Category:
    """not-in-passage, boundary-*, or wrong-span-* (golds best first)."""
    preds = _occurrences(passage, prediction)
    if not preds:
        return _not_in_passage(prediction, golds)
    cjk = has_cjk(passage)
    found: list[tuple[_Gold, list[Span]]] = []
    seen: set[tuple[str, Span | None]] = set()
    for g in golds:
        if (g.text, g.span) in seen:
            continue  # CMRC repeats golds: the first of equal golds speaks for them
        seen.add((g.text, g.span))
        occs = [g.span] if g.span is not None else _occurrences(passage, g.text)
        found.append((g, occs))
        pairs = [(min(p[1], o[1]) - max(p[0], o[0]), p, o) for p in preds for o in occs]
        best = max(pairs, default=None)
        if best is not None and best[0] > 0:
            return _boundary(passage, best[1], best[2], g, cjk)
        related = _text_relation(prediction, g, cjk)
        if related is not None:
            return related
    return _sentence_category(passage, preds, found, cjk)


def _not_in_passage(prediction: str, golds: list[_Gold]) -> Category:
    pred = plain(prediction)
    note = ""
    for g in golds:
        gold = plain(g.text)
        if gold and gold in pred:
            note = f"; it contains {g.name}"
            break
        if pred and pred in gold:
            note = f"; it is a part of {g.name}"
            break
    return Category("not-in-passage", f"does not occur in the passage (generated, not extracted){note}",
                    golds[0].gold_index if golds else None)


def _boundary(passage: str, p: Span, g: Span, gold: _Gold, cjk: bool) -> Category:
    """boundary-long / -short / -shifted from the two overlapping spans."""
    (ps, pe), (gs, ge) = p, g
    if not cjk:  # a cut inside a word is counted in characters
        cjk = not (_whole_word(passage, ps, pe) and _whole_word(passage, gs, ge))
    if (ps, pe) == (gs, ge):
        return Category("boundary-shifted", f"the passage span of {gold.name}, but {gold.name} is "
                        "written differently from the passage there", gold.gold_index)
    if ps <= gs and pe >= ge:
        parts = [f"{_amount(passage[ps:gs], cjk)} before" if ps < gs else "",
                 f"{_amount(passage[ge:pe], cjk)} after" if pe > ge else ""]
        return Category("boundary-long", f"contains {gold.name} plus {' and '.join(x for x in parts if x)} it",
                        gold.gold_index)
    if ps >= gs and pe <= ge:
        parts = [f"{_amount(passage[gs:ps], cjk)} at its start" if ps > gs else "",
                 f"{_amount(passage[pe:ge], cjk)} at its end" if pe < ge else ""]
        return Category("boundary-short", f"inside {gold.name}, missing {' and '.join(x for x in parts if x)}",
                        gold.gold_index)
    if ps < gs:
        how = (f"starts {_amount(passage[ps:gs], cjk)} before it and stops {_amount(passage[pe:ge], cjk)} "
               "short of its end")
    else:
        how = f"starts {_amount(passage[gs:ps], cjk)} into it and runs {_amount(passage[ge:pe], cjk)} past its end"
    return Category("boundary-shifted", f"overlaps {gold.name}: {how}", gold.gold_index)


def _text_relation(prediction: str, gold: _Gold, cjk: bool) -> Category | None:
    """Containment by text when the spans do not meet (the gold's text found elsewhere, or a
    gold that is not a passage span at all)."""
    where = "where the passage repeats it" if gold.span is not None else "by its text"
    rest = remainder(prediction, gold.text)
    if rest is not None:
        return Category("boundary-long", f"contains {gold.name} ({where}) plus {_amount(rest, cjk)}", gold.gold_index)
    rest = remainder(gold.text, prediction)
    if rest is not None:
        return Category("boundary-short", f"inside {gold.name} ({where}), missing {_amount(rest, cjk)}", gold.gold_index)
    return None


def _sentence_category(
    passage: str, preds: list[Span], found: list[tuple[_Gold, list[Span]]], cjk: bool
) -> Category:
    """wrong-span-same-sentence / -other-sentence: the prediction's sentence against the gold's
    (the closest pair of occurrences decides)."""
    total = len(split_sentences(passage))
    pairs = [(abs(p[0] - o[0]), p, o, g) for g, occs in found for o in occs for p in preds]
    if not pairs:
        return _sentence_by_words(passage, preds[0], found[0][0], total)
    _, p, o, g = min(pairs, key=lambda t: t[0])
    gold_sents = sentence_of(passage, *o)
    pred_sents = sentence_of(passage, *p)
    if set(pred_sents) & set(gold_sents):
        gap = (f"{_amount(passage[p[1]:o[0]], cjk)} before it" if p[1] <= o[0]
               else f"{_amount(passage[o[1]:p[0]], cjk)} after it")
        return Category("wrong-span-same-sentence", f"another span of sentence {gold_sents[0] + 1} of {total}, "
                        f"which holds {g.name}: {gap}", g.gold_index)
    return Category("wrong-span-other-sentence", f"a span of sentence {pred_sents[0] + 1} of {total}; "
                    f"{g.name} is in sentence {gold_sents[0] + 1}", g.gold_index)


def _sentence_by_words(passage: str, p: Span, g: _Gold, total: int) -> Category:
    """For a gold that is no passage span, its sentence is the one sharing most words with it."""
    units = content_units(g.text)
    shared = [len(units & content_units(passage[a:b])) for a, b in split_sentences(passage)]
    pred_sents = sentence_of(passage, *p)
    if not shared or max(shared) == 0:
        return Category("wrong-span-other-sentence", f"a span of sentence {pred_sents[0] + 1} of {total}; "
                        f"{g.name} is not in the passage and shares no words with it", g.gold_index)
    near = shared.index(max(shared))
    if near in pred_sents:
        return Category("wrong-span-same-sentence", f"another span of sentence {near + 1} of {total}, the one "
                        f"closest to {g.name} (which is not a passage span)", g.gold_index)
    return Category("wrong-span-other-sentence", f"a span of sentence {pred_sents[0] + 1} of {total}; "
                    f"{g.name} is not a passage span, its words are in sentence {near + 1}", g.gold_index)
