"""A summary of a property pages keep in their bodies' markup rows: over the pages a search
on their labels selected (not the labels it met), each mention counted by the name of the user
holding its id; a numeric property's total, mean, least and greatest under their plain names."""

from __future__ import annotations

from typing import Any

from mcp_sim.prompting.grounding import ground
from mcp_sim.prompting.mention_names import MentionNames, record_name
from mcp_sim.runtime.state_index import StateIndex
from mcp_sim.spec.world import World

_USERS = [
    {"accountId": f"acc{n:06d}ff", "displayName": name, "email": f"{n}@x.example"}
    for n, name in enumerate(["Ana Lee", "Bo Chen", "Cy Diaz"])
]


def _body(n: int) -> str:
    lead = _USERS[n % 3]["accountId"]
    return (
        '<ac:structured-macro ac:name="details"><ac:rich-text-body><table><tbody>'
        f"<tr><th>Duration</th><td>{10 * (n + 1)}</td></tr>"
        f'<tr><th>Lead</th><td><ac:link><ri:user ri:account-id="{lead}" /></ac:link></td></tr>'
        "</tbody></table></ac:rich-text-body></ac:structured-macro>"
    )


def _world() -> World:
    pages = [
        {
            "id": f"p{n}",
            "title": f"Incident {n}",
            "labels": ["incident" if n < 7 else "service"],
            "body": {"storage": {"value": _body(n)}},
            "by": {"accountId": _USERS[0]["accountId"]},
        }
        for n in range(9)
    ]
    tool = {
        "name": "summarize_property",
        "description": "One property over pages with a label: counts per value, or sum, mean, "
        "min and max when every value is a number.",
        "input_schema": {"type": "object"},
    }
    state = {"users": _USERS, "pages": pages}
    return World.model_validate(
        {"world": "t", "title": "T", "description": "Wiki.", "state": state, "tools": [tool]}
    )


def _values(world: World, arguments: dict[str, Any]) -> dict[str, Any]:
    overlay = StateIndex(world, world.state).overlay_of(world.state)
    grounding = ground(overlay, world.state, world.tools[0], arguments)
    assert grounding.summary is not None
    return grounding.summary.values


def test_a_mention_is_counted_by_its_users_name() -> None:
    values = _values(_world(), {"label": "incident", "property": "Lead"})
    assert {"Ana Lee": 3, "Bo Chen": 2, "Cy Diaz": 2} in values.values()


def test_a_numeric_property_goes_under_the_plain_names_the_description_lists() -> None:
    values = _values(_world(), {"label": "incident", "property": "Duration"})
    assert values["sum"] == 280 and values["mean"] == 40
    assert values["min"] == 10 and values["max"] == 70
    # "when every value is a number" names no measure.
    assert not any("every" in name.lower() for name in values)


def test_an_id_names_the_one_record_holding_it_at_its_own_id_field() -> None:
    world = _world()
    overlay = StateIndex(world, world.state).overlay_of(world.state)
    names = MentionNames(overlay)
    # Every page holds Ana's id deeper (``by.accountId``): the user is the one that is hers.
    assert names(_USERS[0]["accountId"]) == "Ana Lee"
    assert names("2") is None and names("no-such-id") is None
    assert record_name({"id": "1", "title": "T", "displayName": "D"}) == "D"
