"""End to end on the real world model: MCP client → ``mcp-sim serve --http`` → real vLLM (CPU
build) serving the tiny embedded model, started once per test run (``tests/real_model.py``).

The tiny model (Gemma 3 270M) proves the plumbing, not fidelity: these tests check that answers
arrive through the real HTTP path and have the right shape, not what they say.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import anyio
import jsonschema
import pytest
from mcp import Client

from mcp_sim.spec.loading import load_world
from tests.processes import ROOT, request_meta, serving_http
from tests.real_model import embedded_like_args, text_of

pytestmark = pytest.mark.real_model

BOOKSTORE = ROOT / "worlds" / "bookstore.yaml"
STRUCTURED_CALLS = 20


async def test_several_calls_get_text_observations_from_the_real_model(
    real_model_url: str, tmp_path: Path
) -> None:
    journal = tmp_path / "journal.jsonl"
    args = embedded_like_args(real_model_url, "--journal", str(journal))
    with serving_http(BOOKSTORE, *args, log=tmp_path / "serve.log") as url:
        async with Client(url) as client:
            with anyio.fail_after(900):
                first = await client.call_tool("get_book", {"book_id": "b3"})
                second = await client.call_tool(
                    "place_order",
                    {
                        "book_id": "b3",
                        "quantity": 1,
                        "email": "ana@example.pt",
                        "country": "Portugal",
                    },
                )
                third = await client.call_tool("cancel_order", {"order_id": "ord_00001"})
    # Gemma 270M sometimes answers a call with a blank observation or none at all. None, twice
    # (the repair request included), must be a clear error result, and the session must go on.
    # A blank envelope is an answer: these tools have no output schema, so the empty observation
    # is one they may give (tests/simulator/test_empty_answers.py), journaled like any other.
    answered = [r for r in (first, second, third) if not r.is_error]
    for result in (first, second, third):
        assert result.meta is not None
        if result.is_error:
            assert text_of(result).startswith("mcp-sim could not simulate"), text_of(result)
            assert result.meta["mcp-sim/source"] == "model_error"
        else:
            assert result.meta["mcp-sim/source"] == "model"
    assert len(answered) >= 2, [text_of(r) for r in (first, second, third)]
    records = [json.loads(line) for line in journal.read_text().splitlines()]
    assert [r["step"] for r in records] == [1, 2, 3]
    models = [r for r in records if r["source"] == "model"]
    assert len(models) == len(answered)
    assert all(r["prompt_tokens"] > 0 and r["completion_tokens"] > 0 for r in models)
    assert models[0]["model"] == "gemma3-270m" or models[0]["model"]


async def test_calls_to_a_tool_with_an_output_schema_return_valid_structured_content(
    real_model_url: str, tmp_path: Path
) -> None:
    """The issue's bar: at least 19 of 20 structured answers validate on the tiny model."""
    schema = load_world(BOOKSTORE).tool("search_books")
    assert schema is not None and schema.output_schema is not None
    validator = jsonschema.Draft202012Validator(schema.output_schema)
    queries = ["rain", "tiles", "history", "fantasy", "poetry", "ortega", "maps", "lisbon"]
    valid = 0
    with serving_http(
        BOOKSTORE, *embedded_like_args(real_model_url), log=tmp_path / "serve.log"
    ) as url:
        async with Client(url) as client:
            for i in range(STRUCTURED_CALLS):
                # A session per call keeps every prompt the same short length.
                with anyio.fail_after(400):
                    result = await client.call_tool(
                        "search_books",
                        {"query": queries[i % len(queries)], "max_results": 1 + i % 3},
                        meta=request_meta({"mcp-sim/session": f"structured-{i}"}),
                    )
                if not result.is_error and result.structured_content is not None:
                    validator.validate(result.structured_content)
                    valid += 1
    print(f"\nstructured answers valid: {valid}/{STRUCTURED_CALLS}", file=sys.stderr)
    assert valid >= 19


async def test_a_call_with_thinking_off_answers(real_model_url: str, tmp_path: Path) -> None:
    args = embedded_like_args(real_model_url, "--no-thinking")
    with serving_http(BOOKSTORE, *args, log=tmp_path / "serve.log") as url:
        async with Client(url) as client:
            with anyio.fail_after(400):
                result = await client.call_tool("get_book", {"book_id": "b1"})
    # The answer may be blank (see the test above); what matters is that one came back.
    assert not result.is_error, text_of(result)
    assert result.meta is not None and result.meta["mcp-sim/source"] == "model"


SHOP = ROOT / "worlds" / "shop.yaml"


async def test_the_tiny_models_violations_per_100_calls_are_counted_and_reported(
    real_model_url: str, tmp_path: Path
) -> None:
    """World state on the real model: a create → get → update → delete → get cycle on the shop.
    The tiny model's answers are not expected to be right; the test checks that every answer
    was audited, that the counts the session reports match the journal, that the state moved
    only by committed patches, and it prints the violation rate (the figure for the note)."""
    journal = tmp_path / "journal.jsonl"
    cycle: list[tuple[str, dict[str, object]]] = [
        ("create_order", {"customer": "ola@example.no", "sku": "p-bag10", "quantity": 1}),
        ("get_order", {"order_id": "ord_00002"}),
        ("update_order", {"order_id": "ord_00002", "status": "packed"}),
        ("delete_order", {"order_id": "ord_00002"}),
        ("get_order", {"order_id": "ord_00002"}),
    ]
    args = embedded_like_args(real_model_url, "--journal", str(journal), "--operator-resources")
    with serving_http(SHOP, *args, log=tmp_path / "serve.log") as url:
        async with Client(url) as client:
            for tool, arguments in cycle:
                with anyio.fail_after(900):
                    await client.call_tool(tool, arguments)
            resource = await client.read_resource("sim://session/consistency")
            state = json.loads(
                (await client.read_resource("sim://session/state")).contents[0].text  # type: ignore[union-attr]
            )
    counts = json.loads(resource.contents[0].text)  # type: ignore[union-attr]
    records = [json.loads(line) for line in journal.read_text().splitlines()]
    audited = [r for r in records if r["source"] == "model"]
    assert counts["checked"] == len(audited) > 0
    assert counts["flagged"] == sum(len(r["violations"]) for r in audited)
    assert counts["regenerated"] == sum(1 for r in audited if r["regenerated"])
    committed = sum(1 for r in records if r["patch_status"] == "committed")
    assert counts["version"] == committed
    assert [r["version"] for r in records] == sorted(r["version"] for r in records)
    assert {o["id"] for o in state["orders"]} >= {"ord_00001"}
    per_100 = 100 * counts["flagged"] / counts["checked"]
    print(
        f"\nviolations left per 100 audited calls on the tiny model: {per_100:.0f} "
        f"({counts['flagged']} in {counts['checked']}; {counts['regenerated']} regenerated, "
        f"{committed} patches committed, {counts['patches_rejected']} rejected)",
        file=sys.stderr,
    )
