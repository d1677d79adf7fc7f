"""Stale flags out and in (core.stale_export): patch and journal JSONL, the dataset in its own format
with a round trip through the loader, and idempotent, conflict-keeping import."""

from __future__ import annotations

import copy
import io
import json
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from qa_inspect.core import flags as F
from qa_inspect.core.errors import FormatError, UnknownNameError
from qa_inspect.core.formats.textio import loads
from qa_inspect.core.load import load_runs
from qa_inspect.core.store import open_db

from tests.helpers import Env, loaded_env
from tests.paths import FIXTURES

CDQA = "cdqa_sample"
CMRC = "cmrc2018_dev_sample"
METRO_Q = "澜州市最近开通运营的地铁线路是几号线？"  # gold 6号线
PHONE_Q = "云帆科技最近发布的旗舰手机叫什么？"  # rewritten: gold 云帆X10, original 云帆X9
CDQA_FILE = Path("cdqa/cdqa_sample.json")
CMRC_FILE = Path("cmrc2018/cmrc2018_dev_sample.json")

pytestmark = pytest.mark.usefixtures("no_author_env")


@pytest.fixture
def env(loaded_template: Path, tmp_path: Path) -> Iterator[Env]:
    """Conftest's `env`, but in `tmp_path/a`, beside `other`."""
    with loaded_env(loaded_template, tmp_path / "a") as e:
        yield e


@pytest.fixture
def other(loaded_template: Path, tmp_path: Path) -> Iterator[Env]:
    """A second annotator's copy of the same runs folder and database."""
    with loaded_env(loaded_template, tmp_path / "b") as e:
        yield e


def key_of(conn: sqlite3.Connection, question: str) -> str:
    return F.resolve_item(conn, question).key


def flag_state(conn: sqlite3.Connection) -> list[tuple]:
    return sorted(
        (f.dataset, f.item_key, f.gold_text, f.status, tuple(sorted((p.uid, p.proposed or "") for p in f.proposals)))
        for f in F.current_flags(conn)
    )


# --- patch ------------------------------------------------------------------------------------


def test_patch_has_one_line_per_flagged_gold(env: Env) -> None:
    c = env.conn
    metro = key_of(c, METRO_Q)
    F.mark(c, CDQA, metro, "6号线", reason="line 7 opened", proposed="7号线", evidence="https://e.org/7", author="alice")
    F.mark(c, CMRC, "DEV_4_QUERY_0", F.resolve_item(c, "DEV_4_QUERY_0").golds[0][1], author="bob")
    F.mark(c, CDQA, key_of(c, PHONE_Q), "云帆X10", author="bob")
    F.unmark(c, CDQA, key_of(c, PHONE_Q), "云帆X10", author="bob")
    buf = io.StringIO()
    assert F.export_patch(c, buf) == 2
    lines = [json.loads(x) for x in buf.getvalue().splitlines()]
    first = lines[0]
    assert set(first) >= {"dataset", "item_key", "question", "old_answer", "proposed_answer", "reason", "evidence",
                          "author", "time", "tags", "uid", "status"}
    assert (first["dataset"], first["item_key"], first["question"], first["old_answer"], first["proposed_answer"]) == (
        CDQA, metro, METRO_Q, "6号线", "7号线")
    assert (first["reason"], first["evidence"], first["author"], first["status"]) == (
        "line 7 opened", "https://e.org/7", "alice", "open")
    assert first["tags"] == {"tag": "fast-changing", "answer_type": "other", "split": None}
    assert first["gold_index"] == 0 and first["conflict"] is False
    assert lines[1]["dataset"] == CMRC and lines[1]["proposed_answer"] is None
    buf = io.StringIO()
    assert F.export_patch(c, buf, CDQA) == 1


# --- dataset, in its own format ----------------------------------------------------------------


def test_dataset_export_without_flags_is_the_same_bytes(env: Env, tmp_path: Path) -> None:
    for name, rel in ((CDQA, CDQA_FILE), (CMRC, CMRC_FILE)):
        out = tmp_path / "out" / rel.name
        report = F.export_dataset(env.conn, env.runs, name, out)
        assert (report.replaced, report.removed) == (0, 0)
        assert out.read_bytes() == (env.runs / rel).read_bytes()


def test_cdqa_export_applies_proposals_and_round_trips(env: Env, tmp_path: Path) -> None:
    c = env.conn
    metro, phone = key_of(c, METRO_Q), key_of(c, PHONE_Q)
    third = c.execute(
        "SELECT i.key, g.text FROM items i JOIN golds g ON g.item_id = i.id JOIN datasets d ON d.id = i.dataset_id"
        " WHERE d.name = ? AND i.key NOT IN (?, ?) AND i.meta NOT LIKE '%original_question%' ORDER BY i.id LIMIT 1",
        (CDQA, metro, phone),
    ).fetchone()
    F.mark(c, CDQA, metro, "6号线", proposed="7号线")
    F.mark(c, CDQA, phone, "云帆X10", proposed="云帆X11")  # the rewrite itself is stale now
    F.mark(c, CDQA, third[0], third[1], reason="no proposal yet")
    out = tmp_path / "release" / "cdqa" / "cdqa_sample.json"
    report = F.export_dataset(c, env.runs, CDQA, out)
    assert report.replaced == 2 and report.removed == 0
    assert [(n["item_key"], n["old_answer"]) for n in report.not_applied] == [(third[0], third[1])]

    original = loads((env.runs / CDQA_FILE).read_text(encoding="utf-8"))
    exported = loads(out.read_text(encoding="utf-8"))
    expected = copy.deepcopy(original)
    for rec in expected:
        if METRO_Q in rec["qa"]:
            rec["annotation"].update({"p-改写答案": "7号线", "分类1": "p修改"})
        if PHONE_Q in rec["qa"]:
            rec["annotation"].update({"p-改写答案": "云帆X11", "分类1": "p修改"})
    assert exported == expected  # everything else equal, key order included
    assert [list(r["annotation"]) for r in exported] == [list(r["annotation"]) for r in expected]
    assert out.read_bytes().startswith(b"[\n {")  # the file's own layout

    # round trip: the new release loads, and the flagged golds are updated
    fresh_db = tmp_path / "fresh.db"
    summary = load_runs(out.parent.parent, fresh_db)
    assert not summary.errors and [d.name for d in summary.datasets] == [CDQA]
    fresh = open_db(fresh_db).conn
    try:
        golds = dict(
            ((key, idx), (text, sup)) for key, idx, text, sup in fresh.execute(
                "SELECT i.key, g.idx, g.text, g.superseded FROM golds g JOIN items i ON i.id = g.item_id")
        )
        assert golds[(metro, 0)] == ("7号线", 0) and golds[(metro, 1)] == ("6号线", 1)
        assert golds[(phone, 0)] == ("云帆X11", 0) and golds[(phone, 1)] == ("云帆X9", 1)
    finally:
        fresh.close()

    # as the next release in the annotated folder: the applied flags show resolved, the other stays
    shutil.copy(out, env.runs / CDQA_FILE)
    load_runs(env.runs, env.db)
    status = {(f.item_key, f.status) for f in F.current_flags(c)}
    assert status == {(metro, "resolved"), (phone, "resolved"), (third[0], "open")}


def test_squad_export_replaces_or_removes_and_round_trips(env: Env, tmp_path: Path) -> None:
    c = env.conn
    ref = F.resolve_item(c, "DEV_4_QUERY_0")
    context = c.execute("SELECT c.text FROM items i JOIN contexts c ON c.id = i.context_id WHERE i.id = ?",
                        (ref.item_id,)).fetchone()[0]
    in_context = "莱昂德罗·内托"
    assert in_context in context
    # an item with two different gold texts: one replaced by a text of the passage, one removed
    two = next(
        key for (key,) in c.execute(
            "SELECT i.key FROM items i JOIN datasets d ON d.id = i.dataset_id WHERE d.name = ? ORDER BY i.id", (CMRC,))
        if len(F.resolve_item(c, key, CMRC).scored_texts()) >= 2
    )
    texts = F.resolve_item(c, two, CMRC).scored_texts()
    F.mark(c, CMRC, "DEV_4_QUERY_0", ref.golds[0][1], proposed=in_context)
    F.mark(c, CMRC, two, texts[0], proposed="不在文中的答案")
    F.mark(c, CMRC, two, texts[1])
    out = tmp_path / "release" / "cmrc2018_dev_sample.json"
    report = F.export_dataset(c, env.runs, CMRC, out)
    n_dev4 = sum(1 for _, t, _ in ref.golds if t == ref.golds[0][1])
    n_two0 = sum(1 for _, t, _ in F.resolve_item(c, two, CMRC).golds if t == texts[0])
    n_two1 = sum(1 for _, t, _ in F.resolve_item(c, two, CMRC).golds if t == texts[1])
    assert (report.replaced, report.removed) == (n_dev4 + n_two0, n_two1)

    original = loads((env.runs / CMRC_FILE).read_text(encoding="utf-8"))
    exported = loads(out.read_text(encoding="utf-8"))
    expected = copy.deepcopy(original)
    for article in expected["data"]:
        for para in article["paragraphs"]:
            for qa in para["qas"]:
                if qa["id"] == "DEV_4_QUERY_0":
                    for a in qa["answers"]:
                        if a["text"] == ref.golds[0][1]:
                            a.update(text=in_context, answer_start=_nearest(para["context"], in_context, a["answer_start"]))
                if qa["id"] == two:
                    qa["answers"] = [
                        {**a, "text": "不在文中的答案", "answer_start": -1} if a["text"] == texts[0] else a
                        for a in qa["answers"] if a["text"] != texts[1]
                    ]
    assert exported == expected

    summary = load_runs(out.parent, tmp_path / "fresh.db")
    assert not summary.errors
    fresh = open_db(tmp_path / "fresh.db").conn
    try:
        after = F.resolve_item(fresh, "DEV_4_QUERY_0")
        assert ref.golds[0][1] not in after.scored_texts() and in_context in after.scored_texts()
        span = fresh.execute("SELECT answer_start, span_start FROM golds WHERE item_id = ? AND text = ?",
                             (after.item_id, in_context)).fetchone()
        old_start = c.execute("SELECT answer_start FROM golds WHERE item_id = ? AND idx = 0", (ref.item_id,)).fetchone()[0]
        assert span[0] == span[1] == _nearest(context, in_context, old_start) > context.find(in_context)
        assert F.resolve_item(fresh, two).scored_texts() == ["不在文中的答案"]
    finally:
        fresh.close()


def test_dataset_export_refuses_to_overwrite_its_source(env: Env) -> None:
    with pytest.raises(F.FlagError, match="source file itself"):
        F.export_dataset(env.conn, env.runs, CDQA, env.runs / CDQA_FILE)
    with pytest.raises(UnknownNameError, match="unknown dataset"):
        F.export_dataset(env.conn, env.runs, "nope", env.root / "x.json")


def test_dataset_export_notices_a_source_changed_since_loading(env: Env) -> None:
    path = env.runs / CDQA_FILE
    path.write_bytes(path.read_bytes() + b"\n")
    with pytest.raises(F.FlagError, match="changed since it was loaded"):
        F.export_dataset(env.conn, env.runs, CDQA, env.root / "x.json")


# --- import -----------------------------------------------------------------------------------


def test_importing_a_patch_twice_changes_nothing(env: Env, other: Env, tmp_path: Path) -> None:
    metro = key_of(env.conn, METRO_Q)
    F.mark(env.conn, CDQA, metro, "6号线", proposed="7号线", author="alice")
    F.bulk_mark(env.conn, F.targets_for_items(env.conn, [1, 2, 3]), reason="bulk", author="alice")
    patch = tmp_path / "alice.patch.jsonl"
    with patch.open("w", encoding="utf-8") as fh:
        F.export_patch(env.conn, fh)
    first = F.import_file(other.conn, patch)
    assert (first.kind, first.added, first.duplicates) == ("patch", 3, 0)
    state = flag_state(other.conn)
    assert state == flag_state(env.conn)
    entries = len(F.journal(other.conn))
    second = F.import_file(other.conn, patch)
    assert (second.added, second.duplicates) == (0, 3)
    assert flag_state(other.conn) == state and len(F.journal(other.conn)) == entries
    # into the database it came from: nothing new either
    assert F.import_file(env.conn, patch).added == 0
    # imported entries are someone else's work: not on the importer's undo stack
    assert F.undo(other.conn, "alice") == []


def test_conflicting_proposals_are_both_kept_and_listed(env: Env, other: Env, tmp_path: Path) -> None:
    metro = key_of(env.conn, METRO_Q)
    F.mark(env.conn, CDQA, metro, "6号线", proposed="7号线")  # both annotators use the default author
    F.mark(other.conn, CDQA, metro, "6号线", proposed="8号线")
    patch = tmp_path / "a.jsonl"
    with patch.open("w", encoding="utf-8") as fh:
        F.export_patch(env.conn, fh)
    result = F.import_file(other.conn, patch)
    assert result.added == 1 and [f.item_key for f in result.conflicts] == [metro]
    [flag] = F.current_flags(other.conn)
    assert flag.conflict and sorted(p.proposed for p in flag.proposals) == ["7号线", "8号线"]
    buf = io.StringIO()
    assert F.export_patch(other.conn, buf) == 2  # one line per proposal, both marked as a conflict
    assert all(json.loads(x)["conflict"] for x in buf.getvalue().splitlines())
    report = F.export_dataset(other.conn, other.runs, CDQA, tmp_path / "out.json")
    assert report.conflicts and report.conflicts[0]["proposals"] == ["7号线", "8号线"]
    assert F.import_file(other.conn, patch).added == 0
    assert len(F.current_flags(other.conn)[0].proposals) == 2


def test_journal_import_carries_unmarks_and_undos_and_converges(env: Env, other: Env, tmp_path: Path) -> None:
    a, b = env.conn, other.conn
    metro, phone = key_of(a, METRO_Q), key_of(a, PHONE_Q)
    F.mark(a, CDQA, metro, "6号线", proposed="7号线", author="alice")
    F.mark(a, CDQA, phone, "云帆X10", author="alice")
    F.undo(a, "alice")  # phone's mark cancelled
    F.mark(b, CDQA, phone, "云帆X10", proposed="云帆X11", author="bob")
    F.mark(b, CMRC, "DEV_4_QUERY_0", F.resolve_item(b, "DEV_4_QUERY_0").golds[0][1], author="bob")
    F.unmark(b, CMRC, "DEV_4_QUERY_0", F.resolve_item(b, "DEV_4_QUERY_0").golds[0][1], author="bob")
    ja, jb = tmp_path / "a.journal.jsonl", tmp_path / "b.journal.jsonl"
    with ja.open("w", encoding="utf-8") as fh:
        assert F.export_journal(a, fh) == 3
    with jb.open("w", encoding="utf-8") as fh:
        F.export_journal(b, fh)
    assert F.import_file(b, ja).kind == "journal"
    F.import_file(a, jb)
    assert flag_state(a) == flag_state(b)
    assert {(f.item_key, f.proposed) for f in F.current_flags(a)} == {(metro, "7号线"), (phone, "云帆X11")}
    undo = next(e for e in F.journal(b) if e.action == "undo")
    cancelled = next(e for e in F.journal(b) if e.id == undo.ref)
    assert cancelled.author == "alice" and cancelled.item_key == phone  # the reference travelled as a uid
    assert F.import_file(b, ja).added == 0 and F.import_file(a, jb).added == 0


def test_import_from_another_database_file(env: Env, other: Env) -> None:
    metro = key_of(env.conn, METRO_Q)
    F.mark(env.conn, CDQA, metro, "6号线", proposed="7号线", author="alice")
    result = F.import_file(other.conn, env.db)
    assert (result.kind, result.added) == ("database", 1)
    assert flag_state(other.conn) == flag_state(env.conn)
    assert F.import_file(other.conn, env.db).added == 0


def test_a_bad_import_line_adds_nothing(env: Env, tmp_path: Path) -> None:
    metro = key_of(env.conn, METRO_Q)
    good = {"dataset": CDQA, "item_key": metro, "old_answer": "6号线", "proposed_answer": "7号线"}
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(good, ensure_ascii=False) + "\n" + json.dumps({"dataset": CDQA}) + "\n", encoding="utf-8")
    with pytest.raises(FormatError, match=r"bad\.jsonl, line 2: neither a patch line"):
        F.import_file(env.conn, path)
    path.write_text(json.dumps(good, ensure_ascii=False) + "\n{oops\n", encoding="utf-8")
    with pytest.raises(FormatError, match="line 2: invalid JSON"):
        F.import_file(env.conn, path)
    assert F.journal(env.conn) == []
    # a hand-written patch line without uid or time still imports once only
    path.write_text(json.dumps(good, ensure_ascii=False) + "\n", encoding="utf-8")
    assert F.import_file(env.conn, path).added == 1
    assert F.import_file(env.conn, path).added == 0
    assert F.current_flags(env.conn)[0].proposed == "7号线"


def _nearest(context: str, text: str, start: int) -> int:
    """The occurrence of `text` nearest the old answer's start (the export's choice)."""
    found = [i for i in range(len(context)) if context.startswith(text, i)]
    return min(found, key=lambda i: (abs(i - start), i))


def test_an_empty_export_imports_as_nothing(env: Env, other: Env, tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    with path.open("w", encoding="utf-8") as fh:
        assert F.export_patch(env.conn, fh) == 0
    result = F.import_file(other.conn, path)
    assert (result.kind, result.added, result.duplicates) == ("empty", 0, 0)


FIXTURES = FIXTURES / "formats"


def _small_env(tmp_path: Path, name: str) -> tuple[Path, Path, sqlite3.Connection]:
    runs = tmp_path / "small"
    runs.mkdir()
    shutil.copy(FIXTURES / name, runs / name)
    summary = load_runs(runs, tmp_path / "small.db")
    assert not summary.errors
    return runs, tmp_path / "small.db", open_db(tmp_path / "small.db").conn


def test_jsonl_dataset_export_keeps_unchanged_lines_verbatim(tmp_path: Path) -> None:
    runs, _, c = _small_env(tmp_path, "dataset.jsonl")
    try:
        ds = "dataset"
        F.mark(c, ds, "7", "seven", proposed="7")
        repeated = F.resolve_item(c, "Who wrote Example?").key + "#2"
        F.mark(c, ds, repeated, "A. Writer")
        out = tmp_path / "new" / "dataset.jsonl"
        report = F.export_dataset(c, runs, ds, out)
        assert (report.replaced, report.removed, report.emptied) == (1, 1, [repeated])
    finally:
        c.close()
    old_lines = (runs / "dataset.jsonl").read_text(encoding="utf-8").split("\n")
    new_lines = out.read_text(encoding="utf-8").split("\n")
    assert len(old_lines) == len(new_lines)
    changed = [i for i, (a, b) in enumerate(zip(old_lines, new_lines)) if a != b]
    assert changed == [3, 4]  # the HF-columns record and the repeated question; the blank line stays
    assert json.loads(new_lines[3])["answers"] == {"text": ["7", "7"], "answer_start": [9, -1]}
    assert json.loads(new_lines[4]) == {"question": "Who wrote Example?", "answers": []}
    assert new_lines[3].startswith('{"id": 7, "question"')  # the line's own separators and key order

    summary = load_runs(out.parent, tmp_path / "fresh.db")
    assert not summary.errors
    fresh = open_db(tmp_path / "fresh.db").conn
    try:
        assert F.resolve_item(fresh, "7").scored_texts() == ["7"]
        assert F.resolve_item(fresh, repeated).golds == []
    finally:
        fresh.close()


def test_cmrc_original_export_keeps_number_literals(tmp_path: Path) -> None:
    runs, _, c = _small_env(tmp_path, "cmrc_original_small.json")
    try:
        ds = "cmrc_original_small"
        F.mark(c, ds, "TEST_0_QUERY_1", "1.50", proposed="1.60万册")
        out = tmp_path / "new" / "cmrc_original_small.json"
        assert F.export_dataset(c, runs, ds, out).replaced == 1
    finally:
        c.close()
    text = out.read_text(encoding="utf-8")
    assert "39764.0" in text and "1.50," not in text
    exported = loads(text)
    expected = loads((runs / "cmrc_original_small.json").read_text(encoding="utf-8"))
    expected[0]["qas"][1]["answers"][0] = "1.60万册"
    assert exported == expected
    load_runs(out.parent, tmp_path / "fresh.db")
    fresh = open_db(tmp_path / "fresh.db").conn
    try:
        assert F.resolve_item(fresh, "TEST_0_QUERY_1").scored_texts() == ["1.60万册", "1.50万册", "1.50万"]
    finally:
        fresh.close()
