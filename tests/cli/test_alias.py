"""`qa-inspect alias …` and the `--adjudicated` numbers through Typer's CliRunner; the done-when
test: an accepted alias survives reload, a renamed dataset file and a merge into another database,
moves `report --adjudicated` by what its item's rescoring gives, is an extra gold of the exported
release, and leaves every official number as it was."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from qa_inspect.core.formats import read_source
from qa_inspect.core.metrics import score_prediction
from qa_inspect.core.store import open_db

from tests.cli.helpers import invoke
from tests.helpers import copy_loaded

RUN, DS, K0 = "bert-base-chinese", "cmrc2018_dev_sample", "DEV_4_QUERY_0"
DS_FILE = Path("cmrc2018/cmrc2018_dev_sample.json")

pytestmark = pytest.mark.usefixtures("no_author_env")


@pytest.fixture
def runs(loaded_template: Path, tmp_path: Path) -> Path:
    return copy_loaded(loaded_template, tmp_path)


def cli(runs: Path, *args: str, code: int = 0, db: Path | None = None):
    head = 2 if args[0] in ("alias", "stale") else 1  # RUNS_DIR after the command (and sub-command)
    result = invoke(*args[:head], str(runs), *args[head:], "--db", str(db or runs.parent / "qa.db"))
    assert result.exit_code == code, (result.output, result.stderr)
    return result


def one_line(result) -> str:
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


def report_json(runs: Path, *extra: str, db: Path | None = None):
    return json.loads(cli(runs, "report", "--by", "split", "--json", *extra, db=db).stdout)


def overall(rows: list[dict], run: str) -> dict:
    return next(r for r in rows if r["run"] == run and r["slice"] == "overall")


def test_add_list_remove_and_errors(runs: Path) -> None:
    res = cli(runs, "alias", "add", K0, "--run", RUN, "--note", "nationality plus job", "--author", "ann", "--json")
    added = json.loads(res.stdout)
    assert (added["action"], added["item_key"], added["run"]) == ("alias", K0, RUN)
    listed = json.loads(cli(runs, "alias", "list", "--json").stdout)
    assert [(a["item_key"], a["alias"], a["run"], a["note"]) for a in listed] == [
        (K0, added["gold_text"], RUN, "nationality plus job")]
    assert "already an accepted alias" in cli(runs, "alias", "add", K0, added["gold_text"]).stdout
    assert "is already a gold" in one_line(cli(runs, "alias", "add", K0, "巴西", code=1))
    assert "no item 'NOPE'" in one_line(cli(runs, "alias", "add", "NOPE", "x", code=1))
    assert "--run RUN" in one_line(cli(runs, "alias", "add", K0, code=1))
    assert "not an accepted alias" in one_line(cli(runs, "alias", "remove", K0, "x", code=1))
    cli(runs, "alias", "remove", K0, added["gold_text"], "--author", "ann")
    assert "no accepted aliases" in cli(runs, "alias", "list").stdout
    cli(runs, "stale", "undo", "--author", "ann")  # the journal's undo brings it back
    assert len(json.loads(cli(runs, "alias", "list", "--json").stdout)) == 1


def test_export_and_import_between_databases(runs: Path, loaded_template: Path, tmp_path: Path) -> None:
    cli(runs, "alias", "add", K0, "--run", RUN, "--author", "ann")
    path = tmp_path / "aliases.jsonl"
    assert "wrote 1 line" in cli(runs, "alias", "export", "-o", str(path)).stdout
    other = copy_loaded(loaded_template, tmp_path / "other")
    first = json.loads(cli(other, "alias", "import", str(path), "--json").stdout)
    again = json.loads(cli(other, "alias", "import", str(path), "--json").stdout)
    assert (first["added"], again["added"], again["duplicates"]) == (1, 0, 1)


def test_adjudicated_outputs_say_what_they_are(runs: Path) -> None:
    cli(runs, "alias", "add", K0, "--run", RUN)
    assert "adjudicated" in cli(runs, "report", "--by", "split", "--adjudicated").stdout
    assert "adjudicated" in cli(runs, "report", "--by", "split", "--adjudicated", "--markdown").stdout
    assert "--adjudicated" in one_line(cli(runs, "report", "--adjudicated", "--csv", code=1))
    board = json.loads(cli(runs, "leaderboard", "--dataset", DS, "--resamples", "200", "--adjudicated", "--json").stdout)
    assert board[0]["numbers"] == "adjudicated"
    assert "ADJUDICATED" in cli(runs, "leaderboard", "--dataset", DS, "--resamples", "200", "--adjudicated").stdout
    diff = json.loads(cli(runs, "diff", "bidaf-baseline", RUN, "--no-stats", "--adjudicated", "--json").stdout)
    assert diff["numbers"] == "adjudicated"
    assert "numbers" not in json.loads(cli(runs, "diff", "bidaf-baseline", RUN, "--no-stats", "--json").stdout)
    table = json.loads(cli(runs, "table", "--dataset", DS, "--cell", "em", "--adjudicated", "--json").stdout)
    assert table["numbers"] == "adjudicated"
    assert "ADJUDICATED" in cli(runs, "table", "--dataset", DS, "--cell", "em", "--adjudicated").stdout


def test_done_when(runs: Path, loaded_template: Path, tmp_path: Path) -> None:
    official = report_json(runs)
    conn = open_db(runs.parent / "qa.db").conn
    text, scorer, n = conn.execute(
        "SELECT p.text, p.scorer, (SELECT COUNT(*) FROM items WHERE dataset_id = i.dataset_id) FROM predictions p"
        " JOIN runs r ON r.id = p.run_id JOIN items i ON i.id = p.item_id WHERE r.name = ? AND i.key = ?",
        (RUN, K0)).fetchone()
    golds = [r[0] for r in conn.execute(
        "SELECT g.text FROM golds g JOIN items i ON i.id = g.item_id WHERE i.key = ? AND g.superseded = 0 ORDER BY g.idx",
        (K0,))]
    conn.close()
    before, after = score_prediction(scorer, text, golds), score_prediction(scorer, text, [*golds, text])
    cli(runs, "alias", "add", K0, "--run", RUN, "--author", "ann")

    (runs / DS_FILE).rename(runs / "cmrc2018/cmrc_dev_v2.json")  # reload and rename: the alias follows
    renamed = json.loads(cli(runs, "alias", "list", "--json").stdout)
    assert [(a["dataset"], a["item_key"], a["alias"]) for a in renamed] == [("cmrc_dev_v2", K0, text)]

    adj = report_json(runs, "--adjudicated")
    assert [r for r in adj["official"] if r["dataset"] != "cmrc_dev_v2"] == [
        r for r in official if r["dataset"] != DS]  # official numbers as they were (only the name moved)
    assert overall(adj["official"], RUN)["em"] == overall(official, RUN)["em"]
    row = next(r for r in adj["adjudicated"] if r["run"] == RUN and r["metric"] == "em")
    assert row["official"] == pytest.approx(overall(official, RUN)["em"])
    assert row["delta"] == pytest.approx(100 * (after.em - before.em) / n) and row["delta"] > 0

    other = copy_loaded(loaded_template, tmp_path / "other")  # merged into another database
    merged = json.loads(cli(other, "stale", "import", str(runs.parent / "qa.db"), "--json").stdout)
    assert merged["added"] == 1
    assert [a["alias"] for a in json.loads(cli(other, "alias", "list", "--json").stdout)] == [text]

    release = tmp_path / "release.json"
    res = cli(runs, "stale", "export", "--format", "dataset", "--dataset", "cmrc_dev_v2", "-o", str(release))
    assert "1 accepted alias added as golds" in res.stdout  # the summary counts what it wrote
    item = next(it for it in read_source(release).items if it.key == K0)  # type: ignore[union-attr]
    assert [g.text for g in item.golds] == [*golds, text]


def test_an_alias_a_cdqa_record_cannot_hold_is_named_not_a_traceback(runs: Path, tmp_path: Path) -> None:
    """CDQA v1 records hold one answer: the export writes the dataset, and its summary names the
    alias it could not write (it once read a flag's old answer from the alias's entry)."""
    conn = open_db(runs.parent / "qa.db").conn
    dataset, key = conn.execute("SELECT d.name, i.key FROM items i JOIN datasets d ON d.id = i.dataset_id"
                                " WHERE d.family = 'cdqa' ORDER BY i.id LIMIT 1").fetchone()
    conn.close()
    cli(runs, "alias", "add", key, "另一种说法", "--author", "ann")
    res = cli(runs, "stale", "export", "--format", "dataset", "--dataset", dataset, "-o", str(tmp_path / "cdqa.json"))
    assert f"not applied: {key} alias '另一种说法': CDQA v1 records hold one answer" in res.stdout
    assert "Traceback" not in res.output
