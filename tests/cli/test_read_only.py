"""Every command on a read-only runs folder that ships its `.qa-inspect/qa.db` (and on a read-only `qa.db`):
the shipped flags show, new marks go to the user-side overlay the load names, exports hold both."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from qa_inspect.core.store import place_db

from tests.cli.helpers import invoke
from tests.core.store.read_only import make_read_only, snapshot
from tests.helpers import copy_loaded

pytestmark = pytest.mark.usefixtures("no_author_env")

OWNER_KEY = "DEV_4_QUERY_0"
USER_KEY = "DEV_1010_QUERY_1"


@pytest.fixture
def runs(loaded_template: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The owner's folder: loaded, one gold flagged in its own `.qa-inspect/qa.db`."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    runs = copy_loaded(loaded_template, tmp_path / "owner")
    (runs / ".qa-inspect").mkdir()
    shutil.move(tmp_path / "owner" / "qa.db", runs / ".qa-inspect" / "qa.db")
    res = invoke("stale", "mark", str(runs), OWNER_KEY, "--gold", "1", "--author", "owner", "--reason", "shipped")
    assert res.exit_code == 0, res.output
    return runs


def _listed(runs: Path) -> list[tuple[str, str]]:
    res = invoke("stale", "list", str(runs), "--json")
    assert res.exit_code == 0, res.output
    return sorted((f["item_key"], f["author"]) for f in json.loads(res.stdout))


def test_every_command_works_on_a_read_only_folder(runs: Path, tmp_path: Path, request: pytest.FixtureRequest,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    make_read_only(request, monkeypatch, runs)
    before = snapshot(runs)
    load = invoke("load", str(runs))
    assert load.exit_code == 0, load.output
    text = " ".join(load.output.split())  # the notice may be wrapped
    overlay, shipped = place_db(runs).path, (runs / ".qa-inspect" / "qa.db").resolve()
    assert overlay.is_relative_to(tmp_path / "cache")
    assert f"runs folder is read-only: annotations go to {overlay} (seeded from {shipped})" in text
    assert _listed(runs) == [(OWNER_KEY, "owner")]

    mark = invoke("stale", "mark", str(runs), USER_KEY, "--gold", "1", "--author", "bob", "--reason", "mine")
    assert mark.exit_code == 0, mark.output
    assert "runs folder is read-only: annotations go to" in " ".join(mark.stderr.split())  # every command says where
    assert _listed(runs) == [(USER_KEY, "bob"), (OWNER_KEY, "owner")]

    out = tmp_path / "patch.jsonl"
    export = invoke("stale", "export", str(runs), "-o", str(out))
    assert export.exit_code == 0, export.output
    assert sorted(json.loads(line)["item_key"] for line in out.read_text(encoding="utf-8").splitlines()) == sorted(
        [OWNER_KEY, USER_KEY])
    for args in (("report", str(runs)), ("stale", "undo", str(runs), "--author", "bob")):
        res = invoke(*args)
        assert res.exit_code == 0, (args, res.output)
    assert _listed(runs) == [(OWNER_KEY, "owner")]
    assert snapshot(runs) == before, "the shipped folder is as it was"


def test_a_read_only_qa_db_in_a_writable_folder(runs: Path, request: pytest.FixtureRequest,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    shipped = runs / ".qa-inspect" / "qa.db"
    make_read_only(request, monkeypatch, shipped)
    before = shipped.read_bytes()
    assert _listed(runs) == [(OWNER_KEY, "owner")]
    mark = invoke("stale", "mark", str(runs), USER_KEY, "--gold", "1", "--author", "bob")
    assert mark.exit_code == 0, mark.output
    assert _listed(runs) == [(USER_KEY, "bob"), (OWNER_KEY, "owner")]
    assert shipped.read_bytes() == before


def test_a_read_only_folder_without_a_database(loaded_template: Path, tmp_path: Path, request: pytest.FixtureRequest,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    runs = copy_loaded(loaded_template, tmp_path / "plain")
    make_read_only(request, monkeypatch, runs)
    assert _listed(runs) == []
    mark = invoke("stale", "mark", str(runs), USER_KEY, "--gold", "1", "--author", "bob")
    assert mark.exit_code == 0, mark.output
    assert _listed(runs) == [(USER_KEY, "bob")]
    assert not (runs / ".qa-inspect").exists()
