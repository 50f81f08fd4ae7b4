"""Judging one JSON-RPC message before the SDK sees it: what is handed on, what is refused with
which code and id, and what gets no reply."""

from __future__ import annotations

import json
from typing import Any

import mcp.types as types
import pytest

from mcp_sim.server.jsonrpc_check import MAX_DEPTH, MAX_SCANNED, Refusal, check_message

PING = {"jsonrpc": "2.0", "id": 7, "method": "ping"}


def nested(depth: int) -> Any:
    value: Any = "leaf"
    for _ in range(depth):
        value = [value]
    return value


def call(request_id: Any, arguments: Any) -> dict[str, Any]:
    params = {"name": "search_books", "arguments": arguments}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


def encoded(message: Any) -> bytes:
    return json.dumps(message).encode()


def refusals(data: bytes) -> list[tuple[Any, int]]:
    verdict = check_message(data)
    assert verdict.message is None
    return [(r.id, r.code) for r in verdict.refusals]


def test_a_well_formed_request_is_handed_on_as_the_sdk_parses_it() -> None:
    verdict = check_message(encoded(call("a-1", {"query": "glass"})))
    assert isinstance(verdict.message, types.JSONRPCRequest)
    assert verdict.message.id == "a-1" and verdict.refusals == ()


def test_notifications_and_responses_are_handed_on() -> None:
    note = check_message(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}')
    assert isinstance(note.message, types.JSONRPCNotification)
    reply = check_message(b'{"jsonrpc": "2.0", "id": 3, "result": {}}')
    assert isinstance(reply.message, types.JSONRPCResponse)


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": ["x"]}, (4, -32602)),
        ({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": "x"}, (5, -32600)),
        ({"jsonrpc": "2.0", "id": 6}, (6, -32600)),
        ({"jsonrpc": "1.0", "id": 7, "method": "ping"}, (7, -32600)),
        ({"id": "eight", "method": "ping"}, ("eight", -32600)),
        ({"jsonrpc": "2.0", "id": 9, "method": 9}, (9, -32600)),
        ({"jsonrpc": "2.0", "id": {"a": 1}, "method": "ping"}, (None, -32600)),
        ({"jsonrpc": "2.0", "id": 1.5, "method": "ping"}, (None, -32600)),
        ({"jsonrpc": "2.0", "id": None, "method": "ping"}, (None, -32600)),
        ({"jsonrpc": "2.0", "id": True, "method": "ping"}, (None, -32600)),
        (42, (None, -32600)),
        (call(10, {"query": nested(MAX_DEPTH)}), (10, -32602)),
        (call(11, {"query": nested(250)}), (11, -32602)),
    ],
    ids=[
        "params list",
        "params string",
        "no method",
        "jsonrpc 1.0",
        "no jsonrpc",
        "method not a string",
        "object id",
        "float id",
        "null id",
        "boolean id",
        "not an object",
        "just too deep",
        "deeper than the sdk parses",
    ],
)
def test_a_malformed_request_is_refused_with_its_id_when_it_has_one(
    message: Any, expected: tuple[Any, int]
) -> None:
    assert refusals(encoded(message)) == [expected]


def test_a_request_deeper_than_python_parses_is_refused_with_its_id() -> None:
    deep = "[" * 5000 + "]" * 5000
    text = f'{{"jsonrpc":"2.0","method":"ping","params":{{"a":{deep}}},"id":12}}'
    assert refusals(text.encode()) == [(12, types.INVALID_PARAMS)]


def test_the_deepest_nesting_allowed_is_handed_on() -> None:
    # The envelope and the arguments take three levels.
    verdict = check_message(encoded(call(1, {"query": nested(MAX_DEPTH - 3)})))
    assert verdict.message is not None


def test_an_integer_the_parser_cannot_hold_is_a_parse_error_with_the_id() -> None:
    huge = "9" * 5000
    in_arguments = f'{{"jsonrpc":"2.0","id":3,"method":"ping","params":{{"n":{huge}}}}}'
    assert refusals(in_arguments.encode()) == [(3, types.PARSE_ERROR)]
    as_id = f'{{"jsonrpc":"2.0","id":{huge},"method":"ping"}}'
    assert refusals(as_id.encode()) == [(None, types.PARSE_ERROR)]


@pytest.mark.parametrize(
    "text",
    [b'{"jsonrpc":"2.0","id":1,"method":"ping"', b"hello", b'{"a": "unclosed', b"{}}", b"NaN"],
)
def test_text_that_is_not_json_is_a_parse_error_without_an_id(text: bytes) -> None:
    assert refusals(text) == [(None, types.PARSE_ERROR)]


def test_a_request_broken_below_its_top_level_keeps_its_id() -> None:
    text = b'{"jsonrpc":"2.0","id":"k","method":"ping","params":{"a":[1,,2]}}'
    assert refusals(text) == [("k", types.PARSE_ERROR)]


def test_a_message_too_large_to_scan_is_a_parse_error_without_an_id() -> None:
    deep = "[" * MAX_SCANNED + "]" * MAX_SCANNED
    text = f'{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"a":{deep}}}}}'
    assert refusals(text.encode()) == [(None, types.PARSE_ERROR)]


def test_text_that_is_not_utf8_is_a_parse_error() -> None:
    text = b'{"jsonrpc":"2.0","id":15,"method":"ping","params":{"x":"\xff"}}'
    assert refusals(text) == [(15, types.PARSE_ERROR)]


@pytest.mark.parametrize(
    "message",
    [
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": "x"},
        {"jsonrpc": "1.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "method": "notifications/x", "params": {"a": nested(300)}},
        {"jsonrpc": "2.0", "result": {}},
    ],
    ids=["bad params", "jsonrpc 1.0", "too deep", "response without an id"],
)
def test_a_notification_or_response_that_cannot_be_taken_gets_no_reply(message: Any) -> None:
    verdict = check_message(encoded(message))
    assert verdict.message is None and verdict.refusals == ()


def test_a_notification_that_does_not_parse_below_its_top_level_gets_no_reply() -> None:
    text = b'{"jsonrpc":"2.0","method":"notifications/x","params":{"n":' + b"9" * 5000 + b"}}"
    verdict = check_message(text)
    assert verdict.message is None and verdict.refusals == ()


def test_a_batch_is_refused_request_by_request() -> None:
    batch = [
        PING,
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": "b", "method": "tools/list"},
    ]
    verdict = check_message(encoded(batch))
    assert verdict.batch
    assert [(r.id, r.code) for r in verdict.refusals] == [(7, -32600), ("b", -32600)]


@pytest.mark.parametrize("batch", [[], [1, 2], [PING, "x"]], ids=["empty", "scalars", "mixed"])
def test_a_batch_with_what_is_not_a_message_gets_one_reply_without_an_id(batch: Any) -> None:
    ids = [r.id for r in check_message(encoded(batch)).refusals]
    assert ids.count(None) == 1
    assert [i for i in ids if i is not None] == ([7] if PING in batch else [])


def test_a_refusal_is_the_sdks_error_message() -> None:
    reply = Refusal("x", types.INVALID_REQUEST, "no").reply()
    assert reply.model_dump(by_alias=True, exclude_unset=True) == {
        "jsonrpc": "2.0",
        "id": "x",
        "error": {"code": -32600, "message": "no"},
    }
