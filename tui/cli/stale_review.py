"""`qa-inspect stale verify` and `stale queue` (the review queue).

`stale.py` registers the two commands on `stale_app` (this module imports nothing of it, so there
is no import circle). The queue's score, reasons and header (which datasets it covers) come from
`qa_inspect.core.review`; its item options are the browser's (`filter_options`).
"""

from __future__ import annotations

from dataclasses import replace
from datetime import date
from pathlib import Path
from typing import Annotated, Any

import typer
from qa_inspect.core import flags as F
from qa_inspect.core.errors import QAInspectError, unknown_name
from qa_inspect.core.load import load_manifest
from qa_inspect.core.query import Filter
from qa_inspect.core.review import (
    DEFAULT_OVERLAP,
    SIGNALS,
    ReviewQueue,
    Team,
    TeamProgress,
    mine,
    review_queue,
    with_samples,
    team_progress,
    team_settings,
)
from qa_inspect.core.store import author_for
from qa_inspect.tui.present import count, number, percent
from qa_inspect.tui.text import clean
from rich.table import Table
from rich.text import Text

from .annotation_options import AuthorOpt, DatasetOpt, ItemArg
from .common import DbOpt, JsonOpt, RunsDir, fail, line, loaded_db, out, print_json, say, short
from .filter_options import FilterArgs, SearchOpt, SplitOpt, TagOpt, TypeOpt, build_filter

__all__ = ["manifest_dates", "manifest_dynamic", "queue_cmd", "verify_cmd"]

AnnotatorsOpt = Annotated[str | None, typer.Option(
    "--annotators", help="Split the queue among these annotators (comma-separated; default: [team] annotators in qa-inspect.toml).")]
OverlapOpt = Annotated[int | None, typer.Option(
    "--overlap", help="Annotators per item (default: [team] overlap, else 1).", min=1)]
MeOpt = Annotated[str | None, typer.Option(
    "--me", help="Whose share of the split queue to show (default: the annotator name).")]
ProgressOpt = Annotated[bool, typer.Option(
    "--progress", help="Each annotator's done/assigned golds of the split queue, instead of the queue.")]


def manifest_dates(runs_dir: Path) -> dict[str, Any]:
    """Run path → `[[run]] date` from the runs folder's manifest (none → {})."""
    manifest = load_manifest(runs_dir)
    return manifest.run_dates() if manifest is not None else {}


def manifest_dynamic(runs_dir: Path) -> frozenset[str]:
    """Names and paths of the datasets the manifest declares `dynamic = true` (none → empty)."""
    manifest = load_manifest(runs_dir)
    return manifest.dynamic_datasets() if manifest is not None else frozenset()


def _verify_targets(ref: F.ItemRef, gold: str | None) -> list[F.Target]:
    """`--gold` names a gold by its text, else by its number from 1; none → every scored gold."""
    if gold is None:
        return F.targets_of(ref)
    if gold in ref.scored_texts():
        return F.targets_of(ref, gold_text=gold)
    if gold.strip().isdigit():
        if int(gold) < 1:
            raise fail(f"--gold {gold}: gold numbers start at 1")
        return F.targets_of(ref, int(gold) - 1)
    raise fail(f"item {ref.key} has no gold answer {gold!r}")


def verify_cmd(
    runs_dir: RunsDir,
    item_id: ItemArg,
    dataset: DatasetOpt = None,
    gold: Annotated[str | None, typer.Option("--gold", help="Gold answer text, or its number from 1 (default: every gold).")] = None,
    note: Annotated[str | None, typer.Option("--note", help="How it was checked.")] = None,
    author: AuthorOpt = None,
    db: DbOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Record that a gold answer is still correct (a dated `verify` journal entry; undo with `stale undo`)."""
    with loaded_db(runs_dir, db) as conn:
        ref = F.resolve_item(conn, item_id, dataset)
        entries = F.verify(conn, _verify_targets(ref, gold), note=note, author=author, on_busy=say)
    if as_json:
        print_json([e.to_dict() for e in entries])
        return
    for e in entries:
        line(f"verified: {clean(e.dataset)} {clean(e.item_key)} '{clean(e.gold_text)}' (by {clean(e.author)})")


def queue_cmd(
    runs_dir: RunsDir,
    dataset: DatasetOpt = None,
    tag: TagOpt = None,
    answer_type: TypeOpt = None,
    split: SplitOpt = None,
    search: SearchOpt = None,
    signal: Annotated[str | None, typer.Option("--signal", help=f"Only golds with this signal: {', '.join(SIGNALS)}.")] = None,
    limit: Annotated[int | None, typer.Option("--limit", help="At most N golds.", min=1)] = None,
    show_all: Annotated[bool, typer.Option("--all", help="Also golds already reviewed (marked by you, or verified within 90 days), last.")] = False,
    author: AuthorOpt = None,
    annotators: AnnotatorsOpt = None,
    overlap: OverlapOpt = None,
    me: MeOpt = None,
    progress: ProgressOpt = False,
    db: DbOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Golds most likely gone stale first, each with its score and the reasons in words; over the
    datasets that can go stale (change tags, or `dynamic = true` in qa-inspect.toml)."""
    if signal is not None and signal not in SIGNALS:
        raise fail("--signal: " + unknown_name("signal", signal, SIGNALS))
    with loaded_db(runs_dir, db) as conn:
        scope = build_filter(conn, Filter(), FilterArgs(dataset=dataset, tag=tag, answer_type=answer_type, split=split,
                                                       search=search))
        try:
            team = _team(runs_dir, annotators, overlap)
            for given, option in ((progress, "--progress"), (me, "--me"), (overlap, "--overlap")):
                if given and team is None:
                    raise fail(f"{option}: name the team with --annotators (or [team] annotators in qa-inspect.toml)")
            queue = review_queue(conn, dataset=scope.dataset, tag=scope.tags, answer_type=scope.answer_types,
                                 split=scope.splits, search=scope.search, signal=signal, author=author,
                                 given_dates=manifest_dates(runs_dir), dynamic=manifest_dynamic(runs_dir),
                                 include_reviewed=show_all or progress, limit=None if team else limit,
                                 samples=team is None)  # a team member's share counts its samples below
            if team is not None and progress:
                _print_progress(team_progress(conn, team, _golds(queue)), as_json)
                return
            if team is not None:
                who = me or author_for(conn, author)
                share = mine(queue.entries, team, who)[:limit]
                queue = replace(queue, entries=with_samples(conn, share, queue.today or date.today()))
        except QAInspectError as exc:
            raise fail(str(exc)) from None
    if as_json:
        print_json({"author": queue.author, "today": queue.today.isoformat() if queue.today else None,
                    "header": queue.header(),
                    "datasets": [{"name": n, "why": why} for n, why in queue.datasets],
                    "left_out": list(queue.left_out),
                    "progress": {"total": queue.progress.total, "reviewed": queue.progress.reviewed,
                                 "marked": queue.progress.marked, "verified": queue.progress.verified,
                                 "line": queue.progress.describe()},
                    "queue": [e.to_dict() for e in queue.entries]})
        return
    _print_queue(queue)


def _team(runs_dir: Path, annotators: str | None, overlap: int | None) -> Team | None:
    """The team from the options, else `[team]` of the manifest (None: the queue is not split)."""
    declared = team_settings(load_manifest(runs_dir))
    if annotators is None:
        if declared is None:
            return None
        return Team(declared.annotators, overlap or declared.overlap)
    names = tuple(n.strip() for n in annotators.split(",") if n.strip())
    return Team(names, overlap or (declared.overlap if declared else DEFAULT_OVERLAP))


def _golds(queue: ReviewQueue) -> list[tuple[str, str, str]]:
    return [(e.scored.signals.dataset, e.scored.signals.item_key, e.scored.signals.gold_text) for e in queue.entries]


def _print_progress(rows: list[TeamProgress], as_json: bool) -> None:
    if as_json:
        print_json({"progress": [r.to_dict() for r in rows]})
        return
    t = Table(show_edge=False)
    for col in ("annotator", "done", "assigned", "share"):
        t.add_column(col, justify="left" if col == "annotator" else "right")
    for r in rows:
        t.add_row(Text(clean(r.annotator)), Text(count(r.done)), Text(count(r.assigned)),
                  Text(percent(100 * r.done / r.assigned if r.assigned else None)))
    out.print(t)


def _print_queue(queue: ReviewQueue) -> None:
    line(clean(queue.header()))
    if queue.entries:
        t = Table(show_edge=False)
        for col in ("#", "score", "dataset", "item", "question", "gold", "status", "reasons"):
            t.add_column(col, overflow="fold" if col == "reasons" else "ellipsis")
        for rank, e in enumerate(queue.entries, 1):
            s = e.scored.signals
            t.add_row(Text(str(rank)), Text(number(e.scored.score, 2)), Text(short(s.dataset, 20)),
                      Text(short(s.item_key, 20)), Text(short(s.question, 30)), Text(short(s.gold_text, 20)),
                      Text(e.status), Text(clean(e.scored.because)))
        out.print(t)
    else:
        line("nothing to review")
    line(queue.progress.describe())
