"""Do the runs agree on an answer that is not the gold? Pure (no I/O).

- **Normalisation** follows the run's scorer: CDQA (`cdqa-f1-recall`) compares jieba tokens
  without the dropped punctuation, SQuAD its `normalize_answer`, CMRC its `remove_punctuation`.
  Tokens the question already holds, and a few fillers ("是", "答案", "为"), are dropped first, so
  "澜州市最近开通的地铁线路是6号线。" and "6号线" are the same answer ("6号线").
- **Weights**: newer runs count more. A run dated `days` before the newest run weighs
  0.5 ** (days / HALF_LIFE_DAYS): the newest weighs 1, a run half a year older 0.5.
- **Against the gold**: each answer's relation to the item's golds (`core.metrics.relation`,
  stored at ingest; asked again here only with accepted aliases). Only `different` answers that
  also score below `DISAGREE_BELOW` (0.75: "蓉江新区" vs "章贡新区" shares one of two gold tokens,
  0.5) count toward a consensus on a new answer. A run that refused or gave nothing counts for none.
- **Consensus**: the group of same normalised answers with the largest total weight, when at
  least `MIN_AGREEING` (2) runs give it; its share is its weight over the weight of every run that
  answered or refused the item. Its `kind` says what the group is: `different` (a new answer:
  the one that ranks), else `superseded` (the runs still give an answer the dataset replaced),
  else `partial` (the runs cut the gold the same way, "郝" for 郝鹏). Same, format and alias
  answers never group. A group's normalised answer is asked too: "答案是同程音乐生活节。" is the
  replaced 同程音乐生活节 once the filler is gone. A partial answer that holds the gold
  ("答案是蓉江新区。") is the gold said at length, no cut.
- **Samples**: a run that sampled the item several times agrees through its official answer; the
  consensus also counts how many of the agreeing runs' samples give the answer ("8 of 8 samples").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import date

from qa_inspect.core.metrics import Relation, relation
from qa_inspect.core.metrics.cdqa import tokens as cdqa_tokens
from qa_inspect.core.metrics.segment import remove_punctuation
from qa_inspect.core.metrics.squad import normalize_answer

__all__ = [
    "with_sample_counts",
    "DISAGREE_BELOW",
    "HALF_LIFE_DAYS",
    "MIN_AGREEING",
    "Consensus",
    "ItemGolds",
    "RunAnswer",
    "consensus",
    "normalise",
    "run_weights",
]

DISAGREE_BELOW = 0.75
HALF_LIFE_DAYS = 180.0
MIN_AGREEING = 2
_FILLERS = frozenset({"是", "为", "答案", "答", "叫", "叫做", "：", ":", "了"})


@dataclass(frozen=True, slots=True)
class RunAnswer:
    """One run's answer to one item, with what the store computed for it."""

    run: str
    text: str
    score: float | None
    """F1-recall (CDQA) or F1 against the item's scored golds, 0–1; None for a refusal."""
    refused: bool
    weight: float = 1.0
    relation: str | None = None
    """Its relation to the item's golds as stored (`core.metrics.Relation` value); None: unknown,
    the score decides."""
    samples: tuple[str, ...] = ()
    """Every sample's answer when the run sampled the item several times (`text` is the official one)."""


@dataclass(frozen=True, slots=True)
class Consensus:
    """The answer most (weighted) runs give that is not the gold."""

    answer: str
    """The shortest answer text of the group, as a run wrote it (what the reasons show and the
    stale form proposes)."""
    key: str
    """The normalised answer the group shares ("6号线")."""
    runs: tuple[str, ...]
    count: int
    total: int
    """Runs that answered or refused the item."""
    share: float
    """Weighted share of `total` (0–1)."""
    kind: str = Relation.DIFFERENT.value
    """`different` (a new answer), `superseded` (the replaced answer) or `partial` (the same cut)."""
    replaced: str | None = None
    """For `superseded`: the replaced gold the runs give."""
    samples: int = 0
    """Of the agreeing runs that sampled the item: their samples giving the answer (same normalised form)."""
    sample_total: int = 0
    """... and all their samples (0: no agreeing run sampled the item)."""
    sampled_runs: int = 0


def normalise(text: str, scorer: str | None, question: str = "") -> str:
    """The answer as the scorer compares it, less what the question already says (see module doc)."""
    if scorer in (None, "cdqa-f1-recall"):
        asked = set(cdqa_tokens(question)) if question else set()
        kept = [t for t in cdqa_tokens(text) if t not in asked and t not in _FILLERS]
        return "".join(kept).lower()
    if scorer.startswith("squad"):
        asked_words = set(normalize_answer(question).split())
        return " ".join(w for w in normalize_answer(text).split() if w not in asked_words)
    return remove_punctuation(text)


def run_weights(dates: dict[str, date | None]) -> dict[str, float]:
    """Per run: 0.5 ** (days before the newest run / HALF_LIFE_DAYS); undated runs weigh 1."""
    known = [d for d in dates.values() if d is not None]
    newest = max(known) if known else None
    return {
        run: 1.0 if d is None or newest is None else 0.5 ** ((newest - d).days / HALF_LIFE_DAYS)
        for run, d in dates.items()
    }


_GROUPED = (Relation.DIFFERENT.value, Relation.SUPERSEDED.value, Relation.PARTIAL.value)


@dataclass(frozen=True, slots=True)
class ItemGolds:
    """What the answers of one item are judged against (`core.metrics.relation`)."""

    scored: tuple[str, ...] = ()
    superseded: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()


def _kind(a: RunAnswer, scorer: str | None, golds: ItemGolds) -> str | None:
    """The group an answer can join: different, superseded or partial; None for none."""
    if a.refused or not a.text.strip():
        return None
    rel = a.relation
    if golds.aliases:  # accepted aliases are the journal's: asked now, never stored
        rel = relation(a.text, golds.scored, scorer=scorer, superseded=golds.superseded,
                       aliases=golds.aliases).relation.value
    if rel is None:  # not stored: the score alone decides
        rel = Relation.DIFFERENT.value if a.score is None or a.score < DISAGREE_BELOW else Relation.SAME.value
    if rel == Relation.DIFFERENT.value and a.score is not None and a.score >= DISAGREE_BELOW:
        return None  # most of the gold is there
    if rel == Relation.PARTIAL.value and golds.scored and relation(a.text, golds.scored, scorer=scorer).contains:
        return None  # the gold said at length ("答案是蓉江新区。"): a right answer, no cut
    return rel if rel in _GROUPED else None


def _regrouped(kind: str, key: str, scorer: str | None, golds: ItemGolds) -> tuple[str | None, str | None]:
    """What a different group's normalised answer is: a gold, alias, replaced gold or part of a
    gold instead (the stored relation saw the fillers). Returns (kind or None to drop the group,
    the replaced gold)."""
    if not (golds.scored or golds.superseded):
        return kind, None
    eq = relation(key, golds.scored, scorer=scorer, superseded=golds.superseded, aliases=golds.aliases)
    if eq.relation == Relation.SUPERSEDED:
        return eq.relation.value, eq.text
    if eq.relation == Relation.DIFFERENT:
        return kind, None
    return (eq.relation.value if eq.relation == Relation.PARTIAL and not eq.contains else None), None


def consensus(
    answers: Sequence[RunAnswer], scorer: str | None, question: str = "", golds: ItemGolds | None = None
) -> Consensus | None:
    """The weighted-largest group of same normalised answers of the first kind (different,
    superseded, partial) that MIN_AGREEING runs give; None when there is none (module doc)."""
    golds = golds or ItemGolds()
    groups: dict[tuple[str, str], list[RunAnswer]] = {}
    regrouped: dict[tuple[str, str], tuple[str | None, str | None]] = {}
    for a in answers:
        kind = _kind(a, scorer, golds)
        key = normalise(a.text, scorer, question) if kind is not None else ""
        if kind is None or not key:
            continue
        if kind == Relation.DIFFERENT.value:
            if (kind, key) not in regrouped:
                regrouped[kind, key] = _regrouped(kind, key, scorer, golds)
            kind = regrouped[kind, key][0]
        if kind is not None:
            groups.setdefault((kind, key), []).append(a)
    best: dict[str, tuple[str, list[RunAnswer]]] = {}
    for (kind, key), members in sorted(groups.items(), key=lambda kv: (-sum(a.weight for a in kv[1]),
                                                                       -len(kv[1]), kv[0])):
        if len(members) >= MIN_AGREEING:
            best.setdefault(kind, (key, members))
    found = next((k for k in _GROUPED if k in best), None)
    if found is None:
        return None
    key, members = best[found]
    replaced = regrouped.get((Relation.DIFFERENT.value, key), (None, None))[1]
    answer = min((a.text.strip() for a in members), key=lambda t: (len(t), t))
    if found == Relation.SUPERSEDED.value and replaced is None:
        eq = relation(answer, golds.scored, scorer=scorer, superseded=golds.superseded)
        replaced = eq.text if eq.relation == Relation.SUPERSEDED else answer
    total_weight = sum(a.weight for a in answers) or 1.0
    found_consensus = Consensus(
        answer=answer, key=key, runs=tuple(a.run for a in members), count=len(members), total=len(answers),
        share=sum(a.weight for a in members) / total_weight, kind=found, replaced=replaced,
    )
    return with_sample_counts(found_consensus, {a.run: a.samples for a in members}, scorer, question)


def with_sample_counts(c: Consensus, samples: Mapping[str, Sequence[str]], scorer: str | None,
                       question: str = "") -> Consensus:
    """`c` with its sample counts from the agreeing runs' samples (`samples`: run → its sample
    texts; runs of one answer absent or empty): how many give the consensus answer of how many.
    They only describe the consensus (the reasons' "8 of 8 samples"), never move its score, so a
    queue ranks without the texts and counts them for the golds it shows."""
    sampled = [tuple(samples[r]) for r in c.runs if samples.get(r)]
    agreeing = sum(normalise(t, scorer, question) == c.key for texts in sampled for t in texts)
    return replace(c, samples=agreeing, sample_total=sum(len(t) for t in sampled), sampled_runs=len(sampled))
