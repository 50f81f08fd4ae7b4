"""Property lists read as objects: one-key object lists (MARC-in-JSON, Ansible), name/value
pair lists (AWS tags, HAR headers) and positional named tuples (jCal, jCard); and the lists of
plain JSON that only look alike (line items, logs of tuples, tables)."""

from __future__ import annotations

from typing import Any

from mcp_sim.prompting.state_view import StateView
from mcp_sim.runtime import value_encodings
from mcp_sim.runtime.state_index import StateIndex
from mcp_sim.runtime.state_paths import resolve
from mcp_sim.runtime.state_sample import sampled
from mcp_sim.runtime.value_decoding import decode
from mcp_sim.runtime.value_encodings import detect
from mcp_sim.spec.world import World


def world_of(state: dict[str, Any]) -> World:
    tool = {
        "name": "find_item",
        "description": "A record by one of its values.",
        "input_schema": {
            "type": "object",
            "properties": {"barcode": {"type": "string", "description": "A copy's barcode."}},
        },
    }
    return World.model_validate(
        {"world": "t", "title": "T", "description": "A hand-made state.", "state": state}
        | {"tools": [tool]}
    )


def catalogue(n: int = 40) -> dict[str, Any]:
    """Bibliographic records as MARC-in-JSON: tagged fields, coded subfields, copies."""

    def data(tag: str, *codes: tuple[str, str]) -> dict[str, Any]:
        return {tag: {"ind1": " ", "ind2": " ", "subfields": [{c: v} for c, v in codes]}}

    records = []
    for i in range(n):
        fields = [
            {"001": f"ocn{9000 + i}"},
            data("245", ("a", f"Title {i} :"), ("b", "a story")),
            data("650", ("a", "Harbors")),
            data("650", ("a", f"Subject {i % 5}")),
            data("952", ("a", "CPL"), ("p", f"3999{i:06d}")),
            data("952", ("a", "FRL"), ("p", f"4999{i:06d}")),
        ]
        records.append({"leader": "00000cam a2200000 4500", "fields": fields})
    return {"records": records}


def test_one_key_object_lists_read_as_objects_of_their_keys() -> None:
    state = catalogue()
    encoding = detect(state)
    assert encoding is not None and encoding.forms is not None and encoding.forms.one_key
    record = decode(state, encoding)["records"][3]
    assert record["fields"]["001"] == "ocn9003"
    assert record["fields"]["245"]["subfields"] == {"a": "Title 3 :", "b": "a story"}
    # A repeated tag is the list of its fields.
    assert [f["subfields"]["a"] for f in record["fields"]["650"]] == ["Harbors", "Subject 3"]
    assert [f["subfields"]["p"] for f in record["fields"]["952"]] == ["3999000003", "4999000003"]


def test_a_collection_of_records_each_wrapped_in_its_id_keeps_its_pointers() -> None:
    state = catalogue() | {"patrons": [{f"P{i}": {"name": f"Patron {i}"}} for i in range(30)]}
    encoding = detect(state)
    assert encoding is not None
    # Each id is one list's key only: a collection, not a record's fields.
    assert decode(state, encoding)["patrons"][7] == {"P7": {"name": "Patron 7"}}


def test_a_lookup_by_a_repeated_subfield_finds_its_record_decoded() -> None:
    world = world_of(catalogue())
    view = StateView(world, budget_tokens=2500)
    text = view.render(
        world.state, None, [], tool=world.tool("find_item"), arguments={"barcode": "4999000017"}
    )
    assert "shown decoded" in text and "one-key objects" in text
    needed = text.split("**Records this call needs**", 1)[1]
    assert "/records/17" in needed and '"001":"ocn9017"' in needed


def test_name_value_pair_lists_read_as_objects() -> None:
    instances = [
        {
            "InstanceId": f"i-{i:08x}",
            "Tags": [
                {"Key": "env", "Value": "prod" if i % 2 else "dev"},
                {"Key": "team", "Value": f"team {i % 3}"},
                {"Key": "owner", "Value": f"person{i}"},
            ],
            "Headers": [{"name": "Accept", "value": "json"}, {"name": "Host", "value": "x"}],
        }
        for i in range(20)
    ]
    encoding = detect({"instances": instances})
    assert encoding is not None and encoding.forms is not None
    plain = decode({"instances": instances}, encoding)["instances"][5]
    assert plain["Tags"] == {"env": "prod", "team": "team 2", "owner": "person5"}
    assert plain["Headers"] == {"Accept": "json", "Host": "x"}


def test_typed_objects_of_one_field_are_not_name_value_pairs() -> None:
    people = [f"person-{name}" for name in "abcdefghijkl"]
    issues = [
        {
            "number": i,
            "assignees": [
                {"__typename": "Bot" if (i + k) % 5 == 0 else "User", "login": people[(i + k) % 12]}
                for k in range(2)
            ],
        }
        for i in range(40)
    ]
    # The type tag's few values beside many logins: typed records, kept as they are stored.
    assert detect({"issues": issues}) is None


def machine(i: int) -> dict[str, Any]:
    """A record as a list of name/value pairs whose values are of any kind: a nested list
    of pairs, an object, a name given once per watcher and once per service."""
    info = [{"name": "drive", "value": ["steam", "diesel"][i % 2]}]
    if i % 3:
        info.append({"name": "depot", "value": f"Depot{i % 4}"})
    watchers = [{"name": "watchers", "value": f"DR-{i + k:05d}"} for k in range(i % 2 + 1)]
    services = [
        {"name": "service", "value": {"date": f"2025-0{k + 1}-1{i % 9}", "km": 100 * i + k}}
        for k in range(i % 3 + 1)
    ]
    fields = [
        {"name": "machine_id", "value": f"{i:08x}-1003-4000"},
        {"name": "nickname", "value": f"Ridge {i}"},
        {"name": "info", "value": info},
        {"name": "top_speed", "value": 100 + i},
        *watchers,
        *services,
    ]
    return {"fields": fields}


def test_pairs_named_by_the_key_whose_values_always_are_names_fold_whatever_their_values() -> None:
    state = {"machines": {"count": 60, "value": [machine(i) for i in range(60)]}}
    encoding = detect(state)
    assert encoding is not None and encoding.forms is not None
    # ``value`` holds names only in the short nested lists: ``name`` names the pairs.
    assert encoding.forms.pair_names == ("name",)
    plain = decode(state, encoding)["machines"]["value"]
    assert plain[4]["fields"] == {
        "machine_id": "00000004-1003-4000",
        "nickname": "Ridge 4",
        "info": {"drive": "steam", "depot": "Depot0"},
        "top_speed": 104,
        # A name given several times anywhere is a list in every record.
        "watchers": ["DR-00004"],
        "service": [{"date": "2025-01-14", "km": 400}, {"date": "2025-02-14", "km": 401}],
    }
    # Each machine is a record of its own, not a page of its pairs.
    index = StateIndex(world_of(state), state)
    (collection,) = index.collections
    assert (collection.pointer, collection.size, collection.pages) == ("/machines/value", 60, "")
    assert (collection.inner, collection.id_field) == ("/fields", "machine_id")


def test_lists_of_records_that_only_look_alike_stay_lists() -> None:
    orders = [
        {"id": i, "lines": [{"sku": f"A-{i}{j}", "qty": j} for j in range(3)]} for i in range(30)
    ]
    log = [["login", f"user{i}", i] for i in range(200)] + [["logout", "user1", 7]]
    countries = [{"code": c, "name": n} for c, n in [("DE", "Germany"), ("FR", "France")]]
    tagged = [{"Created": {"id": i}} if i % 2 else {"Deleted": {"id": i}} for i in range(40)]
    # A parcel's scans name a place each, but at times that do not recur.
    scans = [
        {
            "id": i,
            "scans": [
                {"facility": f, "at": f"2025-01-{i % 28 + 1:02d}T{k}"} for k, f in enumerate("ABC")
            ],
        }
        for i in range(30)
    ]
    state = {
        "orders": orders,
        "log": log,
        "countries": countries,
        "events": tagged,
        "parcels": scans,
    }
    assert detect(state) is None


def jcal_event(n: int) -> list[Any]:
    people = [
        ["attendee", {"cn": f"Person {k}", "partstat": "ACCEPTED"}, "cal-address", f"mailto:p{k}@x"]
        for k in range(n % 3 + 1)
    ]
    props = [
        ["uid", {}, "text", f"uid-{n}"],
        ["summary", {}, "text", f"Review {n}"],
        ["dtstart", {"tzid": "Europe/Berlin"}, "date-time", f"2025-12-{n % 28 + 1:02d}T10:00:00"]
        if n % 4
        else ["dtstart", {}, "date", f"2025-12-{n % 28 + 1:02d}"],
        ["location", {}, "text", "Atrium"],
        ["categories", {}, "text", "internal", "hiring"]
        if n % 2
        else ["categories", {}, "text", "internal"],
        *people,
    ]
    return ["vevent", props, [["valarm", [["action", {}, "text", "DISPLAY"]], []]]]


def test_positional_named_tuples_read_as_fields_and_components_keep_their_pointers() -> None:
    calendar = ["vcalendar", [["version", {}, "text", "2.0"]], [jcal_event(n) for n in range(12)]]
    state = {"calendars": [{"name": "Team", "jcal": calendar}]}
    encoding = detect(state)
    assert (
        encoding is not None
        and encoding.forms is not None
        and encoding.forms.types[:2] == ("text", "cal-address")
    )
    plain = decode(state, encoding)
    event = resolve(plain, "/calendars/0/jcal/2/5")
    assert event["kind"] == "vevent" and event["summary"] == "Review 5"
    # Parameters stay beside the value; the value's type is dropped.
    assert event["dtstart"] == {"tzid": "Europe/Berlin", "value": "2025-12-06T10:00:00"}
    # A name that takes parameters has one shape in every record, with parameters or none.
    assert resolve(plain, "/calendars/0/jcal/2/8")["dtstart"] == {"value": "2025-12-09"}
    assert event["attendee"] == [
        {"cn": f"Person {k}", "partstat": "ACCEPTED", "value": f"mailto:p{k}@x"} for k in range(3)
    ]
    assert event["categories"] == ["internal", "hiring"]
    # A name holding several values somewhere is a list everywhere, of one value or more.
    assert resolve(plain, "/calendars/0/jcal/2/2")["categories"] == ["internal"]
    assert resolve(plain, "/calendars/0/jcal/2/5/2/0") == {"kind": "valarm", "action": "DISPLAY"}
    assert resolve(plain, "/calendars/0/jcal")["version"] == "2.0"


def test_the_encoding_and_the_list_forms_are_found_in_one_walk(monkeypatch: Any) -> None:
    walks: list[Any] = []

    def counted(state: Any) -> Any:
        walks.append(state)
        return sampled(state)

    monkeypatch.setattr(value_encodings, "sampled", counted)
    encoding = detect(catalogue())
    assert encoding is not None and encoding.forms is not None and encoding.forms.one_key
    assert len(walks) == 1
