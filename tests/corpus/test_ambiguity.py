"""The ambiguity corpus (`ambiguity_cases.py`): repeated keys, stray byte-order marks and split
datasets load with one warning naming the file and record (or are one error line), checked by the
bad-input corpus's own test; submission CSVs and prediction pairs load without a word; hostile
text reaches no CSV or Markdown cell as a formula or as a control or bidi character."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest

from qa_inspect.core.visible import FORMULA_STARTS, PLACEHOLDERS
from tests.cli.helpers import invoke
from tests.corpus import test_bad_inputs as base
from tests.corpus.ambiguity_cases import CASES, HOSTILE_TEXT, READS
from tests.corpus.shapes import CONTEXT, GOOD_FILES, GOOD_RUN, js, squad

_UNSAFE = re.compile("[" + "".join(re.escape(chr(cp)) for cp in PLACEHOLDERS if cp not in (0x0A, 0x09)) + "]")
"""Characters no exported cell may hold raw (line breaks and tabs are layout, as on the terminal)."""


def test_the_corpus_covers_every_point() -> None:
    groups = {c.group for c in CASES.values()}
    assert {"repeated keys", "byte-order marks", "prediction pairs", "split datasets"} <= groups
    assert len(CASES) + len(READS) + len(HOSTILE_TEXT) >= 30
    assert not set(CASES) & set(base.CASES), "a name shared with the bad-input corpus"


@pytest.mark.parametrize("name", sorted(CASES))
def test_ambiguous_input_is_one_line_and_harmless(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The bad-input corpus's check, case for case: one line naming file and record, the good
    dataset and run loaded and scored, `stale mark` and `stale list` working."""
    monkeypatch.setitem(base.CASES, name, CASES[name])
    base.test_bad_input_is_one_line_and_harmless(name, tmp_path, monkeypatch)


@pytest.mark.parametrize("name", sorted(READS))
def test_handed_in_file_is_read_without_a_word(name: str, tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    for rel, content in {**GOOD_FILES, **READS[name].files}.items():
        (runs / rel).write_bytes(content() if callable(content) else content)
    res = invoke("load", str(runs), "--db", str(tmp_path / "qa.db"), "--json")
    assert res.exit_code == 0, res.output[-2000:]
    summary = json.loads(res.stdout)
    assert summary["errors"] == [] and summary["warnings"] == [] and summary["skipped"] == []
    path = next(iter(READS[name].files))
    run = next(r for r in summary["runs"] if r["path"] == path)
    assert (run["dataset"], run["predictions"], run["unmatched"]) == ("dev", READS[name].answers, 0)
    assert {r["name"] for r in summary["runs"]} == {GOOD_RUN, Path(path).stem}


def test_a_submission_csv_scores_as_the_same_file_with_the_canonical_header(tmp_path: Path) -> None:
    """Renaming the header is all it takes: the scores are those of `id,prediction`."""
    dataset = tmp_path / "dev.json"
    dataset.write_bytes(GOOD_FILES["dev.json"])
    scores = []
    for header in ("Id,Predicted", "id,prediction"):
        sub = tmp_path / "sub.csv"
        sub.write_text(f"{header}\nQ1,quick brown fox\nQ2,a lazy dog\nQ3,river\nQ4,red\n", encoding="utf-8")
        res = invoke("score", str(dataset), str(sub), "--json")
        assert res.exit_code == 0, res.output
        scores.append(json.loads(res.stdout)["overall"])
    assert scores[0] == scores[1] and scores[0]["exact_match"] == 50.0


# ------------------------------------------------------------------------------------ exports


def _hostile_folder(tmp_path: Path) -> tuple[Path, str]:
    """A dataset whose questions and golds, and a run whose predictions, are the hostile texts."""
    runs = tmp_path / "runs"
    runs.mkdir()
    qas = []
    for i, text in enumerate(HOSTILE_TEXT.values()):
        context = f"{CONTEXT} {text}"
        qas.append({"id": f"H{i}", "question": text, "context": context,
                    "answers": [{"text": text, "answer_start": len(CONTEXT) + 1}]})
    data = squad([])
    data["data"][0]["paragraphs"] = [{"context": q.pop("context"), "qas": [q]} for q in qas]
    (runs / "dev.json").write_bytes(js(data))
    (runs / "hostile.json").write_bytes(js({f"H{i}": text for i, text in enumerate(HOSTILE_TEXT.values())}))
    db = str(tmp_path / "qa.db")
    assert invoke("load", str(runs), "--db", db).exit_code == 0
    return runs, db


def _csv_cells(path: Path) -> list[str]:
    return [cell for row in csv.reader(io.StringIO(path.read_text(encoding="utf-8"))) for cell in row]


def test_no_exported_csv_cell_is_a_formula_or_holds_a_control_character(tmp_path: Path) -> None:
    runs, db = _hostile_folder(tmp_path)
    out = tmp_path / "items.csv"
    res = invoke("export", str(runs), "--db", db, "--run", "hostile", "-o", str(out))
    assert res.exit_code == 0, res.output
    cells = _csv_cells(out)
    assert sum("HYPERLINK" in c for c in cells) == 4  # question, prediction, best gold, golds
    for cell in cells:
        assert not cell.startswith(FORMULA_STARTS), cell
        assert not _UNSAFE.search(cell.replace("\n", "")), repr(cell)
    assert "'=HYPERLINK(\"http://example.invalid\",\"click\")" in cells
    assert "red ␛[31mtext␛[0m" in cells


def test_raw_cells_keep_formulas_but_never_control_characters(tmp_path: Path) -> None:
    runs, db = _hostile_folder(tmp_path)
    out = tmp_path / "items.csv"
    assert invoke("export", str(runs), "--db", db, "--run", "hostile", "-o", str(out), "--raw-cells").exit_code == 0
    cells = _csv_cells(out)
    assert HOSTILE_TEXT["formula-equals"] in cells and HOSTILE_TEXT["formula-at"] in cells
    assert not any(_UNSAFE.search(cell.replace("\n", "")) for cell in cells)


def test_markdown_export_shows_control_characters_as_the_terminal_does(tmp_path: Path) -> None:
    runs, db = _hostile_folder(tmp_path)
    out = tmp_path / "items.md"
    assert invoke("export", str(runs), "--db", db, "--run", "hostile", "-o", str(out)).exit_code == 0
    text = out.read_text(encoding="utf-8")
    assert not _UNSAFE.search(text.replace("\n", "")), repr(_UNSAFE.findall(text))
    assert "abc �dcba� end" in text and "csi �31m here" in text and "one⏎two" in text


def test_label_notes_leave_the_label_export_escaped_and_unchanged(tmp_path: Path) -> None:
    runs, db = _hostile_folder(tmp_path)
    note = HOSTILE_TEXT["bidi-override"] + HOSTILE_TEXT["c1-csi"] + HOSTILE_TEXT["formula-equals"]
    res = invoke("label", "add", str(runs), "hostile", "H0", "--label", "odd", "--new", "--note", note,
                 "--author", "corpus", "--db", db)
    assert res.exit_code == 0, res.output
    out = tmp_path / "labels.jsonl"
    assert invoke("label", "export", str(runs), "-o", str(out), "--db", db).exit_code == 0, "export"
    text = out.read_text(encoding="utf-8")
    assert not _UNSAFE.search(text.replace("\n", ""))
    assert [json.loads(line).get("note") for line in text.splitlines()] == [note]


def test_report_csv_and_markdown_keep_hostile_slice_values_inert(tmp_path: Path) -> None:
    """`report --csv/--markdown`: a tag written by a dataset is data too."""
    runs = tmp_path / "runs"
    runs.mkdir()
    tag = HOSTILE_TEXT["formula-equals"] + HOSTILE_TEXT["esc"]
    record = {"id": "T1", "question": "What jumps?", "context": CONTEXT, "answers": ["quick brown fox"], "tag": tag}
    (runs / "tagged.jsonl").write_bytes(js(record) + b"\n")
    (runs / "run.json").write_bytes(js({"T1": "quick brown fox"}))
    db = str(tmp_path / "qa.db")
    res = invoke("report", str(runs), "--db", db, "--by", "tag", "--csv")
    assert res.exit_code == 0, res.output
    cells = [c for row in csv.reader(io.StringIO(res.stdout)) for c in row]
    assert not any(c.startswith(FORMULA_STARTS) or _UNSAFE.search(c) for c in cells), cells
    assert any(c.startswith("'=HYPERLINK") and "␛[31m" in c for c in cells)
    res = invoke("report", str(runs), "--db", db, "--by", "tag", "--markdown")
    assert res.exit_code == 0 and "␛[31m" in res.stdout and not _UNSAFE.search(res.stdout.replace("\n", ""))


def test_the_stale_changelog_shows_control_characters_as_the_terminal_does(tmp_path: Path) -> None:
    runs, db = _hostile_folder(tmp_path)
    res = invoke("stale", "mark", str(runs), "H6", "--dataset", "dev", "--gold", "1", "--author", "corpus",
                 "--reason", HOSTILE_TEXT["bidi-override"], "--db", db)
    assert res.exit_code == 0, res.output
    out = tmp_path / "CHANGELOG.md"
    res = invoke("stale", "export", str(runs), "--format", "changelog", "-o", str(out), "--db", db)
    assert res.exit_code == 0, res.output
    text = out.read_text(encoding="utf-8")
    assert "red ␛[31mtext␛[0m" in text and not _UNSAFE.search(text.replace("\n", ""))
