"""The item detail's stale part: choose a gold (`g` / `G` / 1–9), mark it (`s`) or clear it (`S`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import events

from qa_inspect.core.query import GoldInfo, ItemDetail

from ..widgets import group_golds
from .actions import StaleActions


class DetailStale(StaleActions):
    """Mixed into `DetailScreen` before `BaseScreen`."""

    chosen_gold: int | None = None
    """0-based index of the chosen gold (the first of its group of identical golds)."""
    detail: ItemDetail | None
    item_id: int

    if TYPE_CHECKING:  # provided by DetailScreen
        position: int | None

        def render_detail(self) -> None: ...
        def load(self, item_id: int, position: int | None = None) -> object: ...  # a @work worker

    def _gold_groups(self) -> list[list[GoldInfo]]:
        if self.detail is None:
            return []
        return [g for g in group_golds(self.detail.golds) if not g[0].superseded]

    def _choose(self, idx: int | None) -> None:
        self.chosen_gold = idx
        self.render_detail()

    def action_next_gold(self, step: int) -> None:
        groups = self._gold_groups()
        if not groups:
            return
        firsts = [g[0].idx for g in groups]
        current = next((k for k, g in enumerate(groups) if self.chosen_gold in [x.idx for x in g]), None)
        k = (0 if step > 0 else len(groups) - 1) if current is None else (current + step) % len(groups)
        self._choose(firsts[k])

    def on_key(self, event: events.Key) -> None:
        """1–9 choose a gold by the number it is shown with."""
        if event.character is None or event.character not in "123456789" or self.detail is None:
            return
        n = int(event.character) - 1
        golds = self.detail.golds
        if n >= len(golds):
            return
        event.stop()
        if golds[n].superseded:
            self.notify(f"Gold {n + 1} is superseded by the dataset's rewrite: it is not scored and cannot be flagged.",
                        severity="warning")
            return
        group = next((g for g in self._gold_groups() if any(x.idx == n for x in g)), None)
        self._choose(group[0].idx if group else n)

    def _target_gold(self) -> int | None:
        """The chosen gold, else the best-scoring one, else the first scored gold."""
        if self.chosen_gold is not None:
            return self.chosen_gold
        p = self.detail.prediction if self.detail is not None else None
        best = next((m.gold_idx for m in p.per_gold if m.best), None) if p is not None else None
        if best is not None:
            return best
        groups = self._gold_groups()
        return groups[0][0].idx if groups else None

    def action_mark_stale(self) -> None:
        if self.detail is not None:
            self.stale_open_form(self.detail.item_id, self._target_gold())

    def action_unmark_stale(self) -> None:
        if self.detail is not None:
            self.stale_unmark_item(self.detail.item_id, self.chosen_gold)

    def stale_changed(self) -> None:
        if self.detail is not None:
            self.load(self.detail.item_id, self.position)
