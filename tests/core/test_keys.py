"""Item keys and split names (`core.keys`)."""

from __future__ import annotations

import re
import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st
from qa_inspect.core.keys import (
    normalise_question,
    question_key,
    split_from_id,
    split_from_name,
)


def test_question_key_shape_and_stability() -> None:
    key = question_key("赣州市的哪一个新区最近积极推进晚稻的收割工作？")
    assert key.startswith("q:") and len(key) == 18 and int(key[2:], 16) >= 0
    # Pinned: changing the scheme orphans every stored annotation of key-less datasets.
    assert question_key("Who wrote Example?") == "q:" + __import__("hashlib").sha1(b"Who wrote Example").hexdigest()[:16]


@pytest.mark.parametrize(
    "variant",
    ["谁是主唱？", "谁是主唱?", "  谁是主唱  ", "谁是主唱？？", "\ufeff谁是主唱".replace("\ufeff", ""), "谁是主唱 ？"],
)
def test_question_key_normalises(variant: str) -> None:
    assert question_key(variant) == question_key("谁是主唱")


def test_question_key_collapses_whitespace_and_folds_width() -> None:
    assert normalise_question("Ｗho\u3000 wrote\n\tit ?") == "Who wrote it"
    assert question_key("Who wrote it") != question_key("who wrote it"), "case is kept"


@pytest.mark.parametrize(
    ("name", "split"),
    [
        ("cmrc2018_trial.json", "trial"),
        ("cmrc2018_dev.json", "dev"),
        ("/x/y/cmrc2018_challenge.json", "challenge"),
        ("dev-v2.0.json", "dev"),
        ("train-v1.1.json", "train"),
        ("validation.jsonl", "dev"),
        ("eval_predictions.json", "dev"),
        ("predict_predictions.json", "test"),
        ("test_predictions.json", "test"),
        ("CDQA_v1.json", None),
        ("latest_predictions.json", None),
        ("interval.json", None),
        ("DEV_0_QUERY_0", "dev"),
        ("TRIAL_800_QUERY_0", "trial"),
    ],
)
def test_split_from_name(name: str, split: str | None) -> None:
    assert split_from_name(name) == split


@pytest.mark.parametrize(
    ("item_id", "split"),
    [
        ("DEV_0_QUERY_0", "dev"),
        (" TEST_3_QUERY_1", "test"),
        ("CHALLENGE_12_QUERY_0", "challenge"),
        ("56be4db0acb8001400a502ec", None),
        ("q:620d9efe0f559676", None),
        ("1001-1-1", None),
        ("DEVICE_1", None),
        ("query_DEV_1", None),
    ],
)
def test_split_from_id(item_id: str, split: str | None) -> None:
    assert split_from_id(item_id) == split


@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=12).map(lambda s: s + "？")
       | st.text(max_size=12, alphabet=st.sampled_from(" \t\u3000\u00a0a？?！，,é\u0301ｅ问题谁")))
def test_normalise_question_matches_the_plain_definition(question: str) -> None:
    """The fast path (a last full-width character, whitespace split) changes no key."""
    plain = re.sub(r"\s+", " ", unicodedata.normalize("NFKC", question)).strip().rstrip("?").rstrip()
    assert normalise_question(question) == plain
