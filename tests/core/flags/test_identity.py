"""Flags stay with the dataset they were written against: by content, not by file name.

A renamed release file keeps its flags; a journal imported into a database that holds two files of
the same name binds to the one it was written against; two identical copies are reported as
ambiguous and bind to neither; journals written before fingerprints existed get theirs.
"""

from __future__ import annotations

import io
import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from qa_inspect.core import flags as F
from qa_inspect.core.load import load_runs
from qa_inspect.core.store import AMBIGUOUS_SUFFIX, open_db

pytestmark = pytest.mark.usefixtures("no_author_env")


def dataset(questions: list[tuple[str, str, str]]) -> dict:
    """A CMRC-style file: (id, question, answer) per item, one passage."""
    context = "".join(answer + "。" for _, _, answer in questions)
    return {"version": "v1.0", "data": [{"paragraphs": [{"id": "P", "context": context, "qas": [
        {"id": qid, "question": q, "answers": [{"text": a, "answer_start": context.index(a)}]}
        for qid, q, a in questions
    ]}], "id": "A", "title": "t"}]}


DEV_A = dataset([("Q1", "第一个问题是什么？", "北京"), ("Q2", "第二个问题是什么？", "上海")])
DEV_B = dataset([("Q1", "另一个问题是什么？", "广州"), ("Q2", "还有一个问题吗？", "深圳")])


def write(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")


def load(runs: Path, db: Path) -> tuple[sqlite3.Connection, list[str]]:
    summary = load_runs(runs, db)
    assert not summary.errors, summary.errors
    return open_db(db).conn, [w["message"] for w in summary.warnings]


def open_flags(conn: sqlite3.Connection) -> list[tuple[str, str, str, str]]:
    return [(f.dataset, f.item_key, f.gold_text, f.status) for f in F.current_flags(conn)]


def test_a_renamed_dataset_file_keeps_its_flags(tmp_path: Path) -> None:
    runs, db = tmp_path / "runs", tmp_path / "qa.db"
    write(runs / "dev.json", DEV_A)
    conn, _ = load(runs, db)
    F.mark(conn, "dev", "Q1", "北京", proposed="南京")
    conn.close()
    (runs / "dev.json").rename(runs / "dev_v2.json")
    conn, warnings = load(runs, db)
    assert open_flags(conn) == [("dev_v2", "Q1", "北京", "open")]
    assert any("renamed: dataset 'dev' is now 'dev_v2'" in w and "1 journal entry kept" in w for w in warnings)
    assert F.flags_for_item(conn, "dev_v2", "Q1")[0].proposed == "南京"
    # a mark made after the rename lands on the same gold; the next load says nothing more
    F.unmark(conn, "dev_v2", "Q1", "北京")
    assert open_flags(conn) == []
    conn.close()
    conn, warnings = load(runs, db)
    assert warnings == [] and open_flags(conn) == []


def test_a_journal_binds_to_the_same_named_file_it_was_written_against(tmp_path: Path) -> None:
    # written on a machine where `dev` is folder b's file
    write(tmp_path / "one" / "b" / "dev.json", DEV_B)
    conn, _ = load(tmp_path / "one", tmp_path / "one.db")
    F.mark(conn, "dev", "Q2", "深圳", reason="moved", proposed="珠海")
    out = io.StringIO()
    F.export_journal(conn, out)
    conn.close()
    journal = tmp_path / "journal.jsonl"
    journal.write_text(out.getvalue(), encoding="utf-8")
    assert '"dataset_fingerprint": "' in out.getvalue()
    # imported where `dev` is folder a's file (same item keys, other questions) and b's is `dev (b)`
    write(tmp_path / "two" / "a" / "dev.json", DEV_A)
    write(tmp_path / "two" / "b" / "dev.json", DEV_B)
    conn, _ = load(tmp_path / "two", tmp_path / "two.db")
    assert {r[0] for r in conn.execute("SELECT name FROM datasets")} == {"dev", "dev (b)"}
    F.import_file(conn, journal)
    assert open_flags(conn) == [("dev (b)", "Q2", "深圳", "open")]
    patch = F.patch_records(conn, include_resolved=False)
    assert [(p["dataset"], p["proposed_answer"]) for p in patch] == [("dev (b)", "珠海")]
    assert F.flags_for_item(conn, "dev", "Q2") == []
    # a database file imported directly binds the same way
    conn.close()
    write(tmp_path / "three" / "a" / "dev.json", DEV_A)
    write(tmp_path / "three" / "b" / "dev.json", DEV_B)
    conn, _ = load(tmp_path / "three", tmp_path / "three.db")
    F.import_file(conn, tmp_path / "one.db")
    assert open_flags(conn) == [("dev (b)", "Q2", "深圳", "open")]


def test_identical_copies_are_reported_and_bind_to_neither(tmp_path: Path) -> None:
    write(tmp_path / "one" / "dev.json", DEV_B)
    conn, _ = load(tmp_path / "one", tmp_path / "one.db")
    F.mark(conn, "dev", "Q1", "广州")
    conn.close()
    runs = tmp_path / "two"
    write(runs / "dev.json", DEV_A)  # the written name holds other content
    write(runs / "x" / "copy.json", DEV_B)
    write(runs / "y" / "copy.json", DEV_B)
    conn, _ = load(runs, tmp_path / "two.db")
    assert F.import_file(conn, tmp_path / "one.db").unknown == [
        "dev Q1 '广州': its content matches several loaded datasets"]
    result = F.import_file(conn, tmp_path / "one.db", keep_unknown=True)
    assert result.added == 1
    flags = F.current_flags(conn)
    assert [(f.dataset, f.status) for f in flags] == [("dev" + AMBIGUOUS_SUFFIX, "orphaned")]
    conn.close()
    conn, warnings = load(runs, tmp_path / "two.db")
    assert any("match 2 loaded datasets by content (copy, copy (y))" in w for w in warnings), warnings
    # removing one copy settles it
    shutil.rmtree(runs / "y")
    conn, warnings = load(runs, tmp_path / "two.db")
    assert open_flags(conn) == [("copy", "Q1", "广州", "open")]
    assert any("renamed: dataset 'dev (ambiguous)' is now 'copy'" in w for w in warnings)


def test_a_new_release_under_the_same_name_keeps_binding_by_name(tmp_path: Path) -> None:
    runs, db = tmp_path / "runs", tmp_path / "qa.db"
    write(runs / "dev.json", DEV_A)
    conn, _ = load(runs, db)
    F.mark(conn, "dev", "Q1", "北京")
    conn.close()
    release = json.loads(json.dumps(DEV_A))
    qas = release["data"][0]["paragraphs"][0]["qas"]
    qas.append({"id": "Q3", "question": "新问题？", "answers": [{"text": "上海", "answer_start": 3}]})
    write(runs / "dev.json", release)
    conn, warnings = load(runs, db)
    assert open_flags(conn) == [("dev", "Q1", "北京", "open")] and warnings == []


def test_journals_written_before_fingerprints_get_them(tmp_path: Path) -> None:
    runs, db = tmp_path / "runs", tmp_path / "qa.db"
    write(runs / "dev.json", DEV_A)
    conn, _ = load(runs, db)
    F.mark(conn, "dev", "Q1", "北京")
    # as a schema-5 database left them: no fingerprints anywhere
    conn.execute("UPDATE annotations SET written_as = NULL, dataset_fp = NULL")
    conn.execute("UPDATE datasets SET fingerprint = NULL")
    conn.close()
    (runs / "dev.json").rename(runs / "renamed.json")
    conn, _ = load(runs, db)
    # the old name is gone before a fingerprint could be taken: the flag is orphaned, not moved
    assert open_flags(conn) == [("dev", "Q1", "北京", "orphaned")]
    conn.close()
    (runs / "renamed.json").rename(runs / "dev.json")
    conn, _ = load(runs, db)
    assert open_flags(conn) == [("dev", "Q1", "北京", "open")]
    fp = conn.execute("SELECT fingerprint FROM datasets WHERE name = 'dev'").fetchone()[0]
    assert conn.execute("SELECT DISTINCT dataset_fp, written_as FROM annotations").fetchall() == [(fp, "dev")]


def test_patch_lines_naming_nothing_here_are_listed_and_left_out(tmp_path: Path) -> None:
    runs, db = tmp_path / "runs", tmp_path / "qa.db"
    write(runs / "dev.json", DEV_A)
    conn, _ = load(runs, db)
    patch = tmp_path / "patch.jsonl"
    lines = [
        {"dataset": "dev", "item_key": "Q1", "old_answer": "北京", "proposed_answer": "南京"},
        {"dataset": "dev", "item_key": "Q9", "old_answer": "北京"},
        {"dataset": "test", "item_key": "Q1", "old_answer": "北京"},
        {"dataset": "dev", "item_key": "Q2", "old_answer": "广州"},
    ]
    patch.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines), encoding="utf-8")
    result = F.import_file(conn, patch)
    assert result.added == 1 and not result.kept_unknown
    assert result.unknown == ["dev Q9 '北京': unknown item", "test Q1 '北京': unknown dataset",
                              "dev Q2 '广州': no such gold"]
    assert "3 entries name what this database does not hold" in result.unknown_line
    assert "not imported (--keep-unknown imports them)" in result.unknown_line
    assert open_flags(conn) == [("dev", "Q1", "北京", "open")]
    assert conn.execute("SELECT COUNT(*) FROM annotations").fetchone()[0] == 1
    # asked for, they come in (and show as what they are: orphaned, resolved)
    again = F.import_file(conn, patch, keep_unknown=True)
    assert again.added == 3 and again.duplicates == 1 and again.kept_unknown
    assert sorted(s for *_, s in open_flags(conn)) == ["open", "orphaned", "resolved", "resolved"]
