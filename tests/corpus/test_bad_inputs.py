"""Nothing a file can contain breaks the tool: every case of the corpus is loaded beside
a good dataset and a good run, through the CLI as a user runs it.

Per case: no traceback; exit 1 with an error, or exit 0 with a warning (or, for files that are
not QA data, a skip with its reason); exactly one line, naming the bad file (and the record where
there is one), short enough to read; the good dataset and run loaded and `report` giving the good
run's numbers; `stale mark` and `stale list` working on the good dataset.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import typer.testing
from qa_inspect.core.formats import formats
from qa_inspect.tui.cli import app

from tests.cli.helpers import invoke
from tests.corpus import bad_folders  # noqa: F401  (adds the manifest and folder cases)
from tests.corpus.bad_inputs import CASES, Case
from tests.corpus.shapes import GOOD_EM, GOOD_F1, GOOD_FILES, GOOD_RUN

MAX_LINE = 400
"""An error line is read by a person: a 1 MB key or a 20 MB line never ends up in it whole."""


@pytest.fixture(scope="module", autouse=True)
def _command_built_once() -> Iterator[None]:
    """Typer builds the Click command anew on every `invoke` (two thirds of this module's time):
    build it once for the ~1,000 invocations here."""
    patch = pytest.MonkeyPatch()
    command = typer.main.get_command(app)
    patch.setattr(typer.testing, "_get_command", lambda _app: command, raising=False)
    yield
    patch.undo()


def test_the_corpus_is_big_and_covers_every_reader() -> None:
    """A new reader comes with its bad inputs: every format has a group of cases."""
    groups = {c.group for c in CASES.values()}
    assert len(CASES) >= 100, len(CASES)
    assert {"empty", "encoding", "syntax", "limits", "manifest", "filesystem", "not QA data"} <= groups
    assert set(formats()) <= groups, set(formats()) - groups


def _write(runs: Path, case: Case) -> None:
    for rel, content in {**GOOD_FILES, **case.files}.items():
        path = runs / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content() if callable(content) else content)
    if case.setup is not None:
        case.setup(runs)


@contextmanager
def _unreadable(runs: Path, rels: tuple[str, ...], monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """chmod 000 on `rels`; root reads through that, so opening and listing them is refused too."""
    targets = {(runs / rel).absolute() for rel in rels}
    modes = {path: path.stat().st_mode for path in targets}
    for path in targets:
        path.chmod(0)
    if targets and os.geteuid() == 0:
        real_open, real_scandir = Path.open, os.scandir

        def guarded_open(self: Path, *args: Any, **kwargs: Any) -> Any:
            if self.absolute() in targets:
                raise PermissionError(13, "Permission denied", str(self))
            return real_open(self, *args, **kwargs)

        def guarded_scandir(path: Any = ".") -> Any:
            if Path(os.fsdecode(path)).absolute() in targets:
                raise PermissionError(13, "Permission denied", os.fsdecode(path))
            return real_scandir(path)

        monkeypatch.setattr(Path, "open", guarded_open)
        monkeypatch.setattr(os, "scandir", guarded_scandir)
    try:
        yield
    finally:
        monkeypatch.undo()
        for path, mode in modes.items():
            path.chmod(stat.S_IMODE(mode))


def _one_line(case: Case, lines: list[str]) -> str:
    assert len(lines) == 1, lines
    line = lines[0]
    assert case.target in line, (case.target, line)
    for words in case.says:
        assert words in line, (words, line)
    assert "\n" not in line and len(line) <= MAX_LINE, line[:MAX_LINE]
    return line


def _check_summary(case: Case, summary: dict[str, Any]) -> None:
    """`load --json`: one entry for the bad file, and the good files loaded beside it."""
    problems = [e["message"] for e in summary["errors"]] + [w["message"] for w in summary["warnings"]]
    if case.expect == "skip":
        assert problems == []
        _one_line(case, [f"{k['path']}: {k['reason']}" for k in summary["skipped"] if k["path"] == case.target])
    else:
        _one_line(case, problems)
        kind = "errors" if case.expect == "error" else "warnings"
        assert summary[kind], f"expected {kind}: {problems}"
    assert {d["name"] for d in summary["datasets"]} >= {"dev"}
    assert GOOD_RUN in {r["name"] for r in summary["runs"] if r["dataset"] == "dev"}


def _loads_again_to_the_same_line(runs: Path, db: str, case: Case, code: int) -> None:
    """`load` again, as people read it: exit `code` and the same one line (a file in error is read
    again, not forgotten), none for a skip (`test_limits.py` checks its cases with this too)."""
    res = invoke("load", str(runs), "--db", db)
    assert res.exit_code == code, res.output[-2000:]
    lines = [ln for ln in res.stdout.splitlines() if ln.startswith(("error: ", "warning: "))]
    if case.expect == "skip":
        assert lines == []
    else:
        assert _one_line(case, lines).startswith(f"{case.expect}: ")


def _good_run_still_works(runs: Path, db: str) -> None:
    """The good run loaded beside a bad case: `report` gives its numbers, `stale mark`/`list` work on
    the good dataset (`test_limits.py` checks its cases with this too)."""
    rows = json.loads(invoke("report", str(runs), "--db", db, "--json", "--by", "split").stdout)
    good = next(r for r in rows if r["run"] == GOOD_RUN and r["dataset"] == "dev" and r["slice"] == "overall")
    assert (good["items"], good["em"], round(good["f1"], 2)) == (4, GOOD_EM, GOOD_F1)
    res = invoke("stale", "mark", str(runs), "Q1", "--dataset", "dev", "--gold", "1", "--reason", "moved",
                 "--author", "corpus", "--db", db)
    assert res.exit_code == 0, res.output
    res = invoke("stale", "list", str(runs), "--dataset", "dev", "--db", db, "--json")
    assert res.exit_code == 0, res.output
    assert [(f["item_key"], f["gold_text"]) for f in json.loads(res.stdout)] == [("Q1", "quick brown fox")]


@pytest.mark.parametrize("name", sorted(CASES))
def test_bad_input_is_one_line_and_harmless(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    case = CASES[name]
    runs = tmp_path / "runs"
    runs.mkdir()
    _write(runs, case)
    db = str(tmp_path / "qa.db")
    code = 1 if case.expect == "error" else 0
    with _unreadable(runs, case.refuse, monkeypatch):
        res = invoke("load", str(runs), "--db", db, "--json")
        assert res.exit_code == code, res.output[-2000:]
        _check_summary(case, json.loads(res.stdout))

        _loads_again_to_the_same_line(runs, db, case, code)

        _good_run_still_works(runs, db)


def test_a_folder_turned_unreadable_is_not_a_removal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Files in a folder that cannot be listed are unknown, not gone: their rows stay (status
    error) and come back as loaded once the folder can be read again."""
    runs = tmp_path / "runs"
    files = {"locked/run.json": GOOD_FILES[f"{GOOD_RUN}.json"]}
    _write(runs, Case("filesystem", files, "error", ()))
    db = str(tmp_path / "qa.db")
    assert invoke("load", str(runs), "--db", db).exit_code == 0
    with _unreadable(runs, ("locked",), monkeypatch):
        res = invoke("load", str(runs), "--db", db, "--json")
    assert res.exit_code == 1
    summary = json.loads(res.stdout)
    assert [e["path"] for e in summary["errors"]] == ["locked"] and summary["removed"] == []
    assert {r["path"]: r["status"] for r in summary["runs"]} == {"good-run.json": "unchanged", "locked/run.json": "error"}
    summary = json.loads(invoke("load", str(runs), "--db", db, "--json").stdout)
    assert summary["errors"] == [] and {r["path"]: r["status"] for r in summary["runs"]}["locked/run.json"] == "loaded"
