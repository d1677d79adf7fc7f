"""A Git LFS pointer (a clone without `git lfs pull`) says so, whatever its suffix."""

from __future__ import annotations

from pathlib import Path

import pytest
from qa_inspect.core.errors import FormatError
from qa_inspect.core.formats import read_source
from qa_inspect.core.formats.textio import LFS_MESSAGE
from qa_inspect.core.load import load_runs

from tests.helpers import error_of

POINTER = (
    "version https://git-lfs.github.com/spec/v1\n"
    "oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\n"
    "size 12345\n"
)


@pytest.mark.parametrize("name", ["dev.json", "preds.jsonl", "squad.parquet", "data-00000-of-00001.arrow", "p.csv"])
def test_pointer_is_an_error_saying_so(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_text(POINTER, encoding="utf-8")
    err = error_of(path)
    assert err.message == LFS_MESSAGE == "Git LFS pointer (the data was not downloaded): run git lfs pull"
    assert str(err) == f"{path}: {LFS_MESSAGE}"


def test_pointer_as_a_side_file_names_the_side_file(tmp_path: Path) -> None:
    (tmp_path / "eval_predictions.json").write_text('{"q1": "a"}', encoding="utf-8")
    nbest = tmp_path / "eval_nbest_predictions.json"
    nbest.write_text(POINTER, encoding="utf-8")
    with pytest.raises(FormatError) as info:
        read_source(tmp_path / "eval_predictions.json")
    err = info.value
    assert err.path == str(nbest) and err.message == LFS_MESSAGE


def test_pointer_in_a_runs_folder_is_one_error_line(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / "dev.json").write_text(POINTER, encoding="utf-8")
    summary = load_runs(runs, tmp_path / "qa.db")
    assert summary.errors == [{"path": "dev.json", "message": f"dev.json: {LFS_MESSAGE}"}]


def test_text_mentioning_lfs_later_is_not_a_pointer(tmp_path: Path) -> None:
    path = tmp_path / "p.json"
    path.write_text('{"q1": "version https://git-lfs.github.com/spec/v1"}', encoding="utf-8")
    assert read_source(path).predictions[0].text.startswith("version")  # type: ignore[union-attr]
