"""`qa-inspect table`: the CDQA paper's shape (models × tags, "F1-recall (answer rate) [shots]",
best over shots) from `cdqa_eval.py` output with no configuration, and the CMRC paper's shape
(runs × split, EM and F1, the human row first)."""

from __future__ import annotations

import json
import random
import re
import shutil
import sqlite3
from pathlib import Path

import pytest
from qa_inspect.core.load import load_runs
from qa_inspect.core.report import TableSpec, paper_table, stored_run_settings
from qa_inspect.tui.cli import app
from typer.testing import CliRunner

from tests.paths import SAMPLE_RUNS

runner = CliRunner()
TAGS = {"快速变化": "fast", "中速变化": "slow", "静态知识": "never"}
MODELS = {"Qwen-7B-Chat": 0.8, "Baichuan2-13B": 0.5}
"""Model → share of questions it answers right (a run's answer is the gold, else a wrong one)."""
SHOTS = (0, 5)


def _items(dataset: Path) -> list[tuple[str, str, str]]:
    """(question, gold, tag word) per CDQA item."""
    out = []
    for record in json.loads(dataset.read_text(encoding="utf-8")):
        question, gold = re.match(r"\ufeff?问题: (.*)\n答案: (.*)", record["qa"]).groups()
        out.append((question, gold, TAGS[record["annotation"]["知识动态性分类"]]))
    return out


def _cdqa_eval_folder(root: Path) -> Path:
    """`cdqa_eval.py` output: one `.prediction` file per model × shots × tag, in task folders."""
    dataset = root / "cdqa_sample.json"
    shutil.copy(SAMPLE_RUNS / "cdqa" / "cdqa_sample.json", dataset)
    items = _items(dataset)
    for model, skill in MODELS.items():
        for shots in SHOTS:
            rng = random.Random(f"{model}{shots}")
            for tag in ("fast", "slow", "never"):
                records = []
                for question, gold, item_tag in items:
                    if item_tag != tag:
                        continue
                    right = rng.random() < skill + 0.05 * shots
                    pred = gold if right else ("对不起，我无法回答。" if rng.random() < 0.3 else "某个错误答案")
                    records.append({"raw_pred": pred, "normalized_pred": pred, "answers": [gold],
                                    "requests": f"请回答下面的问题。\n问题：{question}\n答案："})
                folder = root / f"cfreshqa_{tag}_google"
                folder.mkdir(exist_ok=True)
                name = f"2024-03-01_12-00-00--{model}--vanilla--{shots}shots--5k.prediction"
                (folder / name).write_text(json.dumps(records, ensure_ascii=False, indent=6), encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def cdqa_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = _cdqa_eval_folder(tmp_path_factory.mktemp("cdqa_eval"))
    summary = load_runs(root)
    assert not summary.errors, summary.errors
    return root


def _reported(root: Path) -> dict[tuple[str, str], dict]:
    """(run, tag) → the `report` command's numbers for that run's tag slice."""
    rows = json.loads(runner.invoke(app, ["report", str(root), "--by", "tag", "--json"]).output)
    return {(r["run"], r["value"]): r for r in rows if r["slice"] == "tag"}


def test_cdqa_paper_shape(cdqa_folder: Path) -> None:
    with sqlite3.connect(cdqa_folder / ".qa-inspect" / "qa.db") as conn:
        runs = stored_run_settings(conn)
        spec = TableSpec(rows=("model",), cols="tag", cells=("f1_recall (answer_rate)",), best_over="shots")
        table = paper_table(conn, spec, runs)
    settings = {r.run: r.settings for r in runs}
    assert len(settings) == 12
    one = next(s for name, s in settings.items() if "Qwen" in name and "5shots" in name and "fast" in name)
    assert (one["model"], one["prompt"], one["shots"], one["results"], one["tag"], one["engine"]) == (
        "Qwen-7B-Chat", "vanilla", "5", "5", "fast-changing", "google")
    assert table.rows == [("Baichuan2-13B",), ("Qwen-7B-Chat",)]
    assert table.columns == ["fast-changing", "slow-changing", "never-changing"]
    reported = _reported(cdqa_folder)
    for row, model in enumerate(("Baichuan2-13B", "Qwen-7B-Chat")):
        for tag in ("fast", "slow", "never"):
            cell = table.cell(row, f"{tag}-changing", spec.cells[0])
            assert cell is not None
            by_shots = {s: reported[(f"cfreshqa_{tag}_google/{model}--vanilla--{s}shots", f"{tag}-changing")]
                        for s in SHOTS}
            best = max(SHOTS, key=lambda s: by_shots[s]["f1_recall"])
            assert cell.best_over == str(best)
            assert cell.values["f1_recall"] == pytest.approx(by_shots[best]["f1_recall"])
            assert cell.values["answer_rate"] == pytest.approx(by_shots[best]["answer_rate"])
    bold = [(r, c) for (r, c, _), cell in table.cells.items() if cell.best]
    assert {c for _, c in bold} == set(table.columns), "one best per column"


def test_cdqa_table_cli_text_markdown_latex_csv_json(cdqa_folder: Path) -> None:
    args = ["table", str(cdqa_folder), "--rows", "model", "--cols", "tag", "--cell", "f1_recall (answer_rate)",
            "--best-over", "shots"]
    text = runner.invoke(app, args)
    assert text.exit_code == 0, text.output
    assert "fast-changing" in text.output and "F1-recall (answer rate)" in text.output
    assert "Qwen-7B-Chat" in text.output and ("[5]" in text.output or "[0]" in text.output)
    md = runner.invoke(app, [*args, "--markdown"])
    assert md.exit_code == 0 and md.output.startswith("| model |") and "**" in md.output
    tex = runner.invoke(app, [*args, "--latex"])
    assert tex.exit_code == 0 and "\\toprule" in tex.output and "\\textbf{" in tex.output
    csv_out = runner.invoke(app, [*args, "--csv"])
    assert csv_out.exit_code == 0 and csv_out.output.splitlines()[0].startswith("model,")
    js = runner.invoke(app, [*args, "--json"])
    data = json.loads(js.output)
    assert data["columns"] == ["fast-changing", "slow-changing", "never-changing"]
    assert [r["labels"]["model"] for r in data["table"]] == ["Baichuan2-13B", "Qwen-7B-Chat"]


def test_where_filters_and_unknown_keys_are_one_line(cdqa_folder: Path) -> None:
    ok = runner.invoke(app, ["table", str(cdqa_folder), "--rows", "model", "--cols", "tag", "--where", "shots=0",
                             "--cell", "f1_recall", "--json"])
    assert ok.exit_code == 0, ok.output
    assert all(r["runs"] and all("--0shots" in name for name in r["runs"]) for r in json.loads(ok.output)["table"])
    bad = runner.invoke(app, ["table", str(cdqa_folder), "--rows", "temperature"])
    assert bad.exit_code == 1 and "unknown setting 'temperature'" in bad.output
    assert "Traceback" not in bad.output
    ambiguous = runner.invoke(app, ["table", str(cdqa_folder), "--rows", "model", "--cols", "tag"])
    assert ambiguous.exit_code == 1 and "differ in 'shots'" in ambiguous.output


def test_file_name_pattern_and_declared_settings(tmp_path: Path) -> None:
    shutil.copytree(SAMPLE_RUNS / "cmrc2018", tmp_path / "cmrc")
    runs = tmp_path / "cmrc" / "runs"
    (runs / "bert-base-chinese.json").rename(runs / "bert_base_3ep.json")
    (runs / "bidaf-baseline.json").rename(runs / "bidaf_base_10ep.json")
    (tmp_path / "cmrc" / "qa-inspect.toml").write_text(
        '[settings]\npattern = "{model}_{size}_{epochs}ep.json"\n\n'
        '[[run]]\npath = "runs/roberta-wwm-large/eval_predictions.json"\nsettings = {model = "roberta", size = "large", epochs = 2}\n',
        encoding="utf-8")
    result = runner.invoke(app, ["table", str(tmp_path / "cmrc"), "--rows", "model,size", "--cell", "em,f1", "--json"])
    assert result.exit_code == 0, result.output
    labels = [tuple(r["labels"].values()) for r in json.loads(result.output)["table"]]
    assert labels == [("bert", "base"), ("bidaf", "base"), ("roberta", "large")]


def test_cmrc_paper_shape_with_human_row() -> None:
    folder = SAMPLE_RUNS / "cmrc2018"
    result = runner.invoke(app, ["table", str(folder), "--rows", "run", "--cols", "split", "--cell", "em,f1", "--human",
                                 "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["table"][0]["labels"]["run"] == "human estimate"
    assert data["columns"] == ["dev"]
    report = json.loads(runner.invoke(app, ["report", str(folder), "--json"]).output)
    overall = {(r["run"]): r for r in report if r["slice"] == "overall"}
    for row in data["table"]:
        cell = row["cells"]["dev · em"]["values"]["em"]
        assert cell == pytest.approx(overall[row["labels"]["run"]]["em"]), "the report's numbers"
    tex = runner.invoke(app, ["table", str(folder), "--cols", "split", "--cell", "em,f1", "--human", "--latex"])
    lines = tex.output.splitlines()
    assert lines[4].startswith("human estimate") and lines[5] == "\\midrule", "human row first, ruled off"


def test_intervals_are_seeded(cdqa_folder: Path) -> None:
    args = ["table", str(cdqa_folder), "--rows", "model", "--cols", "tag", "--cell", "f1_recall", "--best-over", "shots",
            "--ci", "--resamples", "200", "--json"]
    first, second = (json.loads(runner.invoke(app, args).output) for _ in range(2))
    assert first == second
    cell = first["table"][0]["cells"]["fast-changing · f1_recall"]
    low, high = cell["ci"]["f1_recall"]
    assert low <= cell["values"]["f1_recall"] <= high


def test_chart_is_an_svg_of_the_grid(cdqa_folder: Path, tmp_path: Path) -> None:
    import xml.etree.ElementTree as ET

    out = tmp_path / "grid.svg"
    args = ["table", str(cdqa_folder), "--rows", "model", "--cols", "tag", "--cell", "f1_recall (answer_rate)",
            "--best-over", "shots", "--json", "--chart", str(out)]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    svg = ET.parse(out).getroot()
    ns = "{http://www.w3.org/2000/svg}"
    bars = [r for r in svg.iter(f"{ns}rect") if r.find(f"{ns}title") is not None]
    assert len(bars) == 2 * 3, "one bar per model and tag"
    heights = sorted(round(float(b.get("height")) / 240 * 100, 1) for b in bars)
    values = sorted(round(c["values"]["f1_recall"], 1) for r in data["table"] for c in r["cells"].values())
    assert heights == pytest.approx(values, abs=0.11)
    assert len(list(svg.iter(f"{ns}circle"))) == 6, "answer rate as markers"
    bad = runner.invoke(app, ["table", str(cdqa_folder), "--rows", "model", "--where", "shots=0", "--chart",
                              str(tmp_path / "grid.png")])
    assert bad.exit_code == 1 and "--chart writes SVG" in bad.output


def test_intervals_are_the_leaderboards(tmp_path: Path) -> None:
    """`table --ci` and `leaderboard` resample a dataset alike: a run's interval is the same pair
    of numbers for the same seed and resamples; the note and `ci` in JSON name the unit."""
    folder = tmp_path / "cmrc"
    shutil.copytree(SAMPLE_RUNS / "cmrc2018", folder, ignore=shutil.ignore_patterns(".qa-inspect"))
    stats = ["--seed", "11", "--resamples", "300"]
    result = runner.invoke(app, ["table", str(folder), "--cell", "em,f1", "--ci", *stats, "--json"])
    assert result.exit_code == 0, result.output
    table = json.loads(result.output)
    board = json.loads(runner.invoke(app, ["leaderboard", str(folder), *stats, "--json"]).output)
    (one,) = [b for b in board if b["dataset"] == "cmrc2018_dev_sample"]
    assert table["ci"] == {"resamples": 300, "seed": 11, "units": {"cmrc2018_dev_sample": one["unit"]}}
    rows = {r["run"]: r["metrics"] for r in one["rows"]}
    for row in table["table"]:
        for metric in ("em", "f1"):
            low, high = row["cells"][f"all · {metric}"]["ci"][metric]
            assert (low, high) == (rows[row["labels"]["run"]][metric]["low"], rows[row["labels"]["run"]][metric]["high"])
    text = " ".join(runner.invoke(app, ["table", str(folder), "--ci", *stats]).output.split())
    assert f"the {one['unit']}s of each dataset resampled once for every cell (300 resamples, seed 11)" in text
