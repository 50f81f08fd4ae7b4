"""Shared fixtures: the repository's worlds, a writer for throwaway world files, and the
scripted world model of the state tests."""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from mcp_sim.spec.loading import load_world
from mcp_sim.spec.world import World

# The real-model fixtures (one embedded vLLM CPU server with the tiny model per test run).
from tests.real_model import real_model_name, real_model_url  # noqa: F401
from tests.scripted_model import ScriptedModel
from tests.services import redis_server

ROOT = Path(__file__).resolve().parent.parent
WORLDS = ROOT / "worlds"
BOOKSTORE = WORLDS / "bookstore.yaml"

WorldWriter = Callable[..., Path]


@pytest.fixture
def bookstore_path() -> Path:
    return BOOKSTORE


@pytest.fixture(scope="session")
def bookstore() -> World:
    """Loaded once: a World is immutable, and sessions work on copies of its state."""
    return load_world(BOOKSTORE)


@pytest.fixture
def write_world(tmp_path: Path) -> WorldWriter:
    """Write YAML text (dedented) to a file in a temporary folder and return its path."""

    def write(text: str, name: str = "world.yaml") -> Path:
        path = tmp_path / name
        path.write_text(textwrap.dedent(text), encoding="utf-8")
        return path

    return write


@pytest.fixture(scope="session")
def shop() -> World:
    """The order desk world: entities, id patterns, a clock, a state schema, an immutable path."""
    return load_world(WORLDS / "shop.yaml")


@pytest.fixture
def script() -> type[ScriptedModel]:
    """The scripted model class: ``script(answer, ...)`` builds one, ``script.answer`` formats
    a pinned answer."""
    return ScriptedModel


@pytest.fixture(params=["sqlite", "redis"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A durable episode store's URL: an SQLite file, then a real Redis (each test runs on both)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'episodes.db'}"
        return
    with redis_server(tmp_path) as url:
        yield url
