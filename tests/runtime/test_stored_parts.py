"""A view finds records through the decoded state and shows the parts of them that an API
writes as stored (a message's headers) as stored, the lists that are a record's fields
decoded."""

from __future__ import annotations

from typing import Any

from mcp_sim.prompting.state_view import StateView
from mcp_sim.runtime.stored_parts import shown_record
from mcp_sim.runtime.value_decoding import decode
from mcp_sim.runtime.value_encodings import detect
from mcp_sim.spec.world import World

SENDERS = ["Ana Lee", "Bo Chen", "Cy Park", "Di Roy"]


def message(i: int) -> dict[str, Any]:
    headers = [
        {"name": "From", "value": f"{SENDERS[i % 4]} <p{i % 4}@mail.example>"},
        {"name": "To", "value": "me@mail.example"},
        {"name": "Subject", "value": f"Invoice {1000 + i}"},
        {"name": "Message-ID", "value": f"<m{i}@mail.example>"},
    ]
    body = {"mimeType": "text/plain", "headers": headers, "body": {"size": 40 + i}}
    return {"id": f"msg{i:04d}", "snippet": f"About invoice {1000 + i}" * 8, "payload": body}


def mailbox(n: int = 300) -> dict[str, Any]:
    return {"messages": [message(i) for i in range(n)]}


def test_a_part_of_a_record_is_shown_as_stored_its_fields_list_decoded() -> None:
    state = mailbox(40)
    encoding = detect(state)
    assert encoding is not None and encoding.forms is not None
    stored = state["messages"][3]
    decoded = decode(state, encoding)["messages"][3]
    assert decoded["payload"]["headers"]["Subject"] == "Invoice 1003"
    shown = shown_record(stored, decoded)
    assert shown["payload"]["headers"] == stored["payload"]["headers"]
    # A list that holds most of the record is its fields: shown by name.
    fields = {"meta": {"fields": [{"name": "title", "value": "x" * 200}]}, "id": 7}
    decoded_fields = {"meta": {"fields": {"title": "x" * 200}}, "id": 7}
    assert shown_record(fields, decoded_fields) == decoded_fields
    # So is a field of the record itself however little it holds: every record alike.
    short = {"fields": [{"name": "year", "value": 1}], "title": "x" * 200}
    assert shown_record(short, {"fields": {"year": 1}, "title": "x" * 200})["fields"] == {"year": 1}


def test_a_view_finds_a_message_by_a_header_and_shows_its_headers_as_stored() -> None:
    tool = {
        "name": "find_message",
        "description": "A message by its subject.",
        "input_schema": {"type": "object", "properties": {"subject": {"type": "string"}}},
    }
    world = World.model_validate(
        {"world": "t", "title": "T", "description": "A mailbox.", "state": mailbox()}
        | {"tools": [tool]}
    )
    view = StateView(world, budget_tokens=3000)
    text = view.render(
        world.state,
        None,
        [],
        tool=world.tool("find_message"),
        arguments={"subject": "Invoice 1217"},
    )
    assert "a list that is only a part of a record is shown as stored" in text
    needed = text.split("**Records this call needs**", 1)[1]
    assert "/messages/217" in needed
    assert '{"name":"Subject","value":"Invoice 1217"}' in needed
