"""Question and item features: on which questions does a model fail?

Pure functions of the question, its golds and its passage; every value is a short string (or a
count, or a yes/no) so that it can be a facet and a `report --by` dimension.

- `question_type`: the interrogative, Chinese or English (a total function: `other` when none).

  | type | Chinese | English |
  |---|---|---|
  | `who` | 谁, 何人, 哪位, 什么人 | who, whom, whose |
  | `when` | 何时, 什么时候, 哪一年, 哪年, 哪天, 几月, 什么年代 … | when; what/which year, century, date … |
  | `where` | 哪里, 哪儿, 何处, 何地, 什么地方, 在哪 | where |
  | `why` | 为什么, 为何, 因何而, 什么原因 | why |
  | `how` | 怎么, 怎样, 如何 | how |
  | `how-many` | 多少, 几, 多大, 多长, 多久, 多高, 多远 … | how many, how much, how long, how old … |
  | `which` | 哪, 哪个, 哪些, 何种 | which |
  | `what` | 什么, 啥, 有何, 何事; …是？ at the end | what |
  | `yes-no` | 是否, 是不是, 有没有, 能否; …吗？ …么？ …不？ at the end | is/are/was/did/can … at the start, no wh-word |

  The Chinese interrogative that comes first decides, the longest at that place (什么时候
  before 什么, 为什么 before 什么); a question without one is read for English ones, so
  "Do As Infinity的主唱是谁？" is `who`; 几乎, 几何, 茶几, 几内亚 and 哪吒 are no interrogatives,
  名为什么 / 称为什么 ask "what" (为 belongs to the verb), 在哪个城市 asks "which".
- `gold_length` (of the first gold), `passage_length`: buckets of *units*, a unit being a CJK
  character or a word of another script (`1-2`, `3-5`, `6-10`, `11-20`, `21+`; passages
  `0-100`, `101-200`, `201-400`, `401-800`, `801+`; a gold of no unit, e.g. only punctuation, is `0`).
- `answer_position`: where the first gold found in the passage starts, by quarter (`0-25%` …).
- `gold_count` and `gold_agreement`: `none`, `one`, `agree` (all written the same way),
  `nested` (all lie inside the longest: 30厘米 / 肩高只有30厘米), `differ`.
- `cross_sentence`: the sentence that best overlaps the question (CJK bigrams and content words,
  `textnorm.content_units`, the question's interrogative left out) is not a sentence holding the
  gold: the property that defines the CMRC 2018 challenge set. A tie counts as the same sentence.
- `question_overlap`: the share of the question's units found in the gold's sentence: `none`,
  `low` (< 1/3), `medium` (< 2/3), `high`.

Values that cannot be told (no passage, no gold found in it, a question without content
units) are None.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from .align import find_in_context
from .sentences import sentence_of, split_sentences
from .textnorm import content_units, plain

__all__ = [
    "GOLD_LENGTHS",
    "PASSAGE_LENGTHS",
    "QUESTION_TYPES",
    "QuestionFeatures",
    "gold_length",
    "question_features",
    "question_type",
    "text_units",
    "cache_clear",
]

QUESTION_TYPES: tuple[str, ...] = ("who", "what", "which", "when", "where", "why", "how", "how-many", "yes-no", "other")

_ZH_WORDS: dict[str, tuple[str, ...]] = {
    "who": ("谁", "何人", "哪位", "哪些人", "什么人"),
    "when": ("什么时候", "什么时间", "何时", "何年", "哪一年", "哪年", "哪一天", "哪天", "哪个月", "几月", "几号",
             "几点", "什么年代", "哪个年代", "哪一时期", "哪个时期", "哪个朝代"),
    "where": ("哪里", "哪儿", "何处", "何地", "什么地方", "哪个地方", "在哪"),
    "why": ("为什么", "为何", "何故", "因何而", "什么原因"),
    "how": ("怎么", "怎样", "如何"),
    "how-many": ("多少", "几", "多大", "多长", "多久", "多高", "多远", "多重", "多深", "多宽", "多厚"),
    "yes-no": ("是否", "是不是", "有没有", "能否", "可否"),
    "which": ("哪", "何种"),
    "what": ("什么", "啥", "有何", "是何", "何为", "何事"),
}
_ZH_NOT = {
    "几": "(?<!茶)几(?![乎何内])",
    "哪": "哪(?!吒)",
    "为什么": "(?<![名称作成视改译分变定列设选评认誉命封更])为什么",  # 名为什么 is "named what"
    "在哪": "在哪(?![个些一家所部项位种类届次座条支款只名])",  # 在哪个城市 is "in which city"
}
_ZH_END = (re.compile(r"(?:吗|么|不|没有)\s*[？?]?\s*$"), "yes-no"), (re.compile(r"(?:是|为)\s*[？?]\s*$"), "what")
_ZH_TYPE = {w: t for t, words in _ZH_WORDS.items() for w in words}
_ZH_RE = re.compile("|".join(_ZH_NOT.get(w, re.escape(w)) for w in sorted(_ZH_TYPE, key=len, reverse=True)))
_EN_TIME = r"(?:year|years|century|centuries|decade|date|day|month|time|period|era|age)"
_EN_RE = re.compile(
    rf"\b(?:(?P<howmany>how (?:many|much|long|old|far|large|big|tall|often|high))|(?P<when>(?:what|which) {_EN_TIME})"
    r"|(?P<wh>who|whom|whose|what|which|when|where|why|how))\b",
    re.IGNORECASE,
)
_EN_YES_NO = re.compile(r"^\W*(?:is|are|was|were|do|does|did|can|could|will|would|has|have|had|should|shall|may|"
                        r"might|must|isn't|aren't|wasn't|weren't|don't|doesn't|didn't)\b", re.IGNORECASE)
_WH_TYPE = {"whom": "who", "whose": "who"}
_UNIT = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]|[^\W_\u3400-\u9fff\uf900-\ufaff]+")


def _zh_type(question: str) -> tuple[int, str] | None:
    m = _ZH_RE.search(question)
    if m is not None:
        return m.start(), _ZH_TYPE[m.group()]
    for pattern, kind in _ZH_END:
        end = pattern.search(question)
        if end is not None:
            return end.start(), kind
    return None


def _en_type(question: str) -> tuple[int, str] | None:
    m = _EN_RE.search(question)
    if m is None:
        return (0, "yes-no") if _EN_YES_NO.match(question) else None
    if m.group("howmany"):
        return m.start(), "how-many"
    if m.group("when"):
        return m.start(), "when"
    word = m.group("wh").lower()
    return m.start(), _WH_TYPE.get(word, word)


def question_type(question: str) -> str:
    """The question's type (one of `QUESTION_TYPES`): its first Chinese interrogative, else its
    first English one (so an English title inside a Chinese question does not decide)."""
    found = _zh_type(question) or _en_type(question)
    return found[1] if found else "other"


def text_units(text: str) -> int:
    """Length in units: CJK characters and words of other scripts ("1916年" is 2, "in France" 2)."""
    return len(_UNIT.findall(text))


def _bucket(n: int, edges: Sequence[int], low: int) -> str:
    """The label of the bucket holding n: edges (2, 5) from 1 give 1-2, 3-5, 6+ (below `low`: "0")."""
    if n < low:
        return "0"
    for edge in edges:
        if n <= edge:
            return f"{low}-{edge}"
        low = edge + 1
    return f"{low}+"


def _labels(edges: Sequence[int], low: int) -> tuple[str, ...]:
    """Every label `_bucket` gives with these edges, in order ("0" first when `low` is above 0)."""
    return tuple(dict.fromkeys(_bucket(n, edges, low) for n in range(0, edges[-1] + 2)))


_GOLD_EDGES = (2, 5, 10, 20)
_PASSAGE_EDGES = (100, 200, 400, 800)
GOLD_LENGTHS: tuple[str, ...] = _labels(_GOLD_EDGES, 1)
"""The gold-length buckets in order ("0", "1-2" … "21+"): the one binning of a gold's length, which
the item detail, the facet panel, exports and `report --by gold_length` all show."""
PASSAGE_LENGTHS: tuple[str, ...] = _labels(_PASSAGE_EDGES, 0)
"""The passage-length buckets in order ("0-100" … "801+")."""


def gold_length(golds: Sequence[str]) -> str | None:
    """The length bucket of the first non-blank gold, in units (None: no gold)."""
    texts = [g for g in golds if g.strip()]
    return _bucket(text_units(texts[0]), _GOLD_EDGES, 1) if texts else None


@dataclass(frozen=True, slots=True)
class QuestionFeatures:
    """What an item is like, as facet values (see the module docstring for each)."""

    question_type: str
    gold_length: str | None
    passage_length: str | None
    answer_position: str | None
    gold_count: int
    gold_agreement: str
    cross_sentence: bool | None
    question_overlap: str | None


def _agreement(golds: Sequence[str]) -> str:
    forms = [plain(g) for g in golds if g.strip()]
    if not forms:
        return "none"
    if len(forms) == 1:
        return "one"
    if len(set(forms)) == 1:
        return "agree"
    longest = max(forms, key=len)
    return "nested" if all(f in longest for f in forms) else "differ"


def _first_span(
    golds: Sequence[str], passage: str, gold_spans: Sequence[tuple[int, int] | None] | None
) -> tuple[int, int] | None:
    """The first gold's place in the passage: as given, else found by its text."""
    spans = list(gold_spans or ())
    for k, gold in enumerate(golds):
        span = spans[k] if k < len(spans) else None
        if span is None and gold.strip():
            span = find_in_context(passage, gold)
        if span is not None:
            return span
    return None


def _position(span: tuple[int, int], passage: str) -> str:
    quarter = min(3, 4 * span[0] // max(1, len(passage)))
    return f"{25 * quarter}-{25 * quarter + 25}%"


@lru_cache(maxsize=1024)
def _sentence_units(passage: str) -> tuple[frozenset[str], ...]:
    """Content units of each sentence, once per passage (passages are shared by many questions)."""
    return tuple(content_units(passage[a:b]) for a, b in split_sentences(passage))


@lru_cache(maxsize=1024)
def _passage_units(passage: str) -> int:
    return text_units(passage)


def _overlap(question: str, passage: str, span: tuple[int, int]) -> tuple[bool | None, str | None]:
    """(cross_sentence, question_overlap) for the gold at `span` (see the module docstring)."""
    units = content_units(_ZH_RE.sub(" ", question))
    if not units:
        return None, None
    shared = [len(units & sentence) for sentence in _sentence_units(passage)]
    at_gold = max(shared[k] for k in sentence_of(passage, *span))
    ratio = at_gold / len(units)
    share = "none" if ratio == 0 else "low" if ratio < 1 / 3 else "medium" if ratio < 2 / 3 else "high"
    cross = None if max(shared) == 0 else at_gold < max(shared)
    return cross, share


def question_features(
    question: str,
    golds: Sequence[str],
    passage: str | None = None,
    *,
    gold_spans: Sequence[tuple[int, int] | None] | None = None,
) -> QuestionFeatures:
    """All features of one item; `golds` the scored golds in dataset order, `gold_spans[k]` gold
    k's [start, end) in `passage` when known (else found by text)."""
    texts = [g for g in golds if g.strip()]
    span = _first_span(golds, passage, gold_spans) if passage else None
    cross, share = _overlap(question, passage, span) if passage and span else (None, None)
    return QuestionFeatures(
        question_type=question_type(question),
        gold_length=gold_length(texts),
        passage_length=_bucket(_passage_units(passage), _PASSAGE_EDGES, 0) if passage else None,
        answer_position=_position(span, passage) if passage and span else None,
        gold_count=len(golds),
        gold_agreement=_agreement(golds),
        cross_sentence=cross,
        question_overlap=share,
    )


def cache_clear() -> None:
    """Empty the caches of passages' units: `clear_score_caches`."""
    _sentence_units.cache_clear()
    _passage_units.cache_clear()
