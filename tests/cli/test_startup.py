"""Start-up stays short: `--help` imports no command module, a command imports only its
own, and the command table `--help` lists from is the one the modules register."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import typer
from typer.core import TyperGroup

from qa_inspect.tui.cli import app
from qa_inspect.tui.cli.common import COMMANDS

PROBE = """
import json, sys
sys.argv = ["qa-inspect", *json.loads(sys.argv[1])]
from qa_inspect.tui.cli import main
try:
    main()
except SystemExit:
    pass
print("\\nMODULES " + json.dumps(sorted(sys.modules)))
"""
HEAVY = ("polars", "numpy", "sqlite_utils", "textual", "nltk", "jieba", "pydantic")


def imported_by(*args: str) -> set[str]:
    """The modules a whole `qa-inspect ARGS…` process has imported when it ends."""
    proc = subprocess.run([sys.executable, "-c", PROBE, json.dumps(args)], capture_output=True, text=True,
                          timeout=120, check=True)
    return set(json.loads(proc.stdout.rsplit("\nMODULES ", 1)[1]))


def roots(modules: set[str]) -> set[str]:
    return {m.split(".")[0] for m in modules}


def test_help_imports_no_command_module_and_nothing_heavy() -> None:
    modules = imported_by("--help")
    ours = sorted(m for m in modules if m.startswith("qa_inspect."))
    assert ours == ["qa_inspect.core", "qa_inspect.core.errors", "qa_inspect.tui", "qa_inspect.tui.cli",
                    "qa_inspect.tui.cli.common"]
    assert not roots(modules) & {*HEAVY, "rich"}


def test_a_command_imports_its_own_module_only(sample_runs: Path, tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    shutil.copytree(sample_runs, runs, ignore=shutil.ignore_patterns(".qa-inspect"))
    modules = imported_by("load", str(runs), "--json")
    commands = {m.rsplit(".", 1)[1] for m in modules if m.startswith("qa_inspect.tui.cli.")}
    assert commands == {"common", "output", "load"}
    # SQLite and jieba it uses; sqlite-utils only `schema` does (core.store.describe_schema).
    assert not roots(modules) & {"polars", "textual", "nltk", "pydantic", "sqlite_utils"}
    # a load that changed something sums the overview's first rows in core (core.load.warm_overview,
    # core.store.overview_rows): no report, no query
    assert not any(m.startswith(("qa_inspect.core.query", "qa_inspect.core.report")) for m in modules)
    again = imported_by("load", str(runs), "--json")  # unchanged: no report, no query
    assert not any(m.startswith(("qa_inspect.core.query", "qa_inspect.core.report")) for m in again)


def test_the_table_names_every_registered_command_in_its_module() -> None:
    group = typer.main.get_command(app)
    assert list(getattr(group, "commands", {})) == list(COMMANDS)
    for info in app.registered_commands:
        assert info.callback is not None
        assert info.callback.__module__ == f"qa_inspect.tui.cli.{COMMANDS[str(info.name)].module}"
    for sub in app.registered_groups:
        assert sub.typer_instance is not None
        modules = {c.callback.__module__ for c in sub.typer_instance.registered_commands if c.callback}
        own = f"qa_inspect.tui.cli.{COMMANDS[str(sub.name)].module}"  # or a companion it registers: stale_review
        assert own in modules and all(m == own or m.startswith(own + "_") for m in modules), modules


@pytest.mark.parametrize("width", [60, 80, 200])
def test_help_from_the_table_is_what_the_commands_say(width: int) -> None:
    """The lazy listing equals Typer's own, made from every imported command (a summary that
    drifts from its docstring fails here; at 200 columns nothing is truncated)."""
    group = typer.main.get_command(app)
    ctx = group.make_context("qa-inspect", [], terminal_width=width, max_content_width=width)
    lazy, eager = ctx.make_formatter(), ctx.make_formatter()
    group.format_commands(ctx, lazy)
    TyperGroup.format_commands(group, ctx, eager)  # type: ignore[arg-type]
    assert lazy.getvalue() == eager.getvalue()
    assert "load" in lazy.getvalue()


def test_the_app_starts_without_polars_or_numpy() -> None:
    """Reports, exports, intervals and comparisons import them when first used; the app's start
    (its whole screen and dialog set) does not pay for them (0.5 s of a launch)."""
    probe = "import json, sys; import qa_inspect.tui.app; print(json.dumps(sorted(sys.modules)))"
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True)
    assert not roots(set(json.loads(proc.stdout))) & {"polars", "numpy", "nltk"}
