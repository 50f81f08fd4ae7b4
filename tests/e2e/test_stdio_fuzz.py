"""A property of ``mcp-sim serve`` over stdio, on generated raw JSON-RPC: every line gets exactly
the replies JSON-RPC allows (a result or an error with the request's id, an error without an
id when there is none to read, nothing for a notification or a response), in time, and the
server goes on serving.

Each generated line is followed by a ping of its own: the lines that come back before that
ping's reply (and the replies the line's requests are owed) are the line's replies, and
nothing else may come. The example budget is fixed and the examples derandomized, so the test
costs the same on every run and a failure reproduces.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import BOOKSTORE
from tests.processes import DEAD_MODEL, RawStdio, serving_stdio

RESULT = None
"""The code expected of a reply that is a result, not an error."""
MAX_DEPTH = 64
NOT_MCP_KEYS = frozenset({"jsonrpc", "id", "method", "params", "result", "error"})


@dataclass(frozen=True)
class Case:
    """A line to send and the replies it is owed: (id, error code or RESULT), in any order."""

    line: bytes
    replies: tuple[tuple[Any, int | None], ...]


@pytest.fixture(scope="module")
def wire(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RawStdio]:
    log = tmp_path_factory.mktemp("fuzz") / "stderr.txt"
    with serving_stdio(BOOKSTORE, *DEAD_MODEL, log=log) as served:
        yield served
    assert "Traceback" not in log.read_text()


json_scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20)
)
json_values = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=8,
)
request_ids = st.integers() | st.text(max_size=20)
bad_ids = (
    st.none()
    | st.booleans()
    | st.floats(allow_nan=False, allow_infinity=False).filter(lambda f: not f.is_integer())
    | st.lists(json_scalars, max_size=2)
    | st.dictionaries(st.text(max_size=4), json_scalars, max_size=2)
)
unknown_methods = st.text(max_size=12).map(lambda m: f"fuzz/{m}")


def line_of(message: Any) -> bytes:
    return json.dumps(message).encode()


@st.composite
def pings(draw: st.DrawFn) -> dict[str, Any]:
    """A request the server answers with a result."""
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": draw(request_ids), "method": "ping"}
    if draw(st.booleans()):
        message["params"] = draw(st.dictionaries(st.text(max_size=8), json_values, max_size=3))
    return message


@st.composite
def answered(draw: st.DrawFn) -> Case:
    if draw(st.booleans()):
        ping = draw(pings())
        return Case(line_of(ping), ((ping["id"], RESULT),))
    request_id = draw(request_ids)
    unknown = {"jsonrpc": "2.0", "id": request_id, "method": draw(unknown_methods)}
    return Case(line_of(unknown), ((request_id, -32601),))


@st.composite
def malformed_envelopes(draw: st.DrawFn) -> Case:
    """A ping with one thing wrong in its envelope."""
    message = draw(pings())
    request_id = message["id"]
    fault = draw(st.sampled_from(["jsonrpc", "no method", "method", "id", "params list", "params"]))
    if fault == "jsonrpc":
        wrong = draw(json_values.filter(lambda v: v != "2.0"))
        if draw(st.booleans()):
            message["jsonrpc"] = wrong
        else:
            del message["jsonrpc"]
        expected = (request_id, -32600)
    elif fault == "no method":
        del message["method"]
        expected = (request_id, -32600)
    elif fault == "method":
        message["method"] = draw(json_values.filter(lambda v: not isinstance(v, str)))
        expected = (request_id, -32600)
    elif fault == "id":
        message["id"] = draw(bad_ids)
        expected = (None, -32600)
    elif fault == "params list":
        message["params"] = draw(st.lists(json_values, max_size=3))
        expected = (request_id, -32602)
    else:
        message["params"] = draw(json_scalars.filter(lambda v: v is not None))
        expected = (request_id, -32600)
    return Case(line_of(message), (expected,))


@st.composite
def deep_requests(draw: st.DrawFn) -> Case:
    request_id = draw(request_ids)
    depth = draw(st.integers(min_value=MAX_DEPTH - 4, max_value=3 * MAX_DEPTH))
    nested = "[" * depth + "]" * depth
    line = f'{{"jsonrpc":"2.0","id":{json.dumps(request_id)},"method":"ping","params":{{"a":{nested}}}}}'
    # The message object and its params take two levels of nesting.
    code = RESULT if depth + 2 <= MAX_DEPTH else -32602
    return Case(line.encode(), ((request_id, code),))


@st.composite
def huge_integers(draw: st.DrawFn) -> Case:
    request_id = draw(request_ids)
    digits = "9" * draw(st.integers(min_value=4301, max_value=4400))
    line = f'{{"jsonrpc":"2.0","id":{json.dumps(request_id)},"method":"ping","params":{{"n":{digits}}}}}'
    return Case(line.encode(), ((request_id, -32700),))


@st.composite
def truncated(draw: st.DrawFn) -> Case:
    whole = line_of(draw(pings()))
    cut = draw(st.integers(min_value=1, max_value=len(whole) - 1))
    return Case(whole[:cut], ((None, -32700),))


@st.composite
def unanswered(draw: st.DrawFn) -> Case:
    """Notifications, well-formed or not, and responses: JSON-RPC answers none of them."""
    kind = draw(st.sampled_from(["notification", "bad notification", "response"]))
    if kind == "response":
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": draw(request_ids), "result": {}}
    else:
        message = {"jsonrpc": "2.0", "method": draw(unknown_methods)}
        if kind == "bad notification":
            message[draw(st.sampled_from(["jsonrpc", "params"]))] = draw(json_scalars)
    return Case(line_of(message), ())


@st.composite
def batches(draw: st.DrawFn) -> Case:
    items = draw(
        st.lists(
            pings() | st.just({"jsonrpc": "2.0", "method": "fuzz/note"}) | json_scalars, max_size=4
        )
    )
    replies = [(item["id"], -32600) for item in items if isinstance(item, dict) and "id" in item]
    if not items or any(not isinstance(item, dict) for item in items):
        replies.append((None, -32600))
    return Case(line_of(items), tuple(replies))


@st.composite
def not_messages(draw: st.DrawFn) -> Case:
    """JSON that is no message at all: a scalar, or an object without any JSON-RPC member."""
    keys = st.text(max_size=8).filter(lambda k: k not in NOT_MCP_KEYS)
    value = draw(json_scalars | st.dictionaries(keys, json_values, max_size=3))
    return Case(line_of(value), ((None, -32600),))


cases = (
    answered()
    | malformed_envelopes()
    | deep_requests()
    | huge_integers()
    | truncated()
    | unanswered()
    | batches()
    | not_messages()
)


def replies_to(wire: RawStdio, case: Case) -> list[tuple[Any, int | None]]:
    """What came back for ``case``: every line up to the reply to a ping sent after it, and
    any reply ``case`` is still owed past that."""
    sentinel = f"sentinel-{uuid.uuid4().hex}"
    wire.send(case.line)
    wire.send(line_of({"jsonrpc": "2.0", "id": sentinel, "method": "ping"}))
    owed = [request_id for request_id, _ in case.replies]
    got: list[tuple[Any, int | None]] = []
    seen_sentinel = False
    while not seen_sentinel or len(got) < len(owed):
        reply = wire.reply(timeout=30)
        if reply.get("id") == sentinel:
            seen_sentinel = True
            continue
        code = reply["error"]["code"] if "error" in reply else RESULT
        got.append((reply.get("id"), code))
        if len(got) > len(owed):
            break
    return got


def ordered(replies: Any) -> list[str]:
    return sorted(json.dumps(reply) for reply in replies)


@settings(
    max_examples=250,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(case=cases)
def test_every_line_gets_exactly_the_replies_json_rpc_allows(wire: RawStdio, case: Case) -> None:
    assert ordered(replies_to(wire, case)) == ordered(case.replies)
