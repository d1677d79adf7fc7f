"""Building millions of objects at once (a load, `score` of a big file) without cycle collection."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["no_cycle_collection"]


@contextmanager
def no_cycle_collection() -> Iterator[None]:
    """Cycle collection off inside: reading and scoring build millions of objects and free few,
    and each full collection walks them all (it tripled a load's reading time, doubled `score`'s
    at 100k). What is still alive on leaving is walked by the next collection: free it inside."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()
