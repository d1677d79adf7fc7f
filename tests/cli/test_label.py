"""`qa-inspect label …` through Typer's CliRunner."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from qa_inspect.tui.cli import app
from tests.helpers import copy_loaded

runner = CliRunner()
RUN, K0, K1 = "bert-base-chinese", "DEV_4_QUERY_0", "DEV_4_QUERY_1"

pytestmark = pytest.mark.usefixtures("no_author_env")


@pytest.fixture
def runs(loaded_template: Path, tmp_path: Path) -> Path:
    return copy_loaded(loaded_template, tmp_path)


def label(runs: Path, *args: str, code: int = 0, db: Path | None = None):  # noqa: ANN201
    result = runner.invoke(app, ["label", args[0], str(runs), *args[1:], "--db", str(db or runs.parent / "qa.db")])
    assert result.exit_code == code, (result.output, result.stderr if code == 0 else "")
    assert "Traceback" not in result.output
    return result


def error_line(result) -> str:  # noqa: ANN001
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr  # one line, no traceback
    return lines[0]


def listed(runs: Path, *extra: str, db: Path | None = None) -> list[tuple[str, str, str]]:
    return [(x["item_key"], x["label"], x["source"]) for x in json.loads(label(runs, "list", "--json", *extra, db=db).stdout)]


def test_add_remove_set_list(runs: Path) -> None:
    out = label(runs, "add", RUN, K0, K1, "-l", "paraphrase,gold-wrong", "--author", "ann").stdout
    assert "labelled: paraphrase on bert-base-chinese DEV_4_QUERY_0 (by ann)" in out
    label(runs, "add", RUN, K0, "-l", "format", "--source", "category", "--note", "全角")
    assert listed(runs, "--item", K0) == [(K0, "format", "category"), (K0, "gold-wrong", "hand"), (K0, "paraphrase", "hand")]
    label(runs, "remove", RUN, K1, "-l", "paraphrase")
    assert listed(runs, "--item", K1) == [(K1, "gold-wrong", "hand")]
    entries = json.loads(label(runs, "set", RUN, K0, "-l", "hallucination", "--json").stdout)
    assert sorted((e["action"], e["label"]) for e in entries) == [
        ("label", "hallucination"), ("unlabel", "format"), ("unlabel", "gold-wrong"), ("unlabel", "paraphrase")]
    assert listed(runs, "--label", "hallucination") == [(K0, "hallucination", "hand")]
    table = label(runs, "list").stdout
    assert "hallucination" in table and "2 labels on 2 items" in table


def test_the_label_set_from_toml_and_new_names(runs: Path) -> None:
    (runs / "qa-inspect.toml").write_text('[labels]\nset = ["tokenisation", "gold-wrong"]\n', encoding="utf-8")
    assert json.loads(label(runs, "list", "--set", "--json").stdout) == ["tokenisation", "gold-wrong"]
    err = error_line(label(runs, "add", RUN, K0, "-l", "paraphrase", code=1))
    assert "unknown label 'paraphrase' (add it to the project's set with --new)" in err
    label(runs, "add", RUN, K0, "-l", "paraphrase", "--new")
    assert json.loads(label(runs, "list", "--set", "--json").stdout) == ["tokenisation", "gold-wrong", "paraphrase"]
    (runs / "qa-inspect.toml").write_text('[labels]\nset = "x"\n', encoding="utf-8")
    # the load notes the bad manifest first, then the command fails on it: the file and the key named
    assert "qa-inspect.toml, labels, set: expected a list" in label(runs, "list", "--set", code=1).stderr


def test_unknown_run_item_label_are_one_line_with_close_names(runs: Path) -> None:
    assert "did you mean 'bert-base-chinese'" in error_line(label(runs, "add", "bert-base-chinse", K0, "-l", "format", code=1))
    assert "no item 'DEV_4_QUERY_9'" in error_line(label(runs, "add", RUN, "DEV_4_QUERY_9", "-l", "format", code=1))
    assert "did you mean 'paraphrase'" in error_line(label(runs, "add", RUN, K0, "-l", "paraphase", code=1))
    assert "did you mean 'bert-base-chinese'" in error_line(label(runs, "list", "--run", "bert-base-chines", code=1))
    assert "--label" in error_line(label(runs, "add", RUN, K0, code=1))


def test_export_import_between_two_folders(runs: Path, loaded_template: Path, tmp_path: Path) -> None:
    label(runs, "add", RUN, K0, "-l", "gold-wrong", "--note", "see passage")
    out = tmp_path / "labels.jsonl"
    assert "wrote 1 line" in label(runs, "export", "-o", str(out)).stdout
    other = copy_loaded(loaded_template, tmp_path / "other")
    db = other.parent / "qa.db"
    first = json.loads(label(other, "import", str(out), "--json", db=db).stdout)
    assert (first["added"], first["duplicates"]) == (1, 0)
    assert "0 entries added, 1 already here" in label(other, "import", str(out), db=db).stdout
    assert listed(other, db=db) == [(K0, "gold-wrong", "hand")]
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{not json\n", encoding="utf-8")
    assert "line 1" in error_line(label(other, "import", str(bad), code=1, db=db))


def test_report_by_label_and_the_export_column(runs: Path, tmp_path: Path) -> None:
    db = runs.parent / "qa.db"
    label(runs, "add", RUN, K0, K1, "-l", "paraphrase")
    label(runs, "add", RUN, K1, "-l", "gold-wrong")
    result = runner.invoke(app, ["report", str(runs), "--by", "label", "--json", "--db", str(db)])
    assert result.exit_code == 0, result.output
    rows = [r for r in json.loads(result.stdout) if r["slice"] == "label" and r["run"] == RUN]
    assert {r["value"]: r["items"] for r in rows if r["value"] != "—"} == {"paraphrase": 1, "gold-wrong, paraphrase": 1}
    assert not [r for r in json.loads(result.stdout) if r["slice"] == "label" and r["run"] == "roberta-wwm-large"], \
        "a run nobody labelled has no label slice"
    out = tmp_path / "items.csv"
    exported = runner.invoke(app, ["export", str(runs), "-o", str(out), "--run", RUN, "--db", str(db)])
    assert exported.exit_code == 0, exported.output
    import csv

    with out.open(encoding="utf-8") as fh:
        by_key = {r["key"]: r for r in csv.DictReader(fh)}
    assert by_key[K0]["labels"] == "paraphrase" and by_key[K1]["labels"] == "gold-wrong, paraphrase"
    assert by_key["DEV_4_QUERY_2"]["labels"] == ""
