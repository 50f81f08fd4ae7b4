"""``route53``: an estate's DNS in Amazon Route 53, its state the ``aws route53`` listings of
its hosted zones and their record sets (:mod:`.route53_zones`). Tools are the Route 53 API
actions as boto3 calls them: ``ListResourceRecordSets`` (a page from a start name, type and
identifier, in reversed-label order), ``TestDNSAnswer`` (what a name server answers: aliases
and wildcards resolved, ``NXDOMAIN`` for names not there), ``GetHostedZone`` and
``GetHostedZoneLimit`` (counts of record sets) and ``ChangeResourceRecordSets`` (a batch of
``CREATE``/``UPSERT``/``DELETE`` changes, answered with its ``ChangeInfo``)."""

from __future__ import annotations

import bisect
import hashlib
import json
import random
from typing import Any

from benchmarks.zoo.kit import (
    Answer,
    Patch,
    Planned,
    State,
    Tool,
    ToolError,
    note_tool,
    pointer,
    prop,
)
from benchmarks.zoo.route53_zones import (
    SETS,
    absolute,
    estate,
    order,
    order_of,
    record_sets,
    records_key,
    zones,
)
from benchmarks.zoo.shape import Shape

VPC = {"VPCRegion": "eu-west-1", "VPCId": "vpc-0a1b2c3d4e5f60718"}
ZONE = {"HostedZoneId": prop("string", "The hosted zone's id (Z... or /hostedzone/Z...).")}
LIST = ZONE | {
    "StartRecordName": prop("string", "The name to start listing at."),
    "StartRecordType": prop("string", "The type to start at (with StartRecordName)."),
    "StartRecordIdentifier": prop("string", "The SetIdentifier to start at (weighted sets)."),
    "MaxItems": prop("string", "At most this many record sets (default 300)."),
}
TEST = ZONE | {
    "RecordName": prop("string", "The name to resolve."),
    "RecordType": prop("string", "The record type (A, AAAA, CNAME, MX, TXT, SRV, NS, SOA)."),
}
CHANGE = ZONE | {
    "ChangeBatch": prop(
        "object",
        'The changes: {"Comment": ..., "Changes": [{"Action": "CREATE|UPSERT|DELETE", '
        '"ResourceRecordSet": {"Name", "Type", "TTL", "ResourceRecords": [{"Value"}]}}]}.',
    )
}


def _zone(state: State, ident: str) -> dict[str, Any]:
    for zone in zones(state):
        if zone["Id"].rsplit("/", 1)[1] == ident.rsplit("/", 1)[-1]:
            return zone
    raise ToolError(f"NoSuchHostedZone: No hosted zone found with ID: {ident}")


def _list(state: State, args: dict[str, Any]) -> Answer:
    zone = _zone(state, str(args["HostedZoneId"]))
    found = record_sets(state, zone["Id"])
    most = int(args.get("MaxItems", "300"))
    start = 0
    if "StartRecordType" in args and "StartRecordName" not in args:
        raise ToolError("InvalidInput: StartRecordType requires StartRecordName")
    if "StartRecordName" in args:
        key = order(
            str(args["StartRecordName"]),
            str(args.get("StartRecordType", "")),
            str(args.get("StartRecordIdentifier", "")),
        )
        start = next((n for n, r in enumerate(found) if order_of(r) >= key), len(found))
    page = found[start : start + most]
    answer: dict[str, Any] = {"ResourceRecordSets": page, "IsTruncated": start + most < len(found)}
    if answer["IsTruncated"]:
        following = found[start + most]
        answer |= {"NextRecordName": following["Name"], "NextRecordType": following["Type"]}
        if "SetIdentifier" in following:
            answer["NextRecordIdentifier"] = following["SetIdentifier"]
    return answer | {"MaxItems": str(most)}, []


def _at(found: list[dict[str, Any]], name: str) -> list[dict[str, Any]]:
    return [r for r in found if r["Name"] == name]


def _resolve(found: list[dict[str, Any]], name: str, type_: str) -> tuple[str, list[str]]:
    """A name server's answer for ``name``: the type's values (an alias followed within the
    zone, the heaviest of weighted sets), else a CNAME's target, else a wildcard's."""
    here = _at(found, name)
    if not here:
        labels = name.split(".")
        for n in range(1, len(labels) - 1):
            wildcard = "\\052." + ".".join(labels[n:])
            if _at(found, wildcard):
                return _resolve(found, wildcard, type_)
        return "NXDOMAIN", []
    typed = sorted((r for r in here if r["Type"] == type_), key=lambda r: -r.get("Weight", 0))
    if typed:
        chosen = typed[0]
        if "AliasTarget" in chosen:
            return _resolve(found, absolute(chosen["AliasTarget"]["DNSName"]), type_)
        return "NOERROR", [v["Value"] for v in chosen["ResourceRecords"]]
    cname = [r for r in here if r["Type"] == "CNAME"]
    return "NOERROR", [v["Value"] for v in cname[0]["ResourceRecords"]] if cname else []


def _test(state: State, args: dict[str, Any]) -> Answer:
    zone = _zone(state, str(args["HostedZoneId"]))
    if zone["Config"]["PrivateZone"]:
        raise ToolError("InvalidInput: TestDNSAnswer does not support private hosted zones")
    name, type_ = str(args["RecordName"]), str(args["RecordType"]).upper()
    code, data = _resolve(record_sets(state, zone["Id"]), absolute(name), type_)
    server = state[SETS]["DelegationSets"][0]["NameServers"][0]
    answer = {"Nameserver": server, "RecordName": name, "RecordType": type_}
    return answer | {"RecordData": data, "ResponseCode": code, "Protocol": "UDP"}, []


def _get_zone(state: State, args: dict[str, Any]) -> Answer:
    zone = _zone(state, str(args["Id"]))
    answer: dict[str, Any] = {
        "HostedZone": zone | {"ResourceRecordSetCount": len(record_sets(state, zone["Id"]))}
    }
    if zone["Config"]["PrivateZone"]:
        return answer | {"VPCs": [VPC]}, []
    delegation = state[SETS]["DelegationSets"][0]
    return answer | {"DelegationSet": {k: delegation[k] for k in ("Id", "NameServers")}}, []


def _limit(state: State, args: dict[str, Any]) -> Answer:
    if args["Type"] != "MAX_RRSETS_BY_ZONE":
        raise ToolError(f"InvalidInput: unknown limit type {args['Type']}")
    count = len(record_sets(state, _zone(state, str(args["HostedZoneId"]))["Id"]))
    return {"Limit": {"Type": "MAX_RRSETS_BY_ZONE", "Value": 10000}, "Count": count}, []


def _change(state: State, args: dict[str, Any]) -> Answer:
    zone = _zone(state, str(args["HostedZoneId"]))
    batch = dict(args["ChangeBatch"])
    found = list(record_sets(state, zone["Id"]))
    keys = [order_of(r) for r in found]
    base = pointer(records_key(zone["Id"]), "ResourceRecordSets")
    patch: Patch = []
    for change in batch["Changes"]:
        record = dict(change["ResourceRecordSet"])
        record["Name"] = absolute(record["Name"])
        key = order_of(record)
        at = bisect.bisect_left(keys, key)
        there = at < len(keys) and keys[at] == key
        action = change["Action"]
        if action == "DELETE" or (action == "CREATE" and there):
            if action == "CREATE" or not there or found[at] != record:
                verb = "create" if action == "CREATE" else "delete"
                state_ = "already exists" if action == "CREATE" else "was not found"
                raise ToolError(
                    f"InvalidChangeBatch: Tried to {verb} resource record set "
                    f"[name='{record['Name']}', type='{record['Type']}'] but it {state_}"
                )
            patch.append({"op": "remove", "path": f"{base}/{at}"})
            del found[at], keys[at]
        elif there:
            patch.append({"op": "replace", "path": f"{base}/{at}", "value": record})
            found[at] = record
        else:
            patch.append({"op": "add", "path": f"{base}/{at}", "value": record})
            found.insert(at, record)
            keys.insert(at, key)
    digest = hashlib.sha1(json.dumps(args, sort_keys=True).encode()).hexdigest().upper()
    info = {"Id": f"/change/C{digest[:13]}", "Status": "PENDING"}
    info |= {"SubmittedAt": "2026-11-28T09:00:00.000Z", "Comment": batch.get("Comment", "")}
    return {"ChangeInfo": info}, patch


def _zone_id(zone: dict[str, Any]) -> str:
    return str(zone["Id"].rsplit("/", 1)[1])


class Route53(Shape):
    name = "route53"
    title = "Platform assistant over an estate's DNS in Route 53"
    description = (
        "Northwind's DNS in Amazon Route 53: the hosted zones (northwind.example is served "
        "twice, publicly and privately to VPC vpc-0a1b2c3d4e5f60718 in eu-west-1), the reusable "
        "delegation set and each zone's record sets, as the AWS CLI lists them. Tools are the "
        "Route 53 API actions, answered as boto3 returns them; errors are text starting with "
        "'Error:' and the error code."
    )
    note = ("change_log_note", "text")

    def build(self, rng: random.Random, target_bytes: int) -> State:
        return estate(rng, target_bytes)

    def tools(self) -> list[Tool]:
        get = {"Id": prop("string", "The hosted zone's id.")}
        limit = ZONE | {
            "Type": prop("string", "MAX_RRSETS_BY_ZONE or MAX_VPCS_ASSOCIATED_BY_ZONE.")
        }
        return [
            Tool(
                "list_resource_record_sets",
                "ListResourceRecordSets.",
                LIST,
                _list,
                ("HostedZoneId",),
            ),
            Tool(
                "test_dns_answer",
                "TestDNSAnswer: the answer a Route 53 name server gives over UDP (ResponseCode "
                "NOERROR or NXDOMAIN).",
                TEST,
                _test,
                ("HostedZoneId", "RecordName", "RecordType"),
            ),
            Tool("get_hosted_zone", "GetHostedZone.", get, _get_zone, ("Id",)),
            Tool(
                "get_hosted_zone_limit",
                "GetHostedZoneLimit.",
                limit,
                _limit,
                ("Type", "HostedZoneId"),
            ),
            Tool(
                "change_resource_record_sets",
                "ChangeResourceRecordSets: answers the ChangeInfo (Status PENDING).",
                CHANGE,
                _change,
                ("HostedZoneId", "ChangeBatch"),
                effect="write",
            ),
            note_tool("change_log_note", "text", "Write to the change log (answers nothing)."),
        ]

    @staticmethod
    def _sets(
        state: State, rng: random.Random, private: bool | None = None
    ) -> tuple[str, list[dict[str, Any]]]:
        chosen = [
            z for z in zones(state) if private is None or z["Config"]["PrivateZone"] == private
        ]
        zone = rng.choice(chosen)
        return _zone_id(zone), record_sets(state, zone["Id"])

    @staticmethod
    def _list_one(kind: str, zone: str, record: dict[str, Any]) -> Planned:
        arguments = {
            "HostedZoneId": zone,
            "StartRecordName": record["Name"],
            "StartRecordType": record["Type"],
        }
        if "SetIdentifier" in record:
            arguments["StartRecordIdentifier"] = record["SetIdentifier"]
        return Planned(kind, "list_resource_record_sets", arguments | {"MaxItems": "1"})

    @staticmethod
    def _test_one(kind: str, zone: str, name: str, type_: str) -> Planned:
        arguments = {"HostedZoneId": zone, "RecordName": name.rstrip("."), "RecordType": type_}
        return Planned(kind, "test_dns_answer", arguments)

    def lookup(self, rng: random.Random, state: State) -> Planned:
        zone, found = self._sets(state, rng, None if rng.random() < 0.5 else False)
        hosts = [
            r
            for r in found
            if r["Type"] == "A" and "ResourceRecords" in r and "SetIdentifier" not in r
        ]
        record = rng.choice(hosts)
        if _zone(state, zone)["Config"]["PrivateZone"] or rng.random() < 0.5:
            return self._list_one("lookup", zone, record)
        return self._test_one("lookup", zone, record["Name"], "A")

    def nested_lookup(self, rng: random.Random, state: State) -> Planned:
        zone, found = self._sets(state, rng, False)
        nested = [
            r for r in found if r["Type"] in ("MX", "TXT", "SRV", "NS") or "SetIdentifier" in r
        ]
        record = rng.choice(nested)
        if rng.random() < 0.5 or "SetIdentifier" in record:
            return self._list_one("nested_lookup", zone, record)
        return self._test_one("nested_lookup", zone, record["Name"], record["Type"])

    def search(self, rng: random.Random, state: State) -> Planned:
        zone, found = self._sets(state, rng)
        record = rng.choice([r for r in found if r["Name"].count(".") >= 5])
        start = record["Name"].split(".", 1 + (rng.random() < 0.5))[-1]
        arguments = {
            "HostedZoneId": zone,
            "StartRecordName": start,
            "MaxItems": str(rng.choice([10, 20])),
        }
        return Planned("search", "list_resource_record_sets", arguments)

    def join(self, rng: random.Random, state: State) -> Planned:
        zone, found = self._sets(state, rng, False)
        aliases = [r for r in found if "AliasTarget" in r or r["Type"] == "CNAME"]
        record = rng.choice(aliases)
        name = record["Name"]
        if name.startswith("\\052."):
            name = f"pr-{rng.randint(100, 999)}" + name[4:]
        return self._test_one("join", zone, name, "A")

    def aggregate(self, rng: random.Random, state: State) -> Planned:
        zone = _zone_id(rng.choice(zones(state)))
        if rng.random() < 0.5:
            return Planned("aggregate", "get_hosted_zone", {"Id": zone})
        arguments = {"Type": "MAX_RRSETS_BY_ZONE", "HostedZoneId": zone}
        return Planned("aggregate", "get_hosted_zone_limit", arguments)

    def write(self, rng: random.Random, state: State) -> tuple[Planned, Planned]:
        zone, found = self._sets(state, rng, False)
        hosts = [
            r
            for r in found
            if r["Type"] == "A" and "ResourceRecords" in r and "SetIdentifier" not in r
        ]
        record = rng.choice(hosts)
        if rng.random() < 0.5:
            ip = f"203.0.113.{rng.randint(1, 254)}"
            upsert = {
                "Name": record["Name"],
                "Type": "A",
                "TTL": rng.choice([60, 120]),
                "ResourceRecords": [{"Value": ip}],
            }
            batch = {
                "Comment": "Move to the new instance",
                "Changes": [{"Action": "UPSERT", "ResourceRecordSet": upsert}],
            }
            write = Planned(
                "write", "change_resource_record_sets", {"HostedZoneId": zone, "ChangeBatch": batch}
            )
            return write, self._list_one("read_after_write", zone, upsert)
        name = f"status-{rng.randint(10, 99)}.{record['Name'].split('.', 1)[1]}"
        create = {
            "Name": name,
            "Type": "CNAME",
            "TTL": 300,
            "ResourceRecords": [{"Value": record["Name"]}],
        }
        batch = {
            "Comment": "Add a status page",
            "Changes": [{"Action": "UPSERT", "ResourceRecordSet": create}],
        }
        write = Planned(
            "write", "change_resource_record_sets", {"HostedZoneId": zone, "ChangeBatch": batch}
        )
        return write, self._test_one("read_after_write", zone, name, "CNAME")

    def no_match(self, rng: random.Random, state: State) -> Planned:
        zone = next(
            z
            for z in zones(state)
            if z["Name"] == "northwind.example." and not z["Config"]["PrivateZone"]
        )
        start = f"zzz-{rng.choice(['retired', 'legacy', 'old'])}.northwind.example."
        arguments = {"HostedZoneId": _zone_id(zone), "StartRecordName": start}
        return Planned("empty", "list_resource_record_sets", arguments)
