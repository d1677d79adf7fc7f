"""Memory the process freed handed back to the system before a big step allocates.

numpy takes an array under 32 MB from the C heap (glibc's malloc raises its mmap threshold to the
largest block freed, up to 32 MB), and a freed block goes back to the heap, not to the system: a
comparison's reads and counts on three threads leave ~100 MB of free heap scattered between live
arrays at a million items, which the process's resident size (what a user sees, and the compare
screen's 500 MB target) goes on counting beside the resampling's own buffers. `malloc_trim(0)`
returns every free page of every arena (a few ms). Elsewhere than glibc this does nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys
from collections.abc import Callable
from functools import cache

__all__ = ["give_back_free_memory"]


@cache
def _trim() -> Callable[[int], int] | None:
    """glibc's `malloc_trim`, or None (another C library, another system)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        trim = libc.malloc_trim
    except (OSError, AttributeError):  # musl and others have no malloc_trim
        return None
    trim.argtypes, trim.restype = [ctypes.c_size_t], ctypes.c_int
    return trim


def give_back_free_memory() -> bool:
    """Return the heap's free pages to the system (module doc); True if the C library could."""
    trim = _trim()
    if trim is None:
        return False
    trim(0)
    return True
