"""The user's config file: a theme and a keymap, and one line for anything not understood."""

from __future__ import annotations

from pathlib import Path

from qa_inspect.core.store import read_user_config, user_config_path


def test_theme_and_keymap_are_read(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('theme = "nord"\n[keymap]\n"browser.toggle-errors" = "W"\n"stale.undo" = "ctrl+z,u"\n',
                    encoding="utf-8")
    config = read_user_config(path)
    assert config.theme == "nord" and config.problems == []
    assert config.keymap == {"browser.toggle-errors": "W", "stale.undo": "ctrl+z,u"}


def test_a_missing_file_is_no_settings_and_a_bad_one_says_why(tmp_path: Path) -> None:
    assert read_user_config(tmp_path / "none.toml").problems == []
    bad = tmp_path / "bad.toml"
    bad.write_text("theme = [\n", encoding="utf-8")
    [problem] = read_user_config(bad).problems
    assert problem.startswith(f"{bad}: not read (")
    odd = tmp_path / "odd.toml"
    odd.write_text('theme = 3\ncolour = "x"\n[keymap]\n"a.b" = 1\n"c.d" = "x"\n', encoding="utf-8")
    config = read_user_config(odd)
    assert config.theme is None and config.keymap == {"c.d": "x"}
    assert [p.split(": ", 1)[1] for p in config.problems] == [
        "'theme' is not text; ignored", "keymap 'a.b' is not a key; ignored", "unknown setting 'colour'; known: theme, keymap; ignored"]


def test_the_path_follows_xdg_and_the_override(monkeypatch, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.delenv("QA_INSPECT_CONFIG")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    assert user_config_path() == tmp_path / "qa-inspect" / "config.toml"
    monkeypatch.setenv("QA_INSPECT_CONFIG", str(tmp_path / "mine.toml"))
    assert user_config_path() == tmp_path / "mine.toml"
