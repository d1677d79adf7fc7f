"""The item browser's state as `qa-inspect open` options: what `Y` in the app copies and what the
command reads back, one definition each way, so a copied line reopens exactly that view.

`--run A --compare B --filter '{…}' --sort f1:desc --item KEY`: the filter is the JSON of
`Filter.to_dict()` without the parts that have an option of their own, or the name of a saved
slice; the sort is a `SORTS` column, `:desc` for descending; the item is a dataset key.
"""

from __future__ import annotations

import json
import shlex
import sqlite3
from collections.abc import Sequence

from qa_inspect.core.errors import QAInspectError, unknown_name

from .filters import SORTS, Filter
from .slices import load_slice

__all__ = ["ViewError", "view_args", "view_command", "view_filter", "view_item"]

_OWN_OPTION = ("run", "compare", "sort", "descending")


class ViewError(QAInspectError):
    """An `open` option that names no run, slice, sort column or item, or a filter that is not JSON."""


def view_args(f: Filter, item_key: str | None = None) -> list[str]:
    """The options that reopen `f` (and the item `item_key` in the detail view)."""
    args: list[str] = []
    if f.run:
        args += ["--run", f.run]
    if f.compare:
        args += ["--compare", f.compare]
    rest = {k: v for k, v in f.to_dict().items() if k not in _OWN_OPTION and not (k == "dataset" and f.run)}
    if rest:
        args += ["--filter", json.dumps(rest, ensure_ascii=False, sort_keys=True, separators=(",", ":"))]
    if f.sort != "key" or f.descending:
        args += ["--sort", f.sort + (":desc" if f.descending else "")]
    if item_key:
        args += ["--item", item_key]
    return args


def view_command(runs_dir: str, f: Filter, item_key: str | None = None) -> str:
    """The whole shell line: `qa-inspect open RUNS …`, every word quoted for a POSIX shell."""
    return shlex.join(["qa-inspect", "open", runs_dir, *view_args(f, item_key)])


def view_filter(conn: sqlite3.Connection, *, run: str | None = None, compare: str | None = None,
                filter_text: str | None = None, sort: str | None = None) -> Filter:
    """The filter `open`'s options describe; `ViewError` (one line) for a name or JSON it cannot read."""
    f = Filter()
    if filter_text:
        f = _filter_of(conn, filter_text.strip())
    runs = {r for (r,) in conn.execute("SELECT name FROM runs")}
    for name in (run, compare):
        if name is not None and name not in runs:
            raise ViewError(unknown_name("run", name, sorted(runs), none="none loaded"))
    if run is not None:
        f = f.with_(run=run, dataset=None if run != f.run else f.dataset)
    if compare is not None:
        f = f.with_(compare=compare)
    if sort:
        column, _, order = sort.partition(":")
        if column not in SORTS or order not in ("", "desc", "asc"):
            raise ViewError(unknown_name("sort column", sort, [*SORTS, *(f"{s}:desc" for s in SORTS)]))
        f = f.with_(sort=column, descending=order == "desc")
    return f


def _filter_of(conn: sqlite3.Connection, text: str) -> Filter:
    """A JSON object (`Filter.to_dict()`), else the name of a saved slice."""
    if not text.startswith("{"):
        return load_slice(conn, text)
    try:
        data = json.loads(text)
        if not isinstance(data, dict):
            raise ValueError("not a JSON object")
        return Filter.from_dict(data)
    except ValueError as exc:  # json.JSONDecodeError is one
        raise ViewError(f"--filter: {exc}") from None


def view_item(conn: sqlite3.Connection, f: Filter, key: str) -> int:
    """The stored id of the item `key` of the filter's run (or dataset); `ViewError` if it has none."""
    if f.run:
        sql = "SELECT i.id FROM items i JOIN runs r ON r.dataset_id = i.dataset_id WHERE r.name = ? AND i.key = ?"
        where: Sequence[str] = (f.run, key)
    else:
        sql = "SELECT i.id FROM items i JOIN datasets d ON d.id = i.dataset_id WHERE d.name = ? AND i.key = ?"
        where = (f.dataset or "", key)
    row = conn.execute(sql, tuple(where)).fetchone()
    if row is None:
        raise ViewError(f"--item: no item {key!r} in {f.run or f.dataset or 'this view'}")
    return int(row[0])
