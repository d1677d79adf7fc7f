"""`qa-inspect stale …`: flag outdated gold answers, verify, review queue, undo/redo, list, export, import.

Every sub-command first brings the database in line with RUNS_DIR (like `report`), then acts
through `qa_inspect.core.flags` (`score` through `qa_inspect.core.report`). Gold numbers
(`--gold N`) count from 1, as the detail view labels them. User errors print one line and exit 1.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Annotated, Any

import typer
from qa_inspect.core import flags as F
from qa_inspect.core.errors import QAInspectError, UnknownNameError
from qa_inspect.core.store import known_names, require_dataset, run_names
from qa_inspect.tui.present import count, number, plural
from qa_inspect.tui.text import clean
from rich.table import Table
from rich.text import Text

from .annotation_options import AuthorOpt, DatasetOpt, ItemArg, report_written, write_jsonl
from .common import (
    DbOpt,
    JsonOpt,
    RunsDir,
    command_group,
    fail,
    line,
    loaded_db,
    out,
    print_json,
    say,
    short,
    write_text,
)

__all__ = [
    "author_cmd",
    "export_cmd",
    "import_cmd",
    "list_cmd",
    "mark_cmd",
    "redo_cmd",
    "score_cmd",
    "stale_app",
    "undo_cmd",
    "unmark_cmd",
]

stale_app = command_group(
    "stale", "Flag outdated (stale) gold answers, undo/redo, list, export a patch or a new release, import."
)

GoldOpt = Annotated[int | None, typer.Option("--gold", help="Gold answer number, from 1 (as the detail view shows).")]
AnswerOpt = Annotated[str | None, typer.Option("--answer", help="Gold answer text (instead of --gold).")]


def _gold_choice(gold: int | None, answer: str | None) -> tuple[int | None, str | None]:
    """(gold index from 0, gold text): users count golds from 1, the core from 0."""
    if gold is not None and answer is not None:
        raise fail("give --gold or --answer, not both")
    if gold is not None and gold < 1:
        raise fail(f"--gold {gold}: gold numbers start at 1")
    return (None if gold is None else gold - 1), answer


def _describe(e: F.Entry) -> str:
    """`dataset key 'gold' → 'proposed'`, dataset text made visible (never markup, never escapes)."""
    s = f"{clean(e.dataset)} {clean(e.item_key)} '{clean(e.gold_text)}'"
    if e.action == "mark" and e.proposed:
        s += f" → '{clean(e.proposed)}'"
    return s


def _print_entries(entries: list[F.Entry], done: str, as_json: bool) -> None:
    """The journal entries a mark/unmark wrote: JSON, or `<done>: <gold> (by <author>)` a line."""
    if as_json:
        print_json([e.to_dict() for e in entries])
        return
    for e in entries:
        line(f"{done}: {_describe(e)} (by {clean(e.author)})")


@stale_app.command("mark")
def mark_cmd(
    runs_dir: RunsDir,
    item_id: ItemArg,
    dataset: DatasetOpt = None,
    gold: GoldOpt = None,
    answer: AnswerOpt = None,
    reason: Annotated[str | None, typer.Option("--reason", help="Why the answer is stale.")] = None,
    new_answer: Annotated[str | None, typer.Option("--new-answer", help="The answer it should be now.")] = None,
    evidence: Annotated[str | None, typer.Option("--evidence", help="Evidence URL.")] = None,
    author: AuthorOpt = None,
    db: DbOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Flag a gold answer stale (without --gold/--answer: every gold answer of the item)."""
    idx, text = _gold_choice(gold, answer)
    with loaded_db(runs_dir, db) as conn:
        ref = F.resolve_item(conn, item_id, dataset)
        targets = F.targets_of(ref, idx, text)
        entries = F.bulk_mark(conn, targets, reason=reason, proposed=new_answer, evidence=evidence, author=author,
                              skip_flagged=False, on_busy=say)
    _print_entries(entries, "marked stale", as_json)


@stale_app.command("unmark")
def unmark_cmd(
    runs_dir: RunsDir,
    item_id: ItemArg,
    dataset: DatasetOpt = None,
    gold: GoldOpt = None,
    answer: AnswerOpt = None,
    author: AuthorOpt = None,
    db: DbOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Clear the stale flag of a gold answer (without --gold/--answer: every flagged gold of the item)."""
    idx, text = _gold_choice(gold, answer)
    with loaded_db(runs_dir, db) as conn:
        flagged = _flagged_golds(conn, item_id, dataset, idx, text)
        entries = F.bulk_unmark(conn, [f.target for f in flagged], author=author, on_busy=say)
    _print_entries(entries, "unmarked", as_json)


def _flagged_golds(
    conn: sqlite3.Connection, item_id: str, dataset: str | None, idx: int | None, text: str | None
) -> list[F.Flag]:
    """The current flags of the item to unmark (of gold `idx` or text `text` when given); none → one line."""
    try:
        found = F.resolve_item(conn, item_id, dataset)
        ref: F.ItemRef | None = found
        ds, key = found.dataset, found.key
    except QAInspectError:
        # The item (or its dataset) may be gone from the data (a resolved flag): its key is still in the journal.
        hits = {(f.dataset, f.item_key) for f in F.current_flags(conn, dataset) if f.item_key == item_id.strip()}
        if len(hits) != 1:
            raise
        ds, key = hits.pop()
        ref = None
    flagged = F.flags_for_item(conn, ds, key)
    if idx is not None:
        if ref is None or not 0 <= idx < len(ref.golds):
            n = len(ref.golds) if ref else 0
            raise fail(f"item {key} has {plural(n, 'gold answer')}; gold {idx + 1} is out of range")
        text = ref.golds[idx][1]
    if text is not None:
        flagged = [f for f in flagged if f.gold_text == text]
        if not flagged:
            raise fail(f"gold {text!r} of item {key} is not flagged stale")
    if not flagged:
        raise fail(f"no gold of item {key} is flagged stale")
    return flagged


def _undo_redo(which: str, runs_dir: Path, author: str | None, db: Path | None, as_json: bool) -> None:
    """`undo` and `redo` differ only in the core call and the verb; nothing to do → exit 1."""
    with loaded_db(runs_dir, db) as conn:
        who = F.author_for(conn, author)
        entries = (F.undo if which == "undo" else F.redo)(conn, who, on_busy=say)
    if as_json:
        print_json({"author": who, which: [e.to_dict() for e in entries]})
        if not entries:
            raise typer.Exit(1)
        return
    if not entries:
        raise fail(f"nothing to {which} for {clean(who)}")
    verb = "undid" if which == "undo" else "redid"
    if len(entries) == 1:
        line(f"{verb} {entries[0].action}: {_describe(entries[0])}")
    else:
        line(f"{verb} {entries[0].action} of {len(entries)} golds:")
        for e in entries:
            line(f"  {_describe(e)}")


@stale_app.command("undo")
def undo_cmd(runs_dir: RunsDir, author: AuthorOpt = None, db: DbOpt = None, as_json: JsonOpt = False) -> None:
    """Undo your last mark/unmark/verify (a bulk action as a whole); repeat to go further back."""
    _undo_redo("undo", runs_dir, author, db, as_json)


@stale_app.command("redo")
def redo_cmd(runs_dir: RunsDir, author: AuthorOpt = None, db: DbOpt = None, as_json: JsonOpt = False) -> None:
    """Redo the last action you undid."""
    _undo_redo("redo", runs_dir, author, db, as_json)


def _check_dataset(conn: sqlite3.Connection, dataset: str | None, *, journal_ok: bool) -> None:
    """A --dataset that is neither loaded nor (when `journal_ok`) named by the journal → one line
    listing the loaded ones (flags outlive their dataset: they can still be listed and exported)."""
    if dataset is None:
        return
    try:
        require_dataset(conn, dataset)
    except UnknownNameError as exc:
        if journal_ok and F.has_entries(conn, dataset):
            return
        raise fail(str(exc)) from None


@stale_app.command("list")
def list_cmd(
    runs_dir: RunsDir,
    dataset: DatasetOpt = None,
    show_all: Annotated[bool, typer.Option("--all", help="Show the whole journal (every entry, undos included).")] = False,
    open_only: Annotated[bool, typer.Option("--open", help="Only flags whose gold is still in the data.")] = False,
    db: DbOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Current stale flags (open, resolved: gold text gone from the data, orphaned: dataset not loaded)."""
    with loaded_db(runs_dir, db, read_only=True) as conn:  # works on a full disk too
        _check_dataset(conn, dataset, journal_ok=True)
        if show_all:
            entries = F.journal(conn, dataset=dataset)
            if as_json:
                print_json([e.to_dict() for e in entries])
            else:
                _print_journal(entries)
            return
        flags = F.current_flags(conn, dataset, include_resolved=not open_only)
    if as_json:
        print_json([f.to_dict() for f in flags])
    elif not flags:
        line("no stale flags")
    else:
        out.print(_flags_table(flags))
        line(_flags_summary(flags))


def _flags_table(flags: list[F.Flag]) -> Table:
    """One row per flag, and one more per further proposal (conflicting new answers show side by side)."""
    t = Table(show_edge=False)
    for col in ("dataset", "item", "gold", "status", "proposed", "reason", "evidence", "author", "time"):
        t.add_column(col)
    for f in flags:
        gold = ("·".join(str(i + 1) for i in f.gold_idxs) + " " if f.gold_idxs else "") + short(f.gold_text)
        status = f.status + (" ⚠ conflict" if f.conflict else "")
        for n, p in enumerate(f.proposals or [None]):
            first = n == 0
            t.add_row(
                Text(short(f.dataset, 30) if first else ""), Text(short(f.item_key, 24) if first else ""),
                Text(gold if first else ""), Text(status if first else ""),
                Text(short(p.proposed if p else f.proposed)), Text(short(p.reason if p else f.reason)),
                Text(short(p.evidence if p else f.evidence, 50)), Text(short(p.author if p else f.author, 20)),
                Text((p.ts if p else f.ts)[:16].replace("T", " ")),
            )
    return t


def _flags_summary(flags: list[F.Flag]) -> str:
    """`N stale golds (a open, b resolved, …)`, and how many have conflicting proposals."""
    counts = {s: sum(1 for f in flags if f.status == s) for s in ("open", "resolved", "orphaned")}
    conflicts = sum(1 for f in flags if f.conflict)
    summary = ", ".join(f"{count(n)} {s}" for s, n in counts.items() if n)
    return (f"{plural(len(flags), 'stale gold')} ({summary})"
            + (f"; {conflicts} with conflicting proposals" if conflicts else ""))


def _print_journal(entries: list[F.Entry]) -> None:
    """Every journal entry, undos and redos noted."""
    if not entries:
        line("the journal is empty")
        return
    t = Table(show_edge=False)
    for col in ("#", "time", "author", "action", "dataset", "item", "gold", "proposed", "note"):
        t.add_column(col)
    for e in entries:
        note = []
        if e.action == "undo":
            note.append(f"cancels #{e.ref}" if e.ref is not None else "cancels an entry not here")
        if "redo_of" in e.meta:
            note.append("redo")
        if e.action == "verify" and e.reason:
            note.append(e.reason)
        if "imported_from" in e.meta:
            note.append(f"imported from {e.meta['imported_from']}")
        t.add_row(Text(str(e.id)), Text(e.ts[:19].replace("T", " ")), Text(short(e.author, 20)), Text(e.action),
                  Text(short(e.dataset, 30)), Text(short(e.item_key, 24)), Text(short(e.gold_text)),
                  Text(short(e.proposed)), Text(short("; ".join(note), 60)))
    out.print(t)


@stale_app.command("export")
def export_cmd(
    runs_dir: RunsDir,
    fmt: Annotated[str, typer.Option(
        "--format", help="patch (JSONL of flags), dataset (a new release), journal, changelog (Markdown release notes).")
    ] = "patch",
    output: Annotated[Path | None, typer.Option("-o", "--output", help="File to write ('-': stdout, not for dataset).")] = None,
    dataset: DatasetOpt = None,
    open_only: Annotated[bool, typer.Option("--open", help="patch, changelog: leave out resolved/orphaned flags.")] = False,
    db: DbOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Write the flags as a patch, the whole journal, a Markdown changelog, or the dataset file with the proposals applied."""
    if fmt not in ("patch", "dataset", "journal", "changelog"):
        raise fail(f"--format {fmt}: choose patch, dataset, journal or changelog")
    if output is None:
        raise fail("give the file to write with -o FILE")
    if fmt == "dataset" and str(output) == "-":
        raise fail("--format dataset writes a file; give -o FILE")
    with loaded_db(runs_dir, db, read_only=True) as conn:
        _check_dataset(conn, dataset, journal_ok=fmt != "dataset")
        if fmt == "dataset":
            _export_dataset(conn, runs_dir, dataset, output, as_json)
            return
        if fmt == "changelog":
            n = _export_changelog(conn, output, dataset, open_only)
        else:
            n = _export_lines(conn, fmt, output, dataset, open_only)
    report_written(n, fmt, output, as_json, format=fmt)


def _export_lines(conn: sqlite3.Connection, fmt: str, output: Path, dataset: str | None, open_only: bool) -> int:
    """The patch or the journal as JSONL to `output` ('-': stdout); the number of lines written."""
    if fmt == "patch":
        return write_jsonl(output, lambda sink: F.export_patch(conn, sink, dataset, include_resolved=not open_only))
    return write_jsonl(output, lambda sink: F.export_journal(conn, sink, dataset))


def _export_changelog(conn: sqlite3.Connection, output: Path, dataset: str | None, open_only: bool) -> int:
    """The patch as Markdown release notes (`core.flags.changelog`); the number of lines written."""
    from qa_inspect.core.query import markdown_table  # the one Markdown-cell rule

    aliases = [a for a in F.alias_list(conn, dataset) if a.status == "open" or not open_only]
    text = F.changelog(F.current_flags(conn, dataset, include_resolved=not open_only), markdown_table, aliases=aliases)
    if str(output) == "-":
        write_text(text)
    else:
        try:
            output.write_text(text, encoding="utf-8")
        except OSError as exc:
            raise fail(f"{output}: cannot write ({exc.strerror})") from None
    return text.count("\n")


def _export_dataset(conn: sqlite3.Connection, runs_dir: Path, dataset: str | None, output: Path, as_json: bool) -> None:
    """The dataset's own file with the proposals applied (a new release), and what was changed."""
    name = dataset or _only_dataset(conn)
    report = F.export_dataset(conn, runs_dir, name, output)
    _inside_runs(runs_dir, output)
    if as_json:
        print_json(report.to_dict())
    else:
        _print_dataset_report(report)


def _only_dataset(conn: sqlite3.Connection) -> str:
    """The dataset a release is for when --dataset is not given: the only flagged one, else the only one."""
    flagged = sorted({f.dataset for f in F.current_flags(conn, include_resolved=False)})
    names = known_names(conn, "dataset")
    if len(flagged) == 1:
        return flagged[0]
    if len(names) == 1:
        return names[0]
    if not names:
        raise fail("no dataset is loaded")
    choices = flagged or names
    raise fail(f"several datasets ({', '.join(choices)}); choose one with --dataset")


def _inside_runs(runs_dir: Path, output: Path) -> None:
    """Warn when a release is written where the next load would read it as one more dataset."""
    try:
        output.resolve().relative_to(runs_dir.resolve())
    except ValueError:
        return
    say(f"note: {output} is inside the runs folder; the next load reads it as another dataset")


def _print_dataset_report(r: F.DatasetExport) -> None:
    """What a release changed, and what it could not apply."""
    aliases = f", {plural(r.aliases_added, 'accepted alias', 'accepted aliases')} added as golds" if r.aliases_added else ""
    line(f"wrote {r.output}: {r.dataset} ({r.format}) with {plural(r.replaced, 'answer')}"
         f" replaced, {r.removed} removed{aliases}")
    for c in r.conflicts:
        proposals = ", ".join(f"'{clean(p)}'" for p in c["proposals"])
        line(f"  conflict: {clean(c['item_key'])} '{clean(c['old_answer'])}': proposals {proposals};"
             f" applied '{clean(c['applied'])}'")
    for n in r.not_applied:  # a flag's old answer, or an alias the format cannot hold
        what = f"alias '{clean(n['alias'])}'" if "alias" in n else f"'{clean(n.get('old_answer'))}'"
        line(f"  not applied: {clean(n['item_key'])} {what}: {n['why']}")
    for key in r.emptied:
        line(f"  left with no answer: {clean(key)}")


@stale_app.command("import")
def import_cmd(
    runs_dir: RunsDir,
    file: Annotated[Path, typer.Argument(help="A patch or journal JSONL (stale export), or another qa-inspect database.")],
    db: DbOpt = None,
    as_json: JsonOpt = False,
    keep_unknown: Annotated[bool, typer.Option(
        "--keep-unknown", help="Also import entries naming datasets, items or golds this database does not hold.")] = False,
) -> None:
    """Merge another annotator's patch or journal; importing the same file again changes nothing."""
    if not file.is_file():
        raise fail(f"{file}: no such file")
    with loaded_db(runs_dir, db) as conn:
        result = F.import_file(conn, file, keep_unknown=keep_unknown, on_busy=say)
    if as_json:
        print_json(result.to_dict())
        return
    if result.unknown:
        say(clean(result.unknown_line))
    line(f"imported {result.added} entr{'y' if result.added == 1 else 'ies'} from {file}"
         f" ({result.duplicates} already present)")
    for f in result.conflicts:
        props = "; ".join(f"'{clean(p.proposed)}' ({clean(p.author)})" for p in f.proposals if p.proposed)
        line(f"  conflicting proposals: {clean(f.dataset)} {clean(f.item_key)} '{clean(f.gold_text)}': {props}")


@stale_app.command("author")
def author_cmd(
    runs_dir: RunsDir,
    name: Annotated[str | None, typer.Argument(help="Annotator name to remember (omit to show it).")] = None,
    reset: Annotated[bool, typer.Option("--reset", help="Forget the stored name (use the system user).")] = False,
    db: DbOpt = None,
) -> None:
    """Show or set the annotator name stored for your system user in this database."""
    with loaded_db(runs_dir, db) as conn:
        if reset or name is not None:
            F.set_default_author(conn, None if reset else name)
        who = F.author_for(conn)
    line(f"author: {clean(who)}")


@stale_app.command("score")
def score_cmd(
    runs_dir: RunsDir,
    run: Annotated[str | None, typer.Option("--run", help="Run name (default: every run).")] = None,
    db: DbOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Each run's overall numbers with all golds and with stale golds excluded."""
    from qa_inspect.core.report import ALL_GOLDS, EXCLUDE_STALE, rescore_excluding_stale  # polars: only here

    with loaded_db(runs_dir, db) as conn:
        names = [run] if run else run_names(conn, linked=True)
        results = [rescore_excluding_stale(conn, n) for n in names]
    if as_json:
        print_json([r.to_dict() for r in results])
        return
    t = Table(show_edge=False)
    for col in ("run", "dataset", "mode", "items", "em", "f1", "f1_recall", "answer_rate"):
        t.add_column(col, justify="left" if col in ("run", "dataset", "mode") else "right")
    for r in results:
        for mode, nums in ((ALL_GOLDS, r.all_golds), (EXCLUDE_STALE, r.excluding_stale)):
            t.add_row(Text(short(r.run, 40)), Text(short(r.dataset, 40)), Text(mode), *[Text(_num(nums.get(m)))
                      for m in ("items", "em", "f1", "f1_recall", "answer_rate")])
    out.print(t)
    dropped = sum(r.items_dropped for r in results)
    line(f"stale golds excluded: items left without a gold are dropped ({plural(dropped, 'item-run pair')}); "
         "others re-scored against the golds left")


def _num(v: Any) -> str:
    """A metric cell: floats to 2 places, — when missing."""
    return number(v, 2) if isinstance(v, float) or v is None else str(v)


def _register_review() -> None:
    """`stale verify` and `stale queue` live in `stale_review` (this file stays short)."""
    from . import stale_review

    stale_app.command("verify")(stale_review.verify_cmd)
    stale_app.command("queue")(stale_review.queue_cmd)


_register_review()
