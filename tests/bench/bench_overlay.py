"""Overlay benchmark (a script, not a test): what a read-only runs folder costs on open.

    python tests/bench/bench_overlay.py [--items 100000] [--runs 10] [--entries 20000] [--new 1000]

Builds a shipped database (`bench_tui.build`: items × runs, plus a journal of `--entries` marks),
then prints, each through the public store API:

- seeding: the first open of the read-only folder (backup API copy of the whole file),
- the first merge (every shipped entry already there: uids compared, nothing added),
- an open with the shipped file unchanged (size and mtime only: nothing read),
- a merge after the owner added `--new` entries.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bench_tui import build, machine  # noqa: E402


def _journal(path: Path, n: int, start: int = 0) -> None:
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("BEGIN")
    conn.executemany(
        "INSERT INTO annotations (ts, author, action, dataset, item_key, gold_text, reason, uid)"
        " VALUES (?, 'owner', 'mark', 'synthetic', ?, 'g', 'bench', ?)",
        [(f"2024-01-01T00:00:{i:09d}Z", f"SYN_{i + 1}_QUERY", uuid.uuid4().hex) for i in range(start, start + n)],
    )
    conn.execute("COMMIT")
    conn.close()


def _timed(label: str, fn: object) -> object:
    t0 = time.perf_counter()
    out = fn()  # type: ignore[operator]
    print(f"{label:<52} {time.perf_counter() - t0:8.3f} s")
    return out


def main() -> None:
    from qa_inspect.core.store import merge_shipped, open_db, seed_overlay

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--items", type=int, default=100_000)
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--entries", type=int, default=20_000)
    ap.add_argument("--new", type=int, default=1_000)
    args = ap.parse_args()
    print(machine())
    with tempfile.TemporaryDirectory() as tmp:
        shipped, overlay = Path(tmp) / "shipped" / "qa.db", Path(tmp) / "cache" / "qa.db"
        shipped.parent.mkdir()
        build(shipped, args.items, args.runs)
        _journal(shipped, args.entries)
        print(f"shipped database: {shipped.stat().st_size / 2**20:.0f} MB, {args.entries:,} journal entries")
        _timed("seed (backup API copy)", lambda: seed_overlay(shipped, overlay))
        conn = open_db(overlay).conn
        merged = _timed("first merge (all uids present)", lambda: merge_shipped(conn, shipped))
        assert merged.entries == 0, merged  # type: ignore[attr-defined]
        merged = _timed("open again, shipped unchanged", lambda: merge_shipped(conn, shipped))
        assert merged.unchanged, merged  # type: ignore[attr-defined]
        _journal(shipped, args.new, start=args.entries)
        merged = _timed(f"merge after the owner added {args.new:,} entries", lambda: merge_shipped(conn, shipped))
        assert merged.entries == args.new, merged  # type: ignore[attr-defined]
        conn.close()


if __name__ == "__main__":
    main()
