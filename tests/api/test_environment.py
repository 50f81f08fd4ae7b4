"""The base of the TRL environment classes: its world named by example or embedded, one rule
for the task of a row with or without a task column, async tools awaited from another event
loop (TRL's), and a None reward (which TRL masks) when the world model failed a call. The
stand-in model (``stub:``) answers, so no test here needs a network."""

from __future__ import annotations

import asyncio
from typing import Any, ClassVar

import pytest

from mcp_sim.api.environment import EpisodeEnvironment
from tests.conftest import BOOKSTORE

ORDER: dict[str, Any] = {
    "book_id": "b1",
    "quantity": 2,
    "email": "ana@example.pt",
    "country": "Portugal",
}
GIFT_ORDER = (
    "Order two copies of The Glass River for ana@example.pt, shipped to Portugal. Do not try to "
    "order a book that is out of stock."
)


class Books(EpisodeEnvironment):
    world_example: ClassVar[str | None] = "bookstore"
    model_url: ClassVar[str | None] = "stub:"

    async def place_order(self, book_id: str, quantity: int, email: str, country: str) -> str:
        return await self._call(
            "place_order",
            {"book_id": book_id, "quantity": quantity, "email": email, "country": country},
        )


class EmbeddedBooks(Books):
    world_example = None
    world_yaml = BOOKSTORE.read_text(encoding="utf-8")


class DownBooks(Books):
    """The bookstore with its world model down: nothing listens on the discard port."""

    model_url = "http://127.0.0.1:9/v1"


class NoTasks(EpisodeEnvironment):
    world_yaml = BOOKSTORE.read_text(encoding="utf-8").split("\nverify:")[0] + "\n"
    model_url: ClassVar[str | None] = "stub:"


def test_a_row_with_a_task_is_scored_on_it_and_its_prompt_is_not_repeated() -> None:
    env = Books()
    prompt = [{"role": "user", "content": GIFT_ORDER}]
    assert env.reset(prompt=prompt, task="gift-order", seed=1) is None
    assert env.reset(task="gift-order") == GIFT_ORDER  # no prompt: the task's description
    asyncio.run(env.place_order(**ORDER))
    assert env.get_reward() == pytest.approx(0.6)  # ordered, without searching first
    with pytest.raises(ValueError, match="no task 'gift' in the world"):
        env.reset(task="gift")


def test_a_suite_row_opens_its_world_and_a_row_of_another_world_is_refused() -> None:
    env = Books()
    assert env.reset(world="paperlane-books", task="gift-order") == GIFT_ORDER
    with pytest.raises(ValueError, match="the row is of world 'shop'"):
        env.reset(world="shop", task="gift-order")


def test_a_row_without_a_task_is_scored_on_one_chosen_by_its_prompt() -> None:
    rows = [{"prompt": [{"role": "user", "content": f"Help customer {i}."}]} for i in range(12)]
    chosen = []
    for row in rows:
        first, second = Books(), Books()
        said = first.reset(**row)
        assert said is not None and second.reset(**row) == said  # one task for the group
        assert isinstance(first.get_reward(), float)
        chosen.append(said)
    assert set(chosen) == {
        GIFT_ORDER,
        "A customer asks for Cartographers of Rain shipped to Antarctica.",
    }


class FileBooks(Books):
    world_example = None
    world_file = str(BOOKSTORE)


class Nowhere(EpisodeEnvironment):
    """Names no world."""


@pytest.mark.parametrize("kind", [EmbeddedBooks, FileBooks])
def test_an_embedded_or_filed_world_runs_as_the_example_does(kind: type[Books]) -> None:
    env = kind()
    assert env.reset(task="no-antarctica") is not None
    assert env.get_reward() is not None
    with pytest.raises(TypeError, match="Nowhere names no world"):
        Nowhere()


def test_async_tools_are_awaited_from_another_loop() -> None:
    envs = [Books() for _ in range(4)]
    for seed, env in enumerate(envs):
        env.reset(task="gift-order", seed=seed)

    async def rollouts() -> list[str]:
        return await asyncio.gather(*(env.place_order(**ORDER) for env in envs))

    answers = asyncio.run(rollouts())
    # The stand-in answers a free-text call with the state's records its arguments name.
    assert all("The Glass River" in answer for answer in answers), answers


def test_an_outage_gives_no_reward_and_a_world_without_tasks_none_to_give() -> None:
    down = DownBooks()
    down.reset(task="gift-order")
    assert "could not simulate place_order" in asyncio.run(down.place_order(**ORDER))
    assert down.get_reward() is None
    untasked = NoTasks()
    assert untasked.reset(prompt="anything") is None
    assert untasked.get_reward() is None
