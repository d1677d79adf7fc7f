"""Shared fixtures: the real data beside the repository, the sample runs folder, and loaded
copies of it (helpers that are not fixtures are in tests/helpers.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from qa_inspect.core.load import load_runs
from tests.helpers import Env, load_template, loaded_env

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"
SAMPLE_RUNS = REPO / "sample_runs"


@pytest.fixture(autouse=True)
def no_user_config(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    """The developer's own config file (theme, keymap) never reaches a test."""
    monkeypatch.setenv("QA_INSPECT_CONFIG", str(tmp_path_factory.getbasetemp() / "no-config.toml"))


def _shared(name: str, what: str) -> Path:
    """`../shared/<name>`; the test is skipped with a visible reason when it is absent."""
    path = SHARED / name
    if not path.is_dir():
        pytest.skip(f"{what} not available: {path} is absent (it sits beside the repository)")
    return path


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """`../shared/data` (CMRC 2018 dev/trial, CDQA v1); skipped with a visible reason when absent."""
    return _shared("data", "real data")


@pytest.fixture(scope="session")
def conformance_dir() -> Path:
    """`../shared/conformance`: the official scorers' answers on known inputs."""
    return _shared("conformance", "conformance files")


@pytest.fixture(scope="session")
def sample_runs() -> Path:
    return SAMPLE_RUNS


@pytest.fixture(scope="module")
def loaded_template(tmp_path_factory: pytest.TempPathFactory, sample_runs: Path) -> Path:
    """sample_runs loaded once per test module: `runs/` and `qa.db` in a folder tests only copy
    from (`env`, `tests.helpers.copy_loaded`)."""
    return load_template(tmp_path_factory.mktemp("loaded"), sample_runs)


@pytest.fixture(scope="module")
def loaded_db(tmp_path_factory: pytest.TempPathFactory, sample_runs: Path) -> Path:
    """sample_runs loaded in place into a fresh `qa.db`, once per test module (the TUI tests show
    it with the relative runs folder `sample_runs`: `tests.helpers.app_for`)."""
    path = tmp_path_factory.mktemp("loaded-db") / "qa.db"
    summary = load_runs(sample_runs, path)
    assert not summary.errors, summary.errors
    return path


@pytest.fixture
def env(loaded_template: Path, tmp_path: Path) -> Iterator[Env]:
    """A fresh copy of the loaded sample runs in `tmp_path`, its database open."""
    with loaded_env(loaded_template, tmp_path) as e:
        yield e


@pytest.fixture
def no_author_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """No annotator name from the environment: flag authors come from the calls alone.
    Modules that want it for every test: `pytestmark = pytest.mark.usefixtures("no_author_env")`."""
    from qa_inspect.core import flags  # imported here: most test modules never touch flags

    monkeypatch.delenv(flags.AUTHOR_ENV, raising=False)
