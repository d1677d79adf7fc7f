"""`report --markdown` and `diff --markdown` write their tables with `core.query.markdown_table`:
a `|`, a line break or a carriage return in a name or in model text never breaks a row."""

from __future__ import annotations

import polars as pl

from qa_inspect.core.report import ItemChange, Outcomes, RunDiff, SliceDelta
from qa_inspect.tui.cli.diff import diff_markdown
from qa_inspect.tui.cli.report import report_markdown

TRICKY = "a|b\nc\r\nd\re"
ESCAPED = "a\\|b<br>c<br>d<br>e"


def table_rows(markdown: str) -> list[str]:
    return [ln for ln in markdown.splitlines() if ln.startswith("|")]


def test_report_markdown_escapes_every_cell() -> None:
    frame = pl.DataFrame({
        "dataset": ["tiny", "tiny"], "family": ["cmrc", "cmrc"], "run": [TRICKY, "plain"],
        "slice": ["overall", "tag"], "value": ["all", None], "items": [3, 2], "em": [66.66666, None],
        "f1_recall": [None, None],
    })
    text = report_markdown(frame)
    lines = text.splitlines()
    assert text.endswith("\n") and len(lines) == 2 + frame.height  # no cell breaks a row
    assert lines[0] == "| dataset | run | slice | value | items | em |"  # family and all-empty columns left out
    assert lines[1] == "|---|---|---|---|---|---|"
    assert lines[2] == f"| tiny | {ESCAPED} | overall | all | 3 | 66.667 |"
    assert lines[3] == "| tiny | plain | tag |  | 2 |  |"


def _diff(question: str, prediction: str) -> RunDiff:
    return RunDiff(
        run_a="a", run_b="b", dataset="tiny", family="cmrc", score_metric="f1", threshold=0.5, items=2,
        predicted_a=2, predicted_b=2, common=2,
        outcomes=[Outcomes("em", "EM", None, 1, 0, 1, 0)],
        slices=[SliceDelta("tag", TRICKY, "em", 2, 50.0, 100.0, 50.0, 2, 2)],
        changes=[ItemChange(1, "T_1", question, prediction, "右", 0.0, 1.0, 1.0)],
    )


def test_diff_markdown_escapes_model_text_and_keeps_its_layout() -> None:
    text = diff_markdown(_diff(TRICKY, "x|y"))
    assert text.startswith("# a (A) → b (B) on tiny (cmrc): 2 items answered by both of 2 (only A: 0, only B: 0)\n\n## Outcomes\n\n")
    assert "| EM | 1 | 0 | 1 | 0 |\n\n## Per slice\n\n" in text
    assert f"| tag | {ESCAPED} | 2 | EM | 50.00 | 100.00 | +50.00 |" in text
    assert f"| T_1 | {ESCAPED} | x\\|y | 右 | 0.000 | 1.000 | +1.000 |\n" in text
    assert text.endswith(" |\n")
    rows = [ln for ln in table_rows(text) if not ln.startswith("|---")]
    assert len(rows) == 3 * 2 and all(ln.startswith("| ") and ln.endswith(" |") for ln in rows)  # 3 tables, 1 row each


def test_diff_markdown_without_changes() -> None:
    d = _diff("q", "p")
    d.changes = []
    assert diff_markdown(d).endswith("## Largest F1 changes\n\nNo item's F1 changed.\n")
