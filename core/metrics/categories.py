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

The span rules are in `span_categories`. Every rule decides its code first and writes its reason
only when it is read (`category.Category`): a load stores the codes of hundreds of thousands of
predictions and reads none of their reasons.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import NamedTuple

from qa_inspect.core.errors import unknown_name

from . import cdqa, cmrc, squad
from .category import Category
from .equivalence import Equivalence, Relation, relation, remainder, wide_folds_needed, wide_form
from .registry import CDQA_F1_RECALL, CMRC_OFFICIAL, SCORERS, SQUAD_V2, SQUAD_V11, ScoreRow, score_prediction
from .segment import prepared
from .span_categories import Located, Span, amount, span_category
from .textnorm import folds_needed, has_cjk, plain

__all__ = ["CATEGORIES", "CATEGORY_CODES", "Category", "CategoryDef", "category_and_relation", "error_category", "cache_clear"]


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


def _order(best: int | None, n: int) -> list[int]:
    """Gold indexes, the scorer's best gold first, then the others in dataset order."""
    rest = [k for k in range(n) if k != best]
    return rest if best is None or not 0 <= best < n else [best, *rest]


class _Golds(NamedTuple):
    """An item's golds as the rules walk them, the scorer's best gold first (`_order`)."""

    order: tuple[int, ...]
    texts: tuple[str, ...]
    answerable: bool
    """Some gold is not blank."""
    located: tuple[Located, ...]


@lru_cache(maxsize=65_536)
def _golds_best_first(golds: tuple[str, ...], best: int | None, spans: tuple[Span | None, ...]) -> _Golds:
    """`_Golds` of an item, kept per (golds, best gold, located spans): every answer to the item
    walks the same few orders of the same golds."""
    order = tuple(_order(best, len(golds)))
    many = len(set(golds)) > 1
    return _Golds(order, tuple(golds[k] for k in order), any(g.strip() for g in golds),
                  tuple(Located(k, golds[k], spans[k] if k < len(spans) else None, many) for k in order))


def _golds_of(golds: Sequence[str], best: int | None, spans: Sequence[Span | None] | None) -> _Golds:
    key = (tuple(golds), best, tuple(spans or ()))
    try:
        return _golds_best_first(*key)
    except TypeError:  # a span given as a list: not a key, so not kept
        return _golds_best_first.__wrapped__(*key)


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
    found = _categorise(prediction, golds, passage, scorer, unanswerable, refused, gold_spans, score)[0]
    return Category(found.code, found.reason, found.gold)  # the reason written now, from the arguments as they are


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
    named, never the relation; `superseded` is tried only when no gold is the same or a format.
    The category's reason is written when first read (not at all by a load, which stores the code):
    `golds` must not change before then."""
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
        return Category("refused", lambda: _refusal_words(prediction)), None
    if score is None or score.scorer != scorer:
        score = score_prediction(scorer, prediction, golds, refusal_phrases=())
    seen = _golds_of(golds, score.best_gold, gold_spans)
    order = seen.order
    if score.em == 1 or (scorer == CDQA_F1_RECALL and _cdqa_exact(prediction, golds)):
        k = order[0] if order else None
        return Category("exact", lambda: "full credit: " + ("no answer, as the item has none" if k is None
                                                            else f"{_gold_name(golds, k)} as the scorer reads it"), k), None
    if unanswerable or not seen.answerable:
        return _unanswerable(prediction, scorer), None
    if _blank(prediction, scorer):
        code = "false-abstain" if scorer == SQUAD_V2 else "empty"
        return Category(code, lambda: f"no answer ({_blank_words(prediction)}) to an answerable question"), None
    eq = relation(prediction, seen.texts, scorer=scorer)  # best gold first
    k = order[eq.index] if eq.index is not None else None
    if k is not None and eq.relation in (Relation.SAME, Relation.FORMAT):
        j = k
        return Category("format-only", lambda: f"{_gold_name(golds, j)} written differently ({_folds(prediction, eq)}); "
                        f"scored {_scored(scorer, _gold_score(scorer, prediction, golds[j]))}", j), eq
    if passage and passage.strip() and scorer != CDQA_F1_RECALL:
        return span_category(prediction, passage, seen.located), eq
    return _llm_category(prediction, golds, scorer, order, eq), eq


def _refusal_words(prediction: str) -> str:
    said = [p for p in cdqa.DEFAULT_REFUSAL_PHRASES if p in prediction]
    return f"a refusal ({said[0]})" if said else "a refusal (flagged by the run)"


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
        return Category("empty", lambda: f"no answer ({_blank_words(prediction)}), as the item has none, "
                        f"but {scorer} gives no credit for it")
    return Category("false-answer", "an answer to a question that has no answer")


def _llm_category(prediction: str, golds: Sequence[str], scorer: str, order: Sequence[int], eq: Equivalence) -> Category:
    """verbose-contains-gold, partial or wrong: an answer judged as text, not as a span (`eq`:
    its relation to the golds, best gold first)."""
    if eq.relation == Relation.PARTIAL and eq.index is not None:
        j = order[eq.index]
        return Category("verbose-contains-gold" if eq.contains else "partial",
                        lambda: _part_words(prediction, golds, scorer, j, eq), j)
    if not order:
        return Category("wrong", "shares nothing with any gold")
    k = order[0]
    value = _gold_score(scorer, prediction, golds[k])
    if value > 0.5:
        return Category("partial", lambda: f"shares most words with {_gold_name(golds, k)}: "
                        f"scored {_scored(scorer, value)}", k)
    if value > 0:
        return Category("wrong", lambda: f"shares little with any gold: scored {_scored(scorer, value)} "
                        f"against {_gold_name(golds, k)}", k)
    return Category("wrong", "shares nothing with any gold")


def _part_words(prediction: str, golds: Sequence[str], scorer: str, j: int, eq: Equivalence) -> str:
    """The reason of verbose-contains-gold / partial: what the answer has besides gold j, or lacks of it."""
    cjk = has_cjk(prediction) or any(has_cjk(g) for g in golds)
    part = eq.alternative or golds[j]
    outer, inner = (prediction, part) if eq.contains else (part, prediction)
    rest = remainder(outer, inner)
    if rest is None:  # a part only once both are widely normalised
        rest = wide_form(outer).replace(wide_form(inner), " ", 1)
    scored = _scored(scorer, _gold_score(scorer, prediction, golds[j]))
    if eq.contains:
        return f"contains {_gold_name(golds, j)} plus {amount(rest, cjk)} of other text; scored {scored}"
    return f"a part of {_gold_name(golds, j)}, {amount(rest, cjk)} missing; scored {scored}"


def cache_clear() -> None:
    """Empty the cache of items' golds best first: `clear_score_caches`."""
    _golds_best_first.cache_clear()
