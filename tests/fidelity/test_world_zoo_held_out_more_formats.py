"""The held-out shapes added second in their round hold what the services they copy serve: a
company directory in 389 Directory Server through ldap3 (``ldap``), an estate's DNS through the
Route 53 API (``route53``) and a wholesaler's CouchDB through its HTTP API (``couchdb``); their
computed answers are checked here against independent computations over the state, and their
writes against what the services would change. (That each shape loads, is deterministic,
makes every kind of call and answers from its state is checked with all the zoo's shapes.)"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from benchmarks.zoo import generate
from benchmarks.zoo.kit import State, ToolError
from tests.fidelity.zoo_calls import run_tool, small_state


@pytest.mark.parametrize("shape", ["ldap", "route53", "couchdb"])
def test_the_same_seed_makes_the_same_held_out_world(shape: str) -> None:
    first = generate(shape, 0.05, seed=11, episodes=2)
    assert generate(shape, 0.05, seed=11, episodes=2) == first
    assert generate(shape, 0.05, seed=12, episodes=2)[0]["state"] != first[0]["state"]


# ldap

SUFFIX = "dc=northwind,dc=example"


def _entries(state: State) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = state["directory.json"]["entries"]
    return found


def _people(state: State) -> list[dict[str, Any]]:
    return [e for e in _entries(state) if e["dn"].startswith("uid=")]


def _search(state: State, base: str, filter_: str, scope: str, *attributes: str) -> Any:
    arguments = {"search_base": base, "search_filter": filter_, "search_scope": scope}
    return run_tool("ldap", state, "ldap_search", arguments | {"attributes": list(attributes)})


def test_an_ldap_search_keeps_to_its_scope_and_its_filter() -> None:
    state = small_state("ldap")
    person = _people(state)[5]
    department = person["dn"].split(",", 1)[1]
    title, city = person["attributes"]["title"][0], person["attributes"]["l"][0]
    filter_ = f"(&(objectClass=inetOrgPerson)(title={title[:3]}*)(l={city}))"
    found = _search(state, department, filter_, "LEVEL", "cn")["entries"]
    wanted = [
        e["dn"]
        for e in _people(state)
        if e["dn"].split(",", 1)[1] == department
        and e["attributes"]["title"][0].startswith(title[:3])
        and e["attributes"]["l"][0] == city
    ]
    assert [e["dn"] for e in found] == wanted and person["dn"] in wanted
    assert all(set(e["attributes"]) == {"cn"} for e in found)
    # Not one level down from the suffix: the people sit two levels below it.
    assert _search(state, SUFFIX, filter_, "LEVEL", "cn")["entries"] == []
    either = _search(state, department, f"(|(l={city})(!(title=*)))", "SUBTREE", "l")["entries"]
    assert {e["dn"] for e in either} == {
        e["dn"]
        for e in _people(state)
        if e["dn"].endswith(department) and e["attributes"]["l"] == [city]
    } | {department}  # the subtree holds its base, which has no title
    with pytest.raises(ToolError, match="noSuchObject"):
        _search(state, f"ou=Nowhere,{SUFFIX}", "(objectClass=*)", "BASE", "*")


def test_ldap_membership_and_subordinate_counts_come_from_the_tree() -> None:
    state = small_state("ldap")
    group = next(e for e in _entries(state) if e["dn"].startswith("cn="))
    members = run_tool(
        "ldap",
        state,
        "ldap_search",
        {
            "search_base": f"ou=People,{SUFFIX}",
            "search_filter": f"(memberOf={group['dn'].upper()})",
            "attributes": ["1.1"],
        },
    )["entries"]
    assert {m["dn"] for m in members} == set(group["attributes"]["member"])
    department = f"ou=Sales,ou=People,{SUFFIX}"
    counted = _search(
        state, department, "(objectClass=*)", "BASE", "numSubordinates", "hasSubordinates"
    )
    below = [e for e in _entries(state) if e["dn"].endswith("," + department)]
    assert counted["entries"][0]["attributes"] == {
        "numSubordinates": [str(len(below))],
        "hasSubordinates": ["TRUE" if below else "FALSE"],
    }
    # Operational attributes come only when asked for.
    assert (
        "numSubordinates"
        not in _search(state, department, "(objectClass=*)", "BASE", "*")["entries"][0][
            "attributes"
        ]
    )


def test_ldap_writes_keep_membership_on_both_sides() -> None:
    state = small_state("ldap")
    person = _people(state)[3]
    group = next(
        e
        for e in _entries(state)
        if e["dn"].startswith("cn=") and person["dn"] not in e["attributes"]["member"]
    )
    changes = {"member": [["MODIFY_ADD", [person["dn"]]]]}
    answer = run_tool("ldap", state, "ldap_modify", {"dn": group["dn"], "changes": changes})
    assert (answer["result"], answer["description"], answer["type"]) == (
        0,
        "success",
        "modifyResponse",
    )
    assert person["dn"] in group["attributes"]["member"]
    assert group["dn"] in person["attributes"]["memberOf"]
    changes = {"title": [["MODIFY_REPLACE", ["Director"]]]}
    run_tool("ldap", state, "ldap_modify", {"dn": person["dn"], "changes": changes})
    assert person["attributes"]["title"] == ["Director"]
    new = f"uid=ivo.test,ou=Legal,ou=People,{SUFFIX}"
    arguments = {
        "dn": new,
        "object_class": ["top", "inetOrgPerson"],
        "attributes": {"uid": "ivo.test", "sn": "Test"},
    }
    run_tool("ldap", state, "ldap_add", arguments)
    assert _search(state, SUFFIX, "(uid=ivo.test)", "SUBTREE", "sn")["entries"] == [
        {"attributes": {"sn": ["Test"]}, "dn": new}
    ]
    with pytest.raises(ToolError, match="entryAlreadyExists"):
        run_tool("ldap", state, "ldap_add", arguments)


# route53


def _zones(state: State) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = state["list-hosted-zones.json"]["HostedZones"]
    return found


def _sets(state: State, zone: dict[str, Any]) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = state[f"list-resource-record-sets.{zone['Id'][12:]}.json"][
        "ResourceRecordSets"
    ]
    return found


def _reversed(name: str) -> str:
    return ".".join(reversed(name.rstrip(".").split(".")))


def _public(state: State) -> dict[str, Any]:
    return next(
        z
        for z in _zones(state)
        if z["Name"] == "northwind.example." and not z["Config"]["PrivateZone"]
    )


def test_route53_lists_record_sets_by_reversed_labels_from_a_start() -> None:
    state = small_state("route53")
    zone = _public(state)
    held = _sets(state, zone)
    assert held == sorted(
        held, key=lambda r: (_reversed(r["Name"]), r["Type"], r.get("SetIdentifier", ""))
    )
    start = "prod.eu-west-1.northwind.example."
    answer = run_tool(
        "route53",
        state,
        "list_resource_record_sets",
        {"HostedZoneId": zone["Id"], "StartRecordName": start, "MaxItems": "5"},
    )
    after = [r for r in held if (_reversed(r["Name"]), r["Type"]) >= (_reversed(start), "")]
    assert answer["ResourceRecordSets"] == after[:5]
    assert answer["IsTruncated"] == (len(after) > 5) and answer["MaxItems"] == "5"
    if answer["IsTruncated"]:
        assert (answer["NextRecordName"], answer["NextRecordType"]) == (
            after[5]["Name"],
            after[5]["Type"],
        )
    # The same name answers differently in the private zone of the split horizon.
    private = next(z for z in _zones(state) if z["Config"]["PrivateZone"])
    assert all(
        v["Value"].startswith("10.")
        for r in _sets(state, private)
        if r["Type"] == "A"
        for v in r.get("ResourceRecords", [])
    )


def test_route53_answers_resolve_aliases_and_wildcards_within_the_zone() -> None:
    state = small_state("route53")
    zone = _public(state)
    held = _sets(state, zone)
    by_key = {(r["Name"], r["Type"]): r for r in held}

    def answer(name: str, type_: str) -> Any:
        arguments = {"HostedZoneId": zone["Id"], "RecordName": name, "RecordType": type_}
        return run_tool("route53", state, "test_dns_answer", arguments)

    alias = next((r for r in held if "AliasTarget" in r), None)
    if alias is not None:
        target = by_key[(alias["AliasTarget"]["DNSName"], "A")]
        assert answer(alias["Name"], "A")["RecordData"] == [
            v["Value"] for v in target["ResourceRecords"]
        ]
    wildcard = by_key[("\\052.preview.northwind.example.", "CNAME")]
    found = answer("pr-17.preview.northwind.example", "A")
    assert (found["ResponseCode"], found["RecordData"]) == (
        "NOERROR",
        [wildcard["ResourceRecords"][0]["Value"]],
    )
    assert answer("nothing-here.northwind.example", "A") | {"RecordData": None} == {
        "Nameserver": state["list-reusable-delegation-sets.json"]["DelegationSets"][0][
            "NameServers"
        ][0],
        "RecordName": "nothing-here.northwind.example",
        "RecordType": "A",
        "RecordData": None,
        "ResponseCode": "NXDOMAIN",
        "Protocol": "UDP",
    }
    weighted = sorted(
        (r for r in held if r["Name"] == "api.northwind.example."), key=lambda r: -r["Weight"]
    )
    assert answer("api.northwind.example", "A")["RecordData"] == [
        v["Value"] for v in weighted[0]["ResourceRecords"]
    ]
    private = next(z for z in _zones(state) if z["Config"]["PrivateZone"])
    with pytest.raises(ToolError, match="InvalidInput"):
        run_tool(
            "route53",
            state,
            "test_dns_answer",
            {"HostedZoneId": private["Id"], "RecordName": "x", "RecordType": "A"},
        )
    counted = run_tool("route53", state, "get_hosted_zone", {"Id": private["Id"]})
    assert (
        counted["HostedZone"]["ResourceRecordSetCount"] == len(_sets(state, private))
        and counted["VPCs"]
    )


def test_route53_change_batches_keep_the_listing_order() -> None:
    state = small_state("route53")
    zone = _public(state)
    host = next(r for r in _sets(state, zone) if r["Name"].startswith("web-"))
    upsert = {
        "Name": host["Name"],
        "Type": "A",
        "TTL": 60,
        "ResourceRecords": [{"Value": "203.0.113.99"}],
    }
    create = {
        "Name": "aaa-new.northwind.example",
        "Type": "CNAME",
        "TTL": 300,
        "ResourceRecords": [{"Value": host["Name"]}],
    }
    batch = {
        "Changes": [
            {"Action": "UPSERT", "ResourceRecordSet": upsert},
            {"Action": "CREATE", "ResourceRecordSet": create},
        ]
    }
    before = len(_sets(state, zone))
    info = run_tool(
        "route53",
        state,
        "change_resource_record_sets",
        {"HostedZoneId": zone["Id"], "ChangeBatch": batch},
    )
    assert info["ChangeInfo"]["Status"] == "PENDING" and info["ChangeInfo"]["Id"].startswith(
        "/change/C"
    )
    held = _sets(state, zone)
    assert len(held) == before + 1
    assert held == sorted(
        held, key=lambda r: (_reversed(r["Name"]), r["Type"], r.get("SetIdentifier", ""))
    )
    assert next(r for r in held if r["Name"] == host["Name"] and r["Type"] == "A")[
        "ResourceRecords"
    ] == [{"Value": "203.0.113.99"}]
    assert any(r["Name"] == "aaa-new.northwind.example." for r in held)
    with pytest.raises(ToolError, match="InvalidChangeBatch"):
        run_tool(
            "route53",
            state,
            "change_resource_record_sets",
            {"HostedZoneId": zone["Id"], "ChangeBatch": batch},
        )
    gone = {
        "Changes": [
            {
                "Action": "DELETE",
                "ResourceRecordSet": create | {"Name": "aaa-new.northwind.example."},
            }
        ]
    }
    run_tool(
        "route53",
        state,
        "change_resource_record_sets",
        {"HostedZoneId": zone["Id"], "ChangeBatch": gone},
    )
    assert len(_sets(state, zone)) == before


# couchdb


def _docs(state: State, type_: str) -> list[dict[str, Any]]:
    return [r["doc"] for r in state["_all_docs.json"]["rows"] if r["doc"].get("type") == type_]


def _view(state: State, view: str, **query: Any) -> Any:
    return run_tool(
        "couchdb", state, "query_view", {"db": "wholesale", "ddoc": "shop", "view": view} | query
    )


def test_couchdb_reduces_views_over_key_ranges_and_groups() -> None:
    state = small_state("couchdb")
    orders = _docs(state, "order")
    customer = orders[0]["customer"]
    spent = _view(
        state, "orders_by_customer", startkey=f'["{customer}"]', endkey=f'["{customer}", {{}}]'
    )
    assert spent["rows"][0]["value"] == round(
        sum(o["total"] for o in orders if o["customer"] == customer), 2
    )
    product = orders[0]["lines"][0]["product"]
    units: Counter[str] = Counter()
    for order in orders:
        if order["status"] != "cancelled":
            for line in order["lines"]:
                if line["product"] == product:
                    units[order["placed"][:7]] += line["qty"]
    grouped = _view(
        state,
        "units_by_product_month",
        startkey=f'["{product}"]',
        endkey=f'["{product}", {{}}]',
        group_level=2,
    )
    assert grouped["rows"] == [
        {"key": [product, month], "value": units[month]} for month in sorted(units)
    ]
    stock = [p["stock"]["porto"] for p in _docs(state, "product") if "porto" in p["stock"]]
    stats = _view(state, "stock_by_warehouse", key='"porto"')["rows"][0]["value"]
    assert stats == {
        "sum": sum(stock),
        "count": len(stock),
        "min": min(stock),
        "max": max(stock),
        "sumsqr": sum(s * s for s in stock),
    }


def test_couchdb_map_rows_sort_by_collation_and_link_documents() -> None:
    state = small_state("couchdb")
    products = _docs(state, "product")
    green = sorted((p["price"], p["_id"]) for p in products if p["category"] == "green")
    low, high = green[0][0], green[-1][0] - 0.01
    found = _view(
        state,
        "products_by_category",
        startkey=f'["green", {low}]',
        endkey=f'["green", {high}]',
        reduce=False,
    )
    assert [r["id"] for r in found["rows"]] == [i for price, i in green if low <= price <= high]
    before = sum(1 for p in products if p["category"] < "green")
    assert found["offset"] == before and found["total_rows"] == len(products)
    order = _docs(state, "order")[2]
    linked = _view(
        state,
        "order_details",
        startkey=f'["{order["_id"]}"]',
        endkey=f'["{order["_id"]}", {{}}]',
        include_docs=True,
    )
    ids = [order["_id"], order["customer"], *(line["product"] for line in order["lines"])]
    assert [r["doc"]["_id"] for r in linked["rows"]] == ids
    with pytest.raises(ToolError, match="query_parse_error"):
        _view(state, "customers_by_email", group=True)


def test_couchdb_find_selects_on_array_elements() -> None:
    state = small_state("couchdb")
    order = _docs(state, "order")[4]
    line = order["lines"][0]
    selector = {
        "type": "order",
        "lines": {"$elemMatch": {"product": line["product"], "qty": {"$gte": line["qty"]}}},
    }
    found = run_tool(
        "couchdb",
        state,
        "find_documents",
        {"db": "wholesale", "selector": selector, "fields": ["_id"], "limit": 100},
    )
    wanted = [
        o["_id"]
        for o in _docs(state, "order")
        if any(x["product"] == line["product"] and x["qty"] >= line["qty"] for x in o["lines"])
    ]
    assert [d["_id"] for d in found["docs"]] == wanted and order["_id"] in wanted


def test_couchdb_puts_need_the_current_revision() -> None:
    state = small_state("couchdb")
    product = dict(_docs(state, "product")[0])
    product.pop("_conflicts", None)
    answer = run_tool(
        "couchdb",
        state,
        "put_document",
        {"db": "wholesale", "docid": product["_id"], "document": product | {"price": 1.5}},
    )
    assert answer["ok"] and answer["rev"].startswith(f"{int(product['_rev'].split('-')[0]) + 1}-")
    stored = run_tool(
        "couchdb", state, "get_document", {"db": "wholesale", "docid": product["_id"]}
    )
    assert (stored["_rev"], stored["price"]) == (answer["rev"], 1.5)
    with pytest.raises(ToolError, match="conflict"):
        run_tool(
            "couchdb",
            state,
            "put_document",
            {"db": "wholesale", "docid": product["_id"], "document": product},
        )
    total = state["_all_docs.json"]["total_rows"]
    run_tool(
        "couchdb",
        state,
        "put_document",
        {"db": "wholesale", "docid": "customer:c00000", "document": {"type": "customer"}},
    )
    ids = [r["id"] for r in state["_all_docs.json"]["rows"]]
    assert (
        ids == sorted(ids)
        and "customer:c00000" in ids
        and state["_all_docs.json"]["total_rows"] == total + 1
    )
