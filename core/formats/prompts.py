"""Prompts as frameworks log them: flattening chat messages, and finding the question inside.

LLM evaluation frameworks log the full prompt, not the dataset's question. To match a prediction to
its item by question text, readers extract the question from the prompt here; the loader falls
back to searching every dataset question inside the prompt (`core.discover.match_in_prompts`)
for the predictions this extraction gets wrong, so the extraction may be plain and predictable:

1. the last question marker (`问题：`, `问：`, `题目：`, `Question:`, `Q:`; ASCII or full-width
   colon) that is followed by text: the text after it up to the end of its line or to an answer
   marker on the same line (`答案：`, `答：`, `Answer:`, `A:`); a marker at the end of its line
   ("请回答下面的问题：") takes the next non-empty line;
2. else the last non-empty line that is not only an answer cue, with a trailing cue cut off.

Few-shot prompts repeat the markers for each example; taking the last one picks the question asked.
"""

from __future__ import annotations

import json
import re
import unicodedata
from typing import Any

__all__ = ["USER_ROLES", "extract_question", "message_text", "normalise_text", "prompt_text", "shown_prompt"]

_QUESTION = re.compile(r"(?:问题|题目|问|(?<![A-Za-z])Question|(?<![A-Za-z])Q)[ \t\u3000]*[:：]", re.I)
_ANSWER = re.compile(r"(?:答案|回答|答|(?<![A-Za-z])Answer|(?<![A-Za-z])A)[ \t\u3000]*[:：]", re.I)
_ANSWER_ONLY = re.compile(r"^\s*(?:答案|回答|答|Answer|A)\s*[:：]?\s*$", re.I)
_QUOTES = {"“": "”", '"': '"', "「": "」", "'": "'"}
_SPACE = re.compile(r"\s+")

USER_ROLES = frozenset({"user", "human", "HUMAN"})


def message_text(content: Any) -> str | None:
    """Text of one chat message's content: a string, or a list of parts (`{type: text, text}`)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts: list[str] = [
            p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str)
        ]
        parts += [p for p in content if isinstance(p, str)]
        return "\n".join(parts) if parts else None
    return None


def prompt_text(prompt: Any) -> str | None:
    """The text a question is looked for in: a string as is; for a chat (list of messages with
    `role` and `content`/`prompt`), the last user turn; None when there is no text at all."""
    if isinstance(prompt, str):
        return prompt
    if not isinstance(prompt, list):
        return None
    texts: list[tuple[str, str]] = []
    for message in prompt:
        if isinstance(message, str):
            texts.append(("user", message))
        elif isinstance(message, dict):
            role = str(message.get("role", "user"))
            text = message_text(message.get("content", message.get("prompt")))
            if text is not None:
                texts.append((role, text))
    users = [text for role, text in texts if role in USER_ROLES or role.lower() in USER_ROLES]
    if users:
        return users[-1]
    return texts[-1][1] if texts else None


def shown_prompt(prompt: Any) -> str | None:
    """The whole prompt as one string for display (chats as `role: text` lines)."""
    if isinstance(prompt, str):
        return prompt
    if isinstance(prompt, list):
        lines = []
        for message in prompt:
            if isinstance(message, dict):
                text = message_text(message.get("content", message.get("prompt")))
                lines.append(f"{message.get('role', '?')}: {text if text is not None else json.dumps(message, ensure_ascii=False)}")
            else:
                lines.append(str(message))
        return "\n".join(lines)
    return None


def extract_question(prompt: str) -> str | None:
    """The question asked in `prompt` (see the module docstring), stripped; None when empty."""
    text = prompt.replace("\r\n", "\n")
    for match in reversed(list(_QUESTION.finditer(text))):
        question = _after_marker(text, match.end())
        if question:
            return question
    lines = [line for line in text.split("\n") if line.strip() and not _ANSWER_ONLY.match(line)]
    if not lines:
        return None
    return _clean(_cut_answer(lines[-1])) or None


def _after_marker(text: str, start: int) -> str | None:
    rest = text[start:]
    line, _, below = rest.partition("\n")
    if not line.strip():
        # "请回答下面的问题：\n<question>": the question is on the next non-empty line
        nxt = next((ln for ln in below.split("\n") if ln.strip()), "")
        if _QUESTION.match(nxt.strip()) or _ANSWER_ONLY.match(nxt):
            return None
        line = nxt
    return _clean(_cut_answer(line)) or None


def _cut_answer(line: str) -> str:
    answer = _ANSWER.search(line)
    return line[: answer.start()] if answer is not None and answer.start() > 0 else line


def _clean(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and _QUOTES.get(text[0]) == text[-1]:
        text = text[1:-1].strip()
    return text


def normalise_text(text: str) -> str:
    """NFKC with whitespace runs collapsed: how prompts and questions are compared by substring."""
    return _SPACE.sub(" ", unicodedata.normalize("NFKC", text)).strip()
