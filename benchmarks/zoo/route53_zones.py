"""The ``route53`` shape's data: an estate's DNS in Amazon Route 53 as ``aws route53`` prints
it, ``list-hosted-zones`` (the zones, public and private, one name served twice as a split
horizon; their record counts left out), ``list-reusable-delegation-sets`` and one
``list-resource-record-sets`` answer per zone.

A record set is keyed by its name, type and (for weighted sets) ``SetIdentifier``; names are
absolute with a trailing dot and a wildcard's ``*`` written ``\\052``; sets are listed in the
order Route 53 keeps, by name with its labels reversed (``com.example.www``), then type;
values are strings whose parts the type decides (``10 mx1.example.``, ``"v=spf1 ..."``); an
alias holds no values but names another record set of the zone; a subdomain is delegated by
an NS set naming the child zone's servers."""

from __future__ import annotations

import random
from typing import Any

from benchmarks.zoo.kit import WORDS, State, fill, size_of

ZONES = "list-hosted-zones.json"
SETS = "list-reusable-delegation-sets.json"
SERVICES = ["web", "api", "db", "cache", "queue", "auth", "search", "batch", "mail", "vpn"]
ENVS = ["prod", "staging", "dev"]
REGIONS = ["eu-west-1", "eu-central-1", "us-east-1"]
TTLS = [60, 300, 600, 3600]


def records_key(zone_id: str) -> str:
    return f"list-resource-record-sets.{zone_id.rsplit('/', 1)[1]}.json"


def zones(state: State) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = state[ZONES]["HostedZones"]
    return found


def record_sets(state: State, zone_id: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = state[records_key(zone_id)]["ResourceRecordSets"]
    return found


def absolute(name: str) -> str:
    name = name.strip().lower().replace("*", "\\052")
    return name if name.endswith(".") else name + "."


def order(name: str, type_: str, identifier: str = "") -> tuple[str, str, str]:
    """Where a set sorts: its name's labels reversed, then its type, then its identifier."""
    labels = absolute(name).rstrip(".").split(".")
    return ".".join(reversed(labels)), type_, identifier


def order_of(record: dict[str, Any]) -> tuple[str, str, str]:
    return order(record["Name"], record["Type"], record.get("SetIdentifier", ""))


def _zone_id(rng: random.Random) -> str:
    return "/hostedzone/Z" + "".join(
        rng.choice("0123456789ABCDEFGHJKLMNPQRSTUVWXYZ") for _ in range(20)
    )


def _values(*values: str) -> list[dict[str, str]]:
    return [{"Value": v} for v in values]


class _Estate:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.zones: list[dict[str, Any]] = []
        self.sets: dict[str, list[dict[str, Any]]] = {}
        self.hosts: dict[str, list[str]] = {}
        self.counter = 0
        self.public = self.private = ""
        self.servers = [
            f"ns-{rng.randint(100, 2047)}.awsdns-{rng.randint(10, 63)}.{tld}"
            for tld in ("org", "co.uk", "com", "net")
        ]

    def zone(self, name: str, private: bool, comment: str) -> str:
        ident = _zone_id(self.rng)
        config = {"Comment": comment, "PrivateZone": private}
        self.zones.append(
            {
                "Id": ident,
                "Name": name,
                "CallerReference": f"terraform-{self.rng.randint(10**9, 10**10 - 1)}",
                "Config": config,
            }
        )
        soa = f"{self.servers[0]}. awsdns-hostmaster.amazon.com. 1 7200 900 1209600 86400"
        servers = (
            [s + "." for s in self.servers]
            if not private
            else [
                "ns-0.awsdns-00.com.",
                "ns-512.awsdns-00.net.",
            ]
        )
        self.sets[ident] = [
            {"Name": name, "Type": "NS", "TTL": 172800, "ResourceRecords": _values(*servers)},
            {"Name": name, "Type": "SOA", "TTL": 900, "ResourceRecords": _values(soa)},
        ]
        self.hosts[ident] = []
        return ident

    def add(self, zone: str, record: dict[str, Any]) -> None:
        self.sets[zone].append(record)

    def base(self) -> tuple[str, str, str, str]:
        rng = self.rng
        public = self.zone("northwind.example.", False, "Public zone (managed by terraform)")
        private = self.zone("northwind.example.", True, "Split horizon for the VPCs")
        corp = self.zone("corp.northwind.example.", False, "Delegated office zone")
        shop = self.zone("teashop.example.", False, "Shop storefront")
        self.public, self.private = public, private
        apex = "northwind.example."
        mail = _values("10 mx1.northwind.example.", "20 mx2.northwind.example.")
        self.add(public, {"Name": apex, "Type": "MX", "TTL": 3600, "ResourceRecords": mail})
        spf = '"v=spf1 include:_spf.northwind.example ~all"'
        verify = f'"google-site-verification={rng.randint(10**11, 10**12)}"'
        self.add(
            public,
            {"Name": apex, "Type": "TXT", "TTL": 300, "ResourceRecords": _values(spf, verify)},
        )
        corp_ns = next(r for r in self.sets[corp] if r["Type"] == "NS")["ResourceRecords"]
        self.add(
            public,
            {"Name": "corp." + apex, "Type": "NS", "TTL": 172800, "ResourceRecords": corp_ns},
        )
        for n, name in enumerate(["mx1", "mx2"]):
            ip = f"203.0.113.{10 + n}"
            self.add(
                public,
                {
                    "Name": f"{name}.{apex}",
                    "Type": "A",
                    "TTL": 3600,
                    "ResourceRecords": _values(ip),
                },
            )
        for zone in (public, shop):
            target = f"preview-lb.{self.zones[-1 if zone == shop else 0]['Name']}"
            ip = f"198.51.100.{rng.randint(2, 250)}"
            self.add(zone, {"Name": target, "Type": "A", "TTL": 60, "ResourceRecords": _values(ip)})
            wildcard = "\\052.preview." + target.split(".", 1)[1]
            self.add(
                zone,
                {"Name": wildcard, "Type": "CNAME", "TTL": 300, "ResourceRecords": _values(target)},
            )
        for color, weight in (("blue", 90), ("green", 10)):
            ip = f"203.0.113.{rng.randint(20, 250)}"
            record = {"Name": "api." + apex, "Type": "A", "SetIdentifier": color, "Weight": weight}
            self.add(
                public,
                record
                | {"TTL": 60, "ResourceRecords": _values(ip, f"203.0.113.{rng.randint(20, 250)}")},
            )
        sip = _values(f"10 60 5060 sip-01.corp.{apex}", f"20 60 5060 sip-02.corp.{apex}")
        self.add(
            corp,
            {"Name": f"_sip._tcp.corp.{apex}", "Type": "SRV", "TTL": 300, "ResourceRecords": sip},
        )
        return public, private, corp, shop

    def host(self, zone: str, private: bool) -> None:
        rng = self.rng
        self.counter += 1
        name = self.zones_by_id[zone]["Name"]
        service = rng.choice(SERVICES)
        env, region = rng.choice(ENVS), rng.choice(REGIONS)
        host = f"{service}-{self.counter:04d}.{env}.{region}.{name}"
        first = f"10.{rng.randint(0, 255)}" if private else rng.choice(["203.0", "198.51"])
        second = rng.randint(0, 255) if private else (113 if first == "203.0" else 100)
        ips = [f"{first}.{second}.{rng.randint(1, 254)}" for _ in range(rng.choice([1, 1, 2, 3]))]
        self.add(
            zone,
            {"Name": host, "Type": "A", "TTL": rng.choice(TTLS), "ResourceRecords": _values(*ips)},
        )
        self.hosts[zone].append(host)
        if zone == self.public and rng.random() < 0.2:  # the split horizon's inside answer
            inside = f"10.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}"
            self.add(
                self.private,
                {"Name": host, "Type": "A", "TTL": 60, "ResourceRecords": _values(inside)},
            )
        if rng.random() < 0.25:
            alias = f"{service}{rng.randint(1, 99)}-{rng.choice(WORDS)}.{name}"
            if rng.random() < 0.5:
                self.add(
                    zone,
                    {"Name": alias, "Type": "CNAME", "TTL": 300, "ResourceRecords": _values(host)},
                )
            else:
                target = {
                    "HostedZoneId": zone.rsplit("/", 1)[1],
                    "DNSName": host,
                    "EvaluateTargetHealth": False,
                }
                self.add(zone, {"Name": alias, "Type": "A", "AliasTarget": target})
        if rng.random() < 0.1:
            text = f'"owner={rng.choice(WORDS)}-team" "ticket=OPS-{rng.randint(100, 9999)}"'
            self.add(
                zone, {"Name": host, "Type": "TXT", "TTL": 300, "ResourceRecords": _values(text)}
            )

    @property
    def zones_by_id(self) -> dict[str, dict[str, Any]]:
        return {z["Id"]: z for z in self.zones}

    def state(self) -> State:
        state: State = {
            ZONES: {"HostedZones": self.zones, "IsTruncated": False, "MaxItems": "100"},
            SETS: {
                "DelegationSets": [
                    {
                        "Id": "/delegationset/N1PA6795SAMPLE",
                        "CallerReference": "northwind-whitelabel",
                        "NameServers": self.servers,
                    }
                ],
                "IsTruncated": False,
                "MaxItems": "100",
            },
        }
        for ident, found in self.sets.items():
            found.sort(key=order_of)
            state[records_key(ident)] = {
                "ResourceRecordSets": found,
                "IsTruncated": False,
                "MaxItems": "300",
            }
        return state


def estate(rng: random.Random, target_bytes: int) -> State:
    built = _Estate(rng)
    public, private, corp, shop = built.base()
    choices = [(public, False), (public, False), (private, True), (corp, False), (shop, False)]

    def add() -> None:
        zone, hidden = rng.choice(choices)
        built.host(zone, hidden)

    def measure() -> int:
        return size_of(built.state())

    fill(add, measure, target_bytes)
    return built.state()
