"""Accepted aliases: journal actions with provenance, undo/redo, survival (reload, renamed dataset
file, same-named other file) and travel (journal export, patch, database merge; order-free)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from qa_inspect.core import flags as F
from qa_inspect.core.formats import read_source
from qa_inspect.core.query import markdown_table
from qa_inspect.core.store import open_db

from tests.helpers import Env, copy_loaded

RUN, DS = "bert-base-chinese", "cmrc2018_dev_sample"
K0, K1 = "DEV_4_QUERY_0", "DEV_74_QUERY_0"
DS_FILE = Path("cmrc2018/cmrc2018_dev_sample.json")

pytestmark = pytest.mark.usefixtures("no_author_env")


def answer(env: Env, run: str, key: str) -> str:
    return env.conn.execute(
        "SELECT p.text FROM predictions p JOIN runs r ON r.id = p.run_id JOIN items i ON i.id = p.item_id"
        " WHERE r.name = ? AND i.key = ?", (run, key)).fetchone()[0]


def golds(env: Env, key: str) -> list[str]:
    return [r[0] for r in env.conn.execute(
        "SELECT g.text FROM golds g JOIN items i ON i.id = g.item_id WHERE i.key = ? ORDER BY g.idx", (key,))]


def test_add_records_provenance_and_current_aliases_lists_it(env: Env) -> None:
    text = answer(env, RUN, K0)
    entry = F.accept_answer(env.conn, RUN, K0, note="nationality plus job", author="ann")
    assert entry is not None and (entry.action, entry.gold_text, entry.run, entry.author) == ("alias", text, RUN, "ann")
    assert F.current_aliases(env.conn, DS) == {K0: (text,)}
    [a] = F.alias_list(env.conn, DS)
    assert (a.run, a.note, a.status, a.question is not None) == (RUN, "nationality plus job", "open", True)
    assert F.add_alias(env.conn, DS, K0, text, author="ann") is None  # already accepted: nothing written
    assert len(F.journal(env.conn)) == 1


def test_refusals_name_what_is_wrong(env: Env) -> None:
    with pytest.raises(F.FlagError, match="already a gold"):
        F.add_alias(env.conn, DS, K0, golds(env, K0)[0])
    with pytest.raises(F.FlagError, match="no item"):
        F.add_alias(env.conn, DS, "NOPE", "x")
    with pytest.raises(F.FlagError, match="empty answer"):
        F.add_alias(env.conn, DS, K0, "  ")
    with pytest.raises(F.FlagError, match="answers dataset"):
        F.add_alias(env.conn, DS, K0, "x", run="glm-6b")
    blank = env.conn.execute(
        "SELECT i.key FROM predictions p JOIN runs r ON r.id = p.run_id JOIN items i ON i.id = p.item_id"
        " WHERE r.name = 'bidaf-baseline' AND trim(p.text) = '' LIMIT 1").fetchone()[0]
    with pytest.raises(F.FlagError, match="gave no answer"):
        F.accept_answer(env.conn, "bidaf-baseline", blank)
    with pytest.raises(F.FlagError, match="not an accepted alias"):
        F.remove_alias(env.conn, DS, K0, "x")
    assert F.journal(env.conn) == []


def test_remove_undo_redo(env: Env) -> None:
    F.add_alias(env.conn, DS, K0, "巴西人", author="ann")
    F.add_alias(env.conn, DS, K1, "二战期间保护犹太女孩", author="ann")
    F.remove_alias(env.conn, DS, K0, "巴西人", author="ann")
    assert F.current_aliases(env.conn, DS) == {K1: ("二战期间保护犹太女孩",)}
    assert F.undo_state(env.conn, "ann").describe() == f"unalias {DS}/{K0} '巴西人'"
    F.undo(env.conn, "ann")
    assert F.current_aliases(env.conn, DS) == {K0: ("巴西人",), K1: ("二战期间保护犹太女孩",)}
    F.undo(env.conn, "ann")
    assert F.current_aliases(env.conn, DS) == {K0: ("巴西人",)}
    F.redo(env.conn, "ann")
    assert set(F.current_aliases(env.conn, DS)) == {K0, K1}
    assert F.current_flags(env.conn) == []  # aliases are not stale flags


def test_aliases_survive_reload_and_follow_a_renamed_dataset_file(env: Env) -> None:
    F.accept_answer(env.conn, RUN, K0, author="ann")
    before = F.current_aliases(env.conn, DS)
    env.reload()
    assert F.current_aliases(env.conn, DS) == before
    (env.runs / DS_FILE).rename(env.runs / "cmrc2018/cmrc_dev_v2.json")
    env.reload()
    assert F.current_aliases(env.conn, "cmrc_dev_v2") == before
    assert F.current_aliases(env.conn, DS) == {}


def test_a_same_named_other_file_does_not_get_them(env: Env) -> None:
    F.add_alias(env.conn, DS, K0, "巴西人", author="ann")
    path = env.runs / DS_FILE
    data = json.loads(path.read_text(encoding="utf-8"))
    for article in data["data"]:  # other content under the same file name: another dataset
        for para in article["paragraphs"]:
            for qa in para["qas"]:
                qa["id"] = "OTHER_" + qa["id"]
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    env.reload()
    assert all(a.status == "orphaned" for a in F.alias_list(env.conn))
    assert F.current_aliases(env.conn, DS) == {}


def _other(loaded_template: Path, tmp_path: Path, name: str):
    runs = copy_loaded(loaded_template, tmp_path / name)
    return open_db(runs.parent / "qa.db").conn


def test_database_merge_and_journal_export_carry_aliases(env: Env, loaded_template: Path, tmp_path: Path) -> None:
    F.accept_answer(env.conn, RUN, K0, author="ann")
    F.add_alias(env.conn, DS, K1, "二战期间保护犹太女孩", author="ann")
    F.undo(env.conn, "ann")  # the undo travels too
    other = _other(loaded_template, tmp_path, "merged")
    result = F.import_file(other, env.db)
    assert (result.added, result.unknown) == (3, [])
    assert F.current_aliases(other, DS) == F.current_aliases(env.conn, DS)
    [a] = F.alias_list(other, DS)
    assert (a.run, a.author) == (RUN, "ann")
    path = tmp_path / "aliases.jsonl"
    with path.open("w", encoding="utf-8") as fh:
        assert F.export_aliases(env.conn, fh) == 3
    assert F.import_file(other, path).duplicates == 3  # same uids: nothing twice


def test_import_is_order_free(env: Env, loaded_template: Path, tmp_path: Path) -> None:
    F.add_alias(env.conn, DS, K1, "二战期间保护犹太女孩", author="ann")
    F.undo(env.conn, "ann")
    records = F.alias_records(env.conn)
    path = tmp_path / "reversed.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in reversed(records)), encoding="utf-8")
    other = _other(loaded_template, tmp_path, "rev")
    assert F.import_file(other, path).added == 2
    assert F.current_aliases(other, DS) == F.current_aliases(env.conn, DS) == {}


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=st.lists(st.tuples(st.sampled_from(["ann", "bob"]), st.sampled_from(["巴西人", "巴西国"]),
                                st.booleans()), min_size=1, max_size=6))
def test_two_databases_agree_whatever_the_import_order(
    steps: list[tuple[str, str, bool]], loaded_template: Path, tmp_path_factory: pytest.TempPathFactory,
) -> None:
    root = tmp_path_factory.mktemp("merge")
    a, b = _other(loaded_template, root, "a"), _other(loaded_template, root, "b")
    for n, (who, text, add) in enumerate(steps):
        conn = a if n % 2 == 0 else b
        on = text in F.current_aliases(conn, DS).get(K0, ())
        if add and not on:
            F.add_alias(conn, DS, K0, text, author=who)
        elif not add and on:
            F.remove_alias(conn, DS, K0, text, author=who)
    a_file, b_file = root / "a.jsonl", root / "b.jsonl"
    for conn, path in ((a, a_file), (b, b_file)):
        with path.open("w", encoding="utf-8") as fh:
            F.export_aliases(conn, fh)
    F.import_file(a, b_file)
    F.import_file(b, a_file)
    assert F.current_aliases(a, DS) == F.current_aliases(b, DS)


def test_patch_and_changelog_list_aliases_and_the_patch_imports_back(env: Env, loaded_template: Path, tmp_path: Path) -> None:
    F.accept_answer(env.conn, RUN, K0, note="nationality plus job", author="ann")
    [line] = [r for r in F.patch_records(env.conn) if r["kind"] == F.ALIAS_KIND]
    assert (line["item_key"], line["alias"], line["run"]) == (K0, answer(env, RUN, K0), RUN)
    text = F.changelog([], markdown_table, aliases=F.alias_list(env.conn))
    assert "Accepted aliases" in text and answer(env, RUN, K0) in text
    assert F.changelog([], markdown_table) == "# Changelog\n\nNo stale golds are flagged.\n"
    path = tmp_path / "patch.jsonl"
    with path.open("w", encoding="utf-8") as fh:
        F.export_patch(env.conn, fh)
    other = _other(loaded_template, tmp_path, "patched")
    assert F.import_file(other, path).added == 1
    assert F.current_aliases(other, DS) == F.current_aliases(env.conn, DS)


def test_release_writes_aliases_as_extra_golds(env: Env, tmp_path: Path) -> None:
    text = answer(env, RUN, K0)
    F.accept_answer(env.conn, RUN, K0, author="ann")
    out = tmp_path / "release.json"
    report = F.export_dataset(env.conn, env.runs, DS, out)
    assert (report.aliases_added, report.not_applied) == (1, [])
    items = {it.key: it for it in read_source(out).items}  # type: ignore[union-attr]
    assert [g.text for g in items[K0].golds] == [*golds(env, K0), text]
    before = {it.key: [g.text for g in it.golds] for it in read_source(env.runs / DS_FILE).items}  # type: ignore[union-attr]
    assert {k: [g.text for g in it.golds] for k, it in items.items() if k != K0} == {k: v for k, v in before.items() if k != K0}


def test_journal_export_keeps_flag_lines_as_they_were(env: Env) -> None:
    F.mark(env.conn, DS, K0, golds(env, K0)[0], reason="r", author="ann")
    buf = io.StringIO()
    F.export_journal(env.conn, buf)
    assert "run" not in json.loads(buf.getvalue())  # flag entries: no new field
