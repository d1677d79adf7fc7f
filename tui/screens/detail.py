"""Item detail: question, passage, the prediction against every gold, other runs, metadata.

`n`/`p` walk the browser's filter (in its sort order) without going back; the screen returns
the item it ends on, so the browser's cursor follows. What drives the drawing is reactive
(`chosen_gold`, `subsequence`): setting it redraws. Stale keys go to the screen's `StaleActions`
(`StaleScreen`), label keys to its `LabelActions`, the gold choice rules are `stale.gold_choice`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.reactive import var
from textual.widgets import Header, Static
from textual.worker import get_current_worker

from qa_inspect.core import query
from qa_inspect.core.labels import ItemLabels, item_labels
from qa_inspect.core.query import Filter, ItemDetail, copy_choices, evidence_url, item_detail

from ..dialogs import RunPicker
from ..stale import DETAIL_STALE_BINDINGS, StaleScreen, gold_by_number, next_gold, target_gold
from ..text import clean, copy_text, truncate
from ..widgets import KeyFooter
from ..widgets import detail_blocks as parts
from .aliases import ALIAS_BINDINGS, AliasActions
from .labels import DETAIL_LABEL_BINDINGS, LabelActions, LabelScope, label_line


@dataclass
class DetailLoaded(Message):
    """An item to show, its position in the filter and the filter's count."""

    detail: ItemDetail | None
    position: int | None
    total: int | None
    steps: int = 0
    """For a step walked in SQL: how many steps from the anchor it answers."""
    labels: ItemLabels | None = None
    """Run A's labels and note of the item (None without a run)."""
    nav: tuple[int, list[int]] | None = None
    """For a step past the ids at hand: (position of the first, ids) of the filter around it."""


@dataclass
class TotalLoaded(Message):
    """The filter's count, when the browser had none yet (counted after the item shows)."""

    total: int


@dataclass
class PositionFound(Message):
    """The row of an item shown before its position was known (counted after it showed)."""

    item_id: int
    position: int | None


@dataclass
class NeighbourFound(Message):
    """`n`/`p` walked in SQL: the next item, or None at either end of the filter."""

    item_id: int | None
    step: int


NAV_PAGE = 120
"""Ids fetched around a step past those at hand (as many as the browser's window)."""


class DetailScreen(StaleScreen):
    """One item; everything needed to see why it scored what it scored."""

    HELP_TITLE = "Item detail"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "step(1)", "Next", id="detail.next-item", tooltip="Next item of the current filter"),
        Binding("p", "step(-1)", "Previous", id="detail.previous-item", tooltip="Previous item of the current filter"),
        Binding("a", "toggle_alignment", "Alignment", id="detail.toggle-alignment",
                tooltip="Official F1 alignment ↔ character subsequence"),
        Binding("r", "choose_run", "Run", id="detail.choose-run",
                tooltip="Show another run's prediction against the golds"),
        Binding("y", "copy", "Copy", id="detail.copy", show=False,
                tooltip="Copy the id, question, prediction, best gold or the whole item (JSON)"),
        Binding("E", "open_evidence", "Evidence", id="detail.open-evidence", show=False,
                tooltip="Open the item's evidence URL in the browser"),
        *DETAIL_STALE_BINDINGS,  # s, S, g, G, u, U (stale.keys); 1–9 choose a gold
        *DETAIL_LABEL_BINDINGS,  # l (screens.labels)
        *ALIAS_BINDINGS,  # A (screens.aliases)
        Binding("escape", "back", "Back", id="detail.back", tooltip="Back to the item browser"),
    ]

    chosen_gold: var[int | None] = var(None, init=False)
    """0-based index of the gold `s` and `S` act on (the first of its group of identical golds)."""
    subsequence: var[bool] = var(False, init=False)
    """Alignment shown: character subsequence (`a`) instead of the official F1 alignment."""

    def __init__(
        self, f: Filter, item_id: int, run: str | None = None, *, nav: list[int] | None = None, nav_start: int = 0,
        total: int | None = None, total_coming: bool = False,
    ) -> None:
        """`total_coming`: the opener is counting the filter and hands the count over (`TotalLoaded`),
        so this screen does not count it a second time (a pass over every item at a million)."""
        super().__init__()
        self.filter = f
        self.item_id = item_id
        self.nav = nav or []  # item ids of the browser's window: n/p inside it need no SQL walk
        self.nav_start = nav_start
        self.run = run if run is not None else f.run
        self.detail: ItemDetail | None = None
        self.labels: ItemLabels | None = None
        self.position: int | None = None
        self.total: int | None = total
        self.step_anchor: tuple[int, int | None] = (item_id, None)
        """(item id, position) `n`/`p` count from: the item the last step lands on, even before it shows."""
        self.pending_steps = 0
        """Steps from the anchor still being walked in SQL (keys typed while a step loads add up)."""
        self.counting = total_coming
        self.label_actions = LabelActions(self, self.stale, self.label_scope)
        self.alias_actions = AliasActions(self, self.stale, self.label_scope)

    def compose(self) -> ComposeResult:
        yield Header()
        with VerticalScroll(id="detail-scroll"):
            yield Static(id="d-title")
            with Horizontal(id="detail-body"):
                with Vertical(id="detail-left"):
                    yield Static(id="d-question")
                    yield Static(id="d-labels")
                    yield Static(id="d-answers")
                    yield Static(id="d-others")
                with Vertical(id="detail-right"):
                    yield Static(id="d-context")
                    yield Static(id="d-meta")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one("#detail-scroll").focus()
        self.load(self.item_id, self._nav_position(self.item_id))

    def _nav_position(self, item_id: int) -> int | None:
        try:
            return self.nav_start + self.nav.index(item_id)
        except ValueError:
            return None

    @work(thread=True, exclusive=True, exit_on_error=False, group="detail")
    def load(self, item_id: int, position: int | None = None) -> None:
        """The item first; its position, when not known, after it shows (`PositionFound`: a count
        of the rows before it, which at a million items takes longer than the item)."""
        with self.db.connect() as conn:
            detail = item_detail(conn, item_id, self.run)
            labels = self._labels_of(conn, detail)
            if get_current_worker().is_cancelled:
                return
            self.post_message(DetailLoaded(detail, position, self.total, labels=labels))
            if position is None and detail is not None:
                self._post_position(conn, item_id)

    def _post_position(self, conn: Any, item_id: int) -> None:
        position = query.position(conn, self.filter, item_id)
        if not get_current_worker().is_cancelled:
            self.post_message(PositionFound(item_id, position))

    @work(thread=True, exclusive=True, exit_on_error=False, group="detail")
    def step(self, item_id: int, step: int, target: int | None = None) -> None:
        """Outside the ids at hand: the page of the filter around the target position (an index
        walk, `core.query.page_ids`), which later steps use too; without a position, a keyset walk
        from the anchor's sort key (`core.query.neighbour`), the item shown before its position
        is counted."""
        nav = None
        with self.db.connect() as conn:
            if target is not None:
                start = max(0, target - NAV_PAGE // 2)
                ids = query.page_ids(conn, self.filter, start, NAV_PAGE)
                nxt, position = (ids[target - start], target) if target - start < len(ids) else (None, None)
                nav = (start, ids)
            else:
                nxt, position = query.neighbour(conn, self.filter, item_id, step), None
            if nxt is None:
                self.post_message(NeighbourFound(None, step))
                return
            detail = item_detail(conn, nxt, self.run)
            labels = self._labels_of(conn, detail)
            if get_current_worker().is_cancelled:
                return
            self.post_message(DetailLoaded(detail, position, self.total, step, labels, nav))
            if position is None and detail is not None:
                self._post_position(conn, nxt)

    @work(thread=True, exclusive=True, exit_on_error=False, group="detail-count")
    def load_total(self) -> None:
        """The browser opened this before its count came: count once, after the item shows."""
        with self.db.connect() as conn:
            total = query.count(conn, self.filter)
        self.post_message(TotalLoaded(total))

    def on_total_loaded(self, message: TotalLoaded) -> None:
        self.total = message.total
        self.render_detail()

    def _labels_of(self, conn: Any, detail: ItemDetail | None) -> ItemLabels | None:
        return item_labels(conn, self.run, detail.dataset, detail.key) if self.run and detail is not None else None

    def label_scope(self) -> LabelScope:
        """Labels act on the item shown, for the run shown."""
        return self.run, [self.detail.item_id] if self.detail is not None else None, None, False

    def on_detail_loaded(self, message: DetailLoaded) -> None:
        if message.detail is None:
            self.notify("This item is no longer in the database.", severity="error")
            return
        if self.detail is None or message.detail.item_id != self.detail.item_id:
            self.chosen_gold = None  # the gold s acts on belongs to the item it was chosen on
        if message.steps and message.steps == self.pending_steps:  # the position may follow (PositionFound)
            self.step_anchor, self.pending_steps = (message.detail.item_id, message.position), 0
        if message.nav is not None:
            self.nav_start, self.nav = message.nav
        self.detail = message.detail
        self.labels = message.labels
        self.item_id = message.detail.item_id
        self.position, self.total = message.position, self.total if message.total is None else message.total
        if self.total is None and not self.counting:
            self.counting = True
            self.load_total()
        self.render_detail()
        self.query_one("#detail-scroll", VerticalScroll).scroll_home(animate=False)

    def on_position_found(self, message: PositionFound) -> None:
        if message.item_id == self.step_anchor[0] and self.step_anchor[1] is None and not self.pending_steps:
            self.step_anchor = (message.item_id, message.position)
        if self.detail is not None and message.item_id == self.detail.item_id:
            self.position = message.position
            self.render_detail()

    def on_neighbour_found(self, message: NeighbourFound) -> None:
        if message.item_id is None:
            self.pending_steps = 0
            self.notify("Last item of the filter." if message.step > 0 else "First item of the filter.")

    def render_detail(self) -> None:
        d = self.detail
        if d is None:
            return
        scroll = self.query_one("#detail-scroll", VerticalScroll)
        width = (scroll.scrollable_content_region.width or self.app.size.width - 4) - 2
        half = width // 2 - 2 if self.has_class("-wide") else width
        self.query_one("#d-title", Static).update(parts.title(d, self.position, self.total))
        self.query_one("#d-question", Static).update(parts.question(d))
        labels = self.query_one("#d-labels", Static)
        labels.update(line := label_line(self.labels, self.run))
        labels.display = bool(line.plain)
        labels.styles.margin = (0, 0, 1, 0)
        self.query_one("#d-answers", Static).update(parts.answers(d, self.subsequence, half, chosen=self.chosen_gold))
        self.query_one("#d-others", Static).update(parts.others(d, half))
        self.query_one("#d-context", Static).update(parts.context(d, half))
        self.query_one("#d-meta", Static).update(parts.meta(d, half))

    def on_resize(self) -> None:
        self.call_after_refresh(self.render_detail)

    def action_step(self, step: int) -> None:
        """Next/previous item of the filter, counted from where the last step lands (not from the
        item on screen): `n n n n` typed faster than items load still moves four items."""
        anchor_id, anchor_pos = self.step_anchor
        steps = self.pending_steps + step
        pos = self._nav_position(anchor_id) if anchor_pos is None else anchor_pos
        target = None if pos is None else pos + steps
        if target is not None and 0 <= target - self.nav_start < len(self.nav):
            self.step_anchor, self.pending_steps = (self.nav[target - self.nav_start], target), 0
            self.load(self.nav[target - self.nav_start], target)
        elif target is not None and (target < 0 or (self.total is not None and target >= self.total)):
            self.notify("Last item of the filter." if step > 0 else "First item of the filter.")
        else:
            self.pending_steps = steps
            self.step(anchor_id, steps, target)

    def watch_chosen_gold(self) -> None:
        self.render_detail()

    def watch_subsequence(self) -> None:
        self.render_detail()

    def action_toggle_alignment(self) -> None:
        self.subsequence = not self.subsequence
        self.notify("Character subsequence alignment" if self.subsequence else "Official F1 alignment", timeout=2)

    def action_choose_run(self) -> None:
        if self.detail is None:
            self.notify("The item is still loading: r lists its runs once it is shown.", timeout=3)
            return
        runs = sorted([o.run for o in self.detail.others] + self.detail.missing_runs
                      + ([self.run] if self.run and self.detail.prediction else []))

        def done(run: str | None) -> None:
            if run and run != self.run:
                self.run = run
                self.load(self.item_id, self.position)

        self.app.push_screen(RunPicker("Show prediction of", self.run, runs), done)

    def action_copy(self) -> None:
        """Choose what to copy; it goes to the clipboard by OSC 52 (and the system's copy
        command where there is one, for terminals that ignore OSC 52)."""
        d = self.detail
        if d is None:
            return
        texts = copy_choices(d)
        labels = {name: f"{name}: {truncate(clean(text.replace(chr(10), ' ')), 50)}" for name, text in texts.items()}

        def done(choice: str | None) -> None:
            if choice:
                how = copy_text(self.app, texts[choice])
                self.notify(f"Copied the {choice} ({how}).", timeout=3)

        self.app.push_screen(RunPicker("Copy", None, list(texts), labels=labels), done)

    def action_open_evidence(self) -> None:
        url = evidence_url(self.detail) if self.detail is not None else None
        if url is None:
            self.notify("This item has no evidence URL (CDQA items and flags with evidence have one).",
                        severity="warning")
            return
        self.app.open_url(url)
        self.notify(f"Opening {clean(url)}", timeout=3, markup=False)

    def action_back(self) -> None:
        self.dismiss(self.item_id)

    # -- stale flags and labels (u, U, m: StaleScreen) ---------------------------------------
    def action_next_gold(self, step: int) -> None:
        self.chosen_gold = next_gold(self.detail, self.chosen_gold, step)

    def on_key(self, event: events.Key) -> None:
        """1–9 choose a gold by the number it is shown with."""
        if event.character is None or event.character not in "123456789" or self.detail is None:
            return
        chosen = gold_by_number(self.detail, int(event.character) - 1)
        if chosen is None:
            return
        event.stop()
        if isinstance(chosen, str):
            self.notify(chosen, severity="warning")
        else:
            self.chosen_gold = chosen

    def action_mark_stale(self) -> None:
        if self.detail is not None:
            self.stale.open_form(self.detail.item_id, target_gold(self.detail, self.chosen_gold))

    def action_unmark_stale(self) -> None:
        if self.detail is not None:
            self.stale.unmark_item(self.detail.item_id, self.chosen_gold)

    def stale_changed(self) -> None:
        if self.detail is not None:
            self.load(self.detail.item_id, self.position)

    def action_label_dialog(self) -> None:
        self.label_actions.pick()

    def action_accept_alias(self) -> None:
        self.alias_actions.accept()
