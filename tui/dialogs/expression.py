"""The expression filter's input (`|` in the browser): one line in the language of
`core.query.expression` (`f1 < 0.5 and tag = "fast-changing" and label != "format"`).

Enter checks the expression where it is typed: an error keeps the input open with the message,
the cursor at the place it names and the column at fault; a good one (or an empty line: no
expression) closes it with the text.
"""

from __future__ import annotations

from typing import ClassVar

from qa_inspect.core.query import ExpressionError, expression_sql
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Input, Label

from ..base import BaseModal
from ..text import clean

__all__ = ["EXPRESSION_HINT", "ExpressionDialog"]

EXPRESSION_HINT = ('= != < <= > >= ~ (contains) · in (…) · and or not · "text" numbers null · columns: the'
                   " table's ids, label, category, relation, question_type, meta:KEY, judge:NAME, answer:RUN")


class ExpressionDialog(BaseModal):
    """Dismisses with the expression ("" clears it), or None on escape."""

    HELP_TITLE = "Expression filter"
    DEFAULT_CSS = """
    ExpressionDialog { align: center bottom; }
    ExpressionDialog #expression { width: 100%; height: auto; }
    ExpressionDialog #expression-error { color: $error; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="expression.cancel", tooltip="Close, keeping the expression as it was"),
    ]

    def __init__(self, text: str, columns: list[str]) -> None:
        """`text`: the filter's expression now; `columns`: names offered in the hint (the table's)."""
        super().__init__()
        self.text = text
        self.columns = columns
        self.error: ExpressionError | None = None
        """The last error shown (tests read it)."""

    def compose(self) -> ComposeResult:
        with Vertical(id="expression", classes="dialog"):
            yield Label(Content("Keep the items where"), classes="dialog-title")
            yield Input(self.text, placeholder='f1 < 0.5 and tag = "fast-changing"', id="expression-input")
            yield Label(id="expression-error")
            yield Label(Content.styled(EXPRESSION_HINT, "$foreground-muted"))
            yield Label(Content.styled("shown: " + " ".join(self.columns), "$foreground-muted"))

    def on_mount(self) -> None:
        self.query_one("#expression-error", Label).display = False
        self.query_one(Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        text = event.value.strip()
        if not text:
            self.dismiss("")
            return
        try:
            expression_sql(text, [])
        except ExpressionError as exc:
            self.show_error(exc)
            return
        self.dismiss(text)

    def on_input_changed(self) -> None:
        self.query_one("#expression-error", Label).display = False

    def show_error(self, exc: ExpressionError) -> None:
        """The message under the input, the column at fault named, the cursor where it went wrong."""
        self.error = exc
        label = self.query_one("#expression-error", Label)
        column = [("  column: ", "$foreground-muted"), (clean(exc.column), "bold")] if exc.column else []
        label.update(Content.assemble((clean(exc.message), "$error"), *column))
        label.display = True
        box = self.query_one(Input)
        box.cursor_position = min(exc.position, len(box.value))

    def action_cancel(self) -> None:
        self.dismiss(None)
