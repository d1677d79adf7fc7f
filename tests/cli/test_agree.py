"""`qa-inspect agree` and the team options of `stale queue` through Typer's CliRunner."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from qa_inspect.core.review import Team, item_key

from tests.cli.helpers import invoke
from tests.helpers import copy_loaded

pytestmark = pytest.mark.usefixtures("no_author_env")

KEYS = ("DEV_1010_QUERY_0", "DEV_1010_QUERY_1", "DEV_1010_QUERY_2", "DEV_1010_QUERY_3")


@pytest.fixture
def runs(loaded_template: Path, tmp_path: Path) -> Path:
    return copy_loaded(loaded_template, tmp_path)


def cli(runs: Path, *args: str, code: int = 0) -> str:
    """`qa-inspect COMMAND [SUBCOMMAND] RUNS_DIR ARGS… --db …`; stdout, or stderr when it should fail."""
    command = 2 if args[0] == "stale" else 1
    res = invoke(*args[:command], str(runs), *args[command:], "--db", str(runs.parent / "qa.db"))
    assert res.exit_code == code, res.output
    return res.stdout if code == 0 else res.stderr


def judge(runs: Path) -> None:
    """ana and bo on four golds: agree on three (two stale, one fresh), differ on one."""
    for key, (ana, bo) in zip(KEYS, (("mark", "mark"), ("verify", "verify"), ("mark", "verify"), ("mark", "mark")),
                              strict=True):
        for who, action in (("ana", ana), ("bo", bo)):
            extra = ("--reason", f"{who}: gone") if action == "mark" else ("--note", f"{who}: fine")
            cli(runs, "stale", action, key, "--gold", "1", "--author", who, *extra)


def test_agree_json_and_table(runs: Path) -> None:
    judge(runs)
    data = json.loads(cli(runs, "agree", "--json", "--resamples", "200"))
    assert data["what"] == "stale" and data["annotators"] == ["ana", "bo"] and data["units"] == 4
    [pair] = data["overall"]["cohen_kappa"]
    assert pair["annotators"] == ["ana", "bo"] and pair["items"] == 4
    assert pair["estimate"] == pytest.approx(0.5)  # p_o 3/4, p_e (3·2 + 1·2)/16 = 1/2
    assert [d["item_key"] for d in data["disagreements"]] == ["DEV_1010_QUERY_2"]
    table = cli(runs, "agree", "--resamples", "200")
    assert "Cohen's κ ana · bo" in table and "Fleiss' κ" in table and "Krippendorff's α" in table
    assert "1 disagreement" in table and "200 resamples, seed 20180" in table
    side = cli(runs, "agree", "--disagreements", "--resamples", "10")
    assert "stale: ana: gone" in side and "fresh: bo: fine" in side


def test_agree_with_nothing_to_compare_and_a_bad_kind(runs: Path) -> None:
    assert "nothing to compare" in cli(runs, "agree", "--what", "labels")
    assert "unknown dataset 'nope'" in cli(runs, "agree", "--dataset", "nope", code=1)
    assert cli(runs, "agree", "--what", "votes", code=1).strip() == (
        "qa-inspect: unknown kind of judgement 'votes'; known: stale, labels, aliases")


def test_stale_queue_split_among_the_team(runs: Path) -> None:
    team = Team(("ana", "bo", "cy"), 2)
    everyone = json.loads(cli(runs, "stale", "queue", "--json", "--author", "bo"))["queue"]
    mine = json.loads(cli(runs, "stale", "queue", "--json", "--annotators", "ana,bo,cy", "--overlap", "2",
                          "--me", "bo"))["queue"]
    expected = [(e["dataset"], e["item_key"], e["gold"]) for e in everyone
                if "bo" in team.assigned(item_key(e["dataset"], e["item_key"]))]
    assert [(e["dataset"], e["item_key"], e["gold"]) for e in mine] == expected and 0 < len(mine) < len(everyone)
    (runs / "qa-inspect.toml").write_text('[team]\nannotators = ["ana", "bo", "cy"]\noverlap = 2\n', encoding="utf-8")
    from_toml = json.loads(cli(runs, "stale", "queue", "--json", "--author", "bo"))["queue"]
    assert from_toml == mine
    progress = json.loads(cli(runs, "stale", "queue", "--json", "--progress"))["progress"]
    assert [p["annotator"] for p in progress] == ["ana", "bo", "cy"]
    assert sum(p["assigned"] for p in progress) == 2 * len(everyone)
    assert "annotator" in cli(runs, "stale", "queue", "--progress")


def test_stale_queue_team_errors_are_one_line(runs: Path) -> None:
    for option in (("--progress",), ("--me", "bo"), ("--overlap", "2")):
        assert f"{option[0]}: name the team" in cli(runs, "stale", "queue", *option, code=1)
    assert "'dee' is not one of the team's annotators" in cli(
        runs, "stale", "queue", "--annotators", "ana,bo", "--me", "dee", code=1)
    assert "overlap 3: expected 1 to 2" in cli(runs, "stale", "queue", "--annotators", "ana,bo", "--overlap", "3", code=1)
