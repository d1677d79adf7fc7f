"""The command line: `load`, `score`, `report` and the bare `qa-inspect RUNS_DIR` (issues 2 and 3)."""

from __future__ import annotations

import csv
import io
import json
import shutil
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from qa_inspect.core.metrics import cdqa
from qa_inspect.tui import cli
from qa_inspect.tui.cli import app

runner = CliRunner()

DATASET_KEYS = {"name", "path", "format", "items", "golds", "status"}
RUN_KEYS = {"name", "path", "format", "dataset", "predictions", "unmatched", "status"}
# Beyond issue 2's shape, the summary documents which encoding each file was read with, and
# which files disappeared since the last load.
EXTRA_ENTRY_KEYS = {"encoding"}
EXTRA_TOP_KEYS = {"removed", "warnings"}
# How each run was linked: coverage of the dataset and of the run (%), the method, warnings.
EXTRA_RUN_KEYS = {"coverage", "run_coverage", "method", "warnings"}


@pytest.fixture
def runs(tmp_path: Path, sample_runs: Path) -> Path:
    dest = tmp_path / "runs"
    shutil.copytree(sample_runs, dest, ignore=shutil.ignore_patterns(".qa-inspect"))
    return dest


def invoke(*args: str, env: dict[str, str] | None = None):  # noqa: ANN201
    result = runner.invoke(app, list(args), env=env)
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output
    return result


# ------------------------------------------------------------------------------------------ load


def test_load_json_shape(runs: Path, tmp_path: Path) -> None:
    db = tmp_path / "qa.db"
    res = invoke("load", str(runs), "--db", str(db), "--json")
    assert res.exit_code == 0, res.output
    summary = json.loads(res.stdout)
    assert set(summary) == {"db", "datasets", "runs", "skipped", "errors"} | EXTRA_TOP_KEYS
    assert summary["db"] == str(db)
    assert len(summary["datasets"]) == 2 and len(summary["runs"]) == 5
    for d in summary["datasets"]:
        assert set(d) == DATASET_KEYS | EXTRA_ENTRY_KEYS
        assert isinstance(d["items"], int) and isinstance(d["golds"], int)
        assert all(isinstance(d[k], str) for k in ("name", "path", "format"))
        assert d["status"] == "loaded"
    for r in summary["runs"]:
        assert set(r) == RUN_KEYS | EXTRA_ENTRY_KEYS | EXTRA_RUN_KEYS
        assert isinstance(r["predictions"], int) and isinstance(r["unmatched"], int)
        assert r["dataset"] in {d["name"] for d in summary["datasets"]}
        assert r["status"] == "loaded"
    for k in summary["skipped"]:
        assert set(k) == {"path", "reason"}
    assert summary["errors"] == [] and summary["removed"] == []
    # the paths are relative to the runs folder, '/'-separated
    assert {d["path"] for d in summary["datasets"]} == {"cdqa/cdqa_sample.json", "cmrc2018/cmrc2018_dev_sample.json"}

    again = json.loads(invoke("load", str(runs), "--db", str(db), "--json").stdout)
    assert {x["status"] for x in again["datasets"] + again["runs"]} == {"unchanged"}


def test_load_json_errors_shape_and_exit_code(runs: Path, tmp_path: Path) -> None:
    (runs / "broken.json").write_text("{", encoding="utf-8")
    res = invoke("load", str(runs), "--db", str(tmp_path / "qa.db"), "--json")
    assert res.exit_code == 1
    summary = json.loads(res.stdout)  # the JSON is still printed, whole
    assert summary["errors"] == [
        {"path": "broken.json", "message": "broken.json: invalid JSON at line 1, column 2: Expecting property name enclosed in double quotes"}
    ]
    assert len(summary["runs"]) == 5


def test_load_plain_output_has_the_summary_table(runs: Path, tmp_path: Path) -> None:
    db = tmp_path / "qa.db"
    res = invoke("load", str(runs), "--db", str(db))
    assert res.exit_code == 0
    out = res.stdout
    for word in ("Datasets", "Runs", "Skipped", "cmrc2018_dev_sample", "cdqa_sample", "roberta-wwm-large",
                 "glm-6b", "README.md", "loaded"):
        assert word in out, word
    assert "\x1b[" not in out  # no colour codes when not a terminal
    assert "2 datasets, 5 runs, 191 items, 526 predictions. Database: " + str(db) in out
    row = next(ln for ln in out.splitlines() if "bidaf-baseline.json" in ln)
    assert "148" in row and "cmrc2018_dev_sample" in row
    # progress on stderr, as plain lines
    assert "checking …" in res.stderr
    res = invoke("load", str(runs), "--db", str(db))
    assert "nothing changed" in res.stdout and "unchanged" in res.stdout


def test_load_exit_codes(runs: Path, tmp_path: Path) -> None:
    assert invoke("load", str(runs), "--db", str(tmp_path / "a.db")).exit_code == 0
    res = invoke("load", str(tmp_path / "missing"), "--db", str(tmp_path / "b.db"))
    assert res.exit_code == 1
    assert res.stderr.strip() == f"qa-inspect: {tmp_path / 'missing'}: no such folder"
    not_a_dir = tmp_path / "file.json"
    not_a_dir.write_text("{}", encoding="utf-8")
    assert invoke("load", str(not_a_dir), "--db", str(tmp_path / "c.db")).exit_code == 1


def test_default_db_lives_in_the_runs_folder(runs: Path) -> None:
    res = invoke("load", str(runs), "--json")
    assert res.exit_code == 0
    db = Path(json.loads(res.stdout)["db"])
    assert db == runs.resolve() / ".qa-inspect" / "qa.db" and db.is_file()
    # and the state folder is never taken for data
    res = invoke("load", str(runs), "--json")
    summary = json.loads(res.stdout)
    assert not any(".qa-inspect" in x["path"] for x in summary["skipped"] + summary["errors"])


def test_console_script_runs_without_traceback(runs: Path, tmp_path: Path) -> None:
    exe = Path(sys.executable).with_name("qa-inspect")
    if not exe.exists():
        pytest.skip(f"console script not installed beside {sys.executable}")
    (runs / "broken.jsonl").write_text('{"id": 1, "prediction": "x"}\n{"id": 2, "predic', encoding="utf-8")
    proc = subprocess.run([str(exe), "load", str(runs), "--db", str(tmp_path / "qa.db")],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1
    assert "Traceback" not in proc.stdout + proc.stderr
    errors = [ln for ln in proc.stdout.splitlines() if ln.startswith("error:")]
    assert errors == ["error: broken.jsonl, line 2: truncated JSON: Unterminated string starting at column 11"]


# ------------------------------------------------------------------------------------ bare command


def test_bare_runs_dir_opens_the_ui(runs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    opened: list[dict[str, Any]] = []

    class FakeApp:
        def __init__(self, **kwargs: Any) -> None:
            self.kwargs = kwargs

        def run(self) -> None:
            opened.append(self.kwargs)

    monkeypatch.setitem(sys.modules, "qa_inspect.tui.app", types.SimpleNamespace(QAInspectApp=FakeApp))
    db = tmp_path / "qa.db"
    monkeypatch.setattr(sys, "argv", ["qa-inspect", str(runs), "--db", str(db)])
    with pytest.raises(SystemExit) as info:
        cli.main()
    assert info.value.code in (0, None)
    assert opened == [{"db_path": db, "runs_dir": runs.resolve()}]
    assert db.is_file()  # it loaded first

    # a sub-command name is not taken for a folder
    monkeypatch.setattr(sys, "argv", ["qa-inspect", "load", str(runs), "--db", str(db)])
    with pytest.raises(SystemExit) as info:
        cli.main()
    assert info.value.code in (0, None)
    assert len(opened) == 1


def test_open_with_bad_files_still_opens(runs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    opened: list[Any] = []
    fake = types.SimpleNamespace(QAInspectApp=lambda **kw: types.SimpleNamespace(run=lambda: opened.append(kw)))
    monkeypatch.setitem(sys.modules, "qa_inspect.tui.app", fake)
    (runs / "broken.json").write_text("[", encoding="utf-8")
    res = invoke("open", str(runs), "--db", str(tmp_path / "qa.db"))
    assert res.exit_code == 0
    assert len(opened) == 1
    assert "qa-inspect: broken.json: invalid JSON" in res.stderr


# ------------------------------------------------------------------------------------------ score


@pytest.fixture(scope="module")
def conformance_rows(conformance_dir: Path) -> list[dict[str, Any]]:
    rows = [json.loads(ln) for ln in (conformance_dir / "cmrc2018_official.jsonl").read_text(encoding="utf-8").splitlines() if ln.strip()]
    return [r for r in rows if not r["id"].startswith("EDGE")]


def _official(total: int, em_sum: float, f1_sum: float) -> dict[str, Any]:
    em, f1 = 100.0 * em_sum / total, 100.0 * f1_sum / total
    return {"em": float("%.3f" % em), "f1": float("%.3f" % f1), "average": float("%.3f" % ((em + f1) / 2))}


def test_score_trial_set_gives_the_official_numbers(shared_data: Path, conformance_rows: list[dict[str, Any]],
                                                    tmp_path: Path) -> None:
    trial = shared_data / "cmrc2018_trial.json"
    assert len(conformance_rows) == 1002  # the non-EDGE rows cover every trial question
    preds = tmp_path / "pred.json"
    preds.write_text(json.dumps({r["id"]: r["prediction"] for r in conformance_rows}, ensure_ascii=False), encoding="utf-8")
    res = invoke("score", str(trial), str(preds), "--json")
    assert res.exit_code == 0, res.output
    summary = json.loads(res.stdout)
    assert set(summary) >= {"dataset", "predictions", "scorer", "overall", "by_split", "by_tag", "by_answer_type"}
    assert summary["scorer"] == "cmrc2018-official"
    expected = _official(1002, sum(r["em"] for r in conformance_rows), sum(r["f1"] for r in conformance_rows))
    assert summary["overall"] == {**expected, "total": 1002, "skip": 0}
    assert summary["by_split"] == {"trial": summary["overall"]}
    assert summary["unmatched"] == 0


def test_score_with_missing_and_unknown_ids(shared_data: Path, conformance_rows: list[dict[str, Any]],
                                            tmp_path: Path) -> None:
    kept = conformance_rows[::3]  # two of every three questions unanswered
    preds = {r["id"]: r["prediction"] for r in kept}
    preds.update({"TRIAL_9999_QUERY_0": "不存在", "bogus": "x"})
    path = tmp_path / "pred.json"
    path.write_text(json.dumps(preds, ensure_ascii=False), encoding="utf-8")
    items = tmp_path / "items.jsonl"
    res = invoke("score", str(shared_data / "cmrc2018_trial.json"), str(path), "--json", "--items", str(items))
    assert res.exit_code == 0, res.output  # unknown ids are reported, not fatal
    summary = json.loads(res.stdout)
    expected = _official(1002, sum(r["em"] for r in kept), sum(r["f1"] for r in kept))
    assert summary["overall"] == {**expected, "total": 1002, "skip": 1002 - len(kept)}
    assert summary["unmatched"] == 2
    assert sorted(summary["unmatched_sample"]) == ["TRIAL_9999_QUERY_0", "bogus"]

    lines = items.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 1002
    records = [json.loads(ln) for ln in lines]
    assert all(set(r) == {"id", "question", "prediction", "em", "f1", "refused", "f1_recall", "best_gold"} for r in records)
    by_id = {r["id"]: r for r in records}
    for row in kept:
        rec = by_id[row["id"]]
        assert rec["prediction"] == row["prediction"]
        assert rec["em"] == row["em"]
        assert rec["f1"] == pytest.approx(row["f1"], abs=1e-6)
        assert rec["refused"] is None and rec["f1_recall"] is None
        assert rec["best_gold"] in row["golds"]
        assert isinstance(rec["question"], str)  # (two trial questions are empty strings)
    missing = [r for r in records if r["id"] not in preds]
    assert len(missing) == 1002 - len(kept)
    assert all(r["prediction"] is None and r["em"] is None and r["f1"] is None for r in missing)


def test_score_plain_output(shared_data: Path, conformance_rows: list[dict[str, Any]], tmp_path: Path) -> None:
    path = tmp_path / "pred.json"
    path.write_text(json.dumps({r["id"]: r["prediction"] for r in conformance_rows[:10]} | {"zzz": "a"},
                               ensure_ascii=False), encoding="utf-8")
    res = invoke("score", str(shared_data / "cmrc2018_trial.json"), str(path))
    assert res.exit_code == 0
    assert "overall" in res.stdout and "split=trial" in res.stdout
    assert "1 predictions name no item of the dataset, e.g. zzz" in res.stdout


def test_score_unknown_scorer_is_one_line(sample_runs: Path) -> None:
    res = invoke("score", str(sample_runs / "cmrc2018/cmrc2018_dev_sample.json"),
                 str(sample_runs / "cmrc2018/runs/bert-base-chinese.json"), "--scorer", "bleu")
    assert res.exit_code == 1
    assert res.stdout == ""
    assert res.stderr.strip() == "qa-inspect: unknown scorer 'bleu'; choose from cmrc2018-official, squad-v1.1, squad-v2, cdqa-f1-recall"


def test_score_file_errors_are_one_line(sample_runs: Path, tmp_path: Path) -> None:
    ds = sample_runs / "cmrc2018/cmrc2018_dev_sample.json"
    bad = tmp_path / "bad.json"
    bad.write_text('{"a": ', encoding="utf-8")
    cases = {
        (str(ds), str(tmp_path / "none.json")): f"qa-inspect: {tmp_path / 'none.json'}: no such file",
        (str(ds), str(bad)): f"qa-inspect: {bad}: invalid JSON at line 1, column 7: Expecting value",
        (str(ds), str(ds)): f"qa-inspect: {ds}: not a run file (a dataset (squad), not a run)",
    }
    for args, line in cases.items():
        res = invoke("score", *args)
        assert res.exit_code == 1
        assert res.stderr.strip() == line


def test_score_with_the_other_scorer(sample_runs: Path) -> None:
    res = invoke("score", str(sample_runs / "cmrc2018/cmrc2018_dev_sample.json"),
                 str(sample_runs / "cmrc2018/runs/bert-base-chinese.json"), "--scorer", "cdqa-f1-recall", "--json")
    assert res.exit_code == 0
    summary = json.loads(res.stdout)
    assert summary["scorer"] == "cdqa-f1-recall"
    assert set(summary["overall"]) == {"f1_recall", "answer_rate", "total", "answered", "responses"}
    assert summary["overall"]["total"] == 153


CDQA_SMALL = [
    {"qa": "\ufeff问题: 甲市最新开通的地铁是几号线？\n答案: 6号线",
     "annotation": {"分类1": "y可以接受", "知识动态性分类": "快速变化", "回答类型": "其他", "准确性检查": "https://example.org/a"}},
    {"qa": "\ufeff问题: 乙公司最近发布的旗舰手机叫什么？\n答案: 云帆X9",
     "annotation": {"分类1": "p修改", "知识动态性分类": "快速变化", "回答类型": "作品（事物）", "p-改写答案": "云帆X10",
                    "p-改写问题": "乙公司2024年发布的旗舰手机叫什么？"}},
    {"qa": "\ufeff问题: 丙河的发源地在哪个省？\n答案: 青海省",
     "annotation": {"分类1": "y可以接受", "知识动态性分类": "静态知识", "回答类型": "地名"}},
    {"qa": "\ufeff问题: 丁队上赛季的主教练是谁？\n答案: 王大明",
     "annotation": {"分类1": "y可以接受", "知识动态性分类": "中速变化", "回答类型": "人名"}},
]


def test_score_cdqa_small(tmp_path: Path) -> None:
    ds = tmp_path / "cdqa_small.json"
    ds.write_text(json.dumps(CDQA_SMALL, ensure_ascii=False, indent=1), encoding="utf-8")
    preds = [
        {"question": "甲市最新开通的地铁是几号线？", "prediction": "6号线"},
        {"question": "乙公司2024年发布的旗舰手机叫什么？", "prediction": "云帆X9"},  # the superseded answer
        {"question": "丙河的发源地在哪个省？", "prediction": "抱歉，我无法确定。"},  # refusal
        {"question": "戊城有多少人口？", "prediction": "一百万"},  # not in the dataset
        # 丁队: no answer at all
    ]
    pred_path = tmp_path / "llm.jsonl"
    pred_path.write_text("".join(json.dumps(p, ensure_ascii=False) + "\n" for p in preds), encoding="utf-8")
    items = tmp_path / "items.jsonl"
    res = invoke("score", str(ds), str(pred_path), "--json", "--items", str(items))
    assert res.exit_code == 0, res.output
    summary = json.loads(res.stdout)
    assert summary["scorer"] == "cdqa-f1-recall"
    stale = cdqa.f1_recall("云帆X9", ["云帆X10"])  # scored against the rewrite only
    assert stale < 1.0
    assert summary["overall"] == {
        "f1_recall": float(format((1.0 + stale) / 2 * 100, ".4f")),
        "answer_rate": 66.67,  # 2 answered of the run's 3 responses, as cdqa_eval.py divides
        "total": 4,
        "answered": 2,
        "responses": 3,
    }
    assert summary["unmatched"] == 1
    assert summary["by_tag"]["fast-changing"]["answered"] == 2
    assert summary["by_tag"]["never-changing"] == {
        "f1_recall": None, "answer_rate": 0.0, "total": 1, "answered": 0, "responses": 1}  # the refusal
    assert set(summary["by_answer_type"]) == {"other", "work", "location", "person"}
    records = {r["question"]: r for r in map(json.loads, items.read_text(encoding="utf-8").splitlines())}
    assert len(records) == 4
    assert records["甲市最新开通的地铁是几号线？"] | {"id": None} == {
        "id": None, "question": "甲市最新开通的地铁是几号线？", "prediction": "6号线", "em": None, "f1": None,
        "refused": False, "f1_recall": 1.0, "best_gold": "6号线",
    }
    assert records["乙公司2024年发布的旗舰手机叫什么？"]["best_gold"] == "云帆X10"
    assert records["丙河的发源地在哪个省？"]["refused"] is True
    assert records["丙河的发源地在哪个省？"]["f1_recall"] is None
    assert records["丁队上赛季的主教练是谁？"]["prediction"] is None


def test_score_cdqa_sample_runs(sample_runs: Path) -> None:
    res = invoke("score", str(sample_runs / "cdqa/cdqa_sample.json"), str(sample_runs / "cdqa/runs/qwen-7b-chat.jsonl"),
                 "--json")
    assert res.exit_code == 0
    overall = json.loads(res.stdout)["overall"]
    assert overall["total"] == 38
    assert 0 < overall["answered"] < 38
    assert overall["answer_rate"] == round(100 * overall["answered"] / 38, 2)
    assert 0 < overall["f1_recall"] <= 100


# ----------------------------------------------------------------------------------------- report


def test_report_formats(runs: Path, tmp_path: Path) -> None:
    db = tmp_path / "qa.db"
    res = invoke("report", str(runs), "--db", str(db), "--json")
    assert res.exit_code == 0, res.output
    rows = json.loads(res.stdout)
    assert isinstance(rows, list) and rows
    assert set(rows[0]) == {"dataset", "family", "run", "slice", "value", "items", "predicted", "em", "f1",
                            "answered", "f1_recall", "answer_rate", "errors", "error_share"}
    runs_seen = {r["run"] for r in rows}
    assert runs_seen == {"bert-base-chinese", "bidaf-baseline", "roberta-wwm-large", "glm-6b", "qwen-7b-chat",
                         "human estimate"}
    bert = next(r for r in rows if r["run"] == "bert-base-chinese" and r["slice"] == "overall")
    assert (bert["items"], bert["predicted"]) == (153, 150)

    res = invoke("report", str(runs), "--db", str(db), "--csv")
    assert res.exit_code == 0
    table = list(csv.DictReader(io.StringIO(res.stdout)))
    assert len(table) == len(rows)
    assert table[0].keys() == rows[0].keys()
    assert {r["run"] for r in table} == runs_seen

    res = invoke("report", str(runs), "--db", str(db), "--markdown")
    assert res.exit_code == 0
    lines = res.stdout.splitlines()
    assert lines[0].startswith("| dataset | run | slice | value | items |")
    assert set(lines[1]) <= set("|-")
    assert len(lines) == 2 + len(rows)
    assert all(ln.startswith("| ") and ln.endswith(" |") for ln in lines[:1] + lines[2:])
    assert all(ln.count(" | ") == lines[0].count(" | ") for ln in lines[2:])  # no cell breaks the table

    res = invoke("report", str(runs), "--db", str(db))
    assert res.exit_code == 0
    assert "roberta-wwm-large" in res.stdout and "human estimate" in res.stdout


def test_report_by_one_dimension(runs: Path, tmp_path: Path) -> None:
    res = invoke("report", str(runs), "--db", str(tmp_path / "qa.db"), "--by", "tag", "--json")
    assert res.exit_code == 0
    assert {r["slice"] for r in json.loads(res.stdout)} == {"overall", "tag"}
    res = invoke("report", str(runs), "--db", str(tmp_path / "qa.db"), "--by", "tag,colour")
    assert res.exit_code == 1
    assert res.stderr.strip() == "qa-inspect: --by: unknown slice colour; choose from split, tag, answer_type, answerable"
