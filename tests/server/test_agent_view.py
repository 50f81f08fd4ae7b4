"""The line between the agent and the operator: with an episode's token, everything the
agent can reach (its MCP endpoint through the SDK's client, every route of the HTTP app)
is searched for the world's secrets, and none is there; the operator reads them all."""

from __future__ import annotations

import json
from typing import Any

import anyio
import httpx2
from mcp import MCPError

from mcp_sim.episodes.hub import EpisodeHub
from mcp_sim.simulator.core import Simulator
from mcp_sim.spec.loading import parse_world
from tests.server.test_episode_routes import OPERATOR, bearer, mcp_client, serving

VAULT = """
world: vault-desk
title: Vault desk
description: The account desk of a small bank.
state:
  accounts:
    - {id: acc-1, owner: SECRET-STATE-OWNER, pin: SECRET-STATE-PIN}
tools:
  - name: lookup
    description: Look up an account by id.
    input_schema: {type: object, properties: {id: {type: string}}, required: [id]}
    effect: read
  - name: close
    description: Close an account.
    input_schema: {type: object, properties: {id: {type: string}}, required: [id]}
    effect: write
fixtures:
  - {when: {tool: lookup, arguments: {id: acc-1}}, result: account acc-1 is open}
  - {when: {tool: lookup, arguments: {id: acc-9}}, result: SECRET-FIXTURE-ANSWER}
perturbations:
  secret-plan:
    - {kind: error, message: SECRET-PERTURBATION-MESSAGE, verbatim: true, tools: [close]}
reference_answers:
  - question: SECRET-REFERENCE-QUESTION?
    answer: SECRET-REFERENCE-ANSWER
episode: {max_steps: 3, reward: every_step}
verify:
  audit:
    description: Check that account acc-1 is open.
    checks:
      - name: SECRET-CHECK-NAME looked it up
        called: {tool: lookup, arguments: {id: acc-1}}
      - name: SECRET-CHECK-PIN kept
        requires: [SECRET-CHECK-NAME looked it up]
        state: /accounts/0/pin
        equals: SECRET-STATE-PIN
      - name: SECRET-CHECK-RUBRIC
        rubric: SECRET-RUBRIC-TEXT the agent reports the account open.
"""
"""A world whose every operator-only part carries ``SECRET-``: its hidden state, a fixture
the agent never calls, a perturbation plan, a reference answer, its task's checks and rubric.
What the agent may read (tools, their answers, the task's description) carries none."""

SECRET = "SECRET-"


def vault_hub() -> EpisodeHub:
    world = parse_world(VAULT)
    return EpisodeHub({world.world: Simulator(world, None)})


async def everything_the_agent_sees(url: str, token: str) -> list[str]:
    """Each list, read, call and error the agent's MCP client gets, as text."""
    seen: list[str] = []
    async with mcp_client(url, token) as client:
        seen.append((await client.list_tools()).model_dump_json())
        listed = await client.list_resources()
        seen.append(listed.model_dump_json())
        seen.append((await client.list_resource_templates()).model_dump_json())
        seen.append((await client.list_prompts()).model_dump_json())
        uris = [str(r.uri) for r in listed.resources]
        operator_uris = ["sim://world", "sim://session/state", "sim://session/journal"]
        for uri in [*uris, *operator_uris, "sim://session/consistency"]:
            try:
                seen.append((await client.read_resource(uri)).model_dump_json())
            except MCPError as exc:
                seen.append(f"{uri}: {exc.code} {exc}")
        answered = await client.call_tool("lookup", {"id": "acc-1"})
        # A fixture answers it: where an answer came from is the operator's to know.
        assert not [k for k in answered.meta or {} if k.startswith("mcp-sim/")], answered.meta
        seen.append(answered.model_dump_json())
        for control in ("sim_state", "sim_journal", "sim_snapshot"):
            try:
                seen.append((await client.call_tool(control, {})).model_dump_json())
            except MCPError as exc:
                seen.append(f"{control}: {exc.code} {exc}")
    return seen


async def every_route(base: str, episode: str, token: str) -> dict[str, httpx2.Response]:
    one = f"/episodes/{episode}"
    routes = [("GET", one), ("GET", one + "/state"), ("GET", one + "/journal")]
    routes += [("POST", one + p) for p in ("/verify", "/snapshot", "/fork", "/reset")]
    routes += [("GET", "/episodes"), ("GET", "/metrics"), ("GET", "/control/metrics")]
    routes += [("GET", "/mcp"), ("GET", "/ui/api/overview"), ("DELETE", one)]
    async with httpx2.AsyncClient(base_url=base, headers=bearer(token)) as http:
        return {f"{m} {p}": await http.request(m, p) for m, p in routes}


async def test_an_episode_token_reaches_nothing_of_the_operators() -> None:
    # The server offers the operator's resources and control tools on its shared
    # endpoints; an episode's route still gets neither.
    options: dict[str, Any] = {"control_tools": True, "operator_resources": True}
    with anyio.fail_after(60):
        async with (
            serving(vault_hub(), auth_token=OPERATOR, **options) as base,
            httpx2.AsyncClient(base_url=base, headers=bearer(OPERATOR)) as http,
        ):
            made = (await http.post("/episodes", json={"task": "audit"})).json()
            seen = await everything_the_agent_sees(made["mcp_url"], made["token"])
            routes = await every_route(base, made["id"], made["token"])
            operator = [
                (await http.get(f"/episodes/{made['id']}/state")).text,
                (await http.post(f"/episodes/{made['id']}/verify")).text,
            ]
            async with mcp_client(f"{base}/mcp", OPERATOR) as designer:
                world = await designer.read_resource("sim://world")
    assert "account acc-1 is open" in seen[-4] and json.loads(seen[1])["resources"] == []
    assert all("sim_" not in text for text in seen[:1])
    leaks = [text for text in seen if SECRET in text]
    assert leaks == []
    assert {name: r.status_code for name, r in routes.items() if r.status_code != 403} == {}
    assert not any(SECRET in r.text for r in routes.values())
    # The same secrets are there for the operator: the search above could find them.
    assert "SECRET-STATE-PIN" in operator[0] and "SECRET-CHECK-NAME" in operator[1]
    shown = world.model_dump_json()
    for part in ("FIXTURE-ANSWER", "PERTURBATION-MESSAGE", "REFERENCE-ANSWER", "RUBRIC-TEXT"):
        assert SECRET + part in shown
