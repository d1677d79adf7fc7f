"""`qa-inspect stale queue` covers only datasets that can go stale and says so; its item options
are the browser's (`--tag`, `--answer-type`, `--split`, `--search`, repeatable)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from qa_inspect.core.load import load_runs
from qa_inspect.tui.cli import app
from tests.core.review.make_runs import make_review_runs

runner = CliRunner()
pytestmark = pytest.mark.usefixtures("no_author_env")

STATIC = {"version": "v1", "data": [{"title": "t", "paragraphs": [{"context": "潘均顺于1974年去世。", "qas": [
    {"id": "S1", "question": "潘均顺哪一年去世？", "answers": [{"text": "1974年", "answer_start": 4}]}]}]}]}


def _folder(tmp_path: Path, manifest: str | None = None) -> Path:
    folder = make_review_runs(tmp_path)
    (folder / "static_dev.json").write_text(json.dumps(STATIC, ensure_ascii=False), encoding="utf-8")
    if manifest is not None:
        (folder / "qa-inspect.toml").write_text(manifest, encoding="utf-8")
    return folder


def _cli(folder: Path, *args: str, code: int = 0):  # noqa: ANN202
    result = runner.invoke(app, ["stale", "queue", str(folder), "--db", str(folder.parent / "qa.db"),
                                 "--author", "ann", *args])
    assert result.exit_code == code, (result.output, result.stderr)
    return result


def test_the_queue_says_what_it_covers_and_leaves_static_data_out(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    assert not load_runs(folder, tmp_path / "qa.db").errors
    text = _cli(folder).stdout
    assert text.splitlines()[0] == ("Review queue over review (change tags); "
                                    "left out (cannot go stale): static_dev")
    q = json.loads(_cli(folder, "--json").stdout)
    assert q["datasets"] == [{"name": "review", "why": "change tags"}] and q["left_out"] == ["static_dev"]
    assert {e["dataset"] for e in q["queue"]} == {"review"}
    bad = _cli(folder, "--dataset", "static_dev", code=1)
    assert "static_dev cannot go stale" in bad.output and len(bad.output.strip().splitlines()) == 1


def test_a_dataset_declared_dynamic_is_covered(tmp_path: Path) -> None:
    folder = _folder(tmp_path, '[[dataset]]\npath = "static_dev.json"\ndynamic = true\n')
    assert not load_runs(folder, tmp_path / "qa.db").errors
    q = json.loads(_cli(folder, "--json").stdout)
    assert q["datasets"] == [{"name": "review", "why": "change tags"}, {"name": "static_dev", "why": "dynamic = true"}]
    assert q["left_out"] == [] and "1974年" in [e["gold"] for e in q["queue"]]


def test_dynamic_must_be_true_or_false(tmp_path: Path) -> None:
    folder = _folder(tmp_path, '[[dataset]]\npath = "static_dev.json"\ndynamic = "yes"\n')
    result = runner.invoke(app, ["load", str(folder), "--db", str(tmp_path / "qa.db")])
    assert result.exit_code == 1
    assert "qa-inspect.toml" in result.output and "dynamic" in result.output and "true or false" in result.output


def test_the_browser_filter_options_scope_the_queue(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    assert not load_runs(folder, tmp_path / "qa.db").errors
    q = json.loads(_cli(folder, "--json", "--tag", "fast-changing,never-changing", "--answer-type", "person").stdout)
    assert [e["gold"] for e in q["queue"]] == ["吴思远", "曹雪芹"]
    assert q["header"].endswith("filter: tag fast-changing, never-changing; answer type person")
    assert [e["gold"] for e in json.loads(_cli(folder, "--json", "--search", "马拉松").stdout)["queue"]] == ["吴思远"]
    assert "--dataset: unknown dataset 'nope'" in _cli(folder, "--dataset", "nope", code=1).output
