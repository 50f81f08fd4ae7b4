"""The ``ldap`` shape's data and its server's reading of it: a company directory in 389
Directory Server as ldap3's ``response_to_json()`` writes a subtree search for ``*``
(``{"entries": [{"attributes": {...}, "dn": ...}]}``), every attribute a list of strings.

The tree is held by the DNs alone (a person's department is the ``ou`` their DN sits under);
people name their manager by DN; groups list their members' DNs and the memberOf plugin writes
each group's DN back into its members' ``memberOf``, so a membership is kept on both sides;
``numSubordinates`` and ``hasSubordinates`` are operational:
the server counts them, no entry holds them. Filters are RFC 4515 strings."""

from __future__ import annotations

import random
import re
from typing import Any

from benchmarks.zoo.kit import CITIES, FIRST, LAST, WORDS, State, ToolError, fill, size_of

FILE = "directory.json"
SUFFIX = "dc=northwind,dc=example"
PEOPLE = f"ou=People,{SUFFIX}"
GROUPS = f"ou=Groups,{SUFFIX}"
DEPARTMENTS = ["Engineering", "Finance", "Sales", "Support", "Legal", "Research", "Logistics"]
TITLES = ["Engineer", "Senior Engineer", "Analyst", "Senior Analyst", "Manager", "Director"]
TITLES += ["Specialist", "Coordinator", "Associate", "Consultant"]
TYPES = ["Employee", "Contractor", "Intern"]
PERSON_CLASSES = ["top", "person", "organizationalPerson", "inetOrgPerson", "posixAccount"]
OPERATIONAL = ("numSubordinates", "hasSubordinates")


def entries(state: State) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = state[FILE]["entries"]
    return found


def norm_dn(dn: str) -> str:
    return ",".join(part.strip().lower() for part in dn.split(","))


def parent(dn: str) -> str:
    return norm_dn(dn).split(",", 1)[1] if "," in dn else ""


def index_of(state: State, dn: str) -> int:
    wanted = norm_dn(dn)
    for n, entry in enumerate(entries(state)):
        if norm_dn(entry["dn"]) == wanted:
            return n
    raise ToolError(f"noSuchObject: {dn}")


def people(state: State) -> list[dict[str, Any]]:
    return [e for e in entries(state) if "inetOrgPerson" in e["attributes"].get("objectClass", [])]


def groups(state: State) -> list[dict[str, Any]]:
    return [e for e in entries(state) if "groupOfNames" in e["attributes"].get("objectClass", [])]


# RFC 4515 filters: (&...), (|...), (!...), (a=v), (a=v*w), (a=*), (a>=v), (a<=v).
Node = tuple[Any, ...]


def parse_filter(text: str) -> Node:
    node, rest = _parse(text.strip())
    if rest.strip():
        raise ToolError(f"invalid filter: {text}")
    return node


def _parse(text: str) -> tuple[Node, str]:
    if not text.startswith("("):
        raise ToolError(f"invalid filter: {text}")
    body = text[1:]
    if body[:1] in "&|":
        children: list[Node] = []
        rest = body[1:]
        while rest.startswith("("):
            child, rest = _parse(rest)
            children.append(child)
        return (body[0], children), rest[1:]
    if body[:1] == "!":
        child, rest = _parse(body[1:])
        return ("!", child), rest[1:]
    end = body.index(")")
    match = re.fullmatch(r"([\w.;-]+)(>=|<=|=)(.*)", body[:end])
    if match is None:
        raise ToolError(f"invalid filter: {text}")
    return ("cmp", match[1].lower(), match[2], match[3]), body[end + 1 :]


def _values_of(entry: dict[str, Any], attribute: str) -> list[str]:
    for name, values in entry["attributes"].items():
        if name.lower() == attribute:
            return list(values)
    return []


def _compare(value: str, op: str, wanted: str) -> bool:
    if op == "=":
        if "*" in wanted:
            pattern = ".*".join(re.escape(p) for p in wanted.split("*"))
            return re.fullmatch(pattern, value, re.IGNORECASE | re.DOTALL) is not None
        if "=" in value and "," in value:  # a DN: compared as distinguishedNameMatch
            return norm_dn(value) == norm_dn(wanted)
        return value.lower() == wanted.lower()
    if value.lstrip("-").isdigit() and wanted.lstrip("-").isdigit():  # integerOrderingMatch
        left, right = int(value), int(wanted)
    else:
        left, right = value.lower(), wanted.lower()  # type: ignore[assignment]
    return left >= right if op == ">=" else left <= right


def matches(node: Node, entry: dict[str, Any]) -> bool:
    if node[0] == "&":
        return all(matches(child, entry) for child in node[1])
    if node[0] == "|":
        return any(matches(child, entry) for child in node[1])
    if node[0] == "!":
        return not matches(node[1], entry)
    _, attribute, op, wanted = node
    values = _values_of(entry, attribute)
    if op == "=" and wanted == "*":
        return bool(values)
    return any(_compare(v, op, wanted) for v in values)


def in_scope(dn: str, base: str, scope: str) -> bool:
    dn, base = norm_dn(dn), norm_dn(base)
    if scope == "BASE":
        return dn == base
    if scope == "LEVEL":
        return parent(dn) == base
    return dn == base or dn.endswith("," + base)


def operational(state: State, dn: str) -> dict[str, list[str]]:
    """What the server computes for an entry: its count of immediate subordinates."""
    count = sum(1 for e in entries(state) if parent(e["dn"]) == norm_dn(dn))
    return {"numSubordinates": [str(count)], "hasSubordinates": ["TRUE" if count else "FALSE"]}


def shown(state: State, entry: dict[str, Any], attributes: list[str]) -> dict[str, Any]:
    """An entry as ldap3's ``response_to_json`` shows it, with the attributes asked for
    (``*`` all user attributes, ``+`` the operational ones, ``1.1`` none)."""
    asked = [a.lower() for a in attributes]
    held: dict[str, Any] = entry["attributes"]
    out: dict[str, Any] = {}
    if "*" in asked:
        out.update(held)
    else:
        out.update({k: v for k, v in held.items() if k.lower() in asked})
    if "+" in asked or any(o.lower() in asked for o in OPERATIONAL):
        computed = operational(state, entry["dn"])
        out.update({k: v for k, v in computed.items() if "+" in asked or k.lower() in asked})
    return {"attributes": out, "dn": entry["dn"]}


class _Directory:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.entries: list[dict[str, Any]] = []
        self.groups: list[dict[str, Any]] = []
        self.managers: dict[str, list[str]] = {d: [] for d in DEPARTMENTS}
        self.uids: set[str] = set()
        self.number = 1000

    def add(self, dn: str, attributes: dict[str, list[str]]) -> dict[str, Any]:
        entry = {"attributes": attributes, "dn": dn}
        self.entries.append(entry)
        return entry

    def base(self) -> None:
        self.add(SUFFIX, {"objectClass": ["top", "domain"], "dc": ["northwind"]})
        for ou, text in (("People", "Staff accounts"), ("Groups", "Teams and projects")):
            classes = ["top", "organizationalUnit"]
            self.add(
                f"ou={ou},{SUFFIX}", {"objectClass": classes, "ou": [ou], "description": [text]}
            )
        for name in DEPARTMENTS:
            phone = f"+44 20 7946 {self.rng.randint(1000, 9999)}"
            attributes = {"objectClass": ["top", "organizationalUnit"], "ou": [name]}
            attributes |= {"description": [f"{name} department"], "telephoneNumber": [phone]}
            self.add(f"ou={name},{PEOPLE}", attributes)

    def group(self) -> None:
        rng = self.rng
        cn = f"{rng.choice(WORDS)}-{rng.choice(WORDS)}-{len(self.groups) + 1:03d}"
        attributes = {"objectClass": ["top", "groupOfNames"], "cn": [cn], "member": []}
        attributes["description"] = [
            f"{rng.choice(WORDS).title()} {rng.choice(['team', 'project'])}"
        ]
        entry = {"attributes": attributes, "dn": f"cn={cn},{GROUPS}"}
        # Groups sit under ou=Groups, before the people the export lists after them.
        self.entries.insert(len(DEPARTMENTS) + 3 + len(self.groups), entry)
        self.groups.append(entry)

    def person(self) -> None:
        rng = self.rng
        new = len(self.groups) < 3 or self.number % 12 == 0
        if new:
            self.group()
        first, last = rng.choice(FIRST), rng.choice(LAST)
        uid = f"{first}.{last}".lower()
        while uid in self.uids:
            uid = f"{first}.{last}{rng.randint(2, 99)}".lower()
        self.uids.add(uid)
        department = rng.choice(DEPARTMENTS)
        dn = f"uid={uid},ou={department},{PEOPLE}"
        self.number += 1
        bosses = self.managers[department]
        title = "Manager" if len(bosses) < 4 or rng.random() < 0.06 else rng.choice(TITLES)
        attributes: dict[str, list[str]] = {
            "objectClass": list(PERSON_CLASSES),
            "uid": [uid],
            "cn": [f"{first} {last}"],
            "sn": [last],
            "givenName": [first],
            "mail": [f"{uid}@northwind.example"],
            "title": [title],
            "employeeNumber": [f"E{self.number:05d}"],
            "employeeType": [rng.choices(TYPES, (8, 3, 1))[0]],
            "l": [rng.choice(CITIES)],
            "telephoneNumber": [f"+44 20 7946 {rng.randint(1000, 9999)}"],
            "uidNumber": [str(self.number + 9000)],
            "gidNumber": ["100"],
            "homeDirectory": [f"/home/{uid}"],
            "loginShell": [rng.choice(["/bin/bash", "/bin/zsh"])],
        }
        if rng.random() < 0.3:
            attributes["telephoneNumber"].append(f"+44 7700 {rng.randint(100000, 999999)}")
        if bosses:
            attributes["manager"] = [rng.choice(bosses[-6:])]
        if title == "Manager":
            bosses.append(dn)
        joined = rng.sample(self.groups[-5:], min(len(self.groups), rng.randint(1, 2)))
        if new and self.groups[-1] not in joined:
            joined[0] = self.groups[-1]  # a groupOfNames must list a member
        attributes["memberOf"] = [g["dn"] for g in joined]
        for group in joined:
            group["attributes"]["member"].append(dn)
        self.add(dn, attributes)


def directory(rng: random.Random, target_bytes: int) -> State:
    built = _Directory(rng)
    built.base()
    state = {FILE: {"entries": built.entries}}
    fill(built.person, lambda: size_of(state), target_bytes)
    return state
