"""`qa-inspect.toml` `[labels] set = [...]`: the project's error labels."""

from __future__ import annotations

from pathlib import Path

import pytest
from qa_inspect.core.errors import FormatError
from qa_inspect.core.load import load_manifest


def manifest(tmp_path: Path, text: str):  # noqa: ANN201
    (tmp_path / "qa-inspect.toml").write_text(text, encoding="utf-8")
    return load_manifest(tmp_path)


def test_labels_set_is_read_in_order_without_duplicates(tmp_path: Path) -> None:
    assert manifest(tmp_path, 'ignore = []\n').labels is None
    assert manifest(tmp_path, '[labels]\nset = ["b", " a ", "b"]\n').labels == ("b", "a")
    assert manifest(tmp_path, '[labels]\n').labels == ()


@pytest.mark.parametrize(("text", "where"), [
    ('[labels]\nset = "x"\n', "labels, set"),
    ('[labels]\nset = ["a,b"]\n', "labels, set"),
    ('[labels]\nset = [""]\n', "labels, set"),
    ('[labels]\nnames = ["a"]\n', "labels"),
    ('labels = ["a"]\n', "labels"),
])
def test_a_bad_labels_table_names_the_key(tmp_path: Path, text: str, where: str) -> None:
    with pytest.raises(FormatError, match=f"qa-inspect.toml, {where}: expected"):
        manifest(tmp_path, text)
