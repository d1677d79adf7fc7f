"""`qa-inspect stale …` through Typer's CliRunner."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from qa_inspect.core import flags as F
from qa_inspect.tui.cli import app
from tests.helpers import copy_loaded

runner = CliRunner()
CDQA = "cdqa_sample"
METRO_Q = "澜州市最近开通运营的地铁线路是几号线？"  # gold 6号线

pytestmark = pytest.mark.usefixtures("no_author_env")


@pytest.fixture
def runs(loaded_template: Path, tmp_path: Path) -> Path:
    return copy_loaded(loaded_template, tmp_path)


def stale(runs: Path, *args: str, code: int = 0):  # noqa: ANN201
    db = runs.parent / "qa.db"
    result = runner.invoke(app, ["stale", args[0], str(runs), *args[1:], "--db", str(db)])
    assert result.exit_code == code, (result.output, result.stderr if code == 0 else "")
    return result


def error_line(result) -> str:  # noqa: ANN001
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr  # one line, no traceback
    assert lines[0].startswith("qa-inspect: ")
    return lines[0]


def listed(runs: Path, *extra: str) -> list[dict]:
    return json.loads(stale(runs, "list", "--json", *extra).stdout)


def test_mark_by_key_by_question_and_by_answer(runs: Path) -> None:
    out = stale(runs, "mark", "DEV_4_QUERY_0", "--gold", "1", "--reason", "moved", "--new-answer", "新答案",
                "--evidence", "https://e.org", "--author", "alice").stdout
    assert "marked stale" in out and "DEV_4_QUERY_0" in out
    stale(runs, "mark", METRO_Q, "--answer", "6号线", "--new-answer", "7号线")
    flags = listed(runs)
    assert [(f["item_key"], f["gold_text"], f["proposed"]) for f in flags][0][0] == "DEV_4_QUERY_0"
    first = flags[0]
    assert (first["reason"], first["evidence"], first["author"], first["status"]) == ("moved", "https://e.org", "alice", "open")
    assert flags[1]["dataset"] == CDQA and flags[1]["gold_text"] == "6号线" and flags[1]["proposed"] == "7号线"
    assert flags[1]["author"] == F.default_author()


def test_mark_without_gold_flags_every_distinct_gold(runs: Path) -> None:
    result = json.loads(stale(runs, "mark", "DEV_4_QUERY_0", "--json").stdout)
    flags = listed(runs)
    assert len(result) == len(flags) >= 1
    stale(runs, "undo")
    assert listed(runs) == []  # one bulk action, one undo


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("mark", "NO_SUCH_ID"), "no item 'NO_SUCH_ID'"),
        (("mark", "DEV_4_QUERY_0", "--gold", "9"), "gold 9 is out of range"),
        (("mark", "DEV_4_QUERY_0", "--gold", "0"), "gold numbers start at 1"),
        (("mark", "DEV_4_QUERY_0", "--answer", "不是答案"), "is not among the golds"),
        (("mark", "DEV_4_QUERY_0", "--dataset", "nope"), "unknown dataset 'nope'"),
        (("mark", "DEV_4_QUERY_0", "--gold", "1", "--answer", "x"), "not both"),
        (("unmark", "DEV_4_QUERY_0"), "no gold of item DEV_4_QUERY_0 is flagged"),
        (("undo",), "nothing to undo"),
        (("redo",), "nothing to redo"),
        (("export", "--format", "zip", "-o", "x"), "--format zip"),
        (("export", "--format", "dataset", "--dataset", "nope", "-o", "x.json"), "unknown dataset 'nope'"),
        (("import", "missing.jsonl"), "missing.jsonl: no such file"),
    ],
)
def test_user_errors_are_one_line_and_exit_1(runs: Path, args: tuple[str, ...], message: str) -> None:
    result = stale(runs, *args, code=1)
    assert message in error_line(result)


def test_unmark_undo_redo(runs: Path) -> None:
    stale(runs, "mark", METRO_Q, "--new-answer", "7号线")
    stale(runs, "mark", "DEV_4_QUERY_0", "--gold", "1")
    out = stale(runs, "unmark", METRO_Q).stdout
    assert "unmarked" in out and "6号线" in out
    assert [f["item_key"] for f in listed(runs)] == ["DEV_4_QUERY_0"]
    assert "undid unmark" in stale(runs, "undo").stdout
    assert len(listed(runs)) == 2
    assert "undid mark" in stale(runs, "undo").stdout
    assert "undid mark" in stale(runs, "undo").stdout
    assert listed(runs) == []
    assert "redid mark" in stale(runs, "redo").stdout
    assert [f["proposed"] for f in listed(runs)] == ["7号线"]
    journal = listed(runs, "--all")
    assert [e["action"] for e in journal] == ["mark", "mark", "unmark", "undo", "undo", "undo", "mark"]
    table = stale(runs, "list", "--all").stdout
    assert "cancels #" in table and "redo" in table


def test_list_table_shows_resolved_flags_and_conflicts(runs: Path, tmp_path: Path) -> None:
    stale(runs, "mark", METRO_Q, "--new-answer", "7号线", "--author", "alice")
    stale(runs, "mark", METRO_Q, "--new-answer", "8号线", "--author", "bob")
    out = stale(runs, "list").stdout
    assert "7号线" in out and "8号线" in out and "conflict" in out
    # a new release without the flagged text: the flag is listed as resolved
    path = runs / "cdqa/cdqa_sample.json"
    path.write_text(path.read_text(encoding="utf-8").replace("答案: 6号线", "答案: 7号线"), encoding="utf-8")
    flags = listed(runs)
    assert [f["status"] for f in flags] == ["resolved"]
    assert "resolved" in stale(runs, "list").stdout
    assert listed(runs, "--open") == []


def test_export_patch_and_dataset(runs: Path, tmp_path: Path) -> None:
    stale(runs, "mark", METRO_Q, "--new-answer", "7号线", "--reason", "line 7")
    patch = tmp_path / "patch.jsonl"
    assert "wrote 1 line" in stale(runs, "export", "--format", "patch", "-o", str(patch)).stdout
    [line] = [json.loads(x) for x in patch.read_text(encoding="utf-8").splitlines()]
    assert (line["old_answer"], line["proposed_answer"], line["reason"], line["question"]) == ("6号线", "7号线", "line 7", METRO_Q)
    to_stdout = stale(runs, "export", "--format", "patch", "-o", "-")
    assert json.loads(to_stdout.stdout.splitlines()[0])["uid"] == line["uid"]

    out = tmp_path / "release" / "cdqa_sample.json"
    result = stale(runs, "export", "--format", "dataset", "-o", str(out))  # the only flagged dataset
    assert "1 answer replaced" in result.stdout
    record = next(r for r in json.loads(out.read_text(encoding="utf-8")) if METRO_Q in r["qa"])
    assert record["annotation"]["p-改写答案"] == "7号线" and record["annotation"]["分类1"] == "p修改"
    journal = tmp_path / "journal.jsonl"
    stale(runs, "export", "--format", "journal", "-o", str(journal))
    assert json.loads(journal.read_text(encoding="utf-8").splitlines()[0])["action"] == "mark"


def test_import_twice_changes_nothing(runs: Path, tmp_path: Path) -> None:
    patch = tmp_path / "p.jsonl"
    key = "q:a0eb4ac77fcdba47"
    patch.write_text(
        json.dumps({"dataset": CDQA, "item_key": key, "old_answer": "6号线", "proposed_answer": "7号线",
                    "author": "carol", "time": "2024-06-01T08:00:00+08:00", "uid": "c" * 32}, ensure_ascii=False) + "\n",
        encoding="utf-8",
    )
    assert "imported 1 entry" in stale(runs, "import", str(patch)).stdout
    before = listed(runs)
    assert "imported 0 entries" in stale(runs, "import", str(patch)).stdout
    assert listed(runs) == before
    assert before[0]["ts"] == "2024-06-01T00:00:00.000Z" and before[0]["author"] == "carol"
    bad = tmp_path / "bad.jsonl"
    bad.write_text("[1, 2]\n", encoding="utf-8")
    assert "bad.jsonl, line 1: not a JSON object" in error_line(stale(runs, "import", str(bad), code=1))


def test_author_setting_and_score(runs: Path) -> None:
    assert f"author: {F.default_author()}" in stale(runs, "author").stdout
    assert "author: Li Si" in stale(runs, "author", "Li Si").stdout
    stale(runs, "mark", METRO_Q)
    assert listed(runs)[0]["author"] == "Li Si"
    assert f"author: {F.default_author()}" in stale(runs, "author", "--reset").stdout

    scores = json.loads(stale(runs, "score", "--run", "glm-6b", "--json").stdout)
    assert scores[0]["mode"] == "stale golds excluded" and scores[0]["items_dropped"] == 1
    assert scores[0]["excluding_stale"]["items"] == scores[0]["all_golds"]["items"] - 1
    table = stale(runs, "score").stdout
    assert "all golds" in table and "stale golds excluded" in table


def test_text_is_shown_literally(runs: Path) -> None:
    stale(runs, "mark", METRO_Q, "--reason", "[bold]x[/bold] \x1b[31mred", "--new-answer", "7号线\x07", "--author", "a\x1bb")
    out = stale(runs, "list").stdout
    assert "\x1b" not in out and "\x07" not in out
    assert "[bold]x[/bold]" in out and "␛[31mred" in out
    assert listed(runs)[0]["reason"] == "[bold]x[/bold] \x1b[31mred"  # stored as given
    undo = stale(runs, "undo", "--author", "a\x1bb").stdout
    assert "\x1b" not in undo and "7号线␇" in undo


def test_a_bad_new_file_does_not_stop_the_stale_commands(runs: Path) -> None:
    (runs / "broken.json").write_text('{"data": [', encoding="utf-8")
    stale(runs, "mark", METRO_Q, "--dataset", CDQA, "--answer", "6号线", "--new-answer", "7号线")
    result = stale(runs, "list")
    assert "7号线" in result.stdout
    assert "broken.json could not be read; the database may not match the folder" in result.stderr


def test_a_database_the_load_cannot_write_still_answers_the_stale_commands(
    runs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from qa_inspect.core.errors import StoreError
    from qa_inspect.tui.cli import common

    stale(runs, "mark", METRO_Q, "--dataset", CDQA, "--answer", "6号线", "--new-answer", "7号线")

    def full(*args: object, **kwargs: object) -> None:
        raise StoreError("qa.db: no space left on device; nothing was written")

    monkeypatch.setattr(common, "load_runs", full)
    result = stale(runs, "list")
    assert "7号线" in result.stdout
    assert "no space left on device; nothing was written; working on the database as it is" in result.stderr
