"""Resumable answers across workers: two ``mcp-sim serve`` workers on one episode store (SQLite,
then Redis) behind HAProxy (the shipped configuration). Clients start calls on worker 1 and drop their
streams after the priming event (as a proxy's timeout or a sleeping laptop would); some calls
are committed, others still wait for the model, when worker 1 is SIGKILLed. Each client then
resumes its stream with ``Last-Event-ID`` through the balancer, which sends it to worker 2:
every committed call's answer comes back from the store, and the journals agree with what
was recovered (a call in flight at the kill has neither answer nor step)."""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path
from typing import Any

import httpx2
import redis

from tests.e2e.test_workers import OPERATOR, worker
from tests.openai_double import OpenAIDouble, RecordedRequest, Reply
from tests.processes import free_port
from tests.scripted_model import ScriptedModel
from tests.server.test_event_store import sse_events
from tests.services import haproxy

EPISODES = 12
PROTOCOL = "2025-11-25"


def slow_or_fast(request: RecordedRequest) -> Reply:
    """A call on a ``slow-`` order waits a minute for its answer (in flight at the kill); the
    others are answered at once."""
    slow = "slow-" in json.dumps(request.body["messages"])
    return Reply(content=ScriptedModel.answer({"status": "ok"}), delay=60 if slow else 0)


def start_call(http: httpx2.Client, url: str, order: str) -> tuple[dict[str, str], str]:
    """Open a session on ``url``, start a ``get_order`` call and drop its stream after the
    priming event: the session's headers and the priming event's id."""
    headers = {"Accept": "application/json, text/event-stream"}
    initialize = {
        "protocolVersion": PROTOCOL,
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "0"},
    }
    opened = http.post(
        url,
        json={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": initialize},
        headers=headers,
    )
    headers |= {
        "Mcp-Session-Id": opened.headers["mcp-session-id"],
        "MCP-Protocol-Version": PROTOCOL,
    }
    http.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=headers)
    call = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": "get_order", "arguments": {"order_id": order}},
    }
    lines: list[str] = []
    with http.stream("POST", url, json=call, headers=headers) as stream:
        for line in stream.iter_lines():
            lines.append(line)
            if line == "" and lines[:-1]:
                break
    (priming,) = sse_events(lines)
    return headers, priming["id"]


def resume(http: httpx2.Client, url: str, headers: dict[str, str], last: str) -> Any:
    """The answer to call 2 on the resumed stream, or ``None`` when none comes back."""
    resumed = headers | {"Accept": "text/event-stream", "Last-Event-ID": last}
    deadline = time.monotonic() + 20
    while True:  # until HAProxy has seen worker 1 go
        try:
            with http.stream("GET", url, headers=resumed, timeout=5) as stream:
                if stream.status_code != 200:
                    return None
                lines = list(stream.iter_lines())
            break
        except httpx2.TransportError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)
    answers = [json.loads(e["data"]) for e in sse_events([*lines, ""]) if e.get("data")]
    return next((a for a in answers if a.get("id") == 2), None)


ANSWER = '"id":2,"result"'


def answered_events(store_url: str) -> int:
    """How many answers to call 2 the store holds."""
    if store_url.startswith("sqlite:///"):
        with sqlite3.connect(store_url.removeprefix("sqlite:///")) as db:
            query = "SELECT COUNT(*) FROM events WHERE instr(message, ?) > 0"
            (count,) = db.execute(query, (ANSWER,)).fetchone()
        return int(count)
    client = redis.Redis.from_url(store_url, decode_responses=True)
    try:
        streams = client.keys("mcp-sim:events:*")
        entries = [json.loads(e) for key in streams for e in client.lrange(key, 0, -1)]
        return sum(ANSWER in (message or "") for _, message in entries)
    finally:
        client.close()


def test_committed_answers_are_resumed_on_another_worker_after_a_sigkill(
    tmp_path: Path, store_url: str
) -> None:
    ports = [free_port(), free_port()]
    options = ("--episode-store", store_url)
    with OpenAIDouble() as model:
        model.respond_with(slow_or_fast)
        log = tmp_path / "workers.log"
        with (
            worker(ports[0], model.base_url, log, *options) as doomed,
            worker(ports[1], model.base_url, log, *options),
            haproxy(tmp_path, ports) as balancer,
            httpx2.Client(timeout=20, trust_env=False) as http,
        ):
            operator = {"Authorization": f"Bearer {OPERATOR}"}
            started = []
            for i in range(EPISODES):
                made = http.post(f"{balancer}/episodes", json={}, headers=operator).json()
                path, token = f"/episodes/{made['id']}/mcp", made["token"]
                order = f"{'slow' if i % 2 else 'fast'}-{i}"
                http.headers["Authorization"] = f"Bearer {token}"
                headers, last = start_call(http, f"http://127.0.0.1:{ports[0]}{path}", order)
                started.append((made["id"], path, token, headers, last, order))
            deadline = time.monotonic() + 30
            while answered_events(store_url) < EPISODES // 2:
                assert time.monotonic() < deadline, "the fast calls' answers were not kept"
                time.sleep(0.1)
            doomed.kill()  # SIGKILL: the slow calls are still waiting for the model
            doomed.wait()
            recovered, steps = {}, {}
            for episode_id, path, token, headers, last, order in started:
                http.headers["Authorization"] = f"Bearer {token}"
                recovered[order] = resume(http, f"{balancer}{path}", headers, last)
                # The journal is the operator's (an episode's token opens its MCP endpoint only).
                journal = http.get(f"{balancer}/episodes/{episode_id}/journal", headers=operator)
                lines = journal.text.splitlines()
                steps[order] = len(lines)
    fast = [o for o in recovered if o.startswith("fast")]
    slow = [o for o in recovered if o.startswith("slow")]
    got = [o for o in fast if recovered[o] is not None and "result" in recovered[o]]
    print(f"answers recovered on the other worker: {len(got)} of {len(fast)} committed calls")
    assert sorted(got) == sorted(fast)
    assert all(recovered[o] is None for o in slow)  # never committed: nothing to resume
    assert {o: steps[o] for o in fast} == dict.fromkeys(fast, 1)
    assert {o: steps[o] for o in slow} == dict.fromkeys(slow, 0)
