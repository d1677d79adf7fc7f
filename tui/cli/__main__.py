"""`python -m qa_inspect.tui.cli …` is `qa-inspect …` (e.g. `python -X importtime -m qa_inspect.tui.cli --help`)."""

from __future__ import annotations

from qa_inspect.tui.cli import main

__all__: list[str] = []

main()
