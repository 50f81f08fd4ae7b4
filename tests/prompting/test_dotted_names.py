"""Records named by a dotted address made of their fields' values, and records referred to
by an id they hold inside (a cloud id), not by their key."""

from __future__ import annotations

from typing import Any

from mcp_sim.prompting.dotted_names import dotted_records
from mcp_sim.prompting.grounding import ground
from mcp_sim.runtime.state_index import StateIndex, StateOverlay
from mcp_sim.spec.world import World


def infra_world() -> World:
    """Resources keyed by place; servers name their groups by the groups' cloud ids and
    depend on them by address."""
    resources: list[dict[str, Any]] = []
    for n, team in enumerate(["ash", "birch", "cedar", "dune", "elm", "fir"]):
        group = f"grp-{n:04x}{team}"
        resources.append(
            {
                "module": f"module.svc_{team}",
                "type": "cloud_group",
                "name": "this",
                "instances": [{"attributes": {"id": group, "rules": [{"port": 443 + n}]}}],
            }
        )
        resources.append(
            {
                "module": f"module.svc_{team}",
                "type": "cloud_server",
                "name": "app",
                "instances": [
                    {
                        "index_key": k,
                        "attributes": {"id": f"srv-{n}{k}", "group_ids": [group], "size": k + 1},
                        "dependencies": [f"module.svc_{team}.cloud_group.this"],
                    }
                    for k in range(3)
                ],
            }
        )
    return World.model_validate(
        {
            "world": "t",
            "title": "T",
            "description": "An infrastructure state.",
            "state": {"resources": resources},
            "tools": [
                {
                    "name": "server_rules",
                    "description": "A server's groups with their rules.",
                    "input_schema": {"type": "object"},
                }
            ],
        }
    )


def overlay_of(world: World) -> StateOverlay:
    return StateIndex(world, world.state).overlay_of(world.state)


def test_an_address_of_field_values_names_the_record_holding_them() -> None:
    world = infra_world()
    overlay = overlay_of(world)
    assert list(dotted_records(overlay, {"address": "module.svc_cedar.cloud_server.app[1]"})) == [
        "/resources/5"
    ]
    # The dependents hold the group's whole address: they refer to it, the group is named.
    assert list(dotted_records(overlay, {"a": "module.svc_cedar.cloud_group.this"})) == [
        "/resources/4"
    ]
    assert not list(dotted_records(overlay, {"version": "1.2.3", "ratio": "3.14"}))
    # Parts every record holds name a category, not a record.
    assert not list(dotted_records(overlay, {"address": "cloud_server.app"}))


def test_a_server_links_the_groups_holding_its_ids_at_an_id_field() -> None:
    world = infra_world()
    address = "module.svc_dune.cloud_server.app[0]"
    found = ground(overlay_of(world), world.state, world.tools[0], {"address": address})
    reasons = {p.pointer: p.reason for p in found.picks.values()}
    assert reasons["/resources/7"] == "named"
    assert reasons["/resources/6"] == "linked"  # the group whose id the server holds
