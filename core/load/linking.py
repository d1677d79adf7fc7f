"""Which dataset a freshly read run goes with, and which item each prediction names: one code
path for `load` (datasets in the database) and `score` (a dataset file in memory).

`link_run` (core.load.matching) matches by id and question text. Predictions that match no item that
way but carry their prompt or row position (framework logs) are matched by a dataset question
found inside the prompt, then by position checked against the logged gold (`_fallback_link`); the
link reason and `runs.meta.fallback_matching` say how many. The dataset's rows come from a
`DatasetRows`: `StoredRows` (the database) or `MemoryRows` (a `Dataset` just read).
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any, Protocol

from qa_inspect.core.keys import question_key
from qa_inspect.core.model import Dataset, Run

from .ingest import item_rows_db
from .ingest_runs import dataset_index_db
from .items import lookups, resolve
from .manifest import MANIFEST_NAME
from .matching import (
    DatasetIndex,
    LinkResult,
    link_run,
    match_by_position,
    match_in_prompts,
)

__all__ = [
    "POSITION_AGREEMENT", "DatasetRows", "MemoryRows", "StoredRows", "dataset_indexes", "link_in_memory",
    "link_stored_run", "run_parts",
]

SourceRow = tuple[str, str, "str | None", int]
"""(key, question, original question, item ref): the rows `scoring.lookups` takes."""


class DatasetRows(Protocol):
    """One dataset's items as the fallback matchers read them; item refs are ints of the source."""

    def item_rows(self) -> list[SourceRow]: ...

    def in_order(self) -> list[SourceRow]:
        """The same rows in the dataset's own order (row positions index into it)."""
        ...

    def golds(self) -> dict[int, list[str]]: ...


class StoredRows:
    """A dataset in the database (refs are item ids)."""

    def __init__(self, conn: sqlite3.Connection, name: str) -> None:
        self.conn = conn
        self.dataset_id = conn.execute("SELECT id FROM datasets WHERE name = ?", (name,)).fetchone()[0]

    def item_rows(self) -> list[SourceRow]:
        return item_rows_db(self.conn, self.dataset_id)

    def in_order(self) -> list[SourceRow]:
        return self.conn.execute(
            "SELECT key, question, json_extract(meta, '$.original_question'), id FROM items"
            " WHERE dataset_id = ? ORDER BY source_line, id",
            (self.dataset_id,),
        ).fetchall()

    def golds(self) -> dict[int, list[str]]:
        out: dict[int, list[str]] = {}
        for item_id, text in self.conn.execute(
            "SELECT g.item_id, g.text FROM golds g JOIN items i ON i.id = g.item_id WHERE i.dataset_id = ?"
            " ORDER BY g.item_id, g.idx",
            (self.dataset_id,),
        ):
            out.setdefault(item_id, []).append(text)
        return out


class MemoryRows:
    """A dataset just read from its file (refs are positions in `items`)."""

    def __init__(self, dataset: Dataset) -> None:
        self.dataset = dataset

    def item_rows(self) -> list[SourceRow]:
        return [(it.key, it.question, it.meta.get("original_question"), n) for n, it in enumerate(self.dataset.items)]

    def in_order(self) -> list[SourceRow]:
        return self.item_rows()

    def golds(self) -> dict[int, list[str]]:
        return {n: [g.text for g in it.golds] for n, it in enumerate(self.dataset.items)}


RowsFor = Callable[[str], DatasetRows]


def link_stored_run(
    conn: sqlite3.Connection, run: Run, indexes: dict[str, DatasetIndex], target: str | None, path: str | None = None
) -> LinkResult:
    """Link a run against the stored datasets (`target`: the dataset the manifest names; `path`:
    the run as the manifest would name it, for the fixes the warnings offer)."""
    return _link(run, indexes, lambda name: StoredRows(conn, name), target, path)


def link_in_memory(run: Run, dataset: Dataset, index: DatasetIndex | None = None) -> LinkResult:
    """Link a run to the one dataset it is scored against (`qa-inspect score`), exactly as `load`
    would with that dataset named in the manifest: ids, questions, prompts, positions. The run's
    prediction refs are rewritten in place to what they matched. `index`: the dataset's, when the
    caller has its keys already (every question key is an NFKC pass: computed once)."""
    indexes = {dataset.name: index if index is not None else DatasetIndex.from_dataset(dataset)}
    return _link(run, indexes, lambda name: MemoryRows(dataset), dataset.name, run.path, "the command line")


def _link(
    run: Run, indexes: dict[str, DatasetIndex], rows_for: RowsFor, target: str | None, path: str | None,
    preferred_by: str = MANIFEST_NAME,
) -> LinkResult:
    link = link_run(run, indexes, prefer=target, path=path, preferred_by=preferred_by)
    link = _fallback_link(rows_for, run, indexes, link, target)
    if link.dataset is not None:
        link = _pin_repeated_questions(rows_for, run, link, indexes, target)
    return link


POSITION_AGREEMENT = 0.9
"""Share of a run's matched predictions that must sit at their item's position before positions
without a gold to check are trusted."""


def _fallback_link(
    rows_for: RowsFor, run: Run, indexes: dict[str, DatasetIndex], link: LinkResult, target: str | None
) -> LinkResult:
    """Predictions that match nothing by id or question but carry the prompt they were asked with
    (`meta["prompt"]`) or their row in the framework's copy of the dataset (`meta["position"]`,
    OpenCompass): search the dataset's questions inside the prompt, then take the item at that
    position when the logged gold agrees. Tried on the linked dataset; when nothing linked (and
    the manifest named no dataset), on every dataset, keeping the one that explains the most."""
    if not any("prompt" in p.meta or "position" in p.meta for p in run.predictions):
        return link
    if link.dataset is not None:
        if not link.unmatched:
            return link
        names = [link.dataset]
    elif target is not None:
        return link  # the manifest named a dataset that is not loaded: said in link.reason
    else:
        names = sorted(indexes)
    best: tuple[int, str, dict[int, tuple[str, str]], dict[str, Any]] | None = None
    for name in names:
        todo = [i for i, p in enumerate(run.predictions) if indexes[name].match(p) is None]
        if not todo:
            continue
        fixes, stats, evidence = _fallback_refs(rows_for(name), run, todo, linked=link.dataset == name,
                                                named=target == name)
        if fixes and (best is None or evidence > best[0]):
            best = (evidence, name, fixes, stats)
    if best is None:
        if link.dataset is None:
            return replace(link, reason=f"{link.reason}; nor by a dataset question inside the prompts or by position")
        return link
    _, name, fixes, stats = best
    for i, (ref, how) in fixes.items():
        prediction = run.predictions[i]
        prediction.meta["matched_by"] = how
        if prediction.ref_kind == "question":
            prediction.meta.setdefault("extracted_question", prediction.ref)
        prediction.ref, prediction.ref_kind = ref, ("question" if how == "prompt" else "id")
    run.meta["fallback_matching"] = stats
    return _relink(run, name, indexes, target, link.warnings)


def _relink(
    run: Run, name: str, indexes: dict[str, DatasetIndex], target: str | None, earlier: tuple[str, ...] = ()
) -> LinkResult:
    """Link again to `name` after refs changed; the reason and method say what the fallbacks did."""
    relinked = link_run(run, {name: indexes[name]}, prefer=name if target == name else None)
    stats = run.meta.get("fallback_matching", {})
    said = [f"{stats['prompt']} by a dataset question found in the prompt"] if stats.get("prompt") else []
    if stats.get("position"):
        said.append(f"{stats['position']} by position ({stats['position_gold_checked']} gold-checked)")
    if stats.get("position_gold_mismatches"):
        said.append(f"{stats['position_gold_mismatches']} positions whose gold differs, not linked")
    if stats.get("repeated_questions_pinned"):
        said.append(f"{stats['repeated_questions_pinned']} predictions of repeated questions told apart by position")
    method = ", ".join([relinked.method, *(how for how in ("prompt", "position") if stats.get(how))])
    warnings = tuple(w for w in earlier if "alike" in w) + relinked.warnings  # ties seen before the fallback
    return replace(relinked, reason="; ".join([relinked.reason, *said]), method=method, warnings=warnings)


def _fallback_refs(
    source: DatasetRows, run: Run, todo: list[int], *, linked: bool, named: bool
) -> tuple[dict[int, tuple[str, str]], dict[str, Any], int]:
    """(prediction index → (new ref, how), stats, evidence) for the predictions `todo` on dataset
    `name`; evidence counts prompt hits and gold-checked positions, never blind positions.
    Positions without a gold are taken only on the dataset the run already linked to, and only
    when its matched predictions sit at their items' positions (`POSITION_AGREEMENT`) or, with
    none matched, when the manifest named that dataset."""
    rows = source.item_rows()
    fixes: dict[int, tuple[str, str]] = {}
    pending = [run.predictions[i] for i in todo]
    questions = [text for _, question, original, _ in rows for text in (question, original) if text]
    for local, question in match_in_prompts(pending, questions).items():
        fixes[todo[local]] = (question, "prompt")
    stats: dict[str, Any] = {"prompt": len(fixes), "position": 0, "position_gold_checked": 0,
                             "position_gold_mismatches": 0}
    left = [i for i in todo if i not in fixes and "position" in run.predictions[i].meta]
    if left:
        ordered = [(ref, key) for key, _, _, ref in source.in_order()]
        golds = source.golds()
        agreement = _position_agreement(run, rows, [item_id for item_id, _ in ordered])
        if agreement is not None:
            stats["position_agreement"] = round(agreement, 4)
        blind_ok = linked and (agreement >= POSITION_AGREEMENT if agreement is not None else named)
        result = match_by_position(
            [run.predictions[i] for i in left], [(key, golds.get(item_id, [])) for item_id, key in ordered]
        )
        for local, key in result.keys.items():
            if run.predictions[left[local]].meta.get("gold") in (None, [], "") and not blind_ok:
                continue
            fixes[left[local]] = (key, "position")
            stats["position"] += 1
        stats["position_gold_checked"] = result.checked
        stats["position_gold_mismatches"] = len(result.mismatches)
        if result.mismatches:
            stats["position_mismatch_sample"] = result.mismatches[:10]
        if result.beyond:
            stats["positions_beyond_dataset"] = result.beyond
    return fixes, stats, stats["prompt"] + stats["position_gold_checked"]


def _pin_repeated_questions(
    rows_for: RowsFor, run: Run, link: LinkResult, indexes: dict[str, DatasetIndex], target: str | None
) -> LinkResult:
    """A question the dataset asks more than once names its first item only; a prediction that
    names it and carries a row position whose item asks that very question goes to that item."""
    positioned = [p for p in run.predictions if p.ref_kind == "question" and isinstance(p.meta.get("position"), int)]
    if not positioned:
        return link
    assert link.dataset is not None
    rows = [(key, q, o) for key, q, o, _ in rows_for(link.dataset).in_order()]
    asked = [{question_key(t) for t in (q, o) if t} for _, q, o in rows]
    counts = Counter(k for keys in asked for k in keys)
    pinned = 0
    for prediction in positioned:
        position = prediction.meta["position"]
        qkey = question_key(prediction.ref)
        if counts[qkey] > 1 and 0 <= position < len(rows) and qkey in asked[position]:
            prediction.meta.setdefault("question", prediction.ref)
            prediction.meta["matched_by"] = "position (the dataset repeats this question)"
            prediction.ref, prediction.ref_kind = rows[position][0], "id"
            pinned += 1
    if not pinned:
        return link
    run.meta.setdefault("fallback_matching", {})["repeated_questions_pinned"] = pinned
    assert link.dataset is not None
    return _relink(run, link.dataset, indexes, target)


def _position_agreement(run: Run, rows: list[tuple[str, str, str | None, int]], order: list[int]) -> float | None:
    """Share of the run's predictions matched by id/question whose `position` is their item's."""
    by_key, by_q = lookups(rows)
    at = {item_id: n for n, item_id in enumerate(order)}
    total = agree = 0
    for prediction in run.predictions:
        position = prediction.meta.get("position")
        item_id = resolve(prediction, by_key, by_q) if isinstance(position, int) else None
        if item_id is None:
            continue
        total += 1
        agree += at.get(item_id) == position
    return agree / total if total else None


def dataset_indexes(conn: sqlite3.Connection) -> dict[str, DatasetIndex]:
    """Link candidates built from stored rows, so unchanged datasets are not re-read."""
    return {name: dataset_index_db(conn, ds_id) for ds_id, name in conn.execute("SELECT id, name FROM datasets").fetchall()}


def run_parts(run: Run, targets: Sequence[str], indexes: Mapping[str, DatasetIndex]) -> list[tuple[Run, str | None]]:
    """A run and the dataset it is declared to go with (None: guess); a run declared against
    several dataset files (`[[run]] dataset = ["D1", "D2"]`, a dataset split into files) as one
    run per file, named `run (D2)`, each holding the predictions that name an item of that file
    (the first file that has the item takes it; predictions naming none stay with the first file,
    where they count as unmatched). `meta["part"]` numbers the parts: the store replaces a file's
    runs when it writes part 0 and adds the others beside it."""
    if len(targets) < 2:
        return [(run, targets[0] if targets else None)]
    buckets: dict[str, list[Any]] = {name: [] for name in targets}
    for prediction in run.predictions:
        hit = next((n for n in targets if n in indexes and indexes[n].match(prediction) is not None), targets[0])
        buckets[hit].append(prediction)
    parts: list[tuple[Run, str | None]] = []
    for number, name in enumerate(targets):
        meta = {**run.meta, "part": number, "part_of": run.name}
        if number:
            meta.pop("warnings", None)  # what reading said is said once, with the first part
        parts.append((replace(run, name=f"{run.name} ({name})", predictions=buckets[name], meta=meta), name))
    return parts
