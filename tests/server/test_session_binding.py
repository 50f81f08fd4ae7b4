"""A transport session (``Mcp-Session-Id``) belongs to the credential that opened it: another
episode's token, or the operator's, can neither use it nor end it."""

from __future__ import annotations

from typing import Any

import anyio
import httpx2

from mcp_sim.episodes.hub import EpisodeHub
from mcp_sim.simulator.core import Simulator
from mcp_sim.spec.world import World
from tests.scripted_model import ScriptedModel
from tests.server.test_episode_routes import OPERATOR, SHOP, bearer, serving

ACCEPT = {"Accept": "application/json, text/event-stream"}
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "probe", "version": "1"},
    },
}
PING = {"jsonrpc": "2.0", "id": 2, "method": "ping"}


async def opened(http: httpx2.AsyncClient, url: str, token: str) -> str:
    """A new transport session on ``url`` opened with ``token``: its id."""
    made = await http.post(url, json=INITIALIZE, headers={**bearer(token), **ACCEPT})
    assert made.status_code == 200, made.text
    return str(made.headers["mcp-session-id"])


def on(session: str, token: str) -> dict[str, Any]:
    return {**bearer(token), **ACCEPT, "Mcp-Session-Id": session}


async def test_a_token_cannot_use_or_end_another_credentials_session(shop: World) -> None:
    hub = EpisodeHub({SHOP: Simulator(shop, ScriptedModel())})
    with anyio.fail_after(30):
        async with (
            serving(hub, auth_token=OPERATOR) as base,
            httpx2.AsyncClient(base_url=base, headers=bearer(OPERATOR)) as http,
        ):
            a = (await http.post("/episodes", json={"world": SHOP})).json()
            b = (await http.post("/episodes", json={"world": SHOP})).json()
            a_url, b_url = f"/episodes/{a['id']}/mcp", f"/episodes/{b['id']}/mcp"
            b_session = await opened(http, b_url, b["token"])
            shared = await opened(http, "/mcp", OPERATOR)

            # A's token on A's URL with B's session: as if the session did not exist.
            assert (
                await http.post(a_url, json=PING, headers=on(b_session, a["token"]))
            ).status_code == 404
            assert (await http.delete(a_url, headers=on(b_session, a["token"]))).status_code == 404
            # The operator's token is another credential too, and an episode's token cannot
            # reach the operator's shared session at all.
            assert (await http.delete("/mcp", headers=on(b_session, OPERATOR))).status_code == 404
            assert (await http.delete(a_url, headers=on(shared, a["token"]))).status_code == 404
            assert (await http.delete("/mcp", headers=on(shared, a["token"]))).status_code == 403

            # Both sessions are still there for their owners.
            pong = await http.post(b_url, json=PING, headers=on(b_session, b["token"]))
            assert pong.status_code == 200 and '"result"' in pong.text
            assert (await http.delete(b_url, headers=on(b_session, b["token"]))).status_code == 200
            assert (
                await http.post(b_url, json=PING, headers=on(b_session, b["token"]))
            ).status_code == 404
            pong = await http.post("/mcp", json=PING, headers=on(shared, OPERATOR))
            assert pong.status_code == 200 and '"result"' in pong.text
