"""The answer cache: a repeated run asks the model nothing, hits are journaled, and nothing of a
call that met a transient failure is kept."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from mcp_sim.cli.main import main
from mcp_sim.errors import CacheError
from mcp_sim.journal import Journal, read_journal
from mcp_sim.models.base import CompletionRequest, Sampling
from mcp_sim.models.openai import EndpointSettings, OpenAICompatibleModel
from mcp_sim.settings import Settings
from mcp_sim.simulator.answer_cache import AnswerCache, PendingAnswer
from mcp_sim.simulator.core import CallResult, Simulator
from mcp_sim.spec.world import World
from tests.conftest import BOOKSTORE
from tests.openai_double import OpenAIDouble, Reply
from tests.scripted_model import ScriptedModel

ORDER = {"book_id": "b3", "quantity": 1, "email": "ana@example.pt", "country": "Portugal"}
ORDER_PATCH = [{"op": "add", "path": "/orders/-", "value": {"id": "ord_00001", "book_id": "b3"}}]
SEARCH = {"results": [{"id": "b3", "title": "C", "author": "L", "price": 22.9, "stock": 7}]}


def simulator(
    world: World, model: ScriptedModel, cache: AnswerCache, journal: Journal, seed: int = 7
) -> Simulator:
    return Simulator(world, model, cache=cache, journal=journal, settings=Settings.of(seed=seed))


async def run_session(sim: Simulator) -> list[CallResult]:
    return [
        await sim.call("s1", "get_book", {"book_id": "b3"}),
        await sim.call("s1", "place_order", ORDER),
        await sim.call("s1", "search_books", {"query": "rain"}),
    ]


def first_run_answers() -> list[str]:
    return [
        ScriptedModel.answer({"id": "b3", "title": "Cartographers of Rain"}),
        ScriptedModel.answer("Order ord_00001 placed.", ORDER_PATCH),
        json.dumps({**SEARCH, "total": 1}),
    ]


async def test_a_repeated_run_asks_the_model_nothing_and_the_journal_shows_hits(
    bookstore: World, tmp_path: Path
) -> None:
    cache = AnswerCache(tmp_path / "cache.sqlite", "scripted")
    first_model = ScriptedModel(*first_run_answers())
    first_journal = Journal(tmp_path / "first.jsonl")
    first = await run_session(simulator(bookstore, first_model, cache, first_journal))
    first_journal.close()
    assert len(cache) == 3

    # A model with nothing to say: any request it gets fails the call.
    second_model = ScriptedModel()
    second_journal = Journal(tmp_path / "second.jsonl")
    second_sim = simulator(bookstore, second_model, cache, second_journal)
    second = await run_session(second_sim)
    second_journal.close()

    assert second_model.requests == []
    assert [(r.text, r.structured, r.is_error) for r in second] == [
        (r.text, r.structured, r.is_error) for r in first
    ]
    assert [r.cache for r in read_journal(tmp_path / "first.jsonl")] == ["miss"] * 3
    assert [r.cache for r in read_journal(tmp_path / "second.jsonl")] == ["hit"] * 3
    # The cached write call committed the same state change without the model.
    assert second_sim.sessions.get("s1").state["orders"] == [{"id": "ord_00001", "book_id": "b3"}]


async def test_a_call_with_a_transient_failure_stores_none_of_its_answers(
    bookstore: World, tmp_path: Path
) -> None:
    cache = AnswerCache(tmp_path / "cache.sqlite", "scripted")
    journal = Journal()
    # The answer arrives without its state change, and the follow-up request for the change
    # finds the model unavailable (the script has nothing left).
    flaky = ScriptedModel(ScriptedModel.answer("Order ord_00001 placed."))
    result = await simulator(bookstore, flaky, cache, journal).call("s1", "place_order", ORDER)
    assert result.patch_status == "rejected"
    assert len(cache) == 0

    working = ScriptedModel(ScriptedModel.answer("Order ord_00001 placed.", ORDER_PATCH))
    again = await simulator(bookstore, working, cache, journal).call("s1", "place_order", ORDER)
    assert again.patch_status == "committed"
    assert len(working.requests) == 1
    assert len(cache) == 1


async def test_a_failed_model_request_is_never_cached(bookstore: World, tmp_path: Path) -> None:
    cache = AnswerCache(tmp_path / "cache.sqlite", "scripted")
    journal = Journal()
    result = await simulator(bookstore, ScriptedModel(), cache, journal).call(
        "s1", "get_book", {"book_id": "b1"}
    )
    assert result.source == "model_error"
    assert len(cache) == 0
    (record,) = journal.records("s1")
    assert record.cache == "miss"


async def test_another_seed_asks_the_model_again(bookstore: World, tmp_path: Path) -> None:
    cache = AnswerCache(tmp_path / "cache.sqlite", "scripted")
    answer = ScriptedModel.answer({"id": "b3"})
    await simulator(bookstore, ScriptedModel(answer), cache, Journal(), seed=1).call(
        "s1", "get_book", {"book_id": "b3"}
    )
    other = ScriptedModel(answer)
    await simulator(bookstore, other, cache, Journal(), seed=2).call(
        "s1", "get_book", {"book_id": "b3"}
    )
    assert len(other.requests) == 1
    assert len(cache) == 2


def test_the_key_covers_world_model_prompt_sampling_and_seed(tmp_path: Path) -> None:
    cache = AnswerCache(tmp_path / "cache.sqlite", "model-a")
    request = CompletionRequest(
        messages=[{"role": "user", "content": "x"}], sampling=Sampling(seed=1)
    )
    key = cache.key("world-1", request)
    assert cache.key("world-2", request) != key
    assert AnswerCache(tmp_path / "cache.sqlite", "model-b").key("world-1", request) != key
    assert (
        cache.key("world-1", replace(request, messages=[{"role": "user", "content": "y"}])) != key
    )
    assert cache.key("world-1", replace(request, sampling=Sampling(seed=2))) != key
    assert cache.key("world-1", replace(request, sampling=Sampling(seed=1, top_p=0.5))) != key
    assert cache.key("world-1", replace(request, response_schema={"type": "object"})) != key
    # Greedy decoding does not depend on the seed, so neither does its key.
    greedy = replace(request, sampling=Sampling(temperature=0, seed=1))
    assert cache.key("world-1", greedy) == cache.key(
        "world-1", replace(greedy, sampling=Sampling(temperature=0, seed=2))
    )


def test_a_file_that_is_not_sqlite_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite"
    path.write_text("not a database, just text long enough to have a header " * 10)
    with pytest.raises(CacheError):
        AnswerCache(path, "model")


def test_mcp_sim_call_with_a_cache_sends_no_request_the_second_time(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Through the real HTTP client against an OpenAI-compatible server: the second identical
    ``mcp-sim call`` never reaches the server."""
    cache = tmp_path / "cache.sqlite"
    journal = tmp_path / "journal.jsonl"
    with OpenAIDouble() as double:
        double.script(Reply(content=ScriptedModel.answer({"id": "b1", "title": "The Glass River"})))
        args = [
            "call",
            str(BOOKSTORE),
            "get_book",
            "--args",
            '{"book_id": "b1"}',
            "--model-url",
            double.base_url,
            "--seed",
            "3",
            "--cache",
            str(cache),
            "--journal",
            str(journal),
        ]
        assert main(args) == 0
        first = capsys.readouterr().out
        assert main(args) == 0
        second = capsys.readouterr().out
        assert len(double.completion_requests) == 1
    assert first == second
    assert [r.cache for r in read_journal(journal)] == ["miss", "hit"]


async def test_the_cache_serves_the_answer_the_endpoint_gave(tmp_path: Path) -> None:
    """What is stored is the whole completion: content, reasoning, model and token counts."""
    cache = AnswerCache(tmp_path / "cache.sqlite", "m")
    with OpenAIDouble() as double:
        double.script(Reply(content="answer", reasoning="because"))
        async with OpenAICompatibleModel(EndpointSettings([double.base_url])) as model:
            request = CompletionRequest(messages=[{"role": "user", "content": "q"}])
            completion = await model.complete(request)
    key = cache.key("w", request)
    await cache.put([PendingAnswer(key, "w", request, completion)])
    assert await cache.get(key) == completion
    assert await cache.get(cache.key("other", request)) is None
