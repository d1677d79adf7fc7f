"""The bad-input corpus, continued: the manifest `qa-inspect.toml` and the runs folder itself
(links, loops, unreadable files and folders, names that are not text, folders named like files).

Importing this module adds its cases to `bad_inputs.CASES`.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from .bad_inputs import Expect, add
from .shapes import js

__all__: list[str] = []

M = "qa-inspect.toml"


def manifest(name: str, text: str | bytes, *says: str) -> None:
    """A case whose one bad file is the manifest (everything else loads as if it were absent)."""
    add(f"manifest-{name}", "manifest", {M: text.encode("utf-8") if isinstance(text, str) else text}, "error", *says)


manifest("invalid-toml", "[[dataset]\npath = 'dev.json'\n", "invalid TOML")
manifest("deep-arrays", "a = " + "[" * 3000 + "]" * 3000 + "\n", "nested deeper")
manifest("deep-inline-tables", "a = " + "{b = " * 3000 + "1" + "}" * 3000 + "\n", "nested deeper")
manifest("number-5000-digits", "[[run]]\npath = 'good-run.json'\nname = " + "9" * 5000 + "\n", "4,300 digits")
manifest("path-outside", '[[dataset]]\npath = "../elsewhere.json"\n', "[[dataset]] #1, path", "outside the runs folder")
manifest("absolute-path-outside", '[[dataset]]\npath = "/etc/hostname"\n', "[[dataset]] #1, path", "outside the runs folder")
manifest("unknown-top-key", 'datasets = ["dev.json"]\n', "datasets", "unknown key")
manifest("unknown-entry-key", '[[run]]\npath = "good-run.json"\nmodle = "x"\n', "[[run]] #1, modle", "unknown key")
manifest("path-missing", '[[run]]\nname = "x"\n', "[[run]] #1, path", "missing")
manifest("path-a-number", "[[run]]\npath = 7\n", "[[run]] #1, path", "expected a non-empty string")
manifest("path-no-such-file", '[[run]]\npath = "gone.json"\n', "[[run]] #1, path", "no such file")
manifest("unknown-family", '[[dataset]]\npath = "dev.json"\nfamily = "trivia"\n', "[[dataset]] #1, family", "unknown family")
manifest("unknown-scorer", '[[dataset]]\npath = "dev.json"\nscorer = "bleu"\n', "[[dataset]] #1, scorer", "unknown scorer")
manifest("format-of-a-run", '[[dataset]]\npath = "dev.json"\nformat = "prediction-map"\n', "[[dataset]] #1, format",
         "unknown dataset format")
manifest("ignore-a-string", 'ignore = "*.tmp"\n', "ignore", "list of glob strings")
manifest("dataset-name-twice", '[[dataset]]\npath = "dev.json"\nname = "d"\n[[dataset]]\npath = "good-run.json"\nname = "d"\n',
         "[[dataset]] #2, name", "used twice")
manifest("same-file-twice", '[[dataset]]\npath = "dev.json"\n[[run]]\npath = "./dev.json"\n', "[[run]] #1, path",
         "same file as [[dataset]] #1")
manifest("link-runs-a-list", '[[link]]\nruns = ["*.json"]\ndataset = "dev"\n', "[[link]] #1, runs")
manifest("dataset-tables-not-array", '[dataset]\npath = "dev.json"\n', "dataset", "expected [[dataset]] tables")
manifest("utf16-without-bom", '[[run]]\npath = "good-run.json"\n'.encode("utf-16-le"), "UTF-16")
manifest("nul-byte", b'[[run]]\npath = "good-run.json\x00"\n', "NUL")
manifest("lone-surrogate-escape", '[[run]]\npath = "good-run.json"\nname = "\\ud800"\n', "invalid TOML")


def _sub_json_folder(d: Path) -> None:
    (d / "sub.json").mkdir()
    (d / "sub.json" / "notes.txt").write_text("not data", encoding="utf-8")


def _outside_link(d: Path) -> None:
    (d.parent / "elsewhere.json").write_text('{"Q1": "x"}', encoding="utf-8")
    os.symlink(d.parent / "elsewhere.json", d / "link.json")


add("manifest-path-a-folder", "manifest", {M: b'[[run]]\npath = "sub.json"\n'}, "error", "[[run]] #1, path", "a folder",
    setup=_sub_json_folder)
add("manifest-link-escapes", "manifest", {M: b'[[run]]\npath = "link.json"\n'}, "error", "[[run]] #1, path",
    "outside the runs folder", setup=_outside_link)
add("manifest-a-folder", "manifest", {}, "error", "a folder", names=M, setup=lambda d: (d / M).mkdir())
add("manifest-symlink-loop", "manifest", {}, "error", "symbolic links", names=M, setup=lambda d: os.symlink(M, d / M))
add("manifest-unreadable", "manifest", {M: b'[[run]]\npath = "good-run.json"\n'}, "error", "Permission denied",
    refuse=(M,))

# ----------------------------------------------------------------------------- the folder itself


def _write_bad_name(d: Path) -> None:
    with open(os.path.join(os.fsencode(d), b"name\xff.json"), "wb") as fh:
        fh.write(js({"Q1": "x"}))


def _write_bad_folder_name(d: Path) -> None:
    folder = os.path.join(os.fsencode(d), b"dir\xfe")
    os.mkdir(folder)
    with open(os.path.join(folder, b"run.json"), "wb") as fh:
        fh.write(js({"Q1": "x"}))


def _newline_name(d: Path) -> None:
    (d / "bad\nname.json").write_bytes(js({"Q1": "x"}))


def _escape_name(d: Path) -> None:
    (d / "bad\x1b[2Jname.json").write_bytes(b"[")


def _chmod_folder(d: Path) -> None:
    (d / "locked").mkdir()
    (d / "locked" / "run.json").write_bytes(js({"Q1": "x"}))


def _fs(name: str, setup: Callable[[Path], object] | None, expect: Expect, *says: str, names: str,
        refuse: tuple[str, ...] = (), files: dict[str, bytes] | None = None) -> None:
    add(name, "filesystem", files or {}, expect, *says, names=names, setup=setup, refuse=refuse)


_fs("symlink-loop", lambda d: os.symlink("loop.json", d / "loop.json"), "error", "symbolic links", names="loop.json")
_fs("symlink-two-loop", lambda d: (os.symlink("loop_b.txt", d / "loop_a.json"), os.symlink("loop_a.json", d / "loop_b.txt")),
    "error", "symbolic links", names="loop_a.json")
_fs("dangling-symlink", lambda d: os.symlink("gone/nowhere.json", d / "dangling.json"), "error",
    "No such file or directory", names="dangling.json")
_fs("symlink-to-device", lambda d: os.symlink("/dev/zero", d / "zero.json"), "error", "not a regular file",
    names="zero.json")
_fs("symlink-to-folder", lambda d: (d / "real").mkdir() or os.symlink("real", d / "linked.json"), "warning",
    "a link to a folder named like a data file", names="linked.json")
_fs("folder-link-out-and-around", lambda d: os.symlink("..", d / "up"), "warning", "a link to a folder outside",
    names="up")
_fs("empty-folder-named-json", lambda d: (d / "empty.json").mkdir(), "warning", "a folder named like a data file",
    names="empty.json/")
_fs("name-not-utf8", _write_bad_name, "error", "not valid UTF-8", names="name\ufffd.json")
_fs("folder-name-not-utf8", _write_bad_folder_name, "error", "not valid UTF-8", names="dir\ufffd")
_fs("name-with-newline", _newline_name, "error", "line break", names="bad\\nname.json")
_fs("name-with-escape", _escape_name, "error", "invalid JSON", names="[2Jname.json")
_fs("unreadable-file", None, "error", "Permission denied", names="locked.json", refuse=("locked.json",),
    files={"locked.json": js({"Q1": "x"})})
_fs("unreadable-folder", _chmod_folder, "error", "Permission denied", names="locked", refuse=("locked",))
