"""The expression filter: a small language over the item columns, parsed by hand into SQL.

    f1 < 0.5 and tag = "fast-changing" and label != "format"
    (category in ("wrong-span", "partial") or meta:latency >= 2.5) and not prediction ~ "抱歉"

- A comparison is `COLUMN OP VALUE`: `=` (or `==`), `!=`, `<`, `<=`, `>`, `>=`, `~` (contains),
  or `COLUMN in (V, …)` / `COLUMN not in (V, …)`. Columns are the registry's
  (`core.query.columns`): `f1`, `tag`, `label`, `category`, `meta:KEY`, `judge:NAME`,
  `answer:RUN`, …; a name with spaces goes in backticks: `` `answer:my run` ``.
- Values: numbers (`0.5`, `-1`, `2e3`), "strings" or 'strings' (backslash escapes a quote), `null`.
- A string compares the folded text (case, spaces and line breaks folded, as the frequency table
  groups values); a number compares the stored value. On the label column `=` means "has this
  label". A missing value is never `=`, `<`, `~` anything and always `!=`; `= null` asks for it.
- `and` binds tighter than `or`; `not` negates; parentheses group. Keywords in any case.

Every value reaches SQLite as a parameter and every column through the registry: nothing of the
text is ever evaluated. Errors are `ExpressionError`: a message, the offset, the column at fault.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from qa_inspect.core.errors import QAInspectError

from .columns import LABELS, ColumnDef, column_def, fold_sql

__all__ = ["MAX_DEPTH", "MAX_LENGTH", "Compare", "ExpressionError", "Logic", "Not", "and_clause", "clause",
           "expression_sql", "literal", "parse"]

MAX_LENGTH = 4000
"""Longest expression accepted (characters): a reader bounded in time and memory."""
MAX_DEPTH = 40
"""Deepest nesting of parentheses and `not` accepted."""
OPERATORS = ("==", "!=", "<=", ">=", "=", "<", ">", "~")


class ExpressionError(QAInspectError, ValueError):
    """An expression that cannot be read: what is wrong, where (0-based offset), which column."""

    def __init__(self, message: str, position: int, column: str | None = None) -> None:
        self.message = message
        self.position = position
        self.column = column
        super().__init__(f"expression, at character {position + 1}: {message}")


Value = float | int | str | None


@dataclass(frozen=True, slots=True)
class Compare:
    column: str
    op: str
    values: tuple[Value, ...]
    position: int


@dataclass(frozen=True, slots=True)
class Logic:
    op: str  # "and" | "or"
    parts: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class Not:
    part: Node


Node = Compare | Logic | Not

_TOKEN = re.compile(r"""
    (?P<space>\s+)
  | (?P<number>-?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)
  | (?P<string>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')
  | (?P<quoted>`[^`]*`)
  | (?P<op>==|!=|<=|>=|=|<|>|~|\(|\)|,)
  | (?P<name>[^\W\d][\w:.\-]*)
""", re.VERBOSE)


@dataclass(frozen=True, slots=True)
class _Tok:
    kind: str
    text: str
    value: Any
    position: int


def _tokens(text: str) -> list[_Tok]:
    out: list[_Tok] = []
    at = 0
    while at < len(text):
        m = _TOKEN.match(text, at)
        if m is None:
            raise ExpressionError(f"unexpected {text[at]!r}", at)
        kind = m.lastgroup or ""
        raw = m.group()
        if kind == "number":
            value: Any = float(raw) if any(c in raw for c in ".eE") else int(raw)
        elif kind == "string":
            value = re.sub(r"\\(.)", r"\1", raw[1:-1], flags=re.DOTALL)
        elif kind == "quoted":
            kind, value = "name", raw[1:-1]
        else:
            value = raw
        if kind == "name" and raw.lower() in ("and", "or", "not", "in", "null") and not raw.startswith("`"):
            kind = raw.lower()
        if kind != "space":
            out.append(_Tok(kind, raw, value, at))
        at = m.end()
    out.append(_Tok("end", "", None, len(text)))
    return out


class _Parser:
    """Recursive descent over the tokens: or → and → not → comparison | ( or )."""

    def __init__(self, text: str) -> None:
        self.toks = _tokens(text)
        self.at = 0
        self.depth = 0

    def peek(self) -> _Tok:
        return self.toks[self.at]

    def take(self, kind: str | None = None, what: str = "") -> _Tok:
        tok = self.toks[self.at]
        if kind is not None and tok.kind != kind and not (kind == "op" and tok.text == what):
            found = "the end" if tok.kind == "end" else repr(tok.text)
            raise ExpressionError(f"expected {what or kind}, found {found}", tok.position)
        if kind == "op" and what and tok.text != what:
            raise ExpressionError(f"expected {what!r}, found {tok.text!r}", tok.position)
        self.at += 1
        return tok

    def parse(self) -> Node:
        node = self.or_()
        tok = self.peek()
        if tok.kind != "end":
            raise ExpressionError(f"expected and, or or the end, found {tok.text!r}", tok.position)
        return node

    def or_(self) -> Node:
        parts = [self.and_()]
        while self.peek().kind == "or":
            self.take()
            parts.append(self.and_())
        return parts[0] if len(parts) == 1 else Logic("or", tuple(parts))

    def and_(self) -> Node:
        parts = [self.not_()]
        while self.peek().kind == "and":
            self.take()
            parts.append(self.not_())
        return parts[0] if len(parts) == 1 else Logic("and", tuple(parts))

    def not_(self) -> Node:
        tok = self.peek()
        if tok.kind == "not" or tok.text == "(":
            self.depth += 1
            if self.depth > MAX_DEPTH:
                raise ExpressionError(f"nested deeper than {MAX_DEPTH}", tok.position)
            self.take()
            node: Node = Not(self.not_()) if tok.kind == "not" else self._group()
            self.depth -= 1
            return node
        return self.compare()

    def _group(self) -> Node:
        node = self.or_()
        self.take("op", ")")
        return node

    def compare(self) -> Compare:
        tok = self.take("name", "a column name")
        column = str(tok.value)
        nxt = self.peek()
        if nxt.kind in ("in", "not"):
            negated = nxt.kind == "not"
            self.take()
            if negated:
                self.take("in", "in")
            return Compare(column, "not in" if negated else "in", self.value_list(column), tok.position)
        if nxt.kind != "op" or nxt.text not in OPERATORS:
            found = "the end" if nxt.kind == "end" else repr(nxt.text)
            raise ExpressionError(f"expected a comparison (= != < <= > >= ~ in) after {column}, found {found}",
                                  nxt.position, column)
        self.take()
        return Compare(column, "=" if nxt.text == "==" else nxt.text, (self.value(column),), tok.position)

    def value(self, column: str) -> Value:
        tok = self.peek()
        if tok.kind in ("number", "string", "null"):
            self.take()
            return tok.value if tok.kind != "null" else None
        found = "the end" if tok.kind == "end" else repr(tok.text)
        raise ExpressionError(f"expected a number, a \"string\" or null, found {found}", tok.position, column)

    def value_list(self, column: str) -> tuple[Value, ...]:
        self.take("op", "(")
        values = [self.value(column)]
        while self.peek().text == ",":
            self.take()
            values.append(self.value(column))
        self.take("op", ")")
        return tuple(values)


def parse(text: str) -> Node:
    """The expression's tree; `ExpressionError` for anything that is not one."""
    if len(text) > MAX_LENGTH:
        raise ExpressionError(f"longer than {MAX_LENGTH} characters", MAX_LENGTH)
    if not text.strip():
        raise ExpressionError("empty expression", 0)
    return _Parser(text).parse()


def expression_sql(text: str, params: list[Any], run: str | None = None) -> str:
    """SQL condition of the expression over the filter joins (items i, run A's predictions p);
    its parameters are appended to `params`. Unknown columns are `ExpressionError`s naming them.
    `run`: run A's name, which lets a comparison on labels or verdicts look at the few items that
    have one (the same rows, without computing the value for every item)."""
    own: list[Any] = []
    sql = _sql(parse(text), own, run)
    params.extend(own)
    return sql


def _sql(node: Node, params: list[Any], run: str | None) -> str:
    if isinstance(node, Logic):
        return "(" + f" {node.op.upper()} ".join(_sql(p, params, run) for p in node.parts) + ")"
    if isinstance(node, Not):
        return f"(NOT {_sql(node.part, params, run)})"
    try:
        col = column_def(node.column)
    except ValueError as exc:
        raise ExpressionError(str(exc), node.position, node.column) from None
    return _compare_sql(col, node, params, run)


def _having(col: ColumnDef, run: str | None, params: list[Any], test: Callable[[list[Any]], str]) -> str:
    """`test` (false for a missing value); on a sparse column (`ColumnDef.sparse`) first limited to
    the items that may have a value, an uncorrelated set SQLite reads once."""
    if not (col.sparse and run):
        return test(params)
    params.extend([run, *col.sparse_params])
    return f"({col.sparse} AND {test(params)})"


def _compare_sql(col: ColumnDef, node: Compare, params: list[Any], run: str | None) -> str:
    """One comparison, always 0 or 1 (never NULL), so `not` and `or` read two-valued."""
    op, values = node.op, node.values
    if op in ("in", "not in"):
        inner = " OR ".join(_equal(col, v, params, run) for v in values)
        return f"(NOT ({inner}))" if op == "not in" else f"({inner})"
    value = values[0]
    if op in ("=", "!="):
        eq = _equal(col, value, params, run)
        return f"(NOT {eq})" if op == "!=" else eq
    if value is None:
        raise ExpressionError(f"null compares only with = and != ({node.column} {op} null)", node.position,
                              node.column)

    def test(ps: list[Any]) -> str:
        expr = col.value_sql(ps)
        if op == "~":
            ps.append(str(value))
            return f"COALESCE(instr({fold_sql(expr)}, {fold_sql('?')}) > 0, 0)"
        ps.append(value)
        if isinstance(value, str):
            return f"COALESCE({fold_sql(expr)} {op} {fold_sql('?')}, 0)"
        return f"COALESCE({expr} {op} ?, 0)"

    return _having(col, run, params, test)


def _equal(col: ColumnDef, value: Value, params: list[Any], run: str | None) -> str:
    """`column = value`, 0/1: null asks for a missing value, a string the folded text (a label
    among the labels), a number the stored value."""
    if value is None:
        return f"({col.value_sql(params)} IS NULL)"

    def test(ps: list[Any]) -> str:
        expr = col.value_sql(ps)
        ps.append(value)
        if isinstance(value, str):
            if col.kind == LABELS:
                return f"COALESCE(instr(', ' || {fold_sql(expr)} || ', ', ', ' || {fold_sql('?')} || ', ') > 0, 0)"
            return f"COALESCE({fold_sql(expr)} = {fold_sql('?')}, 0)"
        return f"COALESCE({expr} = ?, 0)"

    return _having(col, run, params, test)


def literal(value: Value) -> str:
    """`value` written as the language reads it back (a string quoted, its quotes escaped)."""
    if value is None:
        return "null"
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return repr(value)
    return '"' + str(value).replace("\\", "\\\\").replace('"', '\\"') + '"'


def clause(column: str, value: Value) -> str:
    """`column = value` as an expression (the frequency table's Enter); odd names in backticks."""
    name = column if re.fullmatch(r"[^\W\d][\w:.\-]*", column) and "`" not in column else f"`{column}`"
    return f"{name} = {literal(value)}"


def and_clause(expression: str, extra: str) -> str:
    """`expression and extra`, each in parentheses when it holds an `or` (so it stays one clause)."""
    parts = [p.strip() for p in (expression, extra) if p.strip()]
    return " and ".join(f"({p})" if re.search(r"\bor\b", p, re.IGNORECASE) else p for p in parts)
