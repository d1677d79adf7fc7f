"""No silent choice when linking: ties, low coverage, a manifest link that matches nothing and ids
with a systematic affix each end as a warning that says what happened and what to do."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from qa_inspect.core.load import load_runs
from tests.paths import SAMPLE_RUNS

DEV = SAMPLE_RUNS / "cmrc2018" / "cmrc2018_dev_sample.json"
BERT = SAMPLE_RUNS / "cmrc2018" / "runs" / "bert-base-chinese.json"


def _preds() -> dict[str, str]:
    return json.loads(BERT.read_text(encoding="utf-8"))


def _write(path: Path, value: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, ensure_ascii=False), encoding="utf-8")


def _folder(tmp_path: Path) -> Path:
    runs = tmp_path / "runs"
    (runs / "data").mkdir(parents=True)
    shutil.copy(DEV, runs / "data" / "dev_a.json")
    shutil.copy(DEV, runs / "data" / "dev_b.json")  # a second dataset sharing every id
    preds = _preds()
    _write(runs / "bert.json", preds)
    few = dict(list(preds.items())[:2])
    few.update({f"OTHER_{i}": "x" for i in range(198)})  # 2 of 200 predictions name an item: 1%
    _write(runs / "few.json", few)
    _write(runs / "suffixed.json", {f"{k}-high-conf": v for k, v in preds.items()})
    return runs


def test_three_warnings_say_what_happened_and_what_to_do(tmp_path: Path) -> None:
    summary = load_runs(_folder(tmp_path), tmp_path / "qa.db")
    assert not summary.errors, summary.errors
    by_path: dict[str, str] = {}
    for w in summary.warnings:  # a run may have several: all its messages, one after another
        by_path[w["path"]] = by_path.get(w["path"], "") + w["message"] + "\n"
    assert "bert.json" in by_path and "alike" in by_path["bert.json"]
    assert "dev_a" in by_path["bert.json"] and "dev_b" in by_path["bert.json"]
    assert "qa-inspect.toml" in by_path["bert.json"] and 'path = "bert.json"' in by_path["bert.json"]
    assert "only 2 of its 200 predictions (1.0%)" in by_path["few.json"]
    assert "suffix '-high-conf'" in by_path["suffixed.json"] and 'id_suffix = "-high-conf"' in by_path["suffixed.json"]
    assert "alike" in by_path["suffixed.json"], "the stripped ids tie between the two datasets too: said"
    runs = {r.path: r for r in summary.runs}
    assert runs["suffixed.json"].predictions == len(_preds()), "linked with the suffix stripped"
    assert runs["few.json"].run_coverage == 1.0 and runs["bert.json"].method == "id"
    assert summary.to_dict()["warnings"] == summary.warnings
    again = load_runs(tmp_path / "runs", tmp_path / "qa.db")  # unchanged: the warnings still stand
    assert {w["path"] for w in again.warnings} == set(by_path)


def test_the_manifest_fixes_what_the_warnings_name(tmp_path: Path) -> None:
    runs = _folder(tmp_path)
    (runs / "qa-inspect.toml").write_text(
        '[[run]]\npath = "bert.json"\ndataset = "dev_b"\n\n'
        '[[run]]\npath = "suffixed.json"\ndataset = "dev_a"\nid_suffix = "-high-conf"\n',
        encoding="utf-8",
    )
    summary = load_runs(runs, tmp_path / "qa.db")
    assert {w["path"] for w in summary.warnings} == {"few.json"}
    runs_by = {r.path: r for r in summary.runs}
    assert runs_by["bert.json"].dataset == "dev_b" and runs_by["suffixed.json"].dataset == "dev_a"
    assert runs_by["suffixed.json"].predictions == len(_preds())


def test_a_manifest_link_that_matches_nothing_is_a_warning(tmp_path: Path) -> None:
    runs = _folder(tmp_path)
    _write(runs / "elsewhere.json", {"NOPE_1": "a", "NOPE_2": "b"})
    (runs / "qa-inspect.toml").write_text('[[run]]\npath = "elsewhere.json"\ndataset = "dev_a"\n', encoding="utf-8")
    summary = load_runs(runs, tmp_path / "qa.db")
    message = next(w["message"] for w in summary.warnings if w["path"] == "elsewhere.json")
    assert "links it to 'dev_a', but none of its 2 predictions" in message
