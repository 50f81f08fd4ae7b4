"""The model gateway: a request's seed, its answer from the cache, and what a failed request
keeps out of the cache."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcp_sim.errors import ModelError
from mcp_sim.models.base import CompletionRequest, Sampling
from mcp_sim.runtime.session import SessionStore
from mcp_sim.simulator.answer_cache import AnswerCache
from mcp_sim.simulator.context import CallUsage
from mcp_sim.simulator.gateway import ModelGateway
from mcp_sim.simulator.metrics import Metrics
from mcp_sim.spec.world import World
from tests.scripted_model import ScriptedModel

REQUEST = CompletionRequest(messages=[{"role": "user", "content": "call"}], sampling=Sampling())


def gateway(model: ScriptedModel | None, cache: AnswerCache | None = None) -> ModelGateway:
    return ModelGateway(model, cache=cache, metrics=Metrics(), world_hash="w", seeds=True)


async def test_a_cache_hit_draws_the_seed_a_model_request_would(
    bookstore: World, tmp_path: Path
) -> None:
    model = ScriptedModel("one")
    door = gateway(model, AnswerCache(tmp_path / "answers.sqlite", "scripted"))
    store = SessionStore(bookstore)
    asked, cached = store.get("a", seed=7), store.get("b", seed=7)
    usage = CallUsage()
    await door.complete(asked, REQUEST, None, usage)
    await door.keep_answers(usage)
    again = CallUsage()
    completion = await door.complete(cached, REQUEST, None, again)
    assert completion.content == "one"
    assert (usage.cache_use, again.cache_use) == ("miss", "hit")
    assert len(model.requests) == 1 and model.requests[0].sampling.seed is not None
    assert asked.next_request_seed() == cached.next_request_seed()


async def test_a_transient_failure_keeps_every_answer_of_the_call_out_of_the_cache(
    bookstore: World, tmp_path: Path
) -> None:
    cache = AnswerCache(tmp_path / "answers.sqlite", "scripted")
    door = gateway(ScriptedModel("one"), cache)
    session = SessionStore(bookstore).get("s")
    usage = CallUsage()
    await door.complete(session, REQUEST, None, usage)
    with pytest.raises(ModelError):  # the script is out of answers: ModelUnavailable
        await door.complete(session, REQUEST, None, usage)
    assert usage.transient_failure and len(usage.to_cache) == 1
    await door.keep_answers(usage)
    assert len(cache) == 0


async def test_without_a_model_a_request_fails_and_the_session_draws_no_seed(
    bookstore: World,
) -> None:
    store = SessionStore(bookstore)
    session, untouched = store.get("a", seed=3), store.get("b", seed=3)
    with pytest.raises(ModelError, match="no world model"):
        await gateway(None).complete(session, REQUEST, None, CallUsage())
    assert session.next_request_seed() == untouched.next_request_seed()
