"""`qa-inspect leaderboard` and the statistics of `qa-inspect diff` on the sample runs (Typer's
CliRunner), and that model text in run names never reaches the terminal raw."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from qa_inspect.core import stats
from qa_inspect.tui.cli import stat_options

from tests.cli.helpers import copy_sample_runs, invoke
from tests.cli.test_text_safety import EVIL, RAW

FAST = ("--resamples", "1000")


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory, sample_runs: Path) -> str:
    dest = copy_sample_runs(sample_runs, tmp_path_factory.mktemp("leaderboard"))
    assert invoke("load", str(dest)).exit_code == 0
    return str(dest)


def test_defaults_are_core_s() -> None:
    assert (stat_options.DEFAULT_SEED, stat_options.DEFAULT_RESAMPLES) == (stats.DEFAULT_SEED, stats.DEFAULT_RESAMPLES)


def test_leaderboard_text(runs: str) -> None:
    res = invoke("leaderboard", runs, *FAST)
    assert res.exit_code == 0, res.output
    text = res.stdout
    assert "cmrc2018_dev_sample (cmrc2018-official): 153 items, ranked by F1" in text
    assert "bootstrap over passages (39)" in text and "1,000 resamples, seed 20180" in text
    assert "human estimate" in text and "Pairwise Δ F1" in text and "Holm-corrected over 3 pairs" in text
    assert "cdqa_sample (cdqa-f1-recall): 38 items, ranked by F1-recall" in text and "bootstrap over items (38)" in text
    assert text.index("cdqa_sample") < text.index("cmrc2018_dev_sample")
    roberta = next(line for line in text.splitlines() if "roberta-wwm-large" in line and "best" in line)
    board = json.loads(invoke("leaderboard", runs, "--json", "--dataset", "cmrc2018_dev_sample", *FAST).stdout)[0]
    em = next(r for r in board["rows"] if r["run"] == "roberta-wwm-large")["metrics"]["em"]
    assert f"{em['value']:.2f} [{em['low']:.2f}, {em['high']:.2f}]" in roberta  # EM with its interval, as computed


def test_leaderboard_seed_repeats_and_changes(runs: str) -> None:
    one = invoke("leaderboard", runs, "--json", *FAST).stdout
    assert one == invoke("leaderboard", runs, "--json", *FAST).stdout
    other = invoke("leaderboard", runs, "--json", "--seed", "7", *FAST).stdout
    assert other != one
    boards = json.loads(one)
    assert [b["dataset"] for b in boards] == ["cdqa_sample", "cmrc2018_dev_sample"]
    assert boards[1]["options"]["seed"] == stats.DEFAULT_SEED and boards[1]["pairs_tested"] == 3
    assert json.loads(other)[1]["options"]["seed"] == 7


def test_leaderboard_markdown_and_latex(runs: str) -> None:
    md = invoke("leaderboard", runs, "--markdown", "--dataset", "cmrc2018_dev_sample", *FAST).stdout
    assert md.startswith("## cmrc2018_dev_sample") and "| rank | run | predictions | EM | 95% CI | F1 | 95% CI | vs best |" in md
    assert "| — | human estimate | 153 | 91.50 |" in md and "+21.63\\*" in md
    tex = invoke("leaderboard", runs, "--latex", "--dataset", "cmrc2018_dev_sample", *FAST).stdout
    assert tex.count(r"\toprule") == 2 and tex.count(r"\bottomrule") == 2
    assert r"Human estimate & 91.5 {\scriptsize [" in tex
    assert r"roberta-wwm-large & \textbf{69.9}" in tex and r"cmrc2018\_dev\_sample" in tex


def test_leaderboard_errors_are_one_line(runs: str) -> None:
    for args, needle in (
        (["--dataset", "nope"], "unknown dataset 'nope'"),
        (["--dataset", "cdqa_sample", "--metric", "em"], "unknown metric 'em' to rank dataset 'cdqa_sample'"),
        (["--resamples", "0"], "resamples 0"),
        (["--unit", "sentence"], "unit 'sentence'"),
        (["--json", "--latex"], "choose one of"),
    ):
        res = invoke("leaderboard", runs, *args)
        assert res.exit_code == 1, (args, res.output)
        assert needle in res.stderr and len(res.stderr.strip().splitlines()) == 1


def test_diff_prints_intervals_p_values_and_settings(runs: str) -> None:
    res = invoke("diff", runs, "bert-base-chinese", "roberta-wwm-large", "--top", "0", *FAST)
    assert res.exit_code == 0, res.output
    text = res.stdout
    assert "McNemar p" in text and "95% CI" in text and "p Holm" in text and "MDE ±" in text
    assert "bootstrap over passages (38)" in text and "1,000 resamples, seed 20180" in text
    overall = next(line for line in text.splitlines() if line.startswith(" overall") and " EM " in line)
    assert "+13.42" in overall and "[+" in overall and "*" in overall
    md = invoke("diff", runs, "bert-base-chinese", "roberta-wwm-large", "--markdown", "--sort", "p", *FAST).stdout
    assert "| EM | 28 | 8 | 34 | 79 | 0.001* |" in md
    data = json.loads(invoke("diff", runs, "glm-6b", "qwen-7b-chat", "--json", "--test", "randomisation", *FAST).stdout)
    sig = data["significance"]
    assert sig["options"]["test"] == "randomisation" and sig["unit"] == "item"
    assert {t["method"] for t in sig["tests"]} == {"randomisation"}
    assert {t["base"] for t in sig["tests"] if t["metric"] == "f1_recall"} == {"items both answered"}
    plain = invoke("diff", runs, "glm-6b", "qwen-7b-chat", "--no-stats").stdout
    assert "95% CI" not in plain and "McNemar" not in plain
    assert "significance" not in json.loads(invoke("diff", runs, "glm-6b", "qwen-7b-chat", "--json", "--no-stats").stdout)


def test_diff_sorts_slices_by_p_and_by_delta(runs: str) -> None:
    def metric_rows(sort: str) -> list[list[str]]:
        md = invoke("diff", runs, "glm-6b", "qwen-7b-chat", "--markdown", "--sort", sort, "--top", "0", *FAST).stdout
        table = md.split("## Per slice", 1)[1].split("\n\n")[1]
        return [[c.strip() for c in line.strip("|").split("|")] for line in table.splitlines()[2:]]

    by_delta = [r for r in metric_rows("delta") if r[0] != "overall"]
    assert [abs(float(r[6])) for r in by_delta] == sorted((abs(float(r[6])) for r in by_delta), reverse=True)
    by_p = [r for r in metric_rows("p") if r[0] != "overall"]
    holm = [float(r[-2].rstrip("*").replace("<", "")) for r in by_p]
    assert holm == sorted(holm)
    assert invoke("diff", runs, "glm-6b", "qwen-7b-chat", "--sort", "size").exit_code == 1


@pytest.mark.parametrize("fmt", [(), ("--json",), ("--markdown",), ("--latex",)])
def test_leaderboard_never_lets_run_names_drive_the_terminal(tmp_path: Path, fmt: tuple[str, ...]) -> None:
    root = tmp_path / "evil"
    root.mkdir()
    items = [{"id": f"q{i}", "question": f"question {i}?", "answers": [f"gold{i}"], "tag": f"t{EVIL}"} for i in range(6)]
    (root / "data.jsonl").write_text("".join(json.dumps(r) + "\n" for r in items), encoding="utf-8")
    for run in ("a", "b"):
        preds = [{"id": f"q{i}", "prediction": f"gold{i}" if i % 2 or run == "a" else "x"} for i in range(6)]
        (root / f"run{run}.jsonl").write_text("".join(json.dumps(p) + "\n" for p in preds), encoding="utf-8")
    (root / "qa-inspect.toml").write_text(
        '[[run]]\npath = "runa.jsonl"\nname = "A\\u001b]0;x\\u0007_&"\n[[run]]\npath = "runb.jsonl"\nname = "B"\n',
        encoding="utf-8")
    res = invoke("leaderboard", str(root), *FAST, *fmt)
    assert res.exit_code == 0, res.output
    for stream in (res.stdout, res.stderr):
        assert not [c for c in RAW if c in stream]
    assert "␛" in res.stdout or "\\u001b" in res.stdout
