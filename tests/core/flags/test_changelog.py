"""Release notes (`stale export --format changelog`): the patch as Markdown, grouped by dataset
and tag, one row per proposal, cells escaped with the one Markdown-cell rule."""

from __future__ import annotations

from qa_inspect.core.flags import CHANGELOG_COLUMNS, Flag, Proposal, changelog
from qa_inspect.core.query import markdown_table


def flag(key: str, gold: str, tag: str | None, *proposals: tuple[str, str | None], dataset: str = "cdqa") -> Flag:
    props = [Proposal(f"u{key}{n}", who, f"2026-01-0{n + 1}T10:00:00", f"reason {key}", new, f"https://e.org/{key}")
             for n, (who, new) in enumerate(proposals)]
    last = props[-1]
    return Flag(dataset, key, gold, last.reason, last.proposed, last.evidence, last.author, last.ts, uid=last.uid,
                question=f"question {key}?", tags={"tag": tag, "answer_type": None, "split": None}, proposals=props)


def test_grouped_by_tag_in_order_with_every_field() -> None:
    flags = [
        flag("k1", "old1", "never-changing", ("ann", "new1")),
        flag("k2", "old2", None, ("bob", None)),
        flag("k3", "old3", "fast-changing", ("ann", "new3"), ("bob", "other3")),
        flag("k4", "old4", "slow-changing", ("ann", "new4")),
    ]
    md = changelog(flags, markdown_table)
    assert md.startswith("# Changelog\n\n4 stale golds on 4 items")
    headings = [x for x in md.splitlines() if x.startswith("#")]
    assert headings == ["# Changelog", "## cdqa", "### fast-changing (1)", "### slow-changing (1)",
                        "### never-changing (1)", "### untagged (1)"]
    assert "| " + " | ".join(CHANGELOG_COLUMNS) + " |" in md
    assert ("| k1 | question k1? | old1 | new1 | reason k1 | https://e.org/k1 | ann | 2026-01-01 10:00 | open |"
            in md)
    assert "| old2 | (none: drop the answer) |" in md
    conflict = [x for x in md.splitlines() if x.startswith("| k3 ")]
    assert len(conflict) == 2 and all("open, conflicting proposals" in x for x in conflict)
    assert "| other3 |" in conflict[1] and "| bob |" in conflict[1]


def test_cells_use_the_one_markdown_rule_and_empty_is_said() -> None:
    md = changelog([flag("k|1", "a|b", "fast-changing", ("ann", "line\nbreak"))], markdown_table)
    assert "| k\\|1 |" in md and "| a\\|b | line<br>break |" in md
    assert "No stale golds are flagged." in changelog([], markdown_table)


def test_datasets_each_get_a_section() -> None:
    md = changelog([flag("k1", "a", "fast-changing", ("ann", "b"), dataset="two"),
                    flag("k2", "c", "fast-changing", ("ann", "d"), dataset="one")], markdown_table)
    assert md.index("## one") < md.index("## two")
