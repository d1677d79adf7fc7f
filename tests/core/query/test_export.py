"""Export: every format read back, the columns shown plus all golds and scores, errors, CLI."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import polars as pl
import pytest
from qa_inspect.core import query
from qa_inspect.core.load import load_runs
from qa_inspect.core.query import (
    GOLD_SEPARATOR,
    ExportError,
    Filter,
    export_format,
    export_items,
    item_table,
)
from qa_inspect.core.store import open_db
from qa_inspect.tui.cli import app
from typer.testing import CliRunner

from tests.paths import FIXTURES

FIXTURE = FIXTURES / "compare"


@pytest.fixture(scope="module")
def runs_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("export")
    shutil.copytree(FIXTURE, root, dirs_exist_ok=True)
    assert not load_runs(root).errors
    return root


@pytest.fixture(scope="module")
def conn(runs_dir: Path):
    c = open_db(runs_dir / ".qa-inspect" / "qa.db").conn
    yield c
    c.close()


CMP = Filter(dataset="tiny", run="run-a", compare="run-b", sort="key")


def _read_markdown(path: Path) -> tuple[list[str], list[list[str]]]:
    def cells(line: str) -> list[str]:
        assert line.startswith("| ") and line.endswith(" |")
        parts, cur, i, body = [], "", 0, line[2:-2]
        while i < len(body):
            if body.startswith("\\|", i):
                cur += "|"
                i += 2
            elif body.startswith(" | ", i):
                parts.append(cur)
                cur, i = "", i + 3
            else:
                cur += body[i]
                i += 1
        return [*parts, cur]

    lines = path.read_text(encoding="utf-8").splitlines()
    assert set(lines[1]) <= set("|-")
    return cells(lines[0]), [cells(line) for line in lines[2:]]


def _check_common(keys: list[str], conn) -> None:
    assert keys == [r.key for r in query.page(conn, CMP, 0, 1000)]


def test_columns(conn) -> None:
    frame = item_table(conn, CMP)
    assert frame.columns == [
        "dataset", "run", "key", "split", "tag", "answer_type", "question", "prediction", "best_gold", "golds",
        "scorer", "em", "f1", "error_category", "stale", "question_type", "gold_length", "gold_count",
        "gold_agreement", "compare_run", "compare_prediction", "compare_em", "compare_f1", "compare_error_category",
        "delta",
    ]  # no passages in this dataset: no passage length, answer position, cross-sentence or overlap
    assert set(frame["scorer"]) == {"cmrc2018-official", None}  # every score says its scorer (None: no prediction)
    assert frame.height == 8
    t2 = frame.row(1, named=True)
    assert (t2["key"], t2["prediction"], t2["compare_prediction"], t2["em"], t2["compare_em"]) == (
        "T_2", "6300公", "6300公里", 0, 1
    )
    assert t2["golds"] == ["6300公里"] and t2["delta"] == pytest.approx(0.2)
    # no passage: the LLM rules (6300公 is a part of 6300公里)
    assert (t2["error_category"], t2["compare_error_category"], t2["question_type"]) == ("partial", "exact",
                                                                                          "how-many")
    assert frame.row(0, named=True)["gold_count"] == "1"
    cd = item_table(conn, Filter(dataset="cdqa_tiny", run="llm-x"))
    assert "split" not in cd.columns and "em" not in cd.columns  # empty for every CDQA row
    assert {"refused", "f1_recall", "superseded_golds"} <= set(cd.columns)
    phone = cd.filter(pl.col("question").str.contains("旗舰手机")).row(0, named=True)
    assert (phone["golds"], phone["superseded_golds"], phone["prediction"]) == (["云帆X10"], ["云帆X9"], None)
    assert "prediction" not in item_table(conn, Filter(dataset="tiny")).columns  # no run, no predictions


def test_parquet_and_jsonl_keep_types(conn, tmp_path: Path) -> None:
    for name, read in (("items.parquet", pl.read_parquet), ("items.jsonl", pl.read_ndjson)):
        path = tmp_path / name
        assert export_items(conn, CMP, path) == 8
        back = read(path)
        _check_common(back["key"].to_list(), conn)
        assert back["golds"].to_list()[1] == ["6300公里"]
        assert back["em"].to_list() == [1, 0, 1, 0, 1, None, 0, 1]
        assert back["compare_prediction"].to_list()[6] == "水|冰"
        assert back["stale"].dtype == pl.Boolean
    lines = (tmp_path / "items.jsonl").read_text(encoding="utf-8").splitlines()
    assert json.loads(lines[0])["question"] == "谁写了《红楼梦》？"


def test_csv_joins_golds(conn, tmp_path: Path) -> None:
    path = tmp_path / "items.CSV"  # extension case does not matter
    export_items(conn, Filter(dataset="cdqa_tiny", run="llm-y"), path)
    back = pl.read_csv(path)
    assert back.height == query.count(conn, Filter(dataset="cdqa_tiny"))
    phone = back.filter(pl.col("question").str.contains("旗舰手机")).row(0, named=True)
    assert phone["golds"] == "云帆X10" and phone["superseded_golds"] == "云帆X9"
    assert set(back["refused"].drop_nulls().to_list()) == {True, False}
    assert GOLD_SEPARATOR == " | "


def test_markdown(conn, tmp_path: Path) -> None:
    path = tmp_path / "items.md"
    export_items(conn, CMP, path)
    head, rows = _read_markdown(path)
    assert head[:3] == ["dataset", "run", "key"] and len(rows) == 8
    assert all(len(r) == len(head) for r in rows)  # the | in 水|冰 is escaped
    row = dict(zip(head, rows[6]))
    assert (row["key"], row["compare_prediction"], row["em"]) == ("T_7", "水|冰", "0")
    missing = dict(zip(head, rows[5]))
    assert (missing["key"], missing["prediction"], missing["em"]) == ("T_6", "", "")


def test_filter_and_empty_exports(conn, tmp_path: Path) -> None:
    f = Filter(dataset="tiny", run="run-a", em=0, sort="f1", descending=True)
    export_items(conn, f, tmp_path / "wrong.jsonl")
    assert pl.read_ndjson(tmp_path / "wrong.jsonl")["key"].to_list() == [r.key for r in query.page(conn, f)]
    none = Filter(dataset="tiny", search="不存在的词")
    for ext in ("csv", "jsonl", "parquet", "md"):
        assert export_items(conn, none, tmp_path / f"empty.{ext}") == 0
    assert pl.read_parquet(tmp_path / "empty.parquet").height == 0


def test_errors(conn, tmp_path: Path) -> None:
    with pytest.raises(ExportError, match=r"unknown export format '\.xlsx'"):
        export_items(conn, CMP, tmp_path / "x.xlsx")
    with pytest.raises(ExportError, match="no extension"):
        export_format(tmp_path / "x")
    with pytest.raises(ExportError, match="does not exist"):
        export_items(conn, CMP, tmp_path / "nowhere" / "x.csv")
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # nothing half-written


runner = CliRunner()


def test_cli_export(runs_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "a-wrong.parquet"
    r = runner.invoke(app, ["export", str(runs_dir), "--run", "run-a", "--em", "0", "--split", "dev,test",
                            "-o", str(out), "--json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["rows"] == 4
    assert pl.read_parquet(out)["key"].to_list() == ["T_2", "T_4", "T_6", "T_7"]

    r = runner.invoke(app, ["slices", "save", str(runs_dir), "hard", "--dataset", "tiny", "--tag", "hard"])
    assert r.exit_code == 0, r.output
    out = tmp_path / "hard.csv"
    r = runner.invoke(app, ["export", str(runs_dir), "--slice", "hard", "--run", "run-b", "--f1-min", "1", "-o", str(out)])
    assert r.exit_code == 0, r.output
    assert "3 items written" in r.stdout  # T_2, T_4, T_5 (B has no T_8)
    assert pl.read_csv(out)["run"].unique().to_list() == ["run-b"]


def test_cli_export_errors(runs_dir: Path, tmp_path: Path) -> None:
    for args, needle in (
        (["-o", str(tmp_path / "x.xlsx")], "unknown export format '.xlsx'"),
        (["--slice", "nope", "-o", str(tmp_path / "x.csv")], "unknown slice 'nope'"),
        (["--run", "nope", "-o", str(tmp_path / "x.csv")], "--run: unknown run 'nope'"),
        (["--f1-min", "3", "-o", str(tmp_path / "x.csv")], "--f1-min 3.0: must be between 0 and 1"),
        (["--sort", "colour", "-o", str(tmp_path / "x.csv")], "--sort: unknown sort 'colour'"),
    ):
        r = runner.invoke(app, ["export", str(runs_dir), *args])
        assert r.exit_code == 1, r.output
        assert needle in r.stderr and len(r.stderr.strip().splitlines()) == 1
