"""How CLI commands print: the safe Rich console, load progress and summaries (Rich on a terminal,
plain lines otherwise). Imported when a command first prints, never for `--help`."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager

from qa_inspect.core.load import LOW_COVERAGE, LoadSummary
from qa_inspect.tui.present import MISSING, count, percent, plural
from qa_inspect.tui.text import escape_terminal
from rich.console import Console
from rich.segment import Segment
from rich.table import Table
from rich.text import Text

__all__ = ["ProgressFn", "SafeConsole", "load_progress", "print_load_summary"]

ProgressFn = Callable[[int, int, str], None]


class SafeConsole(Console):
    """A Rich console that never lets dataset or model text drive the terminal: every character of
    printed text a terminal would act on (ESC, C1, bidi overrides …) is shown as a visible
    placeholder (`tui.text.escape_terminal`); Rich's own styling and cursor codes pass untouched."""

    def _render_buffer(self, buffer: Iterable[Segment]) -> str:
        safe = (seg if seg.control else Segment(escape_terminal(seg.text), seg.style) for seg in buffer)
        return super()._render_buffer(safe)


@contextmanager
def load_progress(console: Console, *, enabled: bool = True) -> Iterator[ProgressFn]:
    """A progress bar on a terminal; one plain line per phase change when not a terminal."""
    if not enabled:
        yield lambda done, total, msg: None
        return
    if not console.is_terminal:
        last: list[str] = [""]

        def plain(done: int, total: int, msg: str) -> None:
            phase = msg.split(" ", 1)[0]
            if phase != last[0] and phase != "done":
                console.print(f"{phase} …", markup=False, highlight=False)
                last[0] = phase

        yield plain
        return
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn  # a terminal only

    with Progress(
        TextColumn("{task.description}", markup=False),
        BarColumn(),
        TextColumn("{task.completed}/{task.total}"),
        TimeElapsedColumn(),
        console=console,
        transient=True,
    ) as bar:
        task = bar.add_task("loading", total=1)

        def update(done: int, total: int, msg: str) -> None:
            bar.update(task, completed=done, total=max(total, 1), description=msg[:60])

        yield update


def _status(status: str) -> Text:
    """loaded green, unchanged dim, error red."""
    style = {"loaded": "green", "unchanged": "dim", "error": "red"}.get(status, "")
    return Text(status, style=style)


def _encoding(enc: str | None) -> Text:
    """The encoding a file was read with; anything but UTF-8 stands out."""
    return Text(enc or MISSING, style="" if enc in (None, "utf-8") else "yellow")


def _datasets_table(s: LoadSummary) -> Table:
    """One row per dataset file: name, file, format, items, golds, (encoding), status."""
    t = Table(title="Datasets", title_justify="left", show_edge=False)
    show_enc = any(d.encoding not in (None, "utf-8") for d in s.datasets)
    cols = ("name", "file", "format", "scorer", "items", "golds", *(("encoding",) if show_enc else ()), "status")
    for col in cols:
        t.add_column(col, justify="right" if col in ("items", "golds") else "left", overflow="fold")
    for d in s.datasets:
        enc = (_encoding(d.encoding),) if show_enc else ()
        t.add_row(Text(d.name), Text(d.path), d.format, Text(d.scorer or MISSING), count(d.items), count(d.golds), *enc,
                  _status(d.status))
    return t


def _runs_table(s: LoadSummary) -> Table:
    """One row per run file: its dataset, how it was matched, how much of the run and of the dataset
    that covers, and how many predictions matched no item."""
    t = Table(title="Runs", title_justify="left", show_edge=False)
    show_enc = any(r.encoding not in (None, "utf-8") for r in s.runs)
    numeric = ("predictions", "unmatched", "of run", "of dataset")
    cols = ("name", "file", "dataset", "matched by", *numeric, *(("encoding",) if show_enc else ()), "status")
    for col in cols:
        t.add_column(col, justify="right" if col in numeric else "left", overflow="fold")
    for r in s.runs:
        enc = (_encoding(r.encoding),) if show_enc else ()
        t.add_row(
            Text(r.name), Text(r.path), Text(r.dataset or MISSING), Text(r.method or MISSING), count(r.predictions),
            Text(count(r.unmatched), style="yellow" if r.unmatched else ""),
            _percent(r.run_coverage, warn_below=LOW_COVERAGE * 100), _percent(r.coverage), *enc, _status(r.status),
        )
    return t


def _percent(value: float | None, warn_below: float | None = None) -> Text:
    """A coverage in percent; under `warn_below` it stands out."""
    if value is None:
        return Text(MISSING)
    low = warn_below is not None and value < warn_below
    return Text(percent(value), style="yellow" if low else "")


def _skipped_table(s: LoadSummary) -> Table:
    """Files that are not QA data, with the reason."""
    t = Table(title="Skipped", title_justify="left", show_edge=False)
    t.add_column("file", overflow="fold")
    t.add_column("reason", overflow="fold")
    for k in s.skipped:
        t.add_row(Text(k["path"]), Text(k["reason"]))
    return t


def print_load_summary(console: Console, s: LoadSummary) -> None:
    """Datasets, runs, what was skipped and why, errors; one table each.

    An `encoding` column appears when some file was not UTF-8 (decoded as GB18030)."""
    if s.datasets:
        console.print(_datasets_table(s))
    if s.runs:
        console.print(_runs_table(s))
    if s.skipped:
        console.print(_skipped_table(s))
    for w in s.warnings:
        console.print(Text("warning: ", style="bold yellow") + Text(w["message"]))
    for e in s.errors:
        console.print(Text("error: ", style="bold red") + Text(e["message"]))
    changed = "" if s.changed else " — nothing changed"
    console.print(
        Text(
            f"{len(s.datasets)} datasets, {len(s.runs)} runs, "
            f"{plural(sum(d.items for d in s.datasets), 'item')}, {plural(sum(r.predictions for r in s.runs), 'prediction')}"
            f"{changed}. Database: {s.db}",
            style="bold",
        )
    )
