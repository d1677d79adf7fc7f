"""Judge verdicts read from Inspect logs, OpenCompass LLM-evaluator results and plain JSONL."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from qa_inspect.core.errors import FormatError
from qa_inspect.core.formats import Skip, VerdictFile, read_source, read_verdicts, verdict_of
from qa_inspect.core.formats.judge_verdicts import read_opencompass_verdicts
from qa_inspect.core.formats.verdict_sources import framework_verdicts
from tests.judge_data import FIXTURES, JSONL_VERDICTS, JUDGE_LOG, write_jsonl

LIMITS_LOG = next((FIXTURES / "inspect_current").glob("*.eval"))
"""inspect_ai's own log with two epochs and one scorer (`includes`)."""


@given(st.floats(min_value=0.0, max_value=1.0))
def test_numbers_in_0_1_are_their_own_value_and_name_one_word(value: float) -> None:
    word, got = verdict_of(value) or ("", -1.0)
    assert got == value
    assert word == ("correct" if value == 1.0 else "incorrect" if value == 0.0 else "partial")
    assert verdict_of(str(value)) == (word, value)


@given(st.floats(allow_nan=True).filter(lambda v: not 0.0 <= v <= 1.0))
def test_numbers_outside_0_1_are_no_verdict(value: float) -> None:
    assert verdict_of(value) is None


@pytest.mark.parametrize(("raw", "expected"), [
    ("C", ("correct", 1.0)), ("I", ("incorrect", 0.0)), ("P", ("partial", 0.5)), ("N", ("incorrect", 0.0)),
    ("Correct", ("correct", 1.0)), (" incorrect ", ("incorrect", 0.0)), ("partial", ("partial", 0.5)),
    (True, ("correct", 1.0)), (False, ("incorrect", 0.0)), ("maybe", None), (None, None), ({"a": 1}, None),
])
def test_words_and_inspect_letters(raw: object, expected: tuple[str, float] | None) -> None:
    assert verdict_of(raw) == expected


def test_an_inspect_ai_log_gives_one_verdict_per_scorer_and_sample() -> None:
    found = read_verdicts(JUDGE_LOG)
    assert found.format == "inspect-log" and not found.warnings
    by = {(v.ref, v.judge): v for v in found.verdicts}
    assert len(by) == len(found.verdicts) == 12
    assert {j for _, j in by} == {"includes", "model_graded_fact"}
    graded = by[("MINI_DEV_1_QUERY_1", "model_graded_fact")]
    assert (graded.verdict, graded.value, graded.raw, graded.ref_kind, graded.run) == ("partial", 0.5, "P", "id", None)
    assert graded.rationale is not None and graded.rationale.endswith("GRADE: P")
    assert by[("MINI_DEV_0_QUERY_1", "model_graded_fact")].verdict == "incorrect"
    assert by[("MINI_DEV_0_QUERY_0", "includes")].rationale == "北部"  # includes explains with the answer


@pytest.mark.parametrize("log", [JUDGE_LOG, LIMITS_LOG])
def test_the_inspect_reader_gathers_the_same_verdicts_on_its_own_pass(log: Path) -> None:
    run = read_source(log)
    assert run.framework_verdicts == read_verdicts(log)  # the load reads the log once, not twice
    assert framework_verdicts(log, "inspect-log", run.framework_verdicts) is run.framework_verdicts


def test_only_the_first_epoch_is_a_verdict() -> None:
    found = framework_verdicts(LIMITS_LOG, "inspect-log")
    assert found is not None
    refs = [v.ref for v in found.verdicts]
    assert sorted(refs) == ["Q1", "Q2", "Q3"]


def test_the_jsonl_format(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "gpt.verdicts.jsonl", JSONL_VERDICTS)
    found = read_source(path)
    assert isinstance(found, VerdictFile) and found.format == "judge-verdicts"
    first, _, by_question, half = found.verdicts
    assert (first.run, first.ref, first.ref_kind, first.judge, first.verdict, first.rationale, first.line) == (
        "cmrc-mini-judged", "MINI_DEV_0_QUERY_0", "id", "gpt-judge", "correct", "north", 1)
    assert (by_question.ref_kind, by_question.verdict, by_question.raw) == ("question", "incorrect", "0")
    assert (half.verdict, half.value) == ("partial", 0.5)
    assert isinstance(read_source(path, as_kind="run"), Skip)


def test_jsonl_verdicts_are_recognised_by_their_keys(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "judged.jsonl", [{"run": "r", "id": 1, "judge": "j", "verdict": "I"}])
    found = read_source(path)
    assert isinstance(found, VerdictFile) and found.verdicts[0].ref == "1"


@pytest.mark.parametrize(("record", "message"), [
    ({"run": "r", "id": "a", "judge": "j", "verdict": "meh"}, "verdict 'meh' is not correct, incorrect, partial"),
    ({"run": "r", "id": "a", "judge": "j", "verdict": 1.5}, "is not correct, incorrect, partial or a number in 0–1"),
    ({"run": "r", "id": "a", "verdict": "correct"}, "judge is missing"),
    ({"id": "a", "judge": "j", "verdict": "correct"}, "run is missing"),
    ({"run": "r", "judge": "j", "verdict": "correct"}, "record has neither an id nor a question"),
    ({"run": "r", "id": "a", "judge": "j", "verdict": "C", "rationale": 3}, "rationale is a number"),
    (["not", "an", "object"], "record is a list, expected an object"),
])
def test_a_bad_record_is_one_line_naming_the_file_and_line(tmp_path: Path, record: object, message: str) -> None:
    path = write_jsonl(tmp_path / "x.verdicts.jsonl", [{"run": "r", "id": "a", "judge": "j", "verdict": "C"}, record])
    with pytest.raises(FormatError) as caught:
        read_source(path)
    text = str(caught.value)
    assert text.startswith(f"{path}, line 2: ") and message in text and "\n" not in text


def test_opencompass_llm_evaluator_details(tmp_path: Path) -> None:
    generic = {"accuracy": 50.0, "not_attempted_count": 1, "details": {
        "0": {"origin_prompt": "judge this", "prediction": "A", "gold": "北部"},
        "1": {"origin_prompt": "judge this", "prediction": "Reasoning ... B", "gold": "白鹤"},
        "2": {"origin_prompt": "judge this", "prediction": "no grade at all", "gold": "x"},
    }}
    path = tmp_path / "generic.json"
    path.write_text(json.dumps(generic, ensure_ascii=False), encoding="utf-8")
    found = read_opencompass_verdicts(path)
    assert [(v.position, v.judge, v.verdict, v.raw) for v in found.verdicts] == [
        (0, "GenericLLMEvaluator", "correct", "A"), (1, "GenericLLMEvaluator", "incorrect", "B")]
    assert found.verdicts[1].rationale == "Reasoning ... B"
    assert found.warnings and "1 judge repl" in found.warnings[0]


def test_opencompass_cascade_details(tmp_path: Path) -> None:
    cascade = {"accuracy": 100.0, "details": [
        {"rule_evaluation": {"correct": False}, "llm_evaluation": {"prediction": "A", "llm_correct": True}},
        {"rule_evaluation": {"correct": True}},
    ]}
    path = tmp_path / "cascade.json"
    path.write_text(json.dumps(cascade), encoding="utf-8")
    found = read_opencompass_verdicts(path)
    assert [(v.position, v.judge, v.verdict, v.rationale) for v in found.verdicts] == [
        (0, "llm_evaluation", "correct", "A")]


def test_runs_whose_format_holds_no_verdicts(tmp_path: Path) -> None:
    assert framework_verdicts(tmp_path / "x.json", "prediction-map") is None
