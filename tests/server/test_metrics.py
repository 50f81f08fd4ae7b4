"""Metrics: what a known sequence of calls leaves in /control/metrics and /metrics."""

from __future__ import annotations

import json
import math
from typing import Any

import anyio
import httpx2
import pytest
from prometheus_client.parser import text_string_to_metric_families

from mcp_sim.api.worlds import Worlds
from mcp_sim.errors import ModelTimeout
from mcp_sim.models.base import Completion, CompletionRequest, ProgressCallback
from mcp_sim.server.control_tools import ControlTools
from mcp_sim.server.hosting import HostingOptions, hosting_app
from mcp_sim.server.mcp_front import build_server
from mcp_sim.settings import Settings
from mcp_sim.simulator.core import Simulator, UnknownTool
from mcp_sim.simulator.metrics import Latencies, Metrics, error_kind
from mcp_sim.simulator.prometheus_text import CONTENT_TYPE, prometheus_text
from mcp_sim.spec.world import World

TOKEN = "metrics-token"
ORDER_1 = {
    "id": "ord_00001",
    "customer": "kari@example.no",
    "sku": "p-bag10",
    "quantity": 1,
    "status": "shipped",
    "created_at": "2026-02-27T10:00:00Z",
}
CANCEL = [{"op": "replace", "path": "/orders/0/status", "value": "cancelled"}]
BAD_PATCH = [{"op": "replace", "path": "/shop/currency", "value": "EUR"}]


def model_answers(script: Any) -> list[str]:
    return [
        script.answer(ORDER_1),
        script.answer("cancelled", CANCEL),
        script.answer("currency changed", BAD_PATCH),
        json.dumps({"patch": BAD_PATCH}),
    ]


async def known_sequence(shop: World, script: Any) -> tuple[Simulator, Any]:
    """Six calls over two sessions: three answered by the model (one of them with a refused
    state change), one with bad arguments, one whose model request fails, one unknown tool."""
    model = script(*model_answers(script))
    simulator = Simulator(shop, model)
    await simulator.call("a", "get_order", {"order_id": "ord_00001"})
    await simulator.call("a", "update_order", {"order_id": "ord_00001", "status": "cancelled"})
    await simulator.call("b", "update_order", {"order_id": "ord_00001", "status": "packed"})
    await simulator.call("b", "get_order", {})
    await simulator.call("b", "get_order", {"order_id": "ord_00001"})
    with pytest.raises(UnknownTool):
        await simulator.call("b", "no_such_tool", {})
    return simulator, model


async def test_metrics_count_a_known_sequence_of_calls(shop: World, script: Any) -> None:
    simulator, model = await known_sequence(shop, script)
    report = simulator.metrics.report(simulator.sessions)

    assert report["sessions"] == {"live": 2, "started": 2, "expired": 0, "busy": 0, "queued": 0}
    calls = report["calls"]
    assert calls["total"] == 5
    assert calls["by_source"] == {"model": 3, "model_error": 1, "validation": 1}
    assert calls["by_tool"] == {"get_order": 3, "update_order": 2}
    assert calls["latency"]["count"] == 5 and calls["latency"]["window"] == 5
    assert (
        0 < calls["latency"]["p50_ms"] <= calls["latency"]["p90_ms"] <= calls["latency"]["p99_ms"]
    )
    assert report["errors"] == {
        "total": 3,
        "by_kind": {"invalid_arguments": 1, "model_unavailable": 1, "unknown_tool": 1},
    }
    assert report["state"] == {"patches_rejected": 1, "violations": 0}
    assert report["cache"] == {"hits": 0, "misses": 0}

    sent = model.requests
    assert len(sent) == 5  # get, update, refused update and its follow-up, failed get
    answered = sent[:-1]  # the last request found the script empty
    prompt = sum(sum(len(m["content"]) for m in r.messages) // 4 for r in answered)
    completion = sum(len(answer) // 4 for answer in model_answers(script))
    model_figures = report["model"]
    assert model_figures["requests"] == 5 and model_figures["failed"] == 1
    assert model_figures["prompt_tokens"] == prompt
    assert model_figures["completion_tokens"] == completion
    assert model_figures["latency"]["count"] == 5


async def test_prometheus_text_carries_the_same_figures(shop: World, script: Any) -> None:
    simulator, _ = await known_sequence(shop, script)
    report = simulator.metrics.report(simulator.sessions)
    samples, families = parse_prometheus(prometheus_text(simulator.metrics, simulator.sessions))

    assert samples["mcp_sim_sessions"] == 2
    assert samples["mcp_sim_sessions_started_total"] == 2
    assert samples['mcp_sim_calls_total{source="model"}'] == 3
    assert samples['mcp_sim_calls_total{source="validation"}'] == 1
    assert samples['mcp_sim_tool_calls_total{tool="get_order"}'] == 3
    assert samples['mcp_sim_errors_total{kind="unknown_tool"}'] == 1
    assert samples['mcp_sim_errors_total{kind="model_unavailable"}'] == 1
    assert samples["mcp_sim_call_latency_seconds_count"] == 5
    assert samples['mcp_sim_call_latency_seconds_bucket{le="+Inf"}'] == 5
    assert samples["mcp_sim_call_latency_seconds_sum"] == pytest.approx(
        simulator.metrics.call_latency.total
    )
    buckets = [v for k, v in samples.items() if k.startswith("mcp_sim_call_latency_seconds_bucket")]
    assert buckets == sorted(buckets) and buckets[-1] == 5  # cumulative, as Prometheus reads them
    assert samples["mcp_sim_model_requests_total"] == 5
    assert samples["mcp_sim_model_request_failures_total"] == 1
    assert samples['mcp_sim_model_tokens_total{kind="prompt"}'] == report["model"]["prompt_tokens"]
    assert samples["mcp_sim_cache_hits_total"] == 0
    assert samples["mcp_sim_patches_rejected_total"] == 1
    assert families["mcp_sim_call_latency_seconds"] == "histogram"
    assert families["mcp_sim_model_latency_seconds"] == "histogram"
    assert families["mcp_sim_calls"] == "counter"
    assert families["mcp_sim_sessions"] == "gauge"
    assert samples["process_resident_memory_bytes"] > 0


def parse_prometheus(text: bytes | str) -> tuple[dict[str, float], dict[str, str]]:
    """Samples by ``name{labels}`` and metric types by family, read by prometheus_client's
    own parser (which refuses text that is not the exposition format)."""
    if isinstance(text, bytes):
        text = text.decode()
    samples: dict[str, float] = {}
    families: dict[str, str] = {}
    for family in text_string_to_metric_families(text):
        families[family.name] = family.type
        for sample in family.samples:
            labels = ",".join(f'{k}="{v}"' for k, v in sorted(sample.labels.items()))
            samples[f"{sample.name}{{{labels}}}" if labels else sample.name] = sample.value
    return samples, families


class GatedModel:
    """Holds every request until the gate opens."""

    def __init__(self) -> None:
        self.gate = anyio.Event()
        self.waiting = 0

    async def complete(
        self, request: CompletionRequest, progress: ProgressCallback | None = None
    ) -> Completion:
        self.waiting += 1
        await self.gate.wait()
        return Completion(content="<predicted_observation>ok</predicted_observation>")

    async def aclose(self) -> None:
        pass


async def test_calls_in_flight_and_queued_behind_their_session_are_reported(
    shop: World,
) -> None:
    model = GatedModel()
    simulator = Simulator(shop, model)
    args = {"order_id": "ord_00001"}
    with anyio.fail_after(10):
        async with anyio.create_task_group() as tg:
            for session in ("a", "a", "b"):
                tg.start_soon(simulator.call, session, "get_order", args)
            while model.waiting < 2:
                await anyio.sleep(0.005)
            await anyio.sleep(0.01)
            during = simulator.metrics.report(simulator.sessions)["sessions"]
            model.gate.set()
    after = simulator.metrics.report(simulator.sessions)["sessions"]
    assert (during["busy"], during["queued"]) == (2, 1)
    assert (after["busy"], after["queued"]) == (0, 0)


async def test_expired_sessions_are_counted(shop: World) -> None:
    simulator = Simulator(shop, None)
    simulator.sessions.idle_timeout = 0.0
    simulator.sessions.get("a")
    simulator.sessions.get("b")
    await anyio.sleep(0.01)
    simulator.sessions.expire_idle()
    figures = simulator.metrics.report(simulator.sessions)["sessions"]
    assert (figures["live"], figures["started"], figures["expired"]) == (0, 2, 2)


def test_latency_quantiles_describe_the_last_window_of_calls() -> None:
    latencies = Latencies(window=100)
    for ms in range(1, 101):
        latencies.observe(ms / 1000)
    assert latencies.quantiles() == {0.5: 0.05, 0.9: 0.09, 0.99: 0.099}
    for _ in range(100):
        latencies.observe(1.0)
    assert latencies.quantiles() == {0.5: 1.0, 0.9: 1.0, 0.99: 1.0}
    assert latencies.count == 200
    assert latencies.total == pytest.approx(5.05 + 100)


def test_latency_buckets_count_every_duration_up_to_their_bound() -> None:
    latencies = Latencies(window=2, bounds=(0.1, 1.0))
    for seconds in (0.05, 0.1, 0.5, 1.0, 3.0, 0.2):
        latencies.observe(seconds)
    # Buckets cover the whole uptime, not only the window of the quantiles.
    assert latencies.cumulative_buckets() == [(0.1, 2), (1.0, 5), (math.inf, 6)]


def test_no_calls_yet_gives_empty_quantiles_not_zeros(shop: World) -> None:
    simulator = Simulator(shop, None)
    report = simulator.metrics.report(simulator.sessions)
    assert report["calls"]["latency"]["p99_ms"] is None
    samples, _ = parse_prometheus(prometheus_text(simulator.metrics, simulator.sessions))
    assert samples["mcp_sim_call_latency_seconds_count"] == 0
    assert samples['mcp_sim_call_latency_seconds_bucket{le="+Inf"}'] == 0


def test_cache_lookups_are_counted_through_the_hook() -> None:
    metrics = Metrics()
    for hit in (True, True, False):
        metrics.observe_cache(hit)
    assert (metrics.cache_hits, metrics.cache_misses) == (2, 1)


def test_model_errors_are_named_by_their_class() -> None:
    assert error_kind(ModelTimeout("slow")) == "model_timeout"


async def test_metrics_are_served_over_http_behind_the_token(shop: World, script: Any) -> None:
    simulator, _ = await known_sequence(shop, script)
    app = hosting_app(Worlds({shop.world: simulator}), HostingOptions(auth_token=TOKEN))
    async with httpx2.AsyncClient(
        transport=httpx2.ASGITransport(app=app),
        base_url="http://127.0.0.1:8000",
        headers={"Authorization": f"Bearer {TOKEN}"},
    ) as http:
        as_json = await http.get("/control/metrics")
        as_text = await http.get("/metrics")
        no_token = await http.get("/metrics", headers={"Authorization": ""})
        rebinding = await http.get("/metrics", headers={"Host": "evil.example"})
    assert as_json.status_code == 200 and as_json.json()["calls"]["total"] == 5
    assert as_text.status_code == 200
    assert as_text.headers["content-type"] == CONTENT_TYPE
    samples, _ = parse_prometheus(as_text.text)
    assert samples['mcp_sim_calls_total{source="model"}'] == 3
    assert (no_token.status_code, rebinding.status_code) == (401, 421)


async def test_metrics_are_a_control_tool_too(shop: World, script: Any) -> None:
    from mcp import Client

    simulator, _ = await known_sequence(shop, script)
    async with Client(build_server(simulator, control=ControlTools.over(simulator))) as client:
        result = await client.call_tool("sim_metrics", {})
    assert result.structured_content is not None
    assert result.structured_content["calls"]["total"] == 5


async def test_answer_cache_hits_and_misses_are_counted(
    bookstore: World, tmp_path: Any, script: Any
) -> None:
    from mcp_sim.simulator.answer_cache import AnswerCache

    cache = AnswerCache(tmp_path / "cache.sqlite", "scripted")
    answer = script.answer({"id": "b3", "title": "Cartographers of Rain"})
    reports = []
    for _ in range(2):  # the second run finds the first run's answer in the cache
        simulator = Simulator(bookstore, script(answer), cache=cache, settings=Settings.of(seed=7))
        await simulator.call("s1", "get_book", {"book_id": "b3"})
        reports.append(simulator.metrics.report(simulator.sessions))
    cache.close()
    assert reports[0]["cache"] == {"hits": 0, "misses": 1}
    assert reports[1]["cache"] == {"hits": 1, "misses": 0}
    assert reports[1]["model"]["requests"] == 0
