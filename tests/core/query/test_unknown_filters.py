"""A stored filter (saved slice, remembered browser filter) naming a dataset, run or split the
database does not hold is refused on save, said on use, and never widened to every item."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from collections.abc import Iterator

import pytest
import sqlite3

from qa_inspect.core.load import load_runs
from qa_inspect.core.query import (
    Filter,
    SliceError,
    count,
    list_slices,
    load_slice,
    save_slice,
    unknown_values,
)
from qa_inspect.core.store import open_db
from tests.paths import FIXTURES


@pytest.fixture
def conn(tmp_path: Path) -> Iterator[sqlite3.Connection]:
    root = tmp_path / "runs"
    shutil.copytree(FIXTURES / "compare", root)
    assert not load_runs(root).errors
    c = open_db(root / ".qa-inspect" / "qa.db").conn
    yield c
    c.close()


def _stored(conn: sqlite3.Connection, name: str, f: dict[str, object]) -> None:
    """A slice as an older database holds it (saved before its run or split went away)."""
    conn.execute("INSERT INTO slices (name, filter, created_at, author) VALUES (?, ?, '2024-01-01', 'x')",
                 (name, json.dumps(f)))


def _runs(conn: sqlite3.Connection) -> str:
    return ", ".join(repr(r[0]) for r in conn.execute("SELECT name FROM runs ORDER BY name"))


def test_saving_a_filter_naming_an_unknown_split_or_run_is_one_line_naming_the_known_ones(conn: sqlite3.Connection) -> None:
    with pytest.raises(SliceError) as err:
        save_slice(conn, "typo", Filter(run="run-a", splits=("tset",)))
    assert str(err.value) == "slice 'typo' not saved: unknown split 'tset' (known: 'dev', 'test')"
    with pytest.raises(SliceError) as err:
        save_slice(conn, "gone", Filter(run="run-z"))
    assert str(err.value) == f"slice 'gone' not saved: unknown run 'run-z' (known: {_runs(conn)})"
    assert list_slices(conn) == []
    assert save_slice(conn, "fine", Filter(run="run-a", splits=("dev",))).error is None


def test_a_stored_slice_naming_what_is_gone_says_so_and_selects_nothing(conn: sqlite3.Connection) -> None:
    _stored(conn, "old-split", {"run": "run-a", "splits": ["tset"]})
    _stored(conn, "old-run", {"run": "run-z"})
    listed = {s.name: s.error for s in list_slices(conn)}
    assert listed == {"old-run": f"slice 'old-run' selects nothing: unknown run 'run-z' (known: {_runs(conn)})",
                      "old-split": "slice 'old-split' selects nothing: unknown split 'tset' (known: 'dev', 'test')"}
    for name in listed:
        with pytest.raises(SliceError, match="selects nothing"):
            load_slice(conn, name)


def test_an_unknown_run_or_split_selects_nothing_never_every_item(conn: sqlite3.Connection) -> None:
    assert count(conn, Filter(run="run-a")) > 0
    for f in (Filter(run="run-z"), Filter(run="run-a", splits=("tset",)), Filter(dataset="nope"),
              Filter(run="run-z", dataset="tiny")):
        assert unknown_values(conn, f)
        assert count(conn, f) == 0, f
    assert unknown_values(conn, Filter(run="run-a", splits=("dev",), compare="run-b")) == []


def test_a_stored_slice_repeating_a_key_is_not_guessed(conn: sqlite3.Connection) -> None:
    conn.execute("INSERT INTO slices (name, filter, created_at, author) VALUES (?, ?, '2024-01-01', 'x')",
                 ("twice", '{"run": "run-a", "splits": ["dev"], "splits": ["test"]}'))
    with pytest.raises(SliceError) as err:
        load_slice(conn, "twice")
    assert str(err.value) == ("slice 'twice': stored filter cannot be read (top level: key 'splits' repeated, "
                              "the last value kept: which one was meant?)")
    assert [s.error for s in list_slices(conn)] == [str(err.value)]
