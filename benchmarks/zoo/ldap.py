"""``ldap``: a company directory in 389 Directory Server, its state the subtree's entries as
ldap3 exports them (:mod:`.ldap_directory`): people under their department's ``ou``, groups
of member DNs mirrored in the members' ``memberOf``, managers named by DN. Tools are ldap3's
``Connection`` operations: ``search`` (base, RFC 4515 filter, scope, attributes; answered as
``response_to_json``), ``modify`` (``MODIFY_REPLACE``/``MODIFY_ADD`` changes; answered as
``Connection.result``) and ``add``."""

from __future__ import annotations

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
from benchmarks.zoo.ldap_directory import (
    DEPARTMENTS,
    FILE,
    GROUPS,
    PEOPLE,
    SUFFIX,
    TITLES,
    directory,
    entries,
    groups,
    in_scope,
    index_of,
    matches,
    norm_dn,
    parse_filter,
    people,
    shown,
)
from benchmarks.zoo.shape import Shape

SCOPES = ["BASE", "LEVEL", "SUBTREE"]
SEARCH = {
    "search_base": prop("string", "The DN the search starts at."),
    "search_filter": prop("string", "An RFC 4515 filter, e.g. (&(objectClass=person)(l=Oban))."),
    "search_scope": prop("string", "BASE, LEVEL or SUBTREE (default).", enum=SCOPES),
    "attributes": prop(
        "array",
        "Attributes to return: names, '*' (user), '+' (operational), '1.1' (none).",
        items={"type": "string"},
    ),
}
MODIFY = {
    "dn": prop("string", "The entry's DN."),
    "changes": prop(
        "object",
        'Per attribute a list of [operation, values], e.g. {"title": [["MODIFY_REPLACE", '
        '["Director"]]]}; operations MODIFY_REPLACE, MODIFY_ADD, MODIFY_DELETE.',
    ),
}
ADD = {
    "dn": prop("string", "The new entry's DN."),
    "object_class": prop("array", "Its object classes.", items={"type": "string"}),
    "attributes": prop("object", "Its attributes, each a value or a list of values."),
}


def _result(kind: str) -> dict[str, Any]:
    return {
        "result": 0,
        "description": "success",
        "dn": "",
        "message": "",
        "referrals": None,
        "type": kind,
    }


def _search(state: State, args: dict[str, Any]) -> Answer:
    base = str(args["search_base"])
    scope = str(args.get("search_scope", "SUBTREE")).upper()
    if norm_dn(base) != norm_dn(SUFFIX):
        index_of(state, base)  # noSuchObject when the base is not there
    node = parse_filter(str(args.get("search_filter", "(objectClass=*)")))
    attributes = [str(a) for a in args.get("attributes") or ["1.1"]]
    found = [
        shown(state, e, attributes)
        for e in entries(state)
        if in_scope(e["dn"], base, scope) and matches(node, e)
    ]
    return {"entries": found}, []


def _modify(state: State, args: dict[str, Any]) -> Answer:
    dn = str(args["dn"])
    n = index_of(state, dn)
    held: dict[str, Any] = entries(state)[n]["attributes"]
    patch: Patch = []
    for attribute, changes in dict(args["changes"]).items():
        for operation, values in changes:
            path = pointer(FILE, "entries", n, "attributes", attribute)
            if operation == "MODIFY_REPLACE":
                op = "replace" if attribute in held else "add"
                patch.append({"op": op, "path": path, "value": list(values)})
            elif operation == "MODIFY_ADD":
                for value in values:
                    if attribute not in held:
                        patch.append({"op": "add", "path": path, "value": [value]})
                    else:
                        patch.append({"op": "add", "path": path + "/-", "value": value})
                    if attribute == "member":  # the memberOf plugin writes the other side
                        member = index_of(state, str(value))
                        target = pointer(FILE, "entries", member, "attributes", "memberOf", "-")
                        patch.append({"op": "add", "path": target, "value": dn})
            else:
                raise ToolError(f"unwillingToPerform: {operation}")
    return _result("modifyResponse"), patch


def _add(state: State, args: dict[str, Any]) -> Answer:
    dn = str(args["dn"])
    if any(norm_dn(e["dn"]) == norm_dn(dn) for e in entries(state)):
        raise ToolError(f"entryAlreadyExists: {dn}")
    attributes = {"objectClass": list(args["object_class"])}
    for name, value in dict(args.get("attributes", {})).items():
        attributes[name] = list(value) if isinstance(value, list) else [str(value)]
    entry = {"attributes": attributes, "dn": dn}
    patch = [{"op": "add", "path": pointer(FILE, "entries", "-"), "value": entry}]
    return _result("addResponse"), patch


def _find(kind: str, base: str, filter_: str, scope: str, attributes: list[str]) -> Planned:
    arguments = {
        "search_base": base,
        "search_filter": filter_,
        "search_scope": scope,
        "attributes": attributes,
    }
    return Planned(kind, "ldap_search", arguments)


def _department(dn: str) -> str:
    return dn.split(",", 1)[1]


class Ldap(Shape):
    name = "ldap"
    title = "IT helpdesk assistant over a company's LDAP directory"
    description = (
        "Northwind's directory in 389 Directory Server (suffix dc=northwind,dc=example), as "
        "ldap3 exports a subtree search for all user attributes. Tools are ldap3 Connection "
        "operations: searches answer response_to_json(), modifications the LDAP result; "
        "errors are text starting with 'Error:' (noSuchObject, entryAlreadyExists)."
    )
    note = ("ticket_note", "text")

    def build(self, rng: random.Random, target_bytes: int) -> State:
        return directory(rng, target_bytes)

    def tools(self) -> list[Tool]:
        return [
            Tool("ldap_search", "Search the directory.", SEARCH, _search, ("search_base",)),
            Tool(
                "ldap_modify",
                "Modify an entry's attributes; answers the LDAP result (success).",
                MODIFY,
                _modify,
                ("dn", "changes"),
                effect="write",
            ),
            Tool(
                "ldap_add",
                "Add an entry; answers the LDAP result (addResponse).",
                ADD,
                _add,
                ("dn", "object_class"),
                effect="write",
            ),
            note_tool("ticket_note", "text", "Add a note to the ticket (answers nothing)."),
        ]

    def lookup(self, rng: random.Random, state: State) -> Planned:
        person = rng.choice(people(state))
        if rng.random() < 0.5:
            wanted = ["cn", "mail", "title", "telephoneNumber", "employeeNumber"]
            return _find("lookup", person["dn"], "(objectClass=*)", "BASE", wanted)
        uid = person["attributes"]["uid"][0]
        return _find("lookup", SUFFIX, f"(uid={uid})", "SUBTREE", ["*"])

    def nested_lookup(self, rng: random.Random, state: State) -> Planned:
        person = rng.choice([p for p in people(state) if "manager" in p["attributes"]])
        wanted = ["memberOf"] if rng.random() < 0.5 else ["manager", "l"]
        return _find("nested_lookup", person["dn"], "(objectClass=*)", "BASE", wanted)

    def search(self, rng: random.Random, state: State) -> Planned:
        person = rng.choice(people(state))
        held = person["attributes"]
        wanted = ["uid", "cn", "title", "mail"]
        if rng.random() < 0.5:
            title = held["title"][0]
            clauses = [f"(title={title[: rng.randint(3, len(title))]}*)", f"(l={held['l'][0]})"]
            filter_ = "(&(objectClass=inetOrgPerson)" + "".join(clauses) + ")"
            return _find("search", _department(person["dn"]), filter_, "LEVEL", wanted)
        number = int(held["uidNumber"][0])
        low, high = number - rng.randint(0, 15), number + rng.randint(0, 15)
        filter_ = (
            f"(&(employeeType={held['employeeType'][0]})(uidNumber>={low})(uidNumber<={high}))"
        )
        return _find("search", PEOPLE, filter_, "SUBTREE", [*wanted, "employeeType"])

    def join(self, rng: random.Random, state: State) -> Planned:
        wanted = ["cn", "title", "mail"]
        if rng.random() < 0.5:
            bosses = {
                p["attributes"]["manager"][0] for p in people(state) if "manager" in p["attributes"]
            }
            boss = rng.choice(sorted(bosses))
            return _find("join", PEOPLE, f"(manager={boss})", "SUBTREE", wanted)
        group = rng.choice(groups(state))
        return _find("join", PEOPLE, f"(memberOf={group['dn']})", "SUBTREE", wanted)

    def aggregate(self, rng: random.Random, state: State) -> Planned:
        wanted = ["numSubordinates", "hasSubordinates"]
        if rng.random() < 0.8:
            base = f"ou={rng.choice(DEPARTMENTS)},{PEOPLE}"
        else:
            base = rng.choice([PEOPLE, GROUPS])
        return _find("aggregate", base, "(objectClass=*)", "BASE", wanted)

    def write(self, rng: random.Random, state: State) -> tuple[Planned, Planned]:
        person = rng.choice(people(state))
        dn = person["dn"]
        choice = rng.random()
        if choice < 0.45:
            title = rng.choice([t for t in TITLES if t != person["attributes"]["title"][0]])
            phone = f"+44 20 7946 {rng.randint(1000, 9999)}"
            changes = {"title": [["MODIFY_REPLACE", [title]]]}
            changes["telephoneNumber"] = [["MODIFY_REPLACE", [phone]]]
            write = Planned("write", "ldap_modify", {"dn": dn, "changes": changes})
            wanted = ["title", "telephoneNumber"]
            return write, _find("read_after_write", dn, "(objectClass=*)", "BASE", wanted)
        if choice < 0.8:
            held = set(person["attributes"].get("memberOf", []))
            group = rng.choice([g for g in groups(state) if g["dn"] not in held])
            changes = {"member": [["MODIFY_ADD", [dn]]]}
            write = Planned("write", "ldap_modify", {"dn": group["dn"], "changes": changes})
            return write, _find("read_after_write", dn, "(objectClass=*)", "BASE", ["memberOf"])
        first, last = rng.choice(["Noor", "Ivo", "Saanvi", "Teodor"]), person["attributes"]["sn"][0]
        uid = f"{first}.{last}.{rng.randint(100, 999)}".lower()
        new = f"uid={uid},{_department(dn)}"
        attributes = {
            "uid": uid,
            "cn": f"{first} {last}",
            "sn": last,
            "givenName": first,
            "mail": f"{uid}@northwind.example",
            "title": rng.choice(TITLES),
            "employeeType": "Intern",
            "manager": person["attributes"].get("manager", [dn])[0],
        }
        classes = ["top", "person", "organizationalPerson", "inetOrgPerson"]
        write = Planned(
            "write", "ldap_add", {"dn": new, "object_class": classes, "attributes": attributes}
        )
        return write, _find("read_after_write", PEOPLE, f"(uid={uid})", "SUBTREE", ["*"])

    def no_match(self, rng: random.Random, state: State) -> Planned:
        word = rng.choice(["Zeppelin", "Quokka", "Marzipan"])
        filter_ = f"(&(objectClass=inetOrgPerson)(title={word}*))"
        return _find("empty", PEOPLE, filter_, "SUBTREE", ["cn", "title"])
