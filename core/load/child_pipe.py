"""The answers of the load's helper processes (the second scoring process, a dataset's reading
process): pickled messages put on a queue and written to stdout by a thread of their own, so
that the process works on while the load reads what it wrote."""

from __future__ import annotations

import os
import queue
import sys
import threading

__all__ = ["Answers", "answer_writer"]

Answers = queue.Queue[bytes | None]
"""Pickled messages to write, None for the end."""


def answer_writer(answers: Answers) -> threading.Thread:
    """A started thread writing `answers` to stdout until None, each flushed as written. If the
    load is gone (the pipe closed), the process ends there, not blocked on a full queue."""
    thread = threading.Thread(target=_write, args=(answers,), name="answers", daemon=True)
    thread.start()
    return thread


def _write(answers: Answers) -> None:
    out = sys.stdout.buffer
    try:
        while (data := answers.get()) is not None:
            out.write(data)
            out.flush()
    except OSError:
        os._exit(1)
