"""The user's own configuration file: a default theme and key bindings, for every runs folder.

`$XDG_CONFIG_HOME/qa-inspect/config.toml` (else `~/.config/qa-inspect/config.toml`), written by
hand, never by the tool:

    theme = "nord"                      # the theme the app starts in (the palette changes it)

    [keymap]                            # binding id = key(s), as the help screen lists them
    "browser.toggle-errors" = "W"
    "stale.undo" = "ctrl+z,u"

A file that cannot be read is one message (the app shows it) and changes nothing.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from qa_inspect.core.errors import unknown_name

__all__ = ["CONFIG_ENV", "UserConfig", "read_user_config", "user_config_path"]

CONFIG_ENV = "QA_INSPECT_CONFIG"
"""A config file to use instead of the one in the user's config folder."""
_SETTINGS = ("theme", "keymap")
"""The keys a config file may hold."""


@dataclass(frozen=True, slots=True)
class UserConfig:
    theme: str | None = None
    keymap: dict[str, str] = field(default_factory=dict)
    """Binding id → key(s), comma-separated (Textual's keymap)."""
    problems: list[str] = field(default_factory=list)
    """One line per thing in the file that was not understood (and left out)."""


def user_config_path() -> Path:
    if os.environ.get(CONFIG_ENV):
        return Path(os.environ[CONFIG_ENV])
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "qa-inspect" / "config.toml"


def read_user_config(path: Path | None = None) -> UserConfig:
    """The config file's settings; a missing file is no settings, a bad one says why in `problems`."""
    path = path or user_config_path()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return UserConfig()
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError, ValueError) as exc:
        return UserConfig(problems=[f"{path}: not read ({exc})"])
    problems: list[str] = []
    theme = data.get("theme")
    if theme is not None and not isinstance(theme, str):
        problems.append(f"{path}: 'theme' is not text; ignored")
        theme = None
    keymap: dict[str, str] = {}
    raw = data.get("keymap", {})
    if not isinstance(raw, dict):
        problems.append(f"{path}: [keymap] is not a table; ignored")
        raw = {}
    for binding_id, keys in raw.items():
        if isinstance(keys, str) and keys.strip():
            keymap[binding_id] = keys
        else:
            problems.append(f"{path}: keymap {binding_id!r} is not a key; ignored")
    for key in sorted(set(data) - set(_SETTINGS)):
        problems.append(f"{path}: {unknown_name('setting', key, _SETTINGS)}; ignored")
    return UserConfig(theme, keymap, problems)
