"""Text from datasets and models is data: visible control characters, CJK-aware widths, no markup."""

from __future__ import annotations

import subprocess
import sys
import unicodedata

from hypothesis import given
from hypothesis import strategies as st
from rich.cells import cell_len
from textual.content import Content

from qa_inspect.core.visible import PLACEHOLDERS
from qa_inspect.core.visible import visible as core_visible
from qa_inspect.core.query import Filter
from qa_inspect.tui.text import bar, cell_text, clean, count_cells, truncate
from qa_inspect.tui.widgets.detail_blocks import fold, fold_offsets
from qa_inspect.tui.widgets.filter_bar import describe

CONTROL = {"Cc"}


@given(st.text())
def test_clean_keeps_length_and_leaves_no_controls(s: str) -> None:
    out = clean(s)
    assert len(out) == len(s)  # offsets of alignments and spans stay valid
    assert not any(unicodedata.category(c) in CONTROL for c in out)
    block = clean(s, multiline=True)
    assert len(block) == len(s)
    assert all(c == "\n" or unicodedata.category(c) not in CONTROL for c in block)


def test_clean_examples() -> None:
    assert clean("\x1b[2J") == "␛[2J"
    assert clean("a\nb\tc\x07") == "a⏎b c␇"
    assert clean("a\nb", multiline=True) == "a\nb"
    assert clean("\u202eevil") == "\ufffdevil"  # bidi override cannot reorder the row
    assert clean(None) == ""


@given(st.text(alphabet=st.sampled_from("中文ab😀，。 x\u0301")), st.integers(min_value=0, max_value=30))
def test_truncate_fits_in_cells(s: str, width: int) -> None:
    out = truncate(s, width)
    assert cell_len(out) <= width
    if cell_len(s) <= width:
        assert out == s
    elif width > 0:
        assert out.endswith("…")


def _truncate_by_measuring_everything(s: str, width: int) -> str:
    """`truncate` as first written: the whole text measured, then cut character by character."""
    if cell_len(s) <= width:
        return s
    if width <= 0:
        return ""
    out, used = [], 0
    for ch in s:
        if used + cell_len(ch) > width - 1:
            break
        out.append(ch)
        used += cell_len(ch)
    return "".join(out) + "…"


@given(st.text(alphabet=st.sampled_from("中文ab😀，。 x\u0301\u200b\x07~")), st.integers(min_value=-2, max_value=30))
def test_truncate_measures_only_what_it_cuts_with_the_same_result(s: str, width: int) -> None:
    assert truncate(s, width) == _truncate_by_measuring_everything(s, width)


def test_truncate_cjk_counts_two_cells() -> None:
    q = "潘均顺于德军占领乌克兰哈尔科夫后在谁的帮助下藏了一名逃出德军封锁区的女孩子们呢吗"  # 40 chars
    assert len(q) == 40 and cell_len(q) == 80
    assert truncate(q, 11) == "潘均顺于德…"


def test_cell_text_is_never_markup() -> None:
    t = cell_text("[bold red]x[/] \x1b[31m", 40)
    assert t.plain == "[bold red]x[/] ␛[31m" and not t.spans


def test_bar() -> None:
    assert bar(1.0, 4) == "████"
    assert bar(0.0, 4) == "    "
    assert bar(0.5, 4) == "██  "
    assert len(bar(0.37, 10)) == 10 and bar(None, 3) == "   "


def test_core_never_imports_textual_or_rich() -> None:
    code = (
        "import sys\n"
        "import qa_inspect.core.query, qa_inspect.core.report, qa_inspect.core.store\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich'))\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


@given(st.text(alphabet=st.sampled_from("中文ab cd，。\n😀x")), st.integers(min_value=2, max_value=40))
def test_fold_lines_fit_and_keep_every_character(s: str, width: int) -> None:
    cuts = fold_offsets(s, width)
    assert cuts == sorted(cuts) and all(0 < c < len(s) for c in cuts)
    pieces = [s[a:b] for a, b in zip([0, *cuts], [*cuts, len(s)])]
    assert "".join(pieces) == s
    for piece in pieces:
        for line in piece.split("\n"):
            assert cell_len(line) <= width
    if width >= 8:
        folded = fold(Content(s).stylize("bold", 0, len(s)), width)
        assert folded.plain.replace("\n", "") == s.replace("\n", "")


def test_filter_bar_names_every_narrowing() -> None:
    f = Filter(run="a", compare="b", only_disagree=True, splits=("dev",), refused=False, em=0, f1_min=0.2,
               stale=True, has_proposal=True, search="北京", facets=(("length", "long"),), outcome="both_wrong")
    labels = dict(describe(f))
    assert labels["run"] == "a" and labels["vs"] == "b · disagree" and labels["split"] == "dev"
    assert labels["EM"] == "0" and labels["score"] == "0.2–1" and labels["search"] == "北京"
    assert labels["length"] == "long" and labels["outcome"] == "both wrong by EM"
    assert dict(describe(f.with_(outcome="fixed", outcome_threshold=0.5)))["outcome"] == "fixed by score ≥ 50"
    values = [v for _, v in describe(f)]
    assert "answered" in values and "stale" in values and "has proposal" in values


def test_no_line_of_a_passage_starts_with_a_comma_or_a_closing_mark() -> None:
    from hypothesis import given
    from hypothesis import strategies as st

    from qa_inspect.tui.widgets.detail_blocks import NO_LINE_START, fold_offsets

    text = "一二三四五六七八九十，一二三四五六七八九十。」好的：第三行、第四行"
    for width in range(8, 30):
        cuts = fold_offsets(text, width)
        assert all(text[c] not in NO_LINE_START for c in cuts), (width, cuts)

    @given(st.text(alphabet="一二三，。、：」a ", min_size=1, max_size=80), st.integers(8, 40))
    def lines_fit_and_none_starts_with_punctuation(s: str, width: int) -> None:
        cuts = fold_offsets(s, width)
        bounds = [0, *cuts, len(s)]
        from rich.cells import cell_len

        assert all(cell_len(s[a:b]) <= width for a, b in zip(bounds, bounds[1:]))
        # a run of more than three marks may have to start a line; otherwise none does
        assert all(s[c] not in NO_LINE_START or all(ch in NO_LINE_START for ch in s[max(0, c - 3):c + 1])
                   for c in cuts)

    lines_fit_and_none_starts_with_punctuation()


@given(st.text(alphabet=st.sampled_from("DEV_QUERY0123中文x"), min_size=1, max_size=40), st.integers(1, 30))
def test_ids_are_cut_in_the_middle_within_the_width(s: str, width: int) -> None:
    from qa_inspect.tui.text import ELLIPSIS, truncate_middle

    out = truncate_middle(s, width)
    assert cell_len(out) <= width
    if cell_len(s) <= width:
        assert out == s
    elif width >= 5:
        head, _, tail = out.partition(ELLIPSIS)
        assert s.startswith(head) and s.endswith(tail) and tail


def test_count_cells_fit_the_largest_count_with_separators() -> None:
    assert count_cells([1_000_000, 556_051, 12], 6) == len("1,000,000")
    assert count_cells([153_461], 5) == len("153,461")  # the facet panel cut this to "153,46"
    assert count_cells([], 6) == 6 and count_cells([3, -1], 4) == 4


def test_the_tui_cleans_with_the_same_table() -> None:
    for ch in [chr(cp) for cp in PLACEHOLDERS]:
        if ch not in "\n\r\t":
            assert clean(ch) == core_visible(ch), repr(ch)
