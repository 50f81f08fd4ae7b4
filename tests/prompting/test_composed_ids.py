"""Records named by an identifier that joins several of their fields' values, as a Terraform
resource address joins a resource's module, type and name and its instance's index key."""

from __future__ import annotations

from typing import Any

from mcp_sim.prompting.composed_ids import composed_records
from mcp_sim.prompting.grounding import ground
from mcp_sim.runtime.state_index import StateIndex, StateOverlay
from mcp_sim.spec.world import World


def _instances(module: int, kind: str) -> list[dict[str, Any]]:
    if kind == "aws_instance":
        return [
            {"index_key": n, "schema_version": 1, "attributes": {"id": f"i-{module}-{n}"}}
            for n in range(3)
        ]
    return [{"schema_version": 1, "attributes": {"id": f"sg-{module}"}}]


def state_world() -> World:
    """A Terraform state: resources of modules, keyed by no field that holds an address."""
    resources = [
        {"module": f"module.svc_{m}", "mode": "managed", "type": kind, "name": name}
        | {"instances": _instances(m, kind)}
        for m in range(60)
        for kind, name in (("aws_instance", "app"), ("aws_security_group", "this"))
    ]
    return World.model_validate(
        {
            "world": "t",
            "title": "T",
            "description": "A Terraform state.",
            "state": {"version": 4, "serial": 9, "resources": resources},
            "tools": [
                {
                    "name": "state_show",
                    "description": "A resource instance's attributes by its address.",
                    "input_schema": {"type": "object"},
                }
            ],
        }
    )


def _overlay(world: World) -> StateOverlay:
    return StateIndex(world, world.state).overlay_of(world.state)


def test_an_address_names_the_instance_its_index_key_tells_apart() -> None:
    world = state_world()
    arguments = {"address": "module.svc_7.aws_instance.app[2]"}
    assert composed_records(_overlay(world), world.state, arguments) == {
        "address": {"/resources/14": "/instances/2"}
    }


def test_an_address_without_an_index_names_the_whole_resource() -> None:
    world = state_world()
    arguments = {"address": "module.svc_7.aws_security_group.this"}
    found = composed_records(_overlay(world), world.state, arguments)
    assert found == {"address": {"/resources/15": ""}}


def test_a_value_every_item_holds_names_no_item() -> None:
    """Every instance's ``schema_version`` is 1: ``[1]`` is the instance whose key is 1."""
    world = state_world()
    arguments = {"address": "module.svc_3.aws_instance.app[1]"}
    assert composed_records(_overlay(world), world.state, arguments) == {
        "address": {"/resources/6": "/instances/1"}
    }


def test_parts_no_record_holds_together_name_nothing() -> None:
    world = state_world()
    overlay = _overlay(world)
    assert composed_records(overlay, world.state, {"a": "module.svc_7.aws_instance.this"}) == {}
    assert composed_records(overlay, world.state, {"a": "aws_instance.app"}) == {}  # 60 do
    assert composed_records(overlay, world.state, {"a": "module.svc_7"}) == {}  # held whole


def test_the_call_is_shown_the_named_resource_not_an_empty_search() -> None:
    world = state_world()
    arguments = {"address": "module.svc_7.aws_instance.app[2]"}
    grounding = ground(_overlay(world), world.state, world.tool("state_show"), arguments)
    named = [p for p in grounding.picks.values() if p.reason == "named"]
    assert [(p.pointer, p.focus) for p in named] == [("/resources/14", {"/instances/2"})]
    assert grounding.searches == []


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


def test_an_address_its_dependents_hold_whole_names_the_record_of_its_parts() -> None:
    world = infra_world()
    overlay = _overlay(world)
    # (Index 0: instance 0's size is 1, so ``[1]`` would be told apart twice.)
    address = "module.svc_cedar.cloud_server.app[0]"
    assert composed_records(overlay, world.state, {"address": address}) == {
        "address": {"/resources/5": "/instances/0"}
    }
    # The dependents hold the group's whole address: they refer to it, the group is named.
    group = composed_records(overlay, world.state, {"a": "module.svc_cedar.cloud_group.this"})
    assert group == {"a": {"/resources/4": ""}}
    assert composed_records(overlay, world.state, {"version": "1.2.3", "ratio": "3.14"}) == {}
    # Parts every record holds name a category, not a record.
    assert composed_records(overlay, world.state, {"address": "cloud_server.app"}) == {}


def test_an_index_no_item_holds_is_left_out() -> None:
    world = state_world()
    for resource in world.state["resources"]:
        for instance in resource["instances"]:
            instance.pop("index_key", None)
    found = composed_records(
        _overlay(world), world.state, {"a": "module.svc_7.aws_instance.app[2]"}
    )
    assert found == {"a": {"/resources/14": ""}}


def test_a_server_links_the_groups_holding_its_ids_at_an_id_field() -> None:
    world = infra_world()
    address = "module.svc_dune.cloud_server.app[0]"
    found = ground(_overlay(world), world.state, world.tools[0], {"address": address})
    reasons = {p.pointer: p.reason for p in found.picks.values()}
    assert reasons["/resources/7"] == "named"
    assert reasons["/resources/6"] == "linked"  # the group whose id the server holds


def test_a_value_a_record_holds_whole_and_in_parts_is_no_address() -> None:
    """``ana.berg`` is a user's handle as well as their first and last name: the search
    finds the user by it, no address of parts names them."""
    users = [
        {"handle": f"{first}.{last}", "first": first, "last": last}
        for first in ("ana", "bo", "cy", "di")
        for last in ("berg", "lund", "moe")
    ]
    world = World.model_validate(
        {
            "world": "t",
            "title": "T",
            "description": "Users.",
            "state": {"users": users},
            "tools": [
                {"name": "find", "description": "Finds.", "input_schema": {"type": "object"}}
            ],
        }
    )
    assert composed_records(_overlay(world), world.state, {"user": "ana.berg"}) == {}
