"""The episode API as a launcher uses it: bodies checked whole (an unknown key is a 400 that
names it), episodes created and forked n at a time, a world's tasks listed, and an OpenAPI
document that describes every route and validates as OpenAPI 3.1."""

from __future__ import annotations

from typing import Any

import anyio
import httpx2
from openapi_spec_validator import validate

from mcp_sim.episodes.hub import EpisodeHub
from mcp_sim.server.episode_routes import EpisodeEndpoints
from mcp_sim.simulator.core import Simulator
from mcp_sim.spec.world import World
from tests.server.test_episode_routes import BOOKS, api_client, bearer


def books(bookstore: World) -> EpisodeHub:
    return EpisodeHub({BOOKS: Simulator(bookstore, None)})


async def refused(response: httpx2.Response) -> str:
    assert response.status_code == 400, response.text
    body: dict[str, Any] = response.json()
    assert body["error"] == "bad_request"
    message: str = body["message"]
    return message


async def test_unknown_keys_and_wrong_types_are_refused_by_name(bookstore: World) -> None:
    with anyio.fail_after(30):
        async with api_client(books(bookstore)) as http:
            typo = await refused(await http.post("/episodes", json={"taks": "x", "sed": 3}))
            made = (await http.post("/episodes", json={"task": "gift-order"})).json()
            one = f"/episodes/{made['id']}"
            reset = await refused(await http.post(f"{one}/reset", json={"sede": 1}))
            fork = await refused(await http.post(f"{one}/fork", json={"count": 2, "id": "x"}))
            verify = await refused(await http.post(f"{one}/verify", json={"tsk": "gift-order"}))
            text_seed = await refused(await http.post("/episodes", json={"seed": "3"}))
            true_seed = await refused(await http.post("/episodes", json={"seed": True}))
            too_many = await refused(await http.post("/episodes", json={"count": 5000}))
            listed = (await http.get("/episodes")).json()["episodes"]

    assert "unknown key 'taks' (did you mean 'task'?)" in typo
    assert "it takes world, id, seed, snapshot, task, count" in typo
    assert "unknown key 'sede' (did you mean 'seed'?)" in reset
    assert "'id' names one fork" in fork
    assert "unknown key 'tsk' (did you mean 'task'?)" in verify
    assert "'seed'" in text_seed and "'seed'" in true_seed
    assert "'count'" in too_many and "1024" in too_many
    assert len(listed) == 1  # nothing was created by a refused request


async def test_sixty_four_episodes_in_one_request_and_a_fork_four_ways(bookstore: World) -> None:
    with anyio.fail_after(60):
        async with api_client(books(bookstore)) as http:
            batch = await http.post(
                "/episodes", json={"count": 64, "seed": 100, "task": "gift-order"}
            )
            assert batch.status_code == 201
            made = batch.json()["episodes"]
            parent = made[0]["id"]
            forked = await http.post(f"/episodes/{parent}/fork", json={"count": 4, "seed": 7})
            assert forked.status_code == 201
            forks = forked.json()["episodes"]
            # An episode's own token is known (403 on its summary, which is the operator's,
            # not 401): it opens the episode's MCP endpoint, so each created one is usable.
            own = await http.get(f"/episodes/{made[63]['id']}", headers=bearer(made[63]["token"]))
            listed = (await http.get("/episodes")).json()["episodes"]

    assert len({e["id"] for e in made}) == 64 and len({e["token"] for e in made}) == 64
    assert [e["seed"] for e in made] == list(range(100, 164))
    assert {e["task"] for e in made} == {"gift-order"}
    assert all(e["mcp_url"].endswith(f"/episodes/{e['id']}/mcp") for e in made)
    assert [f["seed"] for f in forks] == [7, 8, 9, 10]
    assert {f["parent"] for f in forks} == {parent} and {f["task"] for f in forks} == {"gift-order"}
    assert own.status_code == 403
    assert len(listed) == 68


async def test_a_worlds_tasks_are_listed_for_the_operator(bookstore: World) -> None:
    with anyio.fail_after(30):
        async with api_client(books(bookstore)) as http:
            tasks = await http.get(f"/worlds/{BOOKS}/tasks")
            unknown = await http.get("/worlds/nowhere/tasks")
            made = (await http.post("/episodes")).json()
            as_agent = await http.get(f"/worlds/{BOOKS}/tasks", headers=bearer(made["token"]))

    assert tasks.status_code == 200
    listed = tasks.json()
    assert listed["world"] == BOOKS
    assert [t["name"] for t in listed["tasks"]] == list(bookstore.verify)
    first = listed["tasks"][0]
    assert first["description"].startswith("Order two copies") and first["checks"] > 0
    assert unknown.status_code == 404 and unknown.json()["error"] == "unknown_world"
    assert as_agent.status_code == 403


async def test_the_openapi_document_is_valid_and_describes_every_route(bookstore: World) -> None:
    hub = books(bookstore)
    with anyio.fail_after(30):
        async with api_client(hub) as http:
            document = (await http.get("/openapi.json")).json()

    validate(document)  # raises on a document that is not valid OpenAPI 3.1
    assert document["openapi"] == "3.1.0"
    served = {
        (route.path, method.lower())
        for route in EpisodeEndpoints(hub).routes()
        for method in route.methods or ()
        if method != "HEAD" and route.path != "/openapi.json"
    }
    described = {
        (path, method)
        for path, operations in document["paths"].items()
        for method in operations
        if method != "parameters"
    }
    assert described == served
    create = document["components"]["schemas"]["CreateBody"]
    assert create["additionalProperties"] is False and "count" in create["properties"]
