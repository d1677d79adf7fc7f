"""Splitting the review queue among a team (core.review.assign): rendezvous hashing on SHA-256, the
same on every machine, every item to exactly `overlap` annotators; `[team]` in qa-inspect.toml."""

from __future__ import annotations

import hashlib
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from qa_inspect.core import flags as F
from qa_inspect.core.errors import FormatError, QAInspectError
from qa_inspect.core.load import load_manifest
from qa_inspect.core.review import (
    Team,
    assigned_to,
    item_key,
    mine,
    review_queue,
    team_progress,
    team_settings,
    team_share,
)

from tests.helpers import Env

pytestmark = pytest.mark.usefixtures("no_author_env")

TEAM = Team(("ana", "bo", "cy"), 2)

PINNED = {  # the split every machine computes, for good (a change here re-assigns a team's work)
    ("cmrc2018_dev_sample", "DEV_4_QUERY_0"): ("bo", "ana"),
    ("cmrc2018_dev_sample", "DEV_4_QUERY_1"): ("ana", "cy"),
    ("cdqa_sample", "q:a0eb4ac77fcdba47"): ("bo", "cy"),
    ("cmrc2018_dev_sample", "DEV_526_QUERY_3"): ("bo", "ana"),
}


def test_a_fixed_assignment_for_pinned_keys() -> None:
    for (dataset, key), expected in PINNED.items():
        assert TEAM.assigned(item_key(dataset, key)) == expected


def test_the_ranking_is_sha256_of_item_and_annotator() -> None:
    key = item_key("cdqa_sample", "q:a0eb4ac77fcdba47")
    by_hash = sorted(TEAM.annotators, key=lambda a: hashlib.sha256(f"{key}\x1e{a}".encode()).digest(), reverse=True)
    assert TEAM.assigned(key) == tuple(by_hash[:2])


@given(st.lists(st.text(min_size=1, max_size=12), min_size=1, max_size=40, unique=True),
       st.lists(st.from_regex(r"[a-z]{1,6}", fullmatch=True), min_size=1, max_size=6, unique=True), st.data())
def test_every_item_goes_to_exactly_overlap_annotators(keys: list[str], names: list[str], data: st.DataObject) -> None:
    overlap = data.draw(st.integers(1, len(names)))
    team = Team(tuple(names), overlap)
    for key in keys:
        got = team.assigned(key)
        assert len(got) == overlap == len(set(got)) and set(got) <= set(names)
        assert assigned_to(key, list(reversed(names)), overlap) == got  # the order names are given in does not matter


@given(st.lists(st.text(min_size=1, max_size=12), min_size=1, max_size=40, unique=True))
def test_a_new_annotator_takes_items_only_from_others_never_reshuffles(keys: list[str]) -> None:
    before, after = Team(("ana", "bo", "cy"), 2), Team(("ana", "bo", "cy", "dee"), 2)
    for key in keys:
        old, new = set(before.assigned(key)), set(after.assigned(key))
        assert new - {"dee"} <= old  # nobody but the newcomer gets an item they did not have


def test_the_split_is_roughly_even() -> None:
    load = Counter(a for i in range(3000) for a in TEAM.assigned(f"k{i}"))
    assert sum(load.values()) == 6000 and all(1800 < n < 2200 for n in load.values())


def test_bad_teams_are_one_clear_line() -> None:
    for names, overlap, says in ((("ana", "ana"), 1, "named twice"), (("ana", "bo"), 3, "overlap 3"),
                                 ((), 1, "at least one"), (("ana", " "), 1, "at least one")):
        with pytest.raises(QAInspectError, match=says):
            Team(names, overlap)


def test_team_settings_from_the_manifest(tmp_path: Path) -> None:
    toml = tmp_path / "qa-inspect.toml"
    toml.write_text('[team]\nannotators = ["ana", "bo", "cy"]\noverlap = 2\n', encoding="utf-8")
    assert team_settings(load_manifest(tmp_path)) == TEAM
    assert team_settings(None) is None
    for body, where in (('[team]\nannotators = "ana"\n', "annotators"), ('[team]\nannotators = ["a"]\nwho = 1\n', "who"),
                        ('[team]\nannotators = ["a"]\noverlap = "2"\n', "overlap"),
                        ('[team]\nannotators = ["a"]\noverlap = 2\n', "[team]")):
        toml.write_text(body, encoding="utf-8")
        with pytest.raises(FormatError) as caught:
            team_settings(load_manifest(tmp_path))
        assert str(toml) in str(caught.value) and where in str(caught.value)


def test_my_share_of_the_queue_and_the_teams_progress(env: Env) -> None:
    queue = review_queue(env.conn, dataset="cdqa_sample", include_reviewed=True)
    golds = [(e.scored.signals.dataset, e.scored.signals.item_key, e.scored.signals.gold_text) for e in queue.entries]
    shares = {who: mine(queue.entries, TEAM, who) for who in TEAM.annotators}
    assert sum(len(s) for s in shares.values()) == 2 * len(queue.entries)
    for who, share in shares.items():
        assert all(who in TEAM.assigned(item_key(e.scored.signals.dataset, e.scored.signals.item_key)) for e in share)
    with pytest.raises(QAInspectError, match="'dee' is not one of the team"):
        mine(queue.entries, TEAM, "dee")

    first = shares["bo"][0].scored.signals
    F.verify(env.conn, [F.Target(first.dataset, first.item_key, first.gold_text)], author="bo")
    undone = shares["ana"][0].scored.signals
    F.mark(env.conn, undone.dataset, undone.item_key, undone.gold_text, author="ana")
    F.undo(env.conn, author="ana")  # undone: not done
    progress = {p.annotator: p for p in team_progress(env.conn, TEAM, golds)}
    assert {a: (p.done, p.assigned) for a, p in progress.items()} == {
        a: (int(a == "bo"), len(shares[a])) for a in TEAM.annotators}


def test_team_share_follows_the_manifest(env: Env) -> None:
    queue = review_queue(env.conn, dataset="cdqa_sample")
    assert team_share(env.conn, queue, None, limit=3).entries == queue.entries[:3]
    (env.runs / "qa-inspect.toml").write_text('[team]\nannotators = ["ana", "bo", "cy"]\noverlap = 2\n', encoding="utf-8")
    manifest = load_manifest(env.runs)
    assert team_share(env.conn, queue, manifest, me="cy").entries == mine(queue.entries, TEAM, "cy")
    F.set_default_author(env.conn, "ana")
    assert team_share(env.conn, queue, manifest).entries == mine(queue.entries, TEAM, "ana")
