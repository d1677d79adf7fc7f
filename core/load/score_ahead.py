"""The next run scored while this one is written.

A load writes its runs one after another: match, score, insert. While this process inserts (SQLite),
the second scoring process (`ScorePool`) sat idle, though the pairs of the next run are known as
soon as it is linked. So once a run is scored, and before its rows go in, the next run's new pairs
and sampled items are shared out (`ScoreAhead.start`): a share sent to the second process, the rest
scored here; then the insert. When the next run is written, the second process's answer is taken
first (`ScoreAhead.take`) and its scores are in the memo like any scored before.

The share adapts to keep both processes equally busy: each answer says how long the second process
worked, and this process knows how long it worked between the send and the take (its own share,
the insert, the next run's match); the next share is the one that would have balanced the two
(runs of one sweep are alike). Sampled items are shared by item id (`id % SLOTS` below the share),
so that most items stay with the process whose memo holds their answers from the runs before.

Scoring is pure, so where a pair is scored never changes its numbers; the conformance tests hold
loads with and without a second process to the same stored rows.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from . import completions, score_pool
from .completions import SLOTS, SampleItem, SampleMemo, SampleScores, SampleWork, score_sample_items
from .features import Context
from .score_pool import (Golds, Looked, ScoreInput, ScoreKey, ScoreMemo, ScorePool, Scores, Superseded, Todo, look_up,
                         remember, score_many, todo_of)

__all__ = ["PARTS_MAX", "SHARE_LIMITS", "Ahead", "ScoreAhead", "balanced_share", "scored_there"]
Part = tuple[str, Golds | None, Context | None, Superseded]
"""What an item is scored with: (scorer, golds, item context, superseded golds), a `Todo` without its answer."""
SHARE_LIMITS = (0.1, 0.95)
"""The second process's share stays within these: neither process is left out of a run entirely,
so both timings stay known."""


PARTS_MAX = 100_000
"""Item parts the second process keeps at most (each may hold a passage); past it, both sides
forget them and the next request sends its items again."""
_PARTS: dict[int, Part] = {}
"""In the second process: what each item part id sent so far is scored with (`scored_there`)."""


def scored_there(
    pairs: list[tuple[int, str]], scorer: str | None, items: list[SampleItem], parts: dict[int, Part], keep: int = PARTS_MAX,
) -> tuple[list[Scores], list[SampleScores], float]:
    """The second process's part of a run scored ahead, and the CPU seconds it took there (a
    module-level function: the second process is sent it by name). `pairs` are (item part id,
    answer): what an item is scored with (golds, passage, ...) is sent once per load in `parts`,
    not with every answer to it (`ScoreAhead.start`), and kept here meanwhile, up to the
    sender's `keep`."""
    start = time.process_time()
    _PARTS.update(parts)
    todo = [_pair_todo(pair) for pair in pairs]
    if len(_PARTS) > keep:  # as the sender forgets what it sent, by its own limit (`ScoreAhead.start`)
        _PARTS.clear()
    scores = score_many(todo)
    samples = score_sample_items(scorer, items) if scorer is not None and items else []
    return scores, samples, time.process_time() - start


@dataclass(slots=True)
class Ahead:
    """What scoring a run ahead gave, when it is written (`ScoreAhead.take`)."""

    prepared: Any
    """What the caller gave `start` to keep (the run's matched predictions, ...)."""
    samples: list[SampleScores | None] | None
    """The sampled scores of every row (None where a row has no samples; [] when no row has);
    None if not scored."""
    _flight: _Flight | None
    """The run as it was sent; None when the second process failed with its part."""

    def scores(self) -> list[Scores] | None:
        """Every row's scores, in order; None when the second process failed with its part (the
        caller scores the run as written). The rows the memo held were looked up once, when the
        run was sent (`ScoreAhead.start`); only the new ones are filled in here, which the caller
        does once it has started the next run, so that the second process is not idle meanwhile."""
        flight = self._flight
        if flight is None:
            return None
        found, scored, keys = flight.found, flight.scored, flight.keys
        for n in flight.missing:
            found[n] = scored[keys[n]]
        return cast(list[Scores], found)


@dataclass(slots=True)
class _Flight:
    """A run being scored ahead: what was sent, what this process computed, and when."""

    run: object
    prepared: Any
    keys: Sequence[ScoreKey]
    """Every row's memo key."""
    found: list[Scores | None]
    """Every row's scores where the memo held them when the run was sent, else None."""
    missing: list[int]
    """The positions of the None among `found`."""
    scored: dict[ScoreKey, Scores]
    """The new pairs' scores: this process's share (the second process's added by `take`)."""
    sent_keys: list[ScoreKey]
    """The keys of the pairs sent to the second process."""
    sampled: list[int]
    """Positions of the run's sampled predictions, in row order."""
    there: list[bool]
    """Per sampled prediction: scored by the second process."""
    mine: list[SampleScores]
    sent: float | None
    """When the request went out; None when nothing was sent (all scored here or known)."""
    own: float
    """Seconds this process spent on its own share."""
    share: float


@dataclass(slots=True)
class ScoreAhead:
    """The load's runs scored one ahead of their insert, shared with `pool`'s second process."""

    pool: ScorePool
    share: float = 0.5
    """The second process's share of a run's new work (pairs, and sampled items by id)."""
    _flight: _Flight | None = None
    _parts: set[int] = field(default_factory=set)
    """The ids of the item parts the second process holds (`scored_there`)."""

    def start(self, run: object, prepared: Any, scorer: str | None, rows: Sequence[ScoreInput],
              work: SampleWork | None, memo: ScoreMemo, sample_memo: SampleMemo, keys: Sequence[ScoreKey],
              looked: Looked | None = None) -> None:
        """Begin scoring the run `rows` and `work` (`completions.sample_work`) come from: the second
        process's share sent, this process's scored now into `memo` (and kept for `take`, with
        `prepared`; `keys`: the rows' memo keys as a load makes them, (item part id of
        `score_pool.item_key`, answer), with which each item part is sent once; `looked`:
        the rows looked up in `memo` while the run before was out, `score_pool.look_up`, so that
        the second process, now idle, waits only for the rows not found then). Does nothing
        while a run is out already."""
        if self._flight is not None or self.pool.busy:
            return
        found, missing = look_up(keys, memo, looked)
        firsts: dict[ScoreKey, int] = {}  # each new pair's first row: its `Todo` is built only where needed
        for n in missing:
            firsts.setdefault(keys[n], n)
        pairs = list(firsts.items())
        cut = round(len(pairs) * (1 - self.share))
        positions, items, ids = work or ([], [], [])
        slots = round(self.share * SLOTS)
        there = [item_id % SLOTS < slots for item_id in ids]
        theirs = [w for w, t in zip(items, there) if t]
        sent = None
        worth = len(pairs) >= score_pool.SPLIT_MIN or len(ids) >= completions.SPLIT_ITEMS  # else the round trip costs more
        if worth and (pairs[cut:] or theirs):
            request, parts = self._request(pairs[cut:], rows, scorer, theirs)
            if self.pool.send(request):
                self._parts.update(parts)
                if len(self._parts) > PARTS_MAX:  # the second process forgets them too (`scored_there`)
                    self._parts.clear()
                sent = time.perf_counter()
        if sent is None:
            cut, there, theirs = len(pairs), [False] * len(ids), []
        began = time.perf_counter()
        scored = dict(zip([key for key, _ in pairs[:cut]], score_many([todo_of(rows[n]) for _, n in pairs[:cut]])))
        remember(memo, scored)
        mine = score_sample_items(scorer, [w for w, t in zip(items, there) if not t], sample_memo) if scorer else []
        self._flight = _Flight(run, prepared, keys, found, missing, scored, [key for key, _ in pairs[cut:]], positions,
                               there, mine, sent, time.perf_counter() - began, self.share)

    def _request(
        self, pairs: list[tuple[ScoreKey, int]], rows: Sequence[ScoreInput], scorer: str | None, items: list[SampleItem]
    ) -> tuple[tuple[Any, ...], dict[int, Part]]:
        """What the second process is sent for `pairs` (keyed (item part id, answer), with the
        position of a row of theirs in `rows`) and `items`, and the item parts it is sent for the
        first time."""
        parts: dict[int, Part] = {}
        for key, n in pairs:
            if key[0] not in self._parts and key[0] not in parts:
                part_scorer, _, golds, context, superseded = todo_of(rows[n])
                parts[key[0]] = (part_scorer, golds, context, superseded)
        return (scored_there, ([key for key, _ in pairs], scorer, items, parts, PARTS_MAX)), parts

    def take(self, run: object, memo: ScoreMemo) -> Ahead | None:
        """The second process's answer to the run out (waiting for it) put into `memo`, and, when
        that run is `run`, what was scored of it; the next share set from both processes' timings."""
        flight, self._flight = self._flight, None
        if flight is None:
            return None
        theirs: list[SampleScores] | None = []
        if flight.sent is not None:
            asked = time.perf_counter()
            answer: Any = self.pool.receive()
            if answer is None:
                theirs = None  # the second process failed: its part is scored when the run is written
            else:
                scores, theirs, worked = answer
                sent = dict(zip(flight.sent_keys, scores))
                remember(memo, sent)
                flight.scored.update(sent)
                self._balance(flight, worked, asked - flight.sent)
        if flight.run is not run:
            return None
        if theirs is None:
            return Ahead(flight.prepared, None, None)
        return Ahead(flight.prepared, _samples(flight, theirs), flight)

    def _balance(self, flight: _Flight, worked: float, here: float) -> None:
        self.share = balanced_share(flight.share, worked, flight.own, here)


def _pair_todo(pair: tuple[int, str]) -> Todo:
    """What a pair sent as (item part id, answer) is scored from, in the second process."""
    scorer, golds, context, superseded = _PARTS[pair[0]]
    return scorer, pair[1], golds, context, superseded


def balanced_share(share: float, worked: float, own: float, here: float) -> float:
    """The next share of the second process, from the last run's: it worked `worked` seconds on
    `share` of the run, this process `own` seconds on the rest and `here` seconds in all between
    the send and the take. With `a` the second process's cost of a whole run, `b` this one's
    and `rest` this process's other work, the share that keeps both busy as long solves
    s·a = (1 − s)·b + rest; the next is halfway there (runs are alike, not equal), within
    `SHARE_LIMITS`."""
    a = worked / share
    b = own / (1 - share) if share < 1 else a
    if a + b <= 0:
        return share
    balanced = (b + max(here - own, 0.0)) / (a + b)
    low, high = SHARE_LIMITS
    return min(max((share + balanced) / 2, low), high)


def _samples(flight: _Flight, theirs: list[SampleScores]) -> list[SampleScores | None]:
    """Every row's sampled scores, both processes' put back in row order; [] when the run has no
    samples (known since the run was sent: not looked for again between the second process's
    answer and its next request)."""
    if not flight.sampled:
        return []
    mine_it, theirs_it = iter(flight.mine), iter(theirs)
    out: list[SampleScores | None] = [None] * len(flight.keys)
    for n, there in zip(flight.sampled, flight.there):
        out[n] = next(theirs_it) if there else next(mine_it)
    return out
