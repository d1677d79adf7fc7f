"""`qa-inspect release diff OLD NEW`: what a new release of a dataset changes.

OLD and NEW are dataset files (any supported formats). With `--runs RUNS_DIR`, or when OLD lies
in a runs folder that has a database, the folder is brought up to date and the open stale flags
and every run of the dataset are added (`core.report.release_diff`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from qa_inspect.core.errors import QAInspectError
from qa_inspect.core.query import markdown_table
from qa_inspect.core.report import ReleaseDiff, release_diff
from qa_inspect.tui.present import count, number, plural, signed
from qa_inspect.tui.text import clean
from rich.table import Table
from rich.text import Text

from .common import DbOpt, JsonOpt, MarkdownOpt, command_group, fail, line, loaded_db, out, print_json, short, write_text

__all__ = ["diff_cmd", "release_app", "release_markdown"]

release_app = command_group(
    "release", "Compare two releases of a dataset: items, golds, open stale flags, each run's score."
)

_OUTCOME_WORDS = {
    "resolved-to-proposal": "resolved: gold is now the proposal",
    "resolved-otherwise": "resolved: gold changed to something else",
    "left": "left: stale gold still there",
    "item-removed": "item removed",
}


def _runs_folder(old: Path) -> Path | None:
    """The runs folder OLD was loaded from: the nearest parent holding `.qa-inspect/qa.db` (of the
    path as given first: a dataset linked into a runs folder lives elsewhere)."""
    for parent in (*old.absolute().parents, *old.resolve().parents):
        if (parent / ".qa-inspect" / "qa.db").is_file():
            return parent
    return None


@release_app.command("diff")
def diff_cmd(
    old: Annotated[Path, typer.Argument(help="The dataset file as released before.", show_default=False)],
    new: Annotated[Path, typer.Argument(help="The new release of it (same format or not).", show_default=False)],
    runs: Annotated[Path | None, typer.Option(
        "--runs", help="Runs folder with the old release loaded: add its open flags and runs' scores.",
        show_default=False)] = None,
    dataset: Annotated[str | None, typer.Option(
        "--dataset", help="The loaded dataset OLD is (default: the one sharing most item keys).")] = None,
    db: DbOpt = None,
    as_json: JsonOpt = False,
    markdown: MarkdownOpt = False,
) -> None:
    """Items added and removed, golds changed, open flags resolved or left, and each run's score
    under both releases split into the changed golds' part and the rest."""
    for path in (old, new):
        if not path.is_file():
            raise fail(f"{path}: no such file")
    folder = runs or _runs_folder(old)
    try:
        if folder is None:
            if dataset is not None:
                raise fail("--dataset needs a database: give --runs RUNS_DIR")
            d = release_diff(old, new)
        else:
            with loaded_db(folder, db) as conn:
                d = release_diff(old, new, conn, dataset=dataset)
    except QAInspectError as exc:
        raise fail(str(exc)) from None
    if as_json:
        print_json(d.to_dict())
    elif markdown:
        write_text(release_markdown(d))
    else:
        _print(d)


def _pct(v: float | None) -> str:
    return number(v, 2)


def _signed(v: float | None) -> str:
    return signed(v, 2)


def _headline(d: ReleaseDiff) -> list[str]:
    where = f" (dataset {d.dataset})" if d.dataset else ""
    return [
        f"{d.old_path} ({d.old_format}, {plural(d.old_items, 'item')}) → {d.new_path} ({d.new_format}, {plural(d.new_items, 'item')}){where}",
        f"{count(len(d.added))} added, {count(len(d.removed))} removed, {count(len(d.gold_changes))} with golds changed"
        + (f"; {count(d.paired_by_question)} paired by question (their key changed)" if d.paired_by_question else ""),
    ]


def _print(d: ReleaseDiff) -> None:
    """Headline lines, then a table each: golds changed, flags, runs."""
    for text in _headline(d):
        line(text)
    if d.gold_changes:
        t = Table(title="Golds changed", title_justify="left", show_edge=False)
        for col in ("item", "question", "old", "new"):
            t.add_column(col)
        for g in d.gold_changes:
            t.add_row(Text(short(g.key, 24)), Text(short(g.question)), Text(short(" | ".join(g.old))),
                      Text(short(" | ".join(g.new))))
        out.print(t)
    if d.dataset is not None:
        counts = d.flag_counts()
        line(f"open stale flags: {len(d.flags)} ({', '.join(f'{n} {o}' for o, n in counts.items() if n) or 'none'})")
        for f in d.flags:
            line(f"  {clean(f.item_key)} '{clean(f.gold_text)}' → proposed {', '.join(repr(clean(p)) for p in f.proposed) or '—'}:"
                 f" {_OUTCOME_WORDS[f.outcome]}" + (f" ({' | '.join(clean(g) for g in f.new_golds)})" if f.outcome == "resolved-otherwise" else ""))
    if d.aliases:
        counts = d.alias_counts()
        line(f"accepted aliases: {len(d.aliases)} ({', '.join(f'{n} {o}' for o, n in counts.items() if n)})")
    if d.runs:
        t = Table(title="Runs (percent; change = golds changed + added/removed)", title_justify="left", show_edge=False)
        for col in ("run", "metric", "old", "new", "change", "golds changed", "added/removed"):
            t.add_column(col, justify="left" if col in ("run", "metric") else "right")
        for r in d.runs:
            for m in r.metrics:
                x = m.to_dict()
                t.add_row(Text(short(r.run, 40)), m.metric, _pct(x["old"]), _pct(x["new"]), _signed(x["total_change"]),
                          _signed(x["gold_changed"]), _signed(x["added_removed"]))
        out.print(t)


def release_markdown(d: ReleaseDiff) -> str:
    """The diff as Markdown: the headline, then tables of golds changed, flags and runs."""
    parts = ["## Release diff\n", *(f"{text}  " for text in _headline(d)), ""]
    if d.gold_changes:
        parts += ["### Golds changed\n", markdown_table(
            ("item", "question", "old", "new"),
            [(g.key, g.question, " | ".join(g.old), " | ".join(g.new)) for g in d.gold_changes])]
    if d.dataset is not None:
        parts += ["### Open stale flags\n", markdown_table(
            ("item", "stale gold", "proposed", "outcome", "new golds"),
            [(f.item_key, f.gold_text, " | ".join(f.proposed), _OUTCOME_WORDS[f.outcome], " | ".join(f.new_golds))
             for f in d.flags])]
    if d.runs:
        rows = [(r.run, m.metric, *(m.to_dict()[k] for k in ("old", "new", "total_change", "gold_changed", "added_removed")))
                for r in d.runs for m in r.metrics]
        parts += ["### Runs (percent)\n", markdown_table(
            ("run", "metric", "old", "new", "change", "golds changed", "added/removed"), rows)]
    return "\n".join(parts)
