"""The served model's context window, asked of a vLLM- or llama.cpp-shaped server over HTTP."""

from __future__ import annotations

import logging

import anyio
import httpx2
import pytest

from mcp_sim.models.context_window import context_window_in_listing, served_context_window
from tests.openai_double import DEFAULT_MODEL, OpenAIDouble, unused_base_url


async def test_vllm_reports_the_served_models_max_model_len() -> None:
    with OpenAIDouble(max_model_len=32768) as double:
        with anyio.fail_after(10):
            assert await served_context_window(double.base_url) == 32768
            assert await served_context_window(double.base_url, model=DEFAULT_MODEL) == 32768
        assert [r.path for r in double.requests] == ["/v1/models", "/v1/models"]


async def test_a_lora_adapter_is_served_with_its_base_models_window() -> None:
    with OpenAIDouble(max_model_len=16384, lora_adapters=("support-tone",)) as double:
        with anyio.fail_after(10):
            window = await served_context_window(double.base_url, model="support-tone")
    assert window == 16384


async def test_the_api_key_is_sent_and_a_refusal_is_no_window(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with OpenAIDouble(api_key="sekrit", max_model_len=8192) as double:
        with anyio.fail_after(10):
            assert await served_context_window(double.base_url, api_key="sekrit") == 8192
            with caplog.at_level(logging.WARNING, logger="mcp_sim.models.context_window"):
                assert await served_context_window(double.base_url, api_key="wrong") is None
    assert "401" in caplog.text


async def test_llama_cpp_reports_no_serving_window(caplog: pytest.LogCaptureFixture) -> None:
    # llama-server lists meta.n_ctx_train, the training length: not the window it serves with.
    with (
        OpenAIDouble(listing="llama.cpp") as double,
        anyio.fail_after(10),
        caplog.at_level(logging.INFO),
    ):
        assert await served_context_window(double.base_url) is None
    assert "no max_model_len" in caplog.text


async def test_an_unknown_model_or_a_card_without_window_is_none() -> None:
    with OpenAIDouble(max_model_len=None) as double:
        with anyio.fail_after(10):
            assert await served_context_window(double.base_url) is None
            assert await served_context_window(double.base_url, model="other") is None


async def test_an_unreachable_server_costs_a_log_line_not_an_error(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with anyio.fail_after(10), caplog.at_level(logging.WARNING):
        assert await served_context_window(unused_base_url(), timeout=2.0) is None
    assert "could not ask" in caplog.text


async def test_a_stalled_or_garbled_answer_is_no_window_and_the_given_client_stays_open() -> None:
    def handler(request: httpx2.Request) -> httpx2.Response:
        if request.url.path.startswith("/slow"):
            raise httpx2.ReadTimeout("timed out", request=request)
        return httpx2.Response(200, text="<html>not json</html>")

    async with httpx2.AsyncClient(transport=httpx2.MockTransport(handler)) as client:
        with anyio.fail_after(10):
            assert await served_context_window("http://m/slow/v1", http_client=client) is None
            assert await served_context_window("http://m/v1", http_client=client) is None
        assert not client.is_closed


def test_listing_parser_ignores_malformed_cards() -> None:
    assert context_window_in_listing([]) is None
    assert context_window_in_listing({"data": "x"}) is None
    assert context_window_in_listing({"data": [{"id": "m", "max_model_len": True}]}) is None
    assert context_window_in_listing({"data": [{"id": "m", "max_model_len": "4096"}]}) is None
    cycle = {"data": [{"id": "a", "parent": "b"}, {"id": "b", "parent": "a"}]}
    assert context_window_in_listing(cycle, "a") is None
    assert context_window_in_listing({"data": [{"id": "m", "max_model_len": 4096}]}) == 4096
