"""Merged journals agree whatever order their entries arrive in: any split of a journal into
imports, in any order, gives the state that importing it whole gives."""

from __future__ import annotations

import io
import json
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from qa_inspect.core import flags
from tests.helpers import Env, loaded_env

KEY = "DEV_4_QUERY_0"


def _journal(env: Env) -> list[str]:
    """A journal whose state hangs on its undos (a mark undone; one of two proposals undone) plus
    an unmark and a redo, as exported JSON lines."""
    c = env.conn
    ref = flags.resolve_item(c, KEY)
    gold = ref.scored_texts()[0]
    flags.mark(c, ref.dataset, ref.key, gold, author="alice", reason="r1", proposed="p1")
    flags.undo(c, author="alice")  # item 1: nothing left
    other = flags.resolve_item(c, "DEV_4_QUERY_1")
    g2 = other.scored_texts()[0]
    flags.mark(c, other.dataset, other.key, g2, author="alice", reason="r2", proposed="p2")
    flags.mark(c, other.dataset, other.key, g2, author="bob", reason="r3", proposed="p3")
    flags.undo(c, author="bob")  # item 2: alice's proposal alone
    flags.mark(c, ref.dataset, ref.key, gold, author="carol", reason="r4")
    flags.unmark(c, ref.dataset, ref.key, gold, author="carol")
    flags.undo(c, author="carol")
    flags.redo(c, author="carol")  # item 1: unmarked again
    buf = io.StringIO()
    flags.export_journal(c, buf)
    return [ln for ln in buf.getvalue().splitlines() if ln.strip()]


def _state(env: Env) -> list[tuple[str, str, str, str | None, tuple[str | None, ...]]]:
    return sorted((f.item_key, f.gold_text, f.status, f.proposed, tuple(p.proposed for p in f.proposals))
                  for f in flags.current_flags(env.conn))


def _import(env: Env, tmp: Path, parts: list[list[str]]) -> None:
    for n, part in enumerate(parts):
        path = tmp / f"part{n}.jsonl"
        path.write_text("".join(ln + "\n" for ln in part), encoding="utf-8")
        flags.import_file(env.conn, path)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_split_and_order_gives_the_same_state(loaded_template: Path, tmp_path_factory, data) -> None:  # noqa: ANN001
    root = tmp_path_factory.mktemp("merge")
    with loaded_env(loaded_template, root / "source") as source:
        lines = _journal(source)
        want = _state(source)
    assert want == [("DEV_4_QUERY_1", want[0][1], "open", "p2", ("p2",))], want
    assert all(json.loads(ln)["uid"] for ln in lines)
    order = data.draw(st.permutations(range(len(lines))))
    cut = data.draw(st.integers(min_value=0, max_value=len(lines)))
    shuffled = [lines[i] for i in order]
    with loaded_env(loaded_template, root / "whole") as whole:
        _import(whole, root, [lines])
        assert _state(whole) == want
    with loaded_env(loaded_template, root / "split") as split:
        _import(split, root, [shuffled[:cut], shuffled[cut:]])
        assert _state(split) == want, (order, cut)
