"""The browser's state as `qa-inspect open` options and back (`core.query.view_*`): one line
reopens exactly the filter, sort and item it was copied from."""

from __future__ import annotations

import shlex
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from qa_inspect.core.query import (
    SORTS,
    Filter,
    ViewError,
    save_slice,
    view_args,
    view_command,
    view_filter,
    view_item,
)

RUNS = ["bidaf-baseline", "bert-base-chinese", "glm-6b"]


@pytest.fixture(scope="module")
def conn(loaded_db: Path) -> Iterator[sqlite3.Connection]:
    c = sqlite3.connect(loaded_db)
    yield c
    c.close()


def parse(args: list[str]) -> dict[str, str]:
    """`--name value` pairs as `open` reads them."""
    assert len(args) % 2 == 0
    return {args[k][2:]: args[k + 1] for k in range(0, len(args), 2)}


def reopen(conn: sqlite3.Connection, args: list[str]) -> Filter:
    o = parse(args)
    return view_filter(conn, run=o.get("run"), compare=o.get("compare"), filter_text=o.get("filter"), sort=o.get("sort"))


filters = st.builds(
    Filter, run=st.sampled_from(RUNS), compare=st.none() | st.sampled_from(RUNS), em=st.none() | st.sampled_from([0, 1]),
    f1_max=st.none() | st.floats(0, 1), search=st.text(max_size=6), tags=st.lists(st.text(max_size=5), max_size=2).map(tuple),
    facets=st.lists(st.tuples(st.sampled_from(["gold_len", "label"]), st.text(max_size=4)), max_size=2, unique=True).map(tuple),
    sort=st.sampled_from(sorted(SORTS)), descending=st.booleans(), stale=st.none() | st.booleans(),
    only_disagree=st.booleans(), outcome=st.none() | st.sampled_from(["fixed", "broken"]),
)


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture], max_examples=60)
@given(filters)
def test_the_options_reopen_the_filter(conn: sqlite3.Connection, f: Filter) -> None:
    assert reopen(conn, view_args(f)) == f
    line = shlex.split(view_command("runs dir", f, "DEV_4_QUERY_0"))
    assert line[:3] == ["qa-inspect", "open", "runs dir"] and parse(line[3:])["item"] == "DEV_4_QUERY_0"


def test_a_saved_slice_name_is_a_filter(conn: sqlite3.Connection, tmp_path: Path) -> None:
    f = Filter(run="bidaf-baseline", em=0, search="的")
    save_slice(conn, "wrong ones", f)
    assert view_filter(conn, filter_text="wrong ones") == f
    assert view_filter(conn, filter_text="wrong ones", run="bert-base-chinese").run == "bert-base-chinese"
    conn.rollback()


@pytest.mark.parametrize(("options", "words"), [
    ({"run": "nope"}, "unknown run 'nope'"),
    ({"compare": "nope"}, "unknown run 'nope'"),
    ({"sort": "colour"}, "unknown sort column"),
    ({"filter_text": "{not json"}, "--filter"),
    ({"filter_text": "no such slice"}, "slice"),
    ({"filter_text": '{"em": "yes"}'}, "em"),
])
def test_a_name_it_cannot_find_is_one_line(conn: sqlite3.Connection, options: dict[str, str], words: str) -> None:
    with pytest.raises(Exception) as info:
        view_filter(conn, **options)
    assert words in str(info.value) and "\n" not in str(info.value)


def test_the_item_is_found_by_its_key_in_the_runs_dataset(conn: sqlite3.Connection) -> None:
    f = Filter(run="bidaf-baseline")
    got = view_item(conn, f, "DEV_4_QUERY_0")
    assert conn.execute("SELECT key FROM items WHERE id = ?", (got,)).fetchone()[0] == "DEV_4_QUERY_0"
    with pytest.raises(ViewError, match="no item"):
        view_item(conn, Filter(run="glm-6b"), "DEV_4_QUERY_0")  # a key of another dataset
