"""Which dataset a run goes with, and which item each prediction names: pure matching over indexes.

`link_run` matches by item id and by normalised question text and says how well (coverage, reason);
`match_in_prompts` and `match_by_position` are the fallbacks for framework logs. Nothing here reads
the database: `core.load.linking` builds the indexes from it.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field, replace
from typing import Any

from qa_inspect.core.errors import unknown_name
from qa_inspect.core.formats import normalise_text
from qa_inspect.core.keys import normalise_question, question_key
from qa_inspect.core.model import Dataset, Prediction, Run

from .manifest import MANIFEST_NAME

__all__ = [
    "LOW_COVERAGE", "MIN_QUESTION_CHARS", "DatasetIndex", "LinkResult", "PositionMatch", "affix_hint", "find_affix",
    "link_run", "split_warning",
    "match_by_position", "match_in_prompts",
]


@dataclass(frozen=True, slots=True)
class DatasetIndex:
    """What a run is matched against: item keys and normalised-question keys, as plain sets, so
    the store can build one from its rows (`key`, `question_key(question)`) without re-reading.

    `question_keys` should hold `question_key` of every shown question, of every original
    question (CDQA rewrites), and the `q:` item keys themselves (they are question keys).
    """

    ids: AbstractSet[str]
    question_keys: AbstractSet[str]

    @classmethod
    def from_rows(cls, rows: Iterable[tuple[str, str | None, str | None]]) -> DatasetIndex:
        """From `(item key, question, original question or None)` rows."""
        ids: set[str] = set()
        qkeys: set[str] = set()
        for key, question, original in rows:
            ids.add(key)
            if key.startswith("q:"):
                qkeys.add(key.split("#", 1)[0])
            qkeys.update(question_key(text) for text in (question, original) if text)
        return cls(frozenset(ids), frozenset(qkeys))

    @classmethod
    def from_dataset(cls, dataset: Dataset) -> DatasetIndex:
        return cls.from_rows(
            (item.key, item.question, item.meta.get("original_question")) for item in dataset.items
        )

    def __len__(self) -> int:
        return len(self.ids)

    def match(self, prediction: Prediction) -> str | None:
        """What a prediction matched by (its id, or the key of its question), None if nothing.

        An id that names no item falls back to the record's question (`meta["question"]`), so
        an LLM run with its own numbering still links by text.
        """
        if prediction.ref_kind == "id":
            if prediction.ref in self.ids:
                return prediction.ref
            question = prediction.meta.get("question")
            if not isinstance(question, str):
                return None
            key = question_key(question)
        else:
            key = question_key(prediction.ref)
        return key if key in self.question_keys else None


LOW_COVERAGE = 0.5
"""A run whose matched predictions are fewer than this share of its predictions gets a warning."""


@dataclass(frozen=True, slots=True)
class LinkResult:
    dataset: str | None
    matched: int
    """Predictions that name an item of `dataset`."""
    unmatched: list[str]
    """Refs of the run's predictions that name no item of `dataset` (all refs when None)."""
    coverage: float
    """Share of the dataset's items the run answers (distinct matches / items, 0.0–1.0)."""
    reason: str
    method: str = ""
    """How it was matched: id, question text, prompt, position, and/or named in the manifest."""
    warnings: tuple[str, ...] = ()
    """What a user should know and may want to fix: ties, low coverage, id affixes."""

    @property
    def total(self) -> int:
        return self.matched + len(self.unmatched)

    @property
    def run_coverage(self) -> float:
        """Share of the run's predictions that name an item of the dataset (0.0–1.0)."""
        return self.matched / self.total if self.total else 0.0


def link_run(
    run: Run,
    indexes: Mapping[str, DatasetIndex],
    *,
    prefer: str | None = None,
    path: str | None = None,
    preferred_by: str = MANIFEST_NAME,
) -> LinkResult:
    """The dataset this run answers: `prefer` (from the manifest) when given, else the one with
    the most matched predictions, then the highest coverage, then the first name in sorted order.
    Every choice that could be wrong says so in `warnings` (`path`: the run as the manifest names it)."""
    total = len(run.predictions)
    where = path or run.path

    def measure(name: str) -> LinkResult:
        index = indexes[name]
        hits = [index.match(p) for p in run.predictions]
        unmatched = [p.ref for p, hit in zip(run.predictions, hits) if hit is None]
        distinct = len({hit for hit in hits if hit is not None})
        coverage = min(1.0, distinct / len(index)) if len(index) else 0.0
        return LinkResult(name, total - len(unmatched), unmatched, coverage, "", _kinds(run))

    everything = [p.ref for p in run.predictions]
    if prefer is not None:
        if prefer not in indexes:
            reason = f"{MANIFEST_NAME} names an " + unknown_name("dataset", prefer, sorted(indexes), none="none loaded")
            return LinkResult(None, 0, everything, 0.0, reason, "manifest")
        named = measure(prefer)
        reason = f"named in {preferred_by}; {_summary(named, total)}"
        method = f"{named.method}, manifest" if preferred_by == MANIFEST_NAME else named.method
        split = split_warning(run, named, indexes, where)
        return replace(named, reason=reason, method=method, warnings=split or _coverage_warnings(
            named, indexes[prefer], where, named_by=preferred_by))
    results = sorted((measure(name) for name in indexes), key=lambda r: (-r.matched, -r.coverage, r.dataset))
    if not results or results[0].matched == 0:
        by_affix = _link_by_affix(run, indexes, where)
        if by_affix is not None:
            return by_affix
        tried = ", ".join(sorted(indexes)) or "no datasets loaded"
        return LinkResult(None, 0, everything, 0.0, f"no prediction matches any dataset by id or question (tried: {tried})")
    best = results[0]
    reason = f"best match by {_kinds(run)}; {_summary(best, total)}"
    rivals = [r for r in results[1:] if r.matched == best.matched]
    warnings = [_tie_warning(best, rivals, where)] if rivals else []
    if any((r.matched, r.coverage) == (best.matched, best.coverage) for r in rivals):
        reason += f"; tie with {', '.join(repr(r.dataset) for r in rivals)}: first in sorted order chosen"
    warnings += split_warning(run, best, indexes, where) or _coverage_warnings(best, indexes[best.dataset or ""], where)
    return replace(best, reason=reason, warnings=tuple(warnings))


def split_warning(run: Run, link: LinkResult, indexes: Mapping[str, DatasetIndex], where: str) -> tuple[str, ...]:
    """The run leaves predictions unscored that other datasets' items would take (a dataset split
    into several files): say how many, which files take them, and what would join them. Said
    however many the run scores (the coverage warning fires only below `LOW_COVERAGE`); when
    said, it replaces that warning, which would only ask whether this is the right dataset; it
    gives the manifest lines that score the run against each file (`linking.run_parts`)."""
    if not link.unmatched or link.dataset is None:
        return ()
    left = set(link.unmatched)
    loose = [p for p in run.predictions if p.ref in left]
    takers: list[tuple[int, str]] = []
    for name, index in indexes.items():
        if name == link.dataset:
            continue
        taken = sum(1 for p in loose if index.match(p) is not None)
        if taken:
            takers.append((taken, name))
    if not takers:
        return ()
    takers.sort(key=lambda t: (-t[0], t[1]))
    which = ", ".join(f"{n:,} of them are items of {name!r}" for n, name in takers)
    names = ", ".join(f'"{name}"' for name in (link.dataset, *(name for _, name in takers)))
    return (f"{len(link.unmatched):,} predictions match no item of {link.dataset!r}; {which} — split dataset? "
            f'[[run]] path = "{where}", dataset = [{names}] in {MANIFEST_NAME} scores it against each',)


def _tie_warning(best: LinkResult, rivals: list[LinkResult], where: str) -> str:
    """Several datasets explain the run equally well: say which won, why, and how to choose."""
    names = ", ".join(repr(r.dataset) for r in rivals)
    same = all(r.coverage == best.coverage for r in rivals)
    why = "it comes first by name" if same else f"it has the highest coverage ({best.coverage:.1%})"
    return (f"{best.matched} predictions match {best.dataset!r} and {names} alike; {best.dataset!r} was chosen "
            f"because {why}. To choose, add a [[run]] to {MANIFEST_NAME} with path = \"{where}\", dataset = \"NAME\"")


def _coverage_warnings(
    link: LinkResult, index: DatasetIndex, where: str, *, named_by: str | None = None
) -> tuple[str, ...]:
    """Few of the run's predictions name an item of its dataset: say how few, and a likely fix.
    `named_by`: who chose the dataset (the manifest, the command line), said only when it is the
    manifest (`score` has none)."""
    if link.total == 0 or link.run_coverage >= LOW_COVERAGE:
        return ()
    if named_by is not None and link.matched == 0:
        chosen = f"{MANIFEST_NAME} links it to {link.dataset!r}, but " if named_by == MANIFEST_NAME else ""
        text = f"{chosen}none of its {link.total} predictions names an item of {link.dataset!r} (by id or question)"
    else:
        text = (f"only {link.matched} of its {link.total} predictions ({link.run_coverage:.1%}) name an item of "
                f"{link.dataset!r}; the rest are not scored. Is this the dataset it answers?")
    hint = affix_hint(link.unmatched, index, where, link.dataset or "")
    return (f"{text}; {hint}" if hint else text,)


AFFIX_SAMPLE = 500


def find_affix(refs: list[str], index: DatasetIndex) -> tuple[str, str] | None:
    """("prefix" | "suffix", affix) when at least half the ids name items of `index` once a common
    prefix or suffix is stripped (`…-high-conf`); decided on a sample, so it stays cheap."""
    sample = [r for r in refs[:AFFIX_SAMPLE] if r not in index.ids]
    if len(sample) < 2:
        return None
    for kind in ("suffix", "prefix"):
        affix = _common_affix(sample, kind)
        while affix:
            stripped = [r[: -len(affix)] if kind == "suffix" else r[len(affix):] for r in sample]
            if sum(s in index.ids for s in stripped) * 2 >= len(sample):
                return kind, affix
            affix = affix[1:] if kind == "suffix" else affix[:-1]
    return None


def affix_hint(refs: list[str], index: DatasetIndex, where: str, dataset: str) -> str | None:
    """The manifest lines that strip the ids' common affix (`find_affix`), or None."""
    found = find_affix(refs, index)
    if found is None:
        return None
    kind, affix = found
    return (f"its ids match {dataset!r} once the {kind} {affix!r} is stripped; to say so, add a [[run]] to "
            f"{MANIFEST_NAME} with path = \"{where}\", dataset = \"{dataset}\", id_{kind} = \"{affix}\"")


def _link_by_affix(run: Run, indexes: Mapping[str, DatasetIndex], where: str) -> LinkResult | None:
    """Nothing matched as given: strip a common id affix when that makes the run match a dataset
    (the ids are changed in place, the originals kept), link again as usual (ties and coverage
    still warn), and say how to make the affix explicit."""
    refs = [p.ref for p in run.predictions if p.ref_kind == "id"]
    found = next((f for name in sorted(indexes) if (f := find_affix(refs, indexes[name])) is not None), None)
    if found is None:
        return None
    kind, affix = found
    for p in run.predictions:
        ref = p.ref
        if p.ref_kind == "id" and (ref.endswith(affix) if kind == "suffix" else ref.startswith(affix)):
            p.meta.setdefault("original_id", ref)
            p.ref = ref[: -len(affix)] if kind == "suffix" else ref[len(affix):]
    link = link_run(run, indexes, path=where)
    if link.dataset is None:
        return None
    warning = (f"no id matched as given; linked to {link.dataset!r} with the {kind} {affix!r} stripped from its ids "
               f"({link.matched} of {link.total} then match). To make this explicit, add a [[run]] to "
               f"{MANIFEST_NAME} with path = \"{where}\", dataset = \"{link.dataset}\", id_{kind} = \"{affix}\"")
    return replace(link, reason=link.reason.replace("best match by id", f"best match by id with the {kind} {affix!r} stripped"),
                   method=f"id without {kind} {affix!r}", warnings=(warning, *link.warnings))


def _common_affix(refs: list[str], kind: str) -> str:
    if kind == "prefix":
        return os.path.commonprefix(refs)
    return os.path.commonprefix([r[::-1] for r in refs])[::-1]


def _kinds(run: Run) -> str:
    kinds = sorted({p.ref_kind for p in run.predictions})
    return " and ".join("question text" if k == "question" else k for k in kinds) or "id"


def _summary(result: LinkResult, total: int) -> str:
    return f"{result.matched}/{total} predictions matched, covering {result.coverage:.1%} of {result.dataset!r}"


# ------------------------------------------------------------------------- fallback matching
# LLM frameworks log prompts, and OpenCompass logs row positions, where a reader could not say
# which item a prediction answers. The loader uses these two, on one dataset's rows, for the
# predictions that match nothing by id or question.

MIN_QUESTION_CHARS = 4
"""Shorter questions are not searched inside prompts (too likely to occur by accident)."""


def match_in_prompts(
    predictions: Iterable[Prediction], questions: Iterable[str]
) -> dict[int, str]:
    """For predictions with `meta["prompt"]`: index → the dataset question found inside the
    prompt (normalised the way `question_key` does). Of several, the one that starts last wins
    (few-shot examples come before the question asked), then the longest."""
    width = MIN_QUESTION_CHARS
    buckets: dict[str, list[tuple[str, str]]] = {}
    seen: set[str] = set()
    for question in questions:
        norm = normalise_text(normalise_question(question))
        if len(norm) >= width and norm not in seen:
            seen.add(norm)
            buckets.setdefault(norm[:width], []).append((norm, question))
    for bucket in buckets.values():
        bucket.sort(key=lambda pair: -len(pair[0]))
    found: dict[int, str] = {}
    if not buckets:
        return found
    for index, prediction in enumerate(predictions):
        prompt = prediction.meta.get("prompt")
        if not isinstance(prompt, str):
            continue
        text = normalise_text(prompt)
        # Scan from the end: the first start that begins a question is the last one.
        for at in range(len(text) - width, -1, -1):
            near = buckets.get(text[at : at + width])
            hit = next((q for norm, q in near if text.startswith(norm, at)), None) if near else None
            if hit is not None:
                found[index] = hit
                break
    return found


@dataclass(slots=True)
class PositionMatch:
    keys: dict[int, str] = field(default_factory=dict)
    """Prediction index → item key, for positions whose gold agrees (or that carry no gold)."""
    checked: int = 0
    """Positions whose gold was compared and agreed."""
    unchecked: int = 0
    """Positions taken without a gold to compare."""
    mismatches: list[dict[str, Any]] = field(default_factory=list)
    """`{position, gold, dataset_golds}` where the file's gold is not the item's."""
    beyond: int = 0
    """Positions past the dataset's last item."""


def match_by_position(
    predictions: Iterable[Prediction], ordered: list[tuple[str, list[str]]]
) -> PositionMatch:
    """For predictions with `meta["position"]` (0-based row in the framework's copy of the
    dataset): the item at that position of `ordered` (`(key, gold texts)` in dataset order), kept
    when the file's `meta["gold"]` (a text or a list; OpenCompass de-duplicates answers) is among
    the item's golds, after NFKC and stripping; a mismatch is reported, never linked."""
    result = PositionMatch()
    for index, prediction in enumerate(predictions):
        position = prediction.meta.get("position")
        if not isinstance(position, int) or isinstance(position, bool) or position < 0:
            continue
        if position >= len(ordered):
            result.beyond += 1
            continue
        key, golds = ordered[position]
        gold = prediction.meta.get("gold")
        texts = [gold] if isinstance(gold, (str, int, float)) and not isinstance(gold, bool) else gold
        if not isinstance(texts, list) or not texts:
            result.keys[index] = key
            result.unchecked += 1
            continue
        have = {normalise_text(g) for g in golds}
        if all(normalise_text(str(t)) in have for t in texts):
            result.keys[index] = key
            result.checked += 1
        else:
            result.mismatches.append({"position": position, "gold": texts, "dataset_golds": golds})
    return result
