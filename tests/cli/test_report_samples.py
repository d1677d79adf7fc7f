"""`qa-inspect report` of runs with several samples per item: pass@1, pass@2, pass@4, majority
accuracy and consistency equal to a direct computation; official EM/F1 stay the first sample's;
a folder of one answer per item reports exactly what it did before."""

from __future__ import annotations

import json
from itertools import combinations
from pathlib import Path

import pytest
from qa_inspect.core.metrics import score_prediction, scorer_form

from tests.cli.helpers import copy_sample_runs, invoke
from tests.sampled_runs import ANSWERS, GOLDS, sampled_runs


def _direct(scorer: str) -> dict[str, float]:
    """pass@k as the share of k-subsets of an item's samples holding a right one, by enumeration."""
    out: dict[str, float] = {}
    right = {k: [bool(score_prediction(scorer, a, [GOLDS[k]]).em) for a in ANSWERS[k]] for k in ANSWERS}
    for k in (1, 2, 4):
        per_item = [sum(any(s) for s in combinations(r, k)) / len(list(combinations(r, k))) for r in right.values()]
        out[f"pass@{k}"] = 100 * sum(per_item) / len(per_item)
    maj, share = [], []
    for key, answers in ANSWERS.items():
        forms = [scorer_form(a, scorer) for a in answers]
        top = max(forms, key=lambda f: (forms.count(f), -forms.index(f)))
        maj.append(right[key][forms.index(top)])
        share.append(forms.count(top) / len(forms))
    out["maj"] = 100 * sum(maj) / len(maj)
    out["consistency"] = 100 * sum(share) / len(share)
    out["em"] = 100 * sum(r[0] for r in right.values()) / len(right)
    return out


def test_report_json_gives_sample_metrics_equal_to_a_direct_computation(tmp_path: Path) -> None:
    pytest.importorskip("zstandard")
    runs = sampled_runs(tmp_path)
    res = invoke("report", str(runs), "--json")
    assert res.exit_code == 0, res.output
    overall = [r for r in json.loads(res.stdout) if r["slice"] == "overall" and r["run"] != "human estimate"]
    assert len(overall) == 3
    for row in overall:
        want = _direct(row["scorer"])
        for column, value in want.items():
            assert row[column] == pytest.approx(value), (row["run"], column)
        assert row["samples"] == 12 and row["sample_items"] == 3


def test_report_markdown_and_table_name_the_official_columns(tmp_path: Path) -> None:
    runs = sampled_runs(tmp_path)
    res = invoke("report", str(runs), "--markdown")
    assert res.exit_code == 0 and "pass@4" in res.stdout and "consistency" in res.stdout
    res = invoke("report", str(runs))
    assert res.exit_code == 0 and "first (or marked) sample" in res.stdout


def test_a_folder_of_single_answers_gets_no_sample_columns(tmp_path: Path, sample_runs: Path) -> None:
    runs = copy_sample_runs(sample_runs, tmp_path)
    rows = json.loads(invoke("report", str(runs), "--json").stdout)
    assert not any("pass@1" in r or "maj" in r for r in rows)


def test_table_cells_name_sample_metrics(tmp_path: Path) -> None:
    runs = sampled_runs(tmp_path)
    res = invoke("table", str(runs), "--cell", "pass@1,pass@4,maj", "--json")
    assert res.exit_code == 0, res.output
    table = json.loads(res.stdout)["table"]
    assert len(table) == 3
    for row in table:
        (run,) = row["runs"]
        scorer = "squad-v1.1"
        want = _direct(scorer)
        values = {k.split(" · ")[-1]: v["values"] for k, v in row["cells"].items()}
        assert values["pass@1"]["pass@1"] == pytest.approx(want["pass@1"]), run
        assert values["pass@4"]["pass@4"] == pytest.approx(want["pass@4"]), run
        assert values["maj"]["maj"] == pytest.approx(want["maj"]), run


def test_leaderboard_ranks_by_pass_at_1_with_paired_tests_on_item_means(tmp_path: Path) -> None:
    runs = sampled_runs(tmp_path)
    res = invoke("leaderboard", str(runs), "--metric", "pass@1", "--resamples", "200", "--json")
    assert res.exit_code == 0, res.output
    (board,) = json.loads(res.stdout)
    assert board["metric"] == "pass@1" and "pass@1" in board["metrics"]
    scorer = board["scorer"]
    right = [sum(bool(score_prediction(scorer, a, [GOLDS[k]]).em) for a in v) / len(v) for k, v in ANSWERS.items()]
    for row in board["rows"]:
        assert row["metrics"]["pass@1"]["value"] == pytest.approx(100 * sum(right) / len(right))
        assert row["metrics"]["pass@1"]["n"] == len(ANSWERS)  # items, never samples
    assert board["pairs_tested"] == 3 and all(p["n"] == len(ANSWERS) for p in board["pairs"])


def test_a_folder_of_single_answers_has_no_pass_metric(tmp_path: Path, sample_runs: Path) -> None:
    runs = copy_sample_runs(sample_runs, tmp_path)
    boards = json.loads(invoke("leaderboard", str(runs), "--resamples", "200", "--json").stdout)
    assert boards and all("pass@1" not in b["metrics"] for b in boards)


def test_report_slices_carry_their_own_sample_metrics(tmp_path: Path) -> None:
    runs = sampled_runs(tmp_path)
    data = runs / "qa.jsonl"
    split = {"Q1": "a", "Q2": "a", "Q3": "b"}
    rows = [json.loads(line) for line in data.read_text(encoding="utf-8").splitlines()]
    data.write_text("".join(json.dumps(r | {"split": split[r["id"]]}) + "\n" for r in rows), encoding="utf-8")
    res = invoke("report", str(runs), "--by", "split", "--json")
    assert res.exit_code == 0, res.output
    sliced = [r for r in json.loads(res.stdout) if r["slice"] == "split" and r["run"] != "human estimate"]
    assert len(sliced) == 6
    for row in sliced:
        keys = [k for k, v in split.items() if v == row["value"]]
        right = [[bool(score_prediction(row["scorer"], a, [GOLDS[k]]).em) for a in ANSWERS[k]] for k in keys]
        assert row["pass@1"] == pytest.approx(100 * sum(sum(r) / len(r) for r in right) / len(right))
        assert row["pass@4"] == pytest.approx(100 * sum(any(r) for r in right) / len(right))
        assert row["sample_items"] == len(keys)
