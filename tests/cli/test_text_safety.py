"""Model and dataset text never drives the terminal: every CLI output format is fed escape
sequences (OSC 52 clipboard, OSC 0 title, CSI as ESC [ and as the C1 byte, a bidi override, BEL)
inside file names, questions, golds, predictions and run names, and none reaches the output raw."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.helpers import invoke

OSC52 = "\x1b]52;c;cm0gLXJmIH4vKg==\x07"  # would put `rm -rf ~/*` on the clipboard
EVIL = f"{OSC52}\x1b]0;pwned\x07\x1b[31m\x9b2J\u202e\u2066"
RAW = ("\x1b", "\x07", "\x9b", "\u202e", "\u2066")


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("evil") / "runs"
    root.mkdir()
    items = [{"id": f"q{i}", "question": f"question {i}{EVIL}?", "answers": [f"gold{EVIL}{i}"], "tag": f"t{EVIL}"}
             for i in range(4)]
    (root / "data.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in items), encoding="utf-8")
    for run in ("a", "b"):
        preds = [{"id": f"q{i}", "prediction": f"pred {run}{EVIL}{i % 2}"} for i in range(4)]
        (root / f"run{run}.jsonl").write_text("".join(json.dumps(p, ensure_ascii=False) + "\n" for p in preds),
                                             encoding="utf-8")
    (root / "qa-inspect.toml").write_text(
        '[[run]]\npath = "runa.jsonl"\nname = "A\\u001b]0;x\\u0007"\n[[run]]\npath = "runb.jsonl"\nname = "B"\n',
        encoding="utf-8")
    (root / f"broken{EVIL[:5]}.json").write_text("[", encoding="utf-8")  # an error line naming an evil file
    return root


def _check(*args: str, code: int = 0) -> str:
    res = invoke(*args)
    assert res.exit_code == code, (args, res.output)
    assert res.stdout or res.stderr
    for stream in (res.stdout, res.stderr):
        leaked = [repr(c) for c in RAW if c in stream]
        assert not leaked, f"{args}: {leaked} reached the terminal"
    return res.stdout


def test_load_text_and_json(runs: Path, tmp_path: Path) -> None:
    db = str(tmp_path / "qa.db")
    assert "␛]52" in _check("load", str(runs), "--db", db, code=1)  # shown, not acted on (exit 1: the broken file)
    out = _check("load", str(runs), "--db", db, "--json", code=1)
    summary = json.loads(out)
    assert any("\x1b" in r["name"] for r in summary["runs"]), "JSON keeps the data, escaped"


@pytest.mark.parametrize("fmt", [(), ("--json",), ("--markdown",), ("--csv",)])
def test_report(runs: Path, tmp_path: Path, fmt: tuple[str, ...]) -> None:
    _check("report", str(runs), "--db", str(tmp_path / "qa.db"), "--by", "tag", *fmt)


@pytest.mark.parametrize("fmt", [(), ("--json",), ("--markdown",)])
def test_diff(runs: Path, tmp_path: Path, fmt: tuple[str, ...]) -> None:
    _check("diff", str(runs), "A\x1b]0;x\x07", "B", "--db", str(tmp_path / "qa.db"), *fmt)


@pytest.mark.parametrize("fmt", [(), ("--json",)])
def test_score(runs: Path, fmt: tuple[str, ...]) -> None:
    _check("score", str(runs / "data.jsonl"), str(runs / "runa.jsonl"), *fmt)


def test_slices_and_stale(runs: Path, tmp_path: Path) -> None:
    db = str(tmp_path / "qa.db")
    _check("slices", "save", str(runs), f"s{EVIL}", "--db", db, code=1)  # refused, in one visible line
    _check("slices", "save", str(runs), "evil-tag", "--tag", f"t{EVIL}", "--db", db)
    _check("slices", "list", str(runs), "--db", db)
    _check("stale", "mark", str(runs), "q1", "--gold", "1", "--reason", f"r{EVIL}", "--new-answer", f"new{EVIL}",
           "--db", db)
    for args in (("stale", "list"), ("stale", "list", "--json"), ("stale", "export", "-o", "-")):
        _check(*args[:2], str(runs), *args[2:], "--db", db)
