"""The review queue: one gold at a time, the one most likely gone stale first.

Shows the question, the gold, the answer most runs give instead (the consensus), the evidence
URL (a terminal hyperlink; `y` copies it, `E` opens it), the reasons for its rank and every run's
answer. Single keys act on it: `s` marks it stale (the stale form, the consensus answer proposed),
`v` verifies it (still correct), `n` skips, `p` goes back, `u` / `U` undo / redo your last action.
`f` filters by tag, answer type or signal.

Resumable: a marked or recently verified gold leaves the queue (`core.review`), and the gold on
screen is remembered in the database's settings (`review-queue.position`), so the next session
starts where this one stopped. All reads and writes run in thread workers.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any, ClassVar

from rich.console import Group
from rich.style import Style
from rich.table import Table
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.message import Message
from textual.reactive import var
from textual.widgets import Header, Static

from qa_inspect.core import flags
from qa_inspect.core.errors import QAInspectError
from qa_inspect.core.load import Manifest, load_manifest
from qa_inspect.core.query import Filter
from qa_inspect.core.review import (
    SIGNALS,
    TAG_POINTS,
    QueueEntry,
    ReviewQueue,
    review_queue,
    stale_datasets,
    team_share,
    with_samples,
)

from ..base import BaseScreen
from ..dialogs import RunPicker
from ..stale import StaleForm, StaleFormData, StaleFormResult
from ..stale.jobs import JobResult, golds_of, mark_job
from ..present import number
from ..text import clean, copy_text
from ..widgets import KeyFooter

POSITION_KEY = "review-queue.position"
"""Setting: the gold on screen when the queue was last shown (dataset, item key, gold text as JSON)."""
FILTERS = {"tag": "Change tag", "answer_type": "Answer type", "signal": "Signal"}
ANY = "(any)"
_URL = re.compile(r"^https?://[^\s\x00-\x1f\x7f]+$", re.IGNORECASE)


@dataclass
class QueueLoaded(Message):
    queue: ReviewQueue
    focus: flags.Target | None
    """Show this gold when it is in the queue (the remembered one, or one an undo brought back)."""


@dataclass
class QueueWritten(Message):
    result: JobResult
    focus: flags.Target | None = None


@dataclass
class QueueFormReady(Message):
    data: StaleFormData | JobResult
    target: flags.Target


def _target(entry: QueueEntry) -> flags.Target:
    s = entry.scored.signals
    return flags.Target(s.dataset, s.item_key, s.gold_text)


def safe_url(url: str | None) -> str | None:
    """A link target only for a plain http(s) URL (no spaces or control characters)."""
    return url if url and _URL.match(url.strip()) else None


def entry_view(entry: QueueEntry, rank: int, total: int) -> Group:
    """One gold as rich renderables: dataset text is always `Text` (never markup), cleaned."""
    sc, s = entry.scored, entry.scored.signals
    head = Text.assemble((f"#{rank} of {total}", "bold"), "  ", (f"score {number(sc.score, 2)}", "bold"), "  ",
                         (clean(s.dataset), "dim"), " ", (clean(s.item_key), "dim"),
                         "  ", (clean(s.tag or "no tag"), "dim"), " · ", (clean(s.answer_type or "no type"), "dim"))
    lines: list[Any] = [head, Text(clean(s.question), style="bold")]
    lines.append(Text.assemble(("gold       ", "dim"), (clean(s.gold_text), "bold green")))
    c = s.consensus
    if c is not None:
        lines.append(Text.assemble(("consensus  ", "dim"), (clean(c.answer), "bold yellow"),
                                   (f"  {c.count} of {c.total} runs · {c.share:.0%} weighted", "dim")))
    else:
        lines.append(Text.assemble(("consensus  ", "dim"), ("none (runs do not agree on another answer)", "dim")))
    url = safe_url(s.evidence)
    evidence = Text("evidence   ", style="dim")
    if s.evidence:
        evidence.append(clean(s.evidence), style=Style(underline=True, link=url) if url else Style())
        if s.evidence_date is not None:
            evidence.append(f"  ({s.evidence_date.describe()})", style="dim")
    else:
        evidence.append("none", style="dim")
    lines.append(evidence)
    lines.append(Text.assemble(("why        ", "dim"), clean(sc.because)))
    table = Table(show_edge=False, box=None, pad_edge=False, expand=False)
    for col, justify in (("run", "left"), ("answer", "left"), ("score", "right"), ("weight", "right")):
        table.add_column(col, justify=justify, style="dim" if col == "weight" else "")  # type: ignore[arg-type]
    agree = set(c.runs) if c is not None else set()
    for a in s.answers:
        style = "yellow" if a.run in agree else ("dim" if a.refused else "")
        table.add_row(Text(clean(a.run)), Text(clean(a.text), style=style),
                      Text("refused" if a.refused else number(a.score, 2)),
                      Text(number(a.weight, 2)))
    lines += [Text(""), table if s.answers else Text("no run answers this item", style="dim")]
    return Group(*lines)


class ReviewQueueScreen(BaseScreen):
    """Golds ranked by how likely they are stale; mark, verify, skip, one key each."""

    HELP_TITLE = "Review queue"
    DEFAULT_CSS = """
    ReviewQueueScreen #rq-header { height: auto; padding: 0 1; }
    ReviewQueueScreen #rq-progress { height: 1; padding: 0 1; color: $foreground-muted; }
    ReviewQueueScreen #rq-body { padding: 0 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("s", "mark", "Stale", id="review-queue.mark",
                tooltip="Mark this gold stale (the form proposes the runs' consensus answer)"),
        Binding("v", "verify", "Verify", id="review-queue.verify", tooltip="Record that this gold is still correct"),
        Binding("n", "skip", "Next", id="review-queue.next-item", tooltip="Next gold, leaving this one as it is"),
        Binding("p", "previous", "Previous", id="review-queue.previous-item", tooltip="Back to the previous gold"),
        Binding("u", "undo", "Undo", id="review-queue.undo", tooltip="Undo your last mark or verify"),
        Binding("U", "redo", "Redo", id="review-queue.redo", show=False,
                tooltip="Redo the mark or verify you last undid"),
        Binding("y", "copy_evidence", "Copy URL", id="review-queue.copy", show=False,
                tooltip="Copy the evidence URL to the clipboard"),
        Binding("E", "open_evidence", "Open URL", id="review-queue.open-evidence", show=False,
                tooltip="Open the evidence URL in the browser"),
        Binding("f", "filters", "Filter", id="review-queue.filters", show=False,
                tooltip="Only golds with a change tag, an answer type or a signal (consensus, age, refusal, proposal)"),
        Binding("escape", "app.pop_screen", "Back", id="review-queue.back", tooltip="Back to the previous screen"),
    ]

    pos: var[int] = var(0, always_update=True, init=False)
    """Index of the gold on screen in the queue: setting it shows that gold (and remembers it)."""

    def __init__(self, *, today: date | None = None, scope: Filter | None = None) -> None:
        super().__init__()
        self.today = today
        """"Now" for ages and the recently-verified window (None: today; tests fix it)."""
        self.scope = scope or Filter()
        """The browser's filter the queue was opened from: its dataset (when it can go stale),
        tags, answer types, splits and search text scope the queue."""
        self.queue: ReviewQueue | None = None
        self.filters: dict[str, str | None] = dict.fromkeys(FILTERS)
        self.answer_types: set[str] = set()
        self.view: Group | None = None
        """What the body shows (the gold on screen), for tests to read."""
        self._first = True
        self._counted: set[int] = set()
        """Ids of the current queue's entries whose samples are counted (`count_samples`)."""

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="rq-header")
        yield Static(id="rq-progress")
        with VerticalScroll(id="rq-scroll"):
            yield Static(Text("loading…", style="dim"), id="rq-body")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.load()

    @property
    def entry(self) -> QueueEntry | None:
        q = self.queue
        return q.entries[self.pos] if q is not None and 0 <= self.pos < len(q.entries) else None

    # -- reads ------------------------------------------------------------------------------
    def _manifest(self) -> Manifest | None:
        runs_dir = self.qa_app.runs_dir
        try:
            return load_manifest(Path(runs_dir)) if runs_dir is not None else None
        except QAInspectError:
            return None  # the load already said what is wrong with it

    def _queue(self, conn: Any) -> ReviewQueue:
        """The queue in the browser's scope; a dataset that cannot go stale widens it to all that can.
        With a `[team]` in qa-inspect.toml, the annotator's own share (`team_share`); an annotator
        not in the team sees the whole queue, and a notice says why."""
        manifest = self._manifest()
        dynamic = manifest.dynamic_datasets() if manifest is not None else frozenset()
        covered = {name for name, _ in stale_datasets(conn, dynamic)[0]}
        s = self.scope
        queue = review_queue(conn, dataset=s.dataset if s.dataset in covered else None,
                             tag=self.filters["tag"] or s.tags, answer_type=self.filters["answer_type"] or s.answer_types,
                             split=s.splits, search=s.search, signal=self.filters["signal"], today=self.today,
                             given_dates=manifest.run_dates() if manifest is not None else {}, dynamic=dynamic,
                             samples=False)  # each gold's samples are counted as it is shown (`count_samples`)
        try:
            return team_share(conn, queue, manifest)
        except QAInspectError as exc:
            self.app.call_from_thread(self.notify, f"{exc}; showing the whole queue", title="Team",
                                      severity="warning", markup=False)
            return queue

    @work(thread=True, exclusive=True, exit_on_error=False, group="review-queue")
    def load(self, focus: flags.Target | None = None) -> None:
        with self.db.connect() as conn:
            if focus is None and self._first:
                saved = flags.get_setting(conn, POSITION_KEY)
                try:
                    focus = flags.Target(*json.loads(saved)) if saved else None
                except (ValueError, TypeError):
                    focus = None
            queue = self._queue(conn)
        self.post_message(QueueLoaded(queue, focus))

    def on_queue_loaded(self, message: QueueLoaded) -> None:
        self._first = False
        self._counted.clear()
        self.queue = message.queue
        self.answer_types |= {e.scored.signals.answer_type for e in message.queue.entries
                              if e.scored.signals.answer_type}
        targets = [_target(e) for e in message.queue.entries]
        pos = targets.index(message.focus) if message.focus in targets else self.pos
        self.pos = max(0, min(pos, len(targets) - 1))

    def watch_pos(self) -> None:
        self.show()

    def show(self) -> None:
        q = self.queue
        if q is None:
            return
        filters = [f"{k.replace('_', ' ')}={v}" for k, v in self.filters.items() if v]
        progress = q.progress.describe() + (f" · filter: {', '.join(filters)}" if filters else "")
        self.query_one("#rq-header", Static).update(Text(clean(q.header()), style="bold"))
        self.query_one("#rq-progress", Static).update(Text(clean(progress)))
        body = self.query_one("#rq-body", Static)
        entry = self.entry
        if entry is None:
            body.update(Text("Nothing left to review here. u undoes your last action; escape goes back.",
                             style="dim"))
            return
        if id(entry) not in self._counted:
            self.count_samples(q, self.pos, entry)
        self.view = entry_view(entry, self.pos + 1, len(q.entries))
        body.update(self.view)
        self.query_one("#rq-scroll", VerticalScroll).scroll_home(animate=False)
        self.remember(_target(entry))

    @work(thread=True, exit_on_error=False, group="review-queue-samples")
    def count_samples(self, q: ReviewQueue, pos: int, entry: QueueEntry) -> None:
        """The shown gold's consensus with its samples counted (their texts read for this item
        alone), then shown again if it is still the one on screen."""
        with self.db.connect() as conn:
            counted = with_samples(conn, [entry], q.today or date.today())[0]
        self.app.call_from_thread(self._samples_counted, q, pos, entry, counted)

    def _samples_counted(self, q: ReviewQueue, pos: int, entry: QueueEntry, counted: QueueEntry) -> None:
        if q is self.queue and 0 <= pos < len(q.entries) and q.entries[pos] is entry:
            self._counted.add(id(counted))
            q.entries[pos] = counted
            if pos == self.pos and counted is not entry:
                self.show()

    @work(thread=True, exit_on_error=False, group="review-queue-position")
    def remember(self, target: flags.Target) -> None:
        with self.db.connect() as conn:
            flags.set_setting(conn, POSITION_KEY, json.dumps(
                [target.dataset, target.item_key, target.gold_text], ensure_ascii=False))

    # -- moving -----------------------------------------------------------------------------
    def action_skip(self) -> None:
        q = self.queue
        if q is None or self.pos >= len(q.entries) - 1:
            self.notify("This is the last gold of the queue.", timeout=3)
            return
        self.pos += 1

    def action_previous(self) -> None:
        if self.pos <= 0:
            self.notify("This is the first gold of the queue.", timeout=3)
            return
        self.pos -= 1

    def action_filter(self, name: str) -> None:
        values = {"tag": [t for t in TAG_POINTS if t], "answer_type": sorted(self.answer_types),
                  "signal": list(SIGNALS)}[name]
        choices = [ANY, *values]

        def done(choice: str | None) -> None:
            if choice is None:
                return
            self.filters[name] = None if choice == ANY else choice
            self.set_reactive(ReviewQueueScreen.pos, 0)  # shown once the filtered queue is in
            self.load()

        self.app.push_screen(RunPicker(FILTERS[name], self.filters[name] or ANY, choices,
                                       labels={c: c for c in choices}), done)

    # -- evidence ---------------------------------------------------------------------------
    def _evidence(self) -> str | None:
        entry = self.entry
        url = entry.scored.signals.evidence if entry is not None else None
        if not url:
            self.notify("This gold has no evidence.", severity="warning", timeout=3)
        return url

    def action_copy_evidence(self) -> None:
        url = self._evidence()
        if url:
            how = copy_text(self.app, url)
            self.notify(f"Copied the evidence ({how}).", timeout=3)

    def action_open_evidence(self) -> None:
        url = self._evidence()
        if url and safe_url(url):
            self.app.open_url(url.strip())
            self.notify(f"Opening {clean(url)}", timeout=3, markup=False)
        elif url:
            self.notify("The evidence is not a web address; y copies it.", severity="warning", timeout=3)

    # -- writes -----------------------------------------------------------------------------
    def action_verify(self) -> None:
        entry = self.entry
        if entry is not None:
            self.write_verify(_target(entry))

    @work(thread=True, exit_on_error=False, group="review-queue-write")
    def write_verify(self, target: flags.Target) -> None:
        with self.db.connect() as conn:
            flags.verify(conn, [target], on_busy=lambda m: None)
        self.post_message(QueueWritten(JobResult(f"Verified: {clean(target.gold_text)}")))

    def action_undo(self) -> None:
        self.write_undo()

    def action_redo(self) -> None:
        self.write_redo()

    @work(thread=True, exit_on_error=False, group="review-queue-write")
    def write_redo(self) -> None:
        with self.db.connect() as conn:
            redone = flags.redo(conn, on_busy=lambda m: None)
        if not redone:
            self.post_message(QueueWritten(JobResult("Nothing to redo.", False, "warning")))
            return
        e = redone[0]
        self.post_message(QueueWritten(JobResult(f"Redid {e.action}: {clean(e.gold_text)}"), e.target))

    def action_filters(self) -> None:
        """`f`: which filter (tag, answer type, signal), then its value."""
        def done(name: str | None) -> None:
            if name:
                self.action_filter(name)

        self.app.push_screen(RunPicker("Filter the queue by", None, list(FILTERS), labels=FILTERS), done)

    @work(thread=True, exit_on_error=False, group="review-queue-write")
    def write_undo(self) -> None:
        with self.db.connect() as conn:
            undone = flags.undo(conn, on_busy=lambda m: None)
        if not undone:
            self.post_message(QueueWritten(JobResult("Nothing to undo.", False, "warning")))
            return
        e = undone[0]
        self.post_message(QueueWritten(JobResult(f"Undid {e.action}: {clean(e.gold_text)}"), e.target))

    def action_mark(self) -> None:
        entry = self.entry
        if entry is not None:
            self.read_form(_target(entry))

    @work(thread=True, exclusive=True, exit_on_error=False, group="review-queue-form")
    def read_form(self, target: flags.Target) -> None:
        with self.db.connect() as conn:
            ref = flags.resolve_item(conn, target.item_key, target.dataset)
            golds = golds_of(ref, flags.flags_for_item(conn, ref.dataset, ref.key))
            chosen = next((k + 1 for k, g in enumerate(golds) if g.text == target.gold_text), 1)
            data = StaleFormData(author=flags.author_for(conn), dataset=ref.dataset, item_key=ref.key,
                                 question=ref.question, golds=golds, chosen=chosen)
        self.post_message(QueueFormReady(data, target))

    def on_queue_form_ready(self, message: QueueFormReady) -> None:
        if isinstance(message.data, JobResult):
            self.notify(message.data.text, severity=message.data.severity)
            return
        entry = self.entry
        s = entry.scored.signals if entry is not None else None
        c = s.consensus if s is not None else None  # only a new answer is proposed, never a replaced one or a cut
        message.data.proposed = c.answer if c is not None and c.kind == "different" else ""
        message.data.evidence = (s.evidence or "") if s is not None else ""
        form = StaleForm(message.data)

        def done(result: StaleFormResult | None) -> None:
            if result is not None:
                self.write_mark(message.target, result)

        self.app.push_screen(form, done)

    @work(thread=True, exit_on_error=False, group="review-queue-write")
    def write_mark(self, target: flags.Target, result: StaleFormResult) -> None:
        with self.db.connect() as conn:
            done = mark_job([target], result, False, conn, lambda m: None)
        self.post_message(QueueWritten(done))

    def on_queue_written(self, message: QueueWritten) -> None:
        r = message.result
        self.notify(r.text, severity=r.severity, timeout=4, markup=False)
        if r.changed:
            self.qa_app.stale_version += 1  # screens below redraw their stale counts when shown again
            self.load(message.focus)
