"""The files of a load read two at a time: one by the load's second process (`ScorePool`) while
this process reads the others, taking its answer when it is there.

Reading is the first phase of a load, and the second process sat idle through it: ten sampled
runs of 20 MB took 11 s to read here. A file read there comes back pickled, which costs far less
than parsing it. Files are handled in folder order either way, and a file's outcome — what it
holds, or why it cannot be read — is the same value wherever it was read (`read_outcome`), so the
load reports the same errors and skips. A file the second process could not answer for is read
here.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar

from qa_inspect.core.errors import FormatError
from qa_inspect.core.formats import Limits, use_limits
from qa_inspect.core.model import Prediction, Run

from .discover import read_in_folder
from .manifest import Manifest
from .score_pool import QUEUE, ScorePool

__all__ = ["BESIDE_BYTES", "BESIDE_MAX", "Outcome", "pack_run", "read_in_turn", "read_outcome", "read_there", "unpack_run"]

C = TypeVar("C")
Outcome = tuple[str, Any]
"""("read", the source), ("format", the reader's message) or ("failed", (exception type name, message))."""
BESIDE_BYTES = 256 << 10
"""Files from this size on are worth reading in the second process. What it sends back is read
in a third of the time of parsing the file: a run of 20,000 short answers (1.1 MB) as columns
(`pack_run`), 13 ms against 28; a dataset of 3 MB, 17 ms against 54."""
BESIDE_MAX = 64 << 20
"""Files from this size on are read here: what the second process holds of one while it is sent
would add to the load's peak memory."""


def read_outcome(path: Path, runs_dir: Path | None, manifest: Manifest | None) -> Outcome:
    """What reading one file of the folder gives (`discover.read_in_folder`), errors a file can
    cause as values: one file's failure is never the load's."""
    try:
        return "read", read_in_folder(path, runs_dir, manifest)
    except FormatError as exc:
        return "format", str(exc)
    except (RecursionError, MemoryError, OSError, RuntimeError, ValueError) as exc:
        return "failed", (type(exc).__name__, str(exc))


def read_there(path: Path, runs_dir: Path | None, manifest: Manifest | None, limits: Limits | None) -> Outcome:
    """`read_outcome` in the second process, under the folder's `[limits]` (module level: the
    second process is sent it by name)."""
    with use_limits(limits):
        kind, value = read_outcome(path, runs_dir, manifest)
    return ("packed", pack_run(value)) if kind == "read" and isinstance(value, Run) else (kind, value)


_FIELDS = ("ref", "ref_kind", "text", "raw", "candidates", "meta", "line", "samples")
_EMPTY: dict[str, Any] = {"raw": None, "candidates": [], "meta": {}, "samples": ()}
"""The fields a column is left out for when every prediction has this value (a fresh list or
dict each when rebuilt)."""


def pack_run(run: Run) -> tuple[Run, dict[str, list[Any]]]:
    """`run` without its predictions, and their fields as columns (one list per field, left out
    where every prediction has the empty value): what the second process sends of a run it read.
    Pickled predictions are rebuilt one `__setstate__` call at a time, 26 ms for a 20,000-answer
    run that parses in 29 ms; columns of strings and numbers are read back in 5 ms and the
    predictions built from them in 9."""
    predictions, run.predictions = run.predictions, []
    columns = {name: [getattr(p, name) for p in predictions] for name in _FIELDS}
    for name, empty in _EMPTY.items():
        if all(value == empty for value in columns[name]):
            del columns[name]
    return run, columns


def unpack_run(packed: tuple[Run, dict[str, list[Any]]]) -> Run:
    """The run `pack_run` packed, each prediction equal to the one read."""
    run, columns = packed
    raw, candidates, meta, samples = (columns.get(name) for name in ("raw", "candidates", "meta", "samples"))
    run.predictions = [
        Prediction(ref, kind, text, raw[k] if raw is not None else None, candidates[k] if candidates is not None else [],
                   meta[k] if meta is not None else {}, line, samples[k] if samples is not None else ())
        for k, (ref, kind, text, line) in enumerate(zip(columns["ref"], columns["ref_kind"], columns["text"], columns["line"]))
    ]
    return run


def read_in_turn(
    pool: ScorePool | None, cands: Sequence[C], worth: Callable[[C], bool], request: Callable[[C], tuple[Any, ...]],
    here: Callable[[C], Outcome],
) -> Iterator[tuple[C, Outcome]]:
    """Each of `cands` in order with its outcome: read by the second process (`request(cand)`:
    the arguments of `read_there`) or here (`here(cand)`). The second process is kept up to
    `QUEUE` files ahead (it starts on the next file as it writes an answer), and never holds more
    than are left to read here beside the next, so that both finish together (a sampled run of
    20 MB takes about as long either way: a pickled answer is read back in a twentieth of the
    time). Meanwhile this process reads the files it reaches, and takes an answer once it is
    there or nothing else is left to read. A file the second process could not answer for is
    read here."""
    done: dict[int, Outcome] = {}
    todo = list(range(len(cands)))
    sent: deque[int] = deque()
    shown = 0
    try:
        while shown < len(cands):
            while pool is not None and len(sent) < min(QUEUE, len(todo) - 1):  # it holds no more than are left here
                k = _send_next(pool, cands, todo, worth, request, queue=bool(sent))
                if k is None:
                    break
                sent.append(k)
            if sent and (not todo or pool is None or pool.ready()):
                answer = pool.receive() if pool is not None else None
                k = sent.popleft()
                done[k] = here(cands[k]) if answer is None else _unpacked(answer)
            elif todo:
                k = todo.pop(0)
                done[k] = here(cands[k])
            while shown in done:
                yield cands[shown], done.pop(shown)
                shown += 1
    finally:
        while sent and pool is not None:  # the caller stopped early: the answers are taken, so the pool is free again
            sent.pop()
            pool.receive()


def _unpacked(answer: Outcome) -> Outcome:
    return ("read", unpack_run(answer[1])) if answer[0] == "packed" else answer


def _send_next(
    pool: ScorePool, cands: Sequence[C], todo: list[int], worth: Callable[[C], bool],
    request: Callable[[C], tuple[Any, ...]], *, queue: bool = False,
) -> int | None:
    """The position of the file sent to the second process (taken off `todo`): the first one
    worth it after the file read here next; None when none is, or it cannot be sent (`queue`:
    behind those out already)."""
    k = next((k for k in todo[1:] if worth(cands[k])), None)
    if k is None or not pool.send((read_there, request(cands[k])), queue=queue):
        return None
    todo.remove(k)
    return k
