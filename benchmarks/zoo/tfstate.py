"""``tfstate``: an AWS estate as its Terraform state (format version 4) holds it: a flat
``resources`` list whose entries are told apart by ``module``, ``mode``, ``type`` and ``name``,
with ``instances`` keyed by ``index_key`` (an integer under ``count``, a zone name under
``for_each``) and their ``attributes`` as the AWS provider names them; references between
resources as cloud ids (``vpc_security_group_ids``) and as resource addresses in
``dependencies``; provider default tags only in ``tags_all``. Tools take resource addresses
(``module.svc_amber-ana.aws_instance.app[1]``, written nowhere in the state), a private IP,
a team; a search answers where each server sits in the state; the ingress a server allows is
a join through its security group ids to the groups' rules; a team's footprint sums over
servers and databases of many modules; tagging a resource changes ``tags``, ``tags_all`` and
the state's ``serial``."""

from __future__ import annotations

import random
import re
from typing import Any

from benchmarks.zoo.kit import (
    FIRST,
    Answer,
    Filter,
    Planned,
    Search,
    State,
    Tool,
    ToolError,
    note_tool,
    pointer,
    prop,
    summary,
)
from benchmarks.zoo.shape import Shape
from benchmarks.zoo.tfstate_resources import TEAMS, TYPES, ZONES, estate

ADDRESS = re.compile(r'^(module\.[\w-]+\.)?(data\.)?(\w+)\.([\w-]+)(?:\[(\d+|"[^"]+")\])?$')
TAG_KEYS = ["Owner", "CostCenter", "Environment", "OnCall"]
Placed = tuple[int, int, dict[str, Any], dict[str, Any]]
"""A resource instance: its resource's position, its position, the resource and it."""


def address(entry: dict[str, Any], item: dict[str, Any]) -> str:
    """A resource instance's address, as ``terraform state list`` prints it."""
    found = f"{entry['module']}." if "module" in entry else ""
    found += "data." if entry["mode"] == "data" else ""
    found += f"{entry['type']}.{entry['name']}"
    key = item.get("index_key")
    if isinstance(key, int):
        return f"{found}[{key}]"
    return f'{found}["{key}"]' if isinstance(key, str) else found


def _placed(state: State, type_: str | None = None) -> list[Placed]:
    return [
        (r, i, entry, item)
        for r, entry in enumerate(state["resources"])
        if type_ is None or entry["type"] == type_
        for i, item in enumerate(entry["instances"])
    ]


def _at(state: State, wanted: str) -> Placed:
    if not ADDRESS.match(wanted):
        raise ToolError(f'Invalid resource address "{wanted}"')
    for placed in _placed(state):
        if address(placed[2], placed[3]) == wanted:
            return placed
    raise ToolError(f"No instance found for the given address: {wanted}")


def _server_view(entry: dict[str, Any], item: dict[str, Any]) -> dict[str, Any]:
    attrs: dict[str, Any] = item["attributes"]
    return attrs | {
        "module": entry["module"],
        "index_key": item["index_key"],
        "root_gb": attrs["root_block_device"][0]["volume_size"],
    }


def _servers(state: State) -> list[tuple[str, dict[str, Any]]]:
    return [(address(e, i), _server_view(e, i)) for _, _, e, i in _placed(state, "aws_instance")]


def _shown(key: str, view: dict[str, Any]) -> dict[str, Any]:
    return {
        "module": view["module"],
        "type": "aws_instance",
        "name": "app",
        "index_key": view["index_key"],
        "id": view["id"],
        "instance_type": view["instance_type"],
        "instance_state": view["instance_state"],
        "private_ip": view["private_ip"],
        "availability_zone": view["availability_zone"],
    }


def _located(entry: dict[str, Any], item: dict[str, Any]) -> dict[str, Any]:
    """Where a resource instance is in the state, and its attributes."""
    found: dict[str, Any] = {k: entry[k] for k in ("module", "mode", "type", "name") if k in entry}
    found |= {"index_key": item["index_key"]} if "index_key" in item else {}
    return found | {"attributes": item["attributes"]}


class TfState(Shape):
    name = "tfstate"
    title = "Infrastructure assistant over a Terraform state"
    description = (
        "The production AWS estate of a company as its Terraform state file (format version "
        "4): a network module and one module per service, each with servers, a security group "
        "and maybe a database. Resources are named by Terraform addresses; errors are text "
        "starting with 'Error:'."
    )
    note = ("add_change_note", "note")

    def __init__(self) -> None:
        self.finder = Search(
            "list_servers",
            "EC2 servers (aws_instance) by type, zone, state, team tag, Name tag prefix, module "
            "and root volume size (GiB); answers where each sits in the state.",
            _servers,
            [
                Filter("instance_type", "instance_type", "eq", prop("string", "", enum=TYPES)),
                Filter(
                    "availability_zone", "availability_zone", "eq", prop("string", "", enum=ZONES)
                ),
                Filter("state", "instance_state", "eq", prop("string", "running or stopped")),
                Filter("team", "tags.Team", "eq", prop("string", "Team tag.", enum=TEAMS)),
                Filter("name_prefix", "tags.Name", "prefix", prop("string", "Name tag prefix.")),
                Filter("module", "module", "eq", prop("string", "Module address, module.svc_...")),
                Filter("min_root_gb", "root_gb", "ge", prop("integer", "Least root volume GiB.")),
                Filter("max_root_gb", "root_gb", "le", prop("integer", "Most root volume GiB.")),
            ],
            _shown,
            limit=15,
        )

    def build(self, rng: random.Random, target_bytes: int) -> State:
        return estate(rng, target_bytes)

    def tools(self) -> list[Tool]:
        where = {"address": prop("string", "Resource address, e.g. module.x.aws_instance.app[0].")}
        return [
            Tool(
                "state_show",
                "A resource instance's attributes by address (terraform state show).",
                where,
                self._show,
                ("address",),
            ),
            Tool(
                "find_by_private_ip",
                "The server with a private IP: where it is in the state, and its attributes.",
                {"private_ip": prop("string", "IPv4 address, e.g. 10.40.16.12.")},
                self._by_ip,
                ("private_ip",),
            ),
            Tool(
                "list_servers", self.finder.description, self.finder.tool().properties, self._find
            ),
            Tool(
                "server_ingress",
                "The inbound rules a server allows: each of its security groups with its rules.",
                where,
                self._ingress,
                ("address",),
            ),
            Tool(
                "team_footprint",
                "A team's servers (count, running, types, root GiB) and databases (count, GiB).",
                {"team": prop("string", "Team tag.", enum=TEAMS)},
                self._footprint,
                ("team",),
            ),
            Tool(
                "tag_resource",
                "Set one tag on a resource instance (terraform apply of a tag change).",
                where | {"key": prop("string", "Tag key."), "value": prop("string", "Tag value.")},
                self._tag,
                ("address", "key", "value"),
                effect="write",
            ),
            note_tool(
                "add_change_note", "note", "Add a note to the change request (answers nothing)."
            ),
        ]

    def _show(self, state: State, args: dict[str, Any]) -> Answer:
        _, _, entry, item = _at(state, args["address"])
        shown = {"mode": entry["mode"], "type": entry["type"], "provider": entry["provider"]}
        return shown | {"attributes": item["attributes"]}, []

    def _by_ip(self, state: State, args: dict[str, Any]) -> Answer:
        for _, _, entry, item in _placed(state, "aws_instance"):
            if item["attributes"]["private_ip"] == args["private_ip"]:
                return _located(entry, item), []
        raise ToolError(f"no aws_instance with private_ip {args['private_ip']}")

    def _find(self, state: State, args: dict[str, Any]) -> Answer:
        found = self.finder.matches(state, args)
        return {"servers": found[: self.finder.limit], "total": len(found)}, []

    def _ingress(self, state: State, args: dict[str, Any]) -> Answer:
        _, _, entry, item = _at(state, args["address"])
        if entry["type"] != "aws_instance":
            raise ToolError(f"{args['address']} is a {entry['type']}, not an aws_instance")
        groups = {
            i["attributes"]["id"]: i["attributes"]
            for _, _, _, i in _placed(state, "aws_security_group")
        }
        attrs = item["attributes"]
        shown = []
        for ident in attrs["vpc_security_group_ids"]:
            group = groups[ident]
            rules = [
                {
                    "protocol": rule["protocol"],
                    "from_port": rule["from_port"],
                    "to_port": rule["to_port"],
                    "cidr_blocks": rule["cidr_blocks"],
                    "security_groups": rule["security_groups"],
                    "description": rule["description"],
                }
                for rule in group["ingress"]
            ]
            shown.append({"id": ident, "name": group["name"], "ingress": rules})
        return {"instance_id": attrs["id"], "security_groups": shown}, []

    def _footprint(self, state: State, args: dict[str, Any]) -> Answer:
        team = args["team"]
        servers = [
            i["attributes"]
            for _, _, _, i in _placed(state, "aws_instance")
            if i["attributes"]["tags"].get("Team") == team
        ]
        dbs = [
            i["attributes"]
            for _, _, _, i in _placed(state, "aws_db_instance")
            if i["attributes"]["tags"].get("Team") == team
        ]
        return {
            "team": team,
            "servers": len(servers),
            "running": sum(s["instance_state"] == "running" for s in servers),
            "instance_types": summary("distinct", [s["instance_type"] for s in servers]),
            "root_volume_gb": sum(s["root_block_device"][0]["volume_size"] for s in servers),
            "databases": len(dbs),
            "db_storage_gb": sum(d["allocated_storage"] for d in dbs),
        }, []

    def _tag(self, state: State, args: dict[str, Any]) -> Answer:
        r, i, entry, item = _at(state, args["address"])
        if entry["mode"] != "managed" or "tags" not in item["attributes"]:
            raise ToolError(f"{args['address']} does not support tags")
        key, value = args["key"], args["value"]
        before = item["attributes"]["tags"].get(key)
        here = ("resources", r, "instances", i, "attributes")
        patch: list[dict[str, Any]] = [
            {"op": "add", "path": pointer(*here, "tags", key), "value": value},
            {"op": "add", "path": pointer(*here, "tags_all", key), "value": value},
            {"op": "replace", "path": "/serial", "value": state["serial"] + 1},
        ]
        # As `terraform show -json` writes a planned change: the changed attribute before and after.
        change = {"actions": ["update"], "before": {"tags": {key: before}}}
        change["after"] = {"tags": {key: value}}
        answer = {"address": args["address"], "change": change, "serial": state["serial"] + 1}
        return answer, patch

    def _any_address(self, rng: random.Random, state: State, type_: str | None = None) -> str:
        placed = [p for p in _placed(state, type_) if p[2]["mode"] == "managed"]
        _, _, entry, item = rng.choice(placed)
        return address(entry, item)

    def lookup(self, rng: random.Random, state: State) -> Planned:
        kind = rng.choice(["aws_instance", "aws_instance", "aws_security_group", None])
        return Planned("lookup", "state_show", {"address": self._any_address(rng, state, kind)})

    def nested_lookup(self, rng: random.Random, state: State) -> Planned:
        _, _, _, item = rng.choice(_placed(state, "aws_instance"))
        ip = item["attributes"]["private_ip"]
        return Planned("nested_lookup", "find_by_private_ip", {"private_ip": ip})

    def search(self, rng: random.Random, state: State) -> Planned:
        return Planned("search", "list_servers", self.finder.plan(rng, state))

    def join(self, rng: random.Random, state: State) -> Planned:
        where = self._any_address(rng, state, "aws_instance")
        return Planned("join", "server_ingress", {"address": where})

    def aggregate(self, rng: random.Random, state: State) -> Planned:
        _, _, _, item = rng.choice(_placed(state, "aws_instance"))
        team = item["attributes"]["tags"]["Team"]
        return Planned("aggregate", "team_footprint", {"team": team})

    def write(self, rng: random.Random, state: State) -> tuple[Planned, Planned]:
        where = self._any_address(rng, state, rng.choice(["aws_instance", "aws_security_group"]))
        key = rng.choice(TAG_KEYS)
        values = {
            "Owner": f"{rng.choice(FIRST).lower()}@acme.io",
            "CostCenter": f"CC-{rng.randint(1000, 9999)}",
            "Environment": rng.choice(["staging", "production-eu"]),
            "OnCall": rng.choice(["sre-primary", "sre-secondary", "payments-oncall"]),
        }
        args = {"address": where, "key": key, "value": values[key]}
        return Planned("write", "tag_resource", args), Planned(
            "read_after_write", "state_show", {"address": where}
        )

    def no_match(self, rng: random.Random, state: State) -> Planned:
        args = {"team": rng.choice(TEAMS), "min_root_gb": 4000}
        return Planned("empty", "list_servers", args)
