"""Saved slices: round trip through the `slices` table, the report restricted to a slice, CLI."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from qa_inspect.core import query
from qa_inspect.core.load import load_runs
from qa_inspect.core.query import (
    Filter,
    SliceError,
    delete_slice,
    describe,
    get_slice,
    list_slices,
    load_slice,
    save_slice,
)
from qa_inspect.core.report import report, slice_report
from qa_inspect.core.store import open_db
from qa_inspect.tui.cli import app
from typer.testing import CliRunner

from tests.paths import FIXTURES

FIXTURE = FIXTURES / "compare"


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("slices")
    shutil.copytree(FIXTURE, root, dirs_exist_ok=True)
    assert not load_runs(root).errors
    return root


@pytest.fixture
def runs_dir(loaded: Path, tmp_path: Path) -> Path:
    """A fresh copy (runs and database) per test, so saved slices never leak between tests."""
    root = tmp_path / "runs"
    shutil.copytree(loaded, root)
    return root


@pytest.fixture
def conn(runs_dir: Path):
    c = open_db(runs_dir / ".qa-inspect" / "qa.db").conn
    yield c
    c.close()


FULL = Filter(
    dataset="tiny", run="run-a", splits=("dev", "test"), tags=("hard",), answer_types=("number", "time"),
    refused=False, em=0, f1_min=0.25, f1_max=0.9, stale=False, has_proposal=None, search="公里",
    compare="run-b", only_disagree=True, sort="delta", descending=True,
    facets=(("qword", "how-many"), ("pred_len", "3–4")), outcome="fixed", outcome_threshold=0.5,
)


def test_round_trip(conn) -> None:
    saved = save_slice(conn, "  hard numbers ", FULL, "ana")
    assert saved.name == "hard numbers" and saved.author == "ana" and saved.created_at
    assert load_slice(conn, "hard numbers") == FULL
    save_slice(conn, "all", Filter())
    assert load_slice(conn, "all") == Filter()
    assert [s.name for s in list_slices(conn)] == ["all", "hard numbers"]
    stored = json.loads(conn.execute("SELECT filter FROM slices WHERE name = 'all'").fetchone()[0])
    assert stored == {}  # only what differs from the defaults is stored
    assert delete_slice(conn, "all") is True
    assert delete_slice(conn, "all") is False
    assert [s.name for s in list_slices(conn)] == ["hard numbers"]


def test_saved_filter_selects_the_same_items(conn) -> None:
    f = Filter(dataset="tiny", run="run-a", em=0, tags=("hard",))
    save_slice(conn, "a wrong on hard", f)
    assert [r.key for r in query.page(conn, load_slice(conn, "a wrong on hard"))] == ["T_2", "T_4"]


def test_names_and_overwrite(conn) -> None:
    save_slice(conn, "x", Filter(dataset="tiny"))
    with pytest.raises(SliceError, match="exists already"):
        save_slice(conn, "x", Filter(dataset="cdqa_tiny"))
    save_slice(conn, "x", Filter(dataset="cdqa_tiny"), overwrite=True)
    assert load_slice(conn, "x") == Filter(dataset="cdqa_tiny")
    assert len(list_slices(conn)) == 1
    for bad in ("", "   ", "a\nb", "x" * 101):
        with pytest.raises(SliceError):
            save_slice(conn, bad, Filter())
    with pytest.raises(SliceError, match=r"unknown slice 'y'; known: x$"):
        load_slice(conn, "y")


def test_unknown_fields_from_a_newer_version_are_ignored(conn) -> None:
    conn.execute(
        "INSERT INTO slices (name, filter, created_at, author) VALUES (?, ?, '2025-01-01', NULL)",
        ("future", json.dumps({"dataset": "tiny", "splits": ["dev"], "colour": "red"})),
    )
    assert load_slice(conn, "future") == Filter(dataset="tiny", splits=("dev",))
    conn.execute("INSERT INTO slices (name, filter, created_at) VALUES ('broken', '[1, 2', 'now')")
    with pytest.raises(SliceError, match="cannot be read"):
        get_slice(conn, "broken")


def test_describe() -> None:
    assert describe(Filter()) == "(all items)"
    assert describe(Filter(run="r", splits=("dev", "test"), facets=(("qword", "谁"),))) == (
        "run=r splits=dev,test facets=qword:谁"
    )


def test_slice_report_is_the_report_on_the_slice_items(conn) -> None:
    f = Filter(dataset="tiny", run="run-a", em=0)  # T_2, T_4, T_6 (missing), T_7
    table = slice_report(conn, f, ["split"])
    overall = {r["run"]: r for r in table.filter(table["slice"] == "overall").to_dicts()}
    assert set(overall) == {"run-a", "run-b"}  # only tiny's runs (one gold per item: no human estimate)
    assert overall["run-a"]["items"] == 4 and overall["run-a"]["em"] == 0.0
    assert overall["run-b"]["items"] == 4 and overall["run-b"]["em"] == pytest.approx(75.0)  # T_2, T_4, T_6 right
    dev = table.filter((table["slice"] == "split") & (table["run"] == "run-b")).to_dicts()
    assert [(r["value"], r["items"]) for r in dev] == [("dev", 2), ("test", 2)]
    # No restriction: the same numbers as the plain report.
    everything = slice_report(conn, Filter(), ["split"])
    assert everything.sort(["dataset", "run", "slice", "value"]).equals(
        report(conn, ["split"]).sort(["dataset", "run", "slice", "value"])
    )


# ---------------------------------------------------------------------------------------- CLI

runner = CliRunner()


def test_cli_slices(runs_dir: Path) -> None:
    r = runner.invoke(app, ["slices", "save", str(runs_dir), "a-wrong", "--run", "run-a", "--em", "0",
                            "--dataset", "tiny", "--author", "ana"])
    assert r.exit_code == 0, r.output
    r = runner.invoke(app, ["slices", "list", str(runs_dir), "--json"])
    assert r.exit_code == 0, r.output
    [entry] = json.loads(r.stdout)
    assert entry["name"] == "a-wrong" and entry["author"] == "ana"
    assert entry["filter"] == {"dataset": "tiny", "run": "run-a", "em": 0}
    r = runner.invoke(app, ["slices", "list", str(runs_dir)])
    assert "a-wrong" in r.stdout and "run=run-a" in r.stdout

    r = runner.invoke(app, ["report", str(runs_dir), "--slice", "a-wrong", "--by", "split", "--json"])
    assert r.exit_code == 0, r.output
    rows = {(x["run"], x["slice"], x["value"]): x for x in json.loads(r.stdout)}
    assert rows[("run-b", "overall", "all")]["items"] == 4
    assert not any(x["dataset"] == "cdqa_tiny" for x in rows.values())

    r = runner.invoke(app, ["slices", "save", str(runs_dir), "a-wrong", "--run", "run-b"])
    assert r.exit_code == 1 and "exists already" in r.stderr
    r = runner.invoke(app, ["slices", "save", str(runs_dir), "a-wrong", "--run", "run-b", "--force"])
    assert r.exit_code == 0, r.output
    r = runner.invoke(app, ["slices", "delete", str(runs_dir), "a-wrong"])
    assert r.exit_code == 0, r.output
    r = runner.invoke(app, ["slices", "delete", str(runs_dir), "a-wrong"])
    assert r.exit_code == 1 and "unknown slice 'a-wrong'" in r.stderr


def test_cli_report_unknown_slice_is_one_line(runs_dir: Path) -> None:
    r = runner.invoke(app, ["report", str(runs_dir), "--slice", "nope"])
    assert r.exit_code == 1
    assert r.stderr.strip() == "qa-inspect: unknown slice 'nope'; known: none saved"


def test_cli_save_checks_names(runs_dir: Path) -> None:
    r = runner.invoke(app, ["slices", "save", str(runs_dir), "x", "--run", "run-z"])
    assert r.exit_code == 1 and "--run: unknown run 'run-z'" in r.stderr
    r = runner.invoke(app, ["slices", "save", str(runs_dir), "x", "--em", "2"])
    assert r.exit_code == 1 and "--em 2" in r.stderr


def test_main_dispatches_slices(runs_dir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from qa_inspect.tui import cli

    monkeypatch.setattr("sys.argv", ["qa-inspect", "slices", "list", str(runs_dir), "--json"])
    with pytest.raises(SystemExit) as exc:
        cli.main()
    assert exc.value.code == 0
    assert json.loads(capsys.readouterr().out) == []


@pytest.mark.parametrize("stored", ['{"em": "abc"}', "[1, 2]", "not json", '{"f1_min": NaN}', '{"splits": "dev"}',
                                    '{"splits": ' + "[" * 5000 + "]" * 5000 + "}", "[" * 100_000])
def test_a_hand_edited_slice_is_listed_as_invalid_and_refused_in_one_line(conn, stored: str) -> None:
    conn.execute("INSERT INTO slices (name, filter, created_at) VALUES ('bad', ?, '2024-01-01')", (stored,))
    listed = {s.name: s for s in list_slices(conn)}
    assert listed["bad"].error is not None and listed["bad"].filter == Filter()
    with pytest.raises(SliceError, match="slice 'bad': stored filter cannot be read"):
        load_slice(conn, "bad")


def test_same_items_ignores_the_order_only() -> None:
    f = Filter(dataset="d", run="r", em=0)
    assert f.same_items(f.with_(sort="f1", descending=True))
    assert not f.same_items(f.with_(em=1))
