"""The item-filter options written once (`tui.cli.filter_options`): `export` and `slices save` take
the same ones, and each lands in the same `Filter` field through the one `build_filter`."""

from __future__ import annotations

import json
import shutil
from dataclasses import fields
from pathlib import Path
from typing import Any

import pytest
import typer
from qa_inspect.core.query import Filter
from qa_inspect.core.store import open_db
from qa_inspect.tui.cli import app
from qa_inspect.tui.cli.filter_options import FILTER_OPTIONS, ORDER_OPTIONS, FilterArgs, build_filter
from typer.testing import CliRunner

from tests.paths import FIXTURES

runner = CliRunner()


@pytest.fixture
def runs_dir(tmp_path: Path) -> Path:
    root = tmp_path / "runs"
    shutil.copytree(FIXTURES / "compare", root)
    assert runner.invoke(app, ["load", str(root)]).exit_code == 0
    return root


def _options(*path: str) -> list[str]:
    """The option names (`dataset`, `f1_min` …) of a sub-command, in `--help` order."""
    command: Any = typer.main.get_command(app)
    ctx = typer.Context(command)
    for name in path:
        command = command.get_command(ctx, name)
        ctx = typer.Context(command, parent=ctx)
    return [p.name for p in command.params if p.param_type_name == "option"]


def test_both_commands_take_every_filter_option_once_and_in_one_order() -> None:
    shared = list(FILTER_OPTIONS)
    assert len(shared) == 14  # the 12 item filters, --judge-verdict (facets of imported verdicts) and --where
    export, save = _options("export"), _options("slices", "save")
    assert [o for o in export if o in FILTER_OPTIONS or o in ORDER_OPTIONS] == [*shared, *ORDER_OPTIONS]
    assert [o for o in save if o in FILTER_OPTIONS or o in ORDER_OPTIONS] == shared
    assert {f.name for f in fields(FilterArgs)} == {*FILTER_OPTIONS, *ORDER_OPTIONS}


def test_build_filter_maps_every_option_to_its_filter_field(runs_dir: Path) -> None:
    args = FilterArgs(dataset="tiny", run="run-a", compare="run-b", split=["dev,test"], tag=["a", "b"],
                      answer_type=["span"], refused=False, em=0, f1_min=0.1, f1_max=0.9, search="x", stale=True,
                      sort="f1", descending=True)
    conn = open_db(runs_dir / ".qa-inspect" / "qa.db").conn
    try:
        f = build_filter(conn, Filter(tags=("old",)), args)
        assert build_filter(conn, Filter(tags=("old",)), FilterArgs()) == Filter(tags=("old",))
    finally:
        conn.close()
    assert f == Filter(dataset="tiny", run="run-a", compare="run-b", splits=("dev", "test"), tags=("a", "b"),
                       answer_types=("span",), refused=False, em=0, f1_min=0.1, f1_max=0.9, search="x", stale=True,
                       sort="f1", descending=True)


def test_the_same_options_give_the_same_filter_in_export_and_slices_save(runs_dir: Path, tmp_path: Path) -> None:
    given = ["--dataset", "tiny", "--run", "run-a", "--em", "0", "--split", "dev"]
    saved = runner.invoke(app, ["slices", "save", str(runs_dir), "s", *given])
    assert saved.exit_code == 0, saved.output
    [entry] = json.loads(runner.invoke(app, ["slices", "list", str(runs_dir), "--json"]).stdout)
    exported = runner.invoke(app, ["export", str(runs_dir), *given, "-o", str(tmp_path / "x.csv"), "--json"])
    assert exported.exit_code == 0, exported.output
    assert json.loads(exported.stdout)["filter"] == entry["filter"] == {
        "dataset": "tiny", "run": "run-a", "em": 0, "splits": ["dev"]}


@pytest.mark.parametrize("command", [["export", "-o", "x.csv"], ["slices", "save", "s"]])
def test_a_bad_value_is_one_line_naming_the_option_in_both(runs_dir: Path, command: list[str]) -> None:
    where = [*command[:-1], str(runs_dir), command[-1]] if command[0] == "slices" else [command[0], str(runs_dir), *command[1:]]
    r = runner.invoke(app, [*where, "--f1-min", "2"])
    assert r.exit_code == 1 and r.stderr.strip() == "qa-inspect: --f1-min 2.0: must be between 0 and 1"


def test_a_python_caller_passes_one_filter_args(runs_dir: Path, tmp_path: Path) -> None:
    from qa_inspect.tui.cli.export import export_cmd

    out = tmp_path / "x.jsonl"
    export_cmd(runs_dir, out, filters=FilterArgs(dataset="tiny", run="run-a", em=0))
    same = tmp_path / "y.jsonl"
    r = runner.invoke(app, ["export", str(runs_dir), "--dataset", "tiny", "--run", "run-a", "--em", "0", "-o", str(same)])
    assert r.exit_code == 0, r.output
    assert out.read_text(encoding="utf-8") == same.read_text(encoding="utf-8") != ""


def test_where_selects_what_the_equivalent_options_select(runs_dir: Path, tmp_path: Path) -> None:
    by_options = runner.invoke(app, ["export", str(runs_dir), "--run", "run-a", "--em", "1", "--split", "dev",
                                     "-o", str(tmp_path / "a.jsonl")])
    by_where = runner.invoke(app, ["export", str(runs_dir), "--run", "run-a", "--where", 'em = 1 and split = "dev"',
                                   "--sort", "error_category", "-o", str(tmp_path / "b.jsonl")])
    assert by_options.exit_code == 0 and by_where.exit_code == 0, by_where.output
    keys = [{json.loads(line)["key"] for line in (tmp_path / n).read_text(encoding="utf-8").splitlines()}
            for n in ("a.jsonl", "b.jsonl")]
    assert keys[0] == keys[1] and keys[0]


def test_where_is_saved_in_the_slice_and_anded_with_it(runs_dir: Path) -> None:
    assert runner.invoke(app, ["slices", "save", str(runs_dir), "s", "--run", "run-a", "--where", "em = 0"]).exit_code == 0
    [entry] = json.loads(runner.invoke(app, ["slices", "list", str(runs_dir), "--json"]).stdout)
    assert entry["filter"] == {"run": "run-a", "expression": "em = 0"}
    conn = open_db(runs_dir / ".qa-inspect" / "qa.db").conn
    try:
        f = build_filter(conn, Filter(run="run-a", expression="em = 0"), FilterArgs(where="f1 < 0.5 or f1 > 0.9"))
    finally:
        conn.close()
    assert f.expression == "em = 0 and (f1 < 0.5 or f1 > 0.9)"


@pytest.mark.parametrize(("where", "message"), [
    ("f1 <", "--where: expression, at character 5: expected a number"),
    ("f2 < 1", "--where: expression, at character 1: unknown column 'f2'"),
])
def test_a_bad_where_is_one_line(runs_dir: Path, tmp_path: Path, where: str, message: str) -> None:
    r = runner.invoke(app, ["export", str(runs_dir), "--run", "run-a", "--where", where, "-o", str(tmp_path / "x.csv")])
    assert r.exit_code == 1 and r.stderr.strip().startswith(f"qa-inspect: {message}")
    assert len(r.stderr.strip().splitlines()) == 1
