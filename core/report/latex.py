"""LaTeX tables a paper can paste: booktabs rules, text escaped, nothing else assumed.

`latex_table` takes cells that are already LaTeX (run names go through `latex_escape` first, so a
`_` or `&` in a name cannot break the table); the output needs only `\\usepackage{booktabs}`.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["latex_escape", "latex_table"]

_SPECIAL = {
    "\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
    "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
}


def latex_escape(text: str) -> str:
    """`text` as LaTeX source that prints it literally (line breaks become spaces)."""
    return "".join(_SPECIAL.get(c, " " if c in "\r\n\t" else c) for c in text)


def latex_table(
    head: Sequence[str], rows: Sequence[Sequence[str]], *, align: str | None = None, rule_after: Sequence[int] = ()
) -> str:
    """A `tabular` with `\\toprule`, `\\midrule` under the header (and after each row index in
    `rule_after`) and `\\bottomrule`; `align` defaults to one `l` then `r` for every other column."""
    spec = align or "l" + "r" * (len(head) - 1)
    lines = [f"\\begin{{tabular}}{{{spec}}}", "\\toprule", " & ".join(head) + r" \\", "\\midrule"]
    for i, row in enumerate(rows):
        if len(row) != len(head):
            raise ValueError(f"row {i} has {len(row)} cells for {len(head)} columns")
        lines.append(" & ".join(row) + r" \\")
        if i in rule_after and i != len(rows) - 1:
            lines.append("\\midrule")
    lines += ["\\bottomrule", "\\end{tabular}"]
    return "\n".join(lines) + "\n"
