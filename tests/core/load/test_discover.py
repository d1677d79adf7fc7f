"""Walking a runs folder, the manifest, display names and run → dataset linking."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from qa_inspect.core.errors import FormatError
from qa_inspect.core.formats import Skip, read_source
from qa_inspect.core.keys import question_key
from qa_inspect.core.load import (
    DatasetIndex,
    LinkResult,
    link_run,
    load_manifest,
    read_in_folder,
    run_display_name,
    walk,
)
from qa_inspect.core.model import Dataset, Gold, Item, Prediction, Run

from tests.paths import FIXTURES

FIXTURES = FIXTURES / "formats"


def touch(root: Path, rel: str, text: str = "{}") -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def runs(tmp_path: Path) -> Path:
    root = tmp_path / "runs"
    shutil.copytree(FIXTURES / "hf_run", root / "bert")
    (root / "data").mkdir()
    shutil.copy(FIXTURES / "cmrc2018_dev_excerpt.json", root / "data")
    (root / "llm").mkdir()
    shutil.copy(FIXTURES / "llm_answers.jsonl", root / "llm" / "demo.jsonl")
    touch(root, "README.md", "# runs")
    touch(root, ".hidden.json")
    touch(root, ".cache/x.json")
    touch(root, ".qa-inspect/qa.db", "")
    touch(root, "notes/b.NDJSON", '{"id": "DEV_0_QUERY_0", "prediction": "x"}\n')
    return root


# ------------------------------------------------------------------------------------------- walk


def test_walk(runs: Path) -> None:
    touch(runs, "qa-inspect.toml", "")
    result = walk(runs)
    rel = [p.relative_to(runs).as_posix() for p in result.files]
    assert rel == [
        "bert/all_results.json",
        "bert/config.json",
        "bert/eval_nbest_predictions.json",
        "bert/eval_predictions.json",
        "data/cmrc2018_dev_excerpt.json",
        "llm/demo.jsonl",
        "notes/b.NDJSON",
    ]
    assert [(p.relative_to(runs).as_posix(), r) for p, r in result.skipped] == [
        ("README.md", "not a JSON/JSONL file"),
        ("qa-inspect.toml", "qa-inspect manifest"),
    ]
    assert all(isinstance(s, Skip) for s in result.skipped)


def test_every_walked_file_reads_or_skips_with_reason(runs: Path) -> None:
    outcome = {p.relative_to(runs).as_posix(): read_in_folder(p, runs) for p in walk(runs).files}
    kinds = {rel: (r.reason if isinstance(r, Skip) else type(r).__name__) for rel, r in outcome.items()}
    assert kinds == {
        "bert/all_results.json": "all values are numbers: a metrics or scores file, not predictions",
        "bert/config.json": "settings or metadata, not predictions (keys such as 'architectures', 'model_type', 'hidden_size')",
        "bert/eval_nbest_predictions.json": "n-best side file of eval_predictions.json",
        "bert/eval_predictions.json": "Run",
        "data/cmrc2018_dev_excerpt.json": "Dataset",
        "llm/demo.jsonl": "Run",
        "notes/b.NDJSON": "Run",
    }
    assert outcome["bert/eval_predictions.json"].name == "bert"  # type: ignore[union-attr]
    assert outcome["llm/demo.jsonl"].name == "demo"  # type: ignore[union-attr]
    assert outcome["data/cmrc2018_dev_excerpt.json"].name == "cmrc2018_dev_excerpt"  # type: ignore[union-attr]


def test_walk_problems_and_warnings(tmp_path: Path) -> None:
    """Links to folders are not followed (outside the folder or named like data: a warning), a folder
    named like a data file with nothing in it is a warning, a name with a line break an error."""
    runs = tmp_path / "runs"
    touch(runs, "real/a.json")
    touch(runs, "bad\nname.json")
    touch(runs, "spark.json/part-0.json")  # a folder of part files, read as such: no warning
    (runs / "empty.json").mkdir()
    (runs / "up").symlink_to("..")
    (runs / "inside").symlink_to("real")  # read through its real path: no warning
    (runs / "looks.jsonl").symlink_to("real")
    result = walk(runs)
    assert sorted(p.relative_to(runs).as_posix() for p in result.files) == ["real/a.json", "spark.json/part-0.json"]
    assert [m for _, m in result.errors] == ["bad\\nname.json: the file name holds a line break (shown as \\n); rename it"]
    assert sorted(m for _, m in result.warnings) == [
        "empty.json/: a folder named like a data file, with no data in it",
        "looks.jsonl: a link to a folder named like a data file, not followed (link its files instead)",
        "up: a link to a folder outside the runs folder, not followed (link its files instead)",
    ]


def test_walk_unreadable_folder_is_an_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    runs = tmp_path / "runs"
    touch(runs, "locked/a.json")
    real = os.scandir

    def refuse(path: object = ".") -> object:
        if str(path).endswith("locked"):
            raise PermissionError(13, "Permission denied", str(path))
        return real(path)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "scandir", refuse)
    result = walk(runs)
    assert result.files == []
    assert [m for _, m in result.errors] == [
        "locked/: cannot read the folder (Permission denied); nothing in it was looked at"
    ]


# --------------------------------------------------------------------------------------- manifest

MANIFEST = """
ignore = ["notes/*"]

[[dataset]]
path = "data/cmrc2018_dev_excerpt.json"
name = "cmrc-dev"
split = "challenge"

[[run]]
path = "bert/eval_predictions.json"
name = "bert-base"
model = "bert-base-chinese"
dataset = "cmrc-dev"

[[link]]
runs = "llm/*.jsonl"
dataset = "cdqa"
"""


def test_manifest(runs: Path) -> None:
    touch(runs, "qa-inspect.toml", MANIFEST)
    manifest = load_manifest(runs)
    assert manifest is not None
    assert [d.name for d in manifest.datasets] == ["cmrc-dev"]
    assert manifest.links == {"bert/eval_predictions.json": "cmrc-dev"}
    assert manifest.dataset_for(runs / "bert" / "eval_predictions.json") == "cmrc-dev"
    assert manifest.dataset_for(runs / "llm" / "demo.jsonl") == "cdqa"
    assert manifest.dataset_for(runs / "notes" / "b.NDJSON") is None
    entry = manifest.entry_for(runs / "bert" / "eval_predictions.json")
    assert entry is not None and entry.hints() == {"name": "bert-base", "model": "bert-base-chinese"}
    assert [p.name for p, r in walk(runs, manifest).skipped if r == "ignored by qa-inspect.toml"] == ["b.NDJSON"]

    ds = read_in_folder(runs / "data" / "cmrc2018_dev_excerpt.json", runs, manifest)
    assert isinstance(ds, Dataset) and ds.name == "cmrc-dev"
    assert ds.items[0].split == "dev", "an id prefix beats the manifest split"
    run = read_in_folder(runs / "bert" / "eval_predictions.json", runs, manifest)
    assert isinstance(run, Run) and (run.name, run.model) == ("bert-base", "bert-base-chinese")
    assert run_display_name(runs / "bert" / "eval_predictions.json", runs, manifest) == "bert-base"


def test_manifest_kind_is_enforced(runs: Path) -> None:
    touch(runs, "qa-inspect.toml", '[[dataset]]\npath = "bert/eval_predictions.json"\n')
    manifest = load_manifest(runs)
    result = read_in_folder(runs / "bert" / "eval_predictions.json", manifest=manifest)
    assert result == Skip(runs / "bert" / "eval_predictions.json", "a run (prediction-map), not a dataset")


def test_no_manifest(runs: Path) -> None:
    assert load_manifest(runs) is None


def test_empty_manifest_is_no_declarations(runs: Path) -> None:
    touch(runs, "qa-inspect.toml", "\ufeff\n")
    manifest = load_manifest(runs)
    assert manifest is not None and manifest.datasets == () and manifest.runs == ()


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda p: p.mkdir(), "a folder, not a manifest file"),
        (lambda p: p.symlink_to(p.name), "cannot read (Too many levels of symbolic links)"),
        (lambda p: p.write_bytes('[[run]]\npath = "x"\n'.encode("utf-16-le")), "UTF-16 text"),  # no BOM: a guess
        (lambda p: p.write_bytes(b'name = "caf\xe9"\n'), "not valid UTF-8: byte 0xe9 at line 1, column 12"),
    ],
)
def test_manifest_that_is_not_toml_text(runs: Path, make: object, message: str) -> None:
    path = runs / "qa-inspect.toml"
    make(path)  # type: ignore[operator]
    with pytest.raises(FormatError) as info:
        load_manifest(runs)
    assert info.value.path == str(path) and info.value.message.startswith(message), info.value.message


@pytest.mark.parametrize(
    ("text", "record", "message"),
    [
        ("[[dataset]\npath = 1", None, "invalid TOML"),
        ("datasets = []", "datasets", "unknown key"),
        ("[[run]]\nname = 'x'", "[[run]] #1, path", "missing (required)"),
        ("[[run]]\npath = 'bert/eval_predictions.json'\n[[run]]\npath = 'nope.json'", "[[run]] #2, path", "no such file"),
        ("[[run]]\npath = 'bert/eval_predictions.json'\nmodle = 'x'", "[[run]] #1, modle", "unknown key"),
        ("[[dataset]]\npath = 'data/cmrc2018_dev_excerpt.json'\nfamily = 'drcd'", "[[dataset]] #1, family", "unknown family"),
        ("[[dataset]]\npath = 'data/cmrc2018_dev_excerpt.json'\nformat = 'prediction-map'", "[[dataset]] #1, format", "unknown dataset format"),
        ("[[run]]\npath = 'bert/eval_predictions.json'\nname = 3", "[[run]] #1, name", "expected a non-empty string"),
        ("[[dataset]]\npath = 'data/cmrc2018_dev_excerpt.json'\n[[run]]\npath = './data/cmrc2018_dev_excerpt.json'", "[[run]] #1, path", "same file as [[dataset]] #1"),
        ("[[dataset]]\npath = 'data/cmrc2018_dev_excerpt.json'\nname = 'a'\n[[dataset]]\npath = 'llm/demo.jsonl'\nname = 'a'", "[[dataset]] #2, name", "used twice"),
        ("[[link]]\nruns = 'llm/*'", "[[link]] #1, dataset", "missing (required)"),
        ("ignore = 'notes'", "ignore", "expected a list"),
        ("run = 3", "run", "expected [[run]] tables"),
        ("[[run]]\npath = 'data'", "[[run]] #1, path", "a folder, not a file"),
        ("n = " + "9" * 5000, None, "invalid TOML: a number longer than 4,300 digits"),
        ("a = " + "[" * 3000 + "]" * 3000, None, "nested deeper than the TOML reader follows"),
    ],
)
def test_bad_manifest(runs: Path, text: str, record: str | None, message: str) -> None:
    path = touch(runs, "qa-inspect.toml", text)
    with pytest.raises(FormatError) as info:
        load_manifest(runs)
    assert info.value.path == str(path) and info.value.record == record and message in info.value.message


# ----------------------------------------------------------------------------------------- naming


@pytest.mark.parametrize(
    ("rel", "name"),
    [
        ("bert/eval_predictions.json", "bert"),
        ("bert/predictions.json", "bert"),
        ("bert/predict_predictions.json", "bert/predict"),
        ("bert/test_predictions.json", "bert/test"),
        ("bert/seed1/eval_predictions.json", "seed1"),
        ("eval_predictions.json", "eval_predictions"),
        ("llm/qwen-7b.jsonl", "qwen-7b"),
        ("llm/generated_predictions.jsonl", "llm"),
    ],
)
def test_run_display_name(tmp_path: Path, rel: str, name: str) -> None:
    assert run_display_name(tmp_path / rel, tmp_path, None) == name


# ---------------------------------------------------------------------------------------- linking


def make_dataset(name: str, questions: dict[str, str]) -> Dataset:
    items = [Item(key=k, question=q, golds=[Gold("x")]) for k, q in questions.items()]
    return Dataset(name=name, path=f"{name}.json", format="jsonl-dataset", family="cmrc", items=items)


def make_run(*refs: str, kind: str = "id") -> Run:
    preds = [Prediction(ref=r, ref_kind=kind, text="x") for r in refs]  # type: ignore[arg-type]
    return Run(name="r", path="r.json", format="prediction-map", predictions=preds)


DEV = make_dataset("dev", {"DEV_0": "谁是甲？", "DEV_1": "谁是乙？", "DEV_2": "谁是丙？", "DEV_3": "谁是丁？"})
TRIAL = make_dataset("trial", {"TRIAL_0": "谁是甲？", "TRIAL_1": "哪里？"})


def test_link_by_id_picks_best_coverage() -> None:
    indexes = {"dev": DatasetIndex.from_dataset(DEV), "trial": DatasetIndex.from_dataset(TRIAL)}
    link = link_run(make_run("DEV_0", "DEV_1", "TRIAL_0", "X"), indexes)
    assert link == LinkResult("dev", 2, ["TRIAL_0", "X"], 0.5, link.reason, "id", link.warnings)
    assert link.run_coverage == 0.5  # half the run: not "low" (< 50%), but TRIAL_0 is an item of 'trial':
    assert link.warnings[0].startswith("2 predictions match no item of 'dev'; 1 of them are items of 'trial'")
    assert link.reason == "best match by id; 2/4 predictions matched, covering 50.0% of 'dev'"


def test_link_by_question_text() -> None:
    indexes = {"dev": DatasetIndex.from_dataset(DEV), "trial": DatasetIndex.from_dataset(TRIAL)}
    link = link_run(make_run("谁是甲?", " 哪里 ", kind="question"), indexes)
    assert (link.dataset, link.matched, link.coverage) == ("trial", 2, 1.0)
    assert "by question text" in link.reason


def test_link_id_falls_back_to_question_in_meta() -> None:
    run = make_run("llm-0001")
    run.predictions[0].meta["question"] = "谁是丙"
    link = link_run(run, {"dev": DatasetIndex.from_dataset(DEV)})
    assert (link.dataset, link.matched, link.unmatched) == ("dev", 1, [])


def test_link_tie_is_sorted_and_said() -> None:
    twin = make_dataset("a-twin", {"DEV_0": "谁是甲？", "DEV_1": "谁是乙？", "DEV_2": "谁是丙？", "DEV_3": "谁是丁？"})
    indexes = {"dev": DatasetIndex.from_dataset(DEV), "a-twin": DatasetIndex.from_dataset(twin)}
    link = link_run(make_run("DEV_0"), indexes)
    assert link.dataset == "a-twin" and "tie with 'dev': first in sorted order chosen" in link.reason


def test_link_nothing_matches() -> None:
    link = link_run(make_run("A", "B"), {"dev": DatasetIndex.from_dataset(DEV)})
    assert link == LinkResult(None, 0, ["A", "B"], 0.0, "no prediction matches any dataset by id or question (tried: dev)")
    assert link_run(make_run("A"), {}).reason.endswith("(tried: no datasets loaded)")


def test_link_preferred_by_manifest() -> None:
    indexes = {"dev": DatasetIndex.from_dataset(DEV), "trial": DatasetIndex.from_dataset(TRIAL)}
    link = link_run(make_run("DEV_0", "DEV_1"), indexes, prefer="trial")
    assert (link.dataset, link.matched, link.unmatched) == ("trial", 0, ["DEV_0", "DEV_1"])
    assert link.reason.startswith("named in qa-inspect.toml")
    missing = link_run(make_run("DEV_0"), indexes, prefer="cdqa")
    assert missing.dataset is None and "unknown dataset 'cdqa'; known: " in missing.reason


def test_index_from_rows_matches_from_dataset() -> None:
    cdqa = read_source(FIXTURES / "cdqa_like.json")
    assert isinstance(cdqa, Dataset)
    built = DatasetIndex.from_dataset(cdqa)
    rows = [(i.key, i.question, i.meta.get("original_question")) for i in cdqa.items]
    assert DatasetIndex.from_rows(rows) == built
    assert question_key("示例乐队的主唱是谁") in built.question_keys, "original question indexed"
    assert question_key("示例乐队现在的主唱是谁") in built.question_keys, "rewritten question indexed"
    assert len(built) == 5


def test_fixture_runs_link_end_to_end() -> None:
    dev = read_source(FIXTURES / "cmrc2018_dev_excerpt.json")
    cdqa = read_source(FIXTURES / "cdqa_like.json")
    hf = read_source(FIXTURES / "hf_run" / "eval_predictions.json")
    llm = read_source(FIXTURES / "llm_answers.jsonl")
    assert isinstance(dev, Dataset) and isinstance(cdqa, Dataset) and isinstance(hf, Run) and isinstance(llm, Run)
    indexes = {d.name: DatasetIndex.from_dataset(d) for d in (dev, cdqa)}
    hf_link = link_run(hf, indexes)
    assert (hf_link.dataset, hf_link.matched, hf_link.unmatched) == ("cmrc2018_dev_excerpt", 9, ["NOT_IN_DEV"])
    assert hf_link.coverage == 0.9
    llm_link = link_run(llm, indexes)
    assert (llm_link.dataset, llm_link.matched, llm_link.unmatched) == ("cdqa_like", 3, [])
