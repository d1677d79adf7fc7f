"""`qa-inspect stale verify`, `stale queue` and `report --freshness` through Typer's CliRunner."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from qa_inspect.core.load import load_runs
from qa_inspect.tui.cli import app
from tests.core.review.make_runs import make_review_runs

runner = CliRunner()
HONG_Q = "《红楼梦》的作者是谁？"
METRO_Q = "澜州市最近开通运营的地铁线路是几号线？"

pytestmark = pytest.mark.usefixtures("no_author_env")


@pytest.fixture
def runs(tmp_path: Path) -> Path:
    folder = make_review_runs(tmp_path)
    assert not load_runs(folder, tmp_path / "qa.db").errors
    return folder


def cli(runs: Path, *args: str, code: int = 0):  # noqa: ANN201
    result = runner.invoke(app, [*args[:2], str(runs), *args[2:], "--db", str(runs.parent / "qa.db")])
    assert result.exit_code == code, (result.output, result.stderr)
    return result


def queue(runs: Path, *extra: str) -> dict:
    return json.loads(cli(runs, "stale", "queue", "--json", "--author", "ann", *extra).stdout)


def test_queue_ranks_with_reasons_and_progress(runs: Path) -> None:
    out = cli(runs, "stale", "queue", "--author", "ann").stdout
    assert out.index("蓉江新区") < out.index("吴思远") < out.index("曹雪芹")
    assert "3 of 3 runs answer 章贡新区" in out and "0 of 6 reviewed, 0 marked stale, 0 verified" in out
    q = queue(runs, "--limit", "2")
    assert [e["gold"] for e in q["queue"]] == ["蓉江新区", "吴思远"]
    assert q["queue"][0]["consensus"]["answer"] == "章贡新区" and q["queue"][0]["evidence_date"]["date"] == "2023-10-20"
    assert [e["gold"] for e in queue(runs, "--signal", "refusal")["queue"]] == ["6号线"]
    assert [e["gold"] for e in queue(runs, "--tag", "never-changing", "--answer-type", "person")["queue"]] == ["曹雪芹"]


def test_verify_then_the_queue_skips_the_gold_unless_all(runs: Path) -> None:
    out = cli(runs, "stale", "verify", HONG_Q, "--gold", "曹雪芹", "--note", "checked", "--author", "ann").stdout
    assert "verified: review" in out and "曹雪芹" in out
    cli(runs, "stale", "mark", METRO_Q, "--answer", "6号线", "--new-answer", "7号线", "--author", "ann")
    q = queue(runs)
    assert "曹雪芹" not in [e["gold"] for e in q["queue"]] and "6号线" not in [e["gold"] for e in q["queue"]]
    assert q["progress"]["line"] == "2 of 6 reviewed, 1 marked stale, 1 verified"
    everything = queue(runs, "--all")["queue"]
    assert sorted(e["status"] for e in everything[-2:]) == ["marked", "verified"]
    assert "undid verify" not in cli(runs, "stale", "undo", "--author", "ann").stdout  # the mark, last
    assert "undid verify" in cli(runs, "stale", "undo", "--author", "ann").stdout
    assert queue(runs)["progress"]["line"] == "0 of 6 reviewed, 0 marked stale, 0 verified"


def test_verify_by_number_and_errors(runs: Path) -> None:
    data = json.loads(cli(runs, "stale", "verify", HONG_Q, "--gold", "1", "--json").stdout)
    assert [e["action"] for e in data] == ["verify"]
    for args, message in ((["--gold", "高鹗"], "no gold answer '高鹗'"), (["--gold", "2"], "out of range")):
        result = cli(runs, "stale", "verify", HONG_Q, *args, code=1)
        assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1
    bad = cli(runs, "stale", "queue", "--signal", "moon", code=1)
    assert "--signal: unknown signal 'moon'; known: consensus, age, refusal, proposal" in bad.stderr


def test_report_freshness(runs: Path) -> None:
    cli(runs, "stale", "verify", HONG_Q)
    rows = json.loads(cli(runs, "report", "--freshness", "--json").stdout)
    total = next(r for r in rows if r["dimension"] == "all")
    assert (total["golds"], total["verified_30d"], total["never_verified"], total["stale_open"]) == (6, 1, 5, 0)
    never = next(r for r in rows if r["value"] == "never-changing")
    assert never["share_365d"] == 1.0
    assert "never-changing" in cli(runs, "report", "--freshness").stdout
