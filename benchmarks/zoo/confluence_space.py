"""The ``confluence`` shape's data: an operations space as Confluence Cloud's REST API (v1)
lists it with ``expand=body.storage,version,ancestors,metadata.labels``: pages whose facts are
rows of a Page Properties (``details``) macro inside the XHTML storage-format body, with users as
``<ri:user ri:account-id>`` links, statuses as ``status`` macros, dates as ``<time>`` elements
and other pages as ``<ri:page ri:content-title>`` links; the tree held only by each page's list
of ancestors; and the users as the bulk user endpoint answers them."""

from __future__ import annotations

import html
import random
import re
from typing import Any

from benchmarks.zoo.kit import FIRST, LAST, WORDS, State, ToolError, fill, size_of

SITE = "https://harrowby.atlassian.net/wiki"
SPACE = "OPS"
TEAMS = ["Payments", "Search", "Identity", "Platform", "Data", "Mobile"]
LANGUAGES = ["Go", "Kotlin", "Python", "TypeScript", "Rust", "Java"]
COLOURS = {"PRODUCTION": "Green", "BETA": "Blue", "DEPRECATED": "Grey", "OPEN": "Red"}
COLOURS |= {"RESOLVED": "Green", "SEV1": "Red", "SEV2": "Yellow", "SEV3": "Grey"}
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August"]
MONTHS += ["September", "October", "November", "December"]
ROW = re.compile(r"<tr><th>(.*?)</th><td>(.*?)</td></tr>")


def status(title: str) -> str:
    return (
        '<ac:structured-macro ac:name="status" ac:schema-version="1">'
        f'<ac:parameter ac:name="colour">{COLOURS[title]}</ac:parameter>'
        f'<ac:parameter ac:name="title">{title}</ac:parameter></ac:structured-macro>'
    )


def user_link(account: str) -> str:
    return f'<ac:link><ri:user ri:account-id="{account}" /></ac:link>'


def page_link(title: str) -> str:
    return f'<ac:link><ri:page ri:content-title="{html.escape(title)}" /></ac:link>'


def time(day: str) -> str:
    return f'<time datetime="{day}" />'


def details(rows: list[tuple[str, str]]) -> str:
    """A Page Properties macro whose table holds ``rows`` of (key, storage-format cell)."""
    cells = "".join(f"<tr><th>{key}</th><td>{cell}</td></tr>" for key, cell in rows)
    return (
        '<ac:structured-macro ac:name="details" ac:schema-version="1">'
        f"<ac:rich-text-body><table><tbody>{cells}</tbody></table></ac:rich-text-body>"
        "</ac:structured-macro>"
    )


def cell_text(cell: str, names: dict[str, str]) -> str:
    """A cell as the rendered page shows it: a user's display name, a status's title, a
    date, a linked page's title, or the text."""
    if m := re.search(r'ri:account-id="([^"]+)"', cell):
        return names.get(m.group(1), m.group(1))
    if m := re.search(r'<ac:parameter ac:name="title">([^<]*)<', cell):
        return m.group(1)
    if m := re.search(r'<time datetime="([^"]+)"', cell):
        return m.group(1)
    if m := re.search(r'ri:content-title="([^"]+)"', cell):
        return html.unescape(m.group(1))
    return html.unescape(re.sub(r"<[^>]+>", "", cell))


def properties(page: dict[str, Any], names: dict[str, str]) -> dict[str, str]:
    """A page's Page Properties as the report macro shows them (none without the macro)."""
    body = page["body"]["storage"]["value"]
    return {k: cell_text(cell, names) for k, cell in ROW.findall(body)}


def _account(rng: random.Random) -> str:
    return "".join(rng.choice("0123456789abcdef") for _ in range(24))


def _user(rng: random.Random) -> dict[str, Any]:
    first, last = rng.choice(FIRST), rng.choice(LAST)
    return {
        "type": "known",
        "accountId": _account(rng),
        "accountType": "atlassian",
        "email": f"{first}.{last}@harrowby.io".lower(),
        "publicName": f"{first} {last}",
        "displayName": f"{first} {last}",
    }


def by(user: dict[str, Any]) -> dict[str, Any]:
    return {k: user[k] for k in ("type", "accountId", "accountType", "displayName")}


def labels(names: list[str], rng: random.Random) -> dict[str, Any]:
    found = [
        {"prefix": "global", "name": n, "id": str(rng.randint(10**8, 10**9)), "label": n}
        for n in names
    ]
    return {"results": found, "start": 0, "limit": 200, "size": len(found)}


def _page(
    rng: random.Random,
    state: State,
    title: str,
    parent: dict[str, Any] | None,
    body: str,
    tags: list[str],
) -> dict[str, Any]:
    ident = str(rng.randint(10**9, 4 * 10**9))
    above = [] if parent is None else [*parent["ancestors"], _ancestor(parent)]
    author = rng.choice(users(state))
    page = {
        "id": ident,
        "type": "page",
        "status": "current",
        "title": title,
        "ancestors": above,
        "version": {
            "by": by(author),
            "when": f"2025-{rng.randint(1, 11):02d}-{rng.randint(1, 28):02d}T"
            f"{rng.randint(7, 19):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}."
            f"{rng.randint(0, 999):03d}Z",
            "number": rng.randint(1, 14),
            "minorEdit": False,
        },
        "body": {"storage": {"value": body, "representation": "storage"}},
        "metadata": {"labels": labels(tags, rng)},
        "_links": {"webui": f"/spaces/{SPACE}/pages/{ident}/{title.replace(' ', '+')}"},
    }
    pages(state).append(page)
    return page


def _ancestor(page: dict[str, Any]) -> dict[str, Any]:
    return {k: page[k] for k in ("id", "type", "status", "title")}


def _service(rng: random.Random, state: State, team: dict[str, Any], n: int) -> None:
    name = f"{rng.choice(WORDS).capitalize()} {rng.choice(['API', 'Gateway', 'Worker', 'Store', 'Sync'])} {n}"
    owner = rng.choice(users(state))["accountId"]
    team_name = team["title"].removesuffix(" services")
    rows = [
        ("Owner", user_link(owner)),
        ("Team", team_name),
        ("Tier", str(rng.choice([1, 2, 2, 3, 3]))),
        ("Status", status(rng.choice(["PRODUCTION", "PRODUCTION", "BETA", "DEPRECATED"]))),
        ("Language", rng.choice(LANGUAGES)),
        ("Repository", f"https://bitbucket.org/harrowby/{name.lower().replace(' ', '-')}"),
        ("Last review", time(f"2025-{rng.randint(1, 11):02d}-{rng.randint(1, 28):02d}")),
    ]
    body = details(rows) + f"<p>{html.escape(name)} serves the {team_name} team.</p>"
    tags = ["service", f"team-{team_name.lower()}"]
    _page(rng, state, name, team, body, tags)


def _incident(rng: random.Random, state: State, n: int) -> None:
    services = [p for p in pages(state) if _has(p, "service")]
    service = rng.choice(services)["title"]
    month = rng.randint(1, 11)
    parent = _month(rng, state, month)
    day = f"2025-{month:02d}-{rng.randint(1, 28):02d}"
    severity = rng.choice(["SEV1", "SEV2", "SEV2", "SEV3", "SEV3", "SEV3"])
    rows = [
        ("Severity", status(severity)),
        ("Service", page_link(service)),
        ("Date", time(day)),
        ("Duration (min)", str(rng.randint(4, 480))),
        ("Incident lead", user_link(rng.choice(users(state))["accountId"])),
        ("Status", status("RESOLVED" if rng.random() < 0.85 else "OPEN")),
    ]
    words = f"{rng.choice(WORDS)} {rng.choice(['outage', 'latency', 'errors', 'data loss'])}"
    body = details(rows) + f"<h2>Summary</h2><p>{html.escape(service)}: {words}.</p>"
    _page(rng, state, f"INC-{n}: {service} {words}", parent, body, ["incident", severity.lower()])


def _month(rng: random.Random, state: State, month: int) -> dict[str, Any]:
    title = f"{MONTHS[month - 1]} 2025 incidents"
    for page in pages(state):
        if page["title"] == title:
            return page
    return _page(rng, state, title, find_title(state, "Incidents"), "<p>Incidents.</p>", [])


def _has(page: dict[str, Any], label: str) -> bool:
    return any(lab["name"] == label for lab in page["metadata"]["labels"]["results"])


def space(rng: random.Random, target_bytes: int) -> State:
    state: State = {
        "space": {
            "id": rng.randint(10**6, 10**7),
            "key": SPACE,
            "name": "Operations",
            "type": "global",
        },
        "users": {"results": [_user(rng) for _ in range(24)], "start": 0, "limit": 200},
        "content": {"results": [], "start": 0, "limit": 0, "size": 0},
    }
    state["users"]["size"] = len(users(state))
    home = _page(rng, state, "Operations Home", None, "<p>Welcome to Operations.</p>", [])
    services = _page(rng, state, "Services", home, "<p>Our services.</p>", [])
    teams = [_page(rng, state, f"{t} services", services, "<p>Team.</p>", []) for t in TEAMS]
    _page(rng, state, "Incidents", home, "<p>Postmortems by month.</p>", [])
    count = [0]

    def add() -> None:
        count[0] += 1
        if count[0] % 3 == 1:
            _service(rng, state, rng.choice(teams), count[0])
        else:
            _incident(rng, state, 1000 + count[0])

    fill(add, lambda: size_of(state), target_bytes)
    # The integration that edits pages for the assistant (the last user).
    app = {"type": "known", "accountId": _account(rng), "accountType": "app"}
    users(state).append(
        app | {"email": "", "publicName": "Ops Assistant", "displayName": "Ops Assistant"}
    )
    state["users"]["size"] = len(users(state))
    state["content"]["limit"] = state["content"]["size"] = len(pages(state))
    return state


def users(state: State) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = state["users"]["results"]
    return found


def names(state: State) -> dict[str, str]:
    return {u["accountId"]: u["displayName"] for u in users(state)}


def pages(state: State) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = state["content"]["results"]
    return found


def find_page(state: State, ident: str) -> tuple[int, dict[str, Any]]:
    for n, page in enumerate(pages(state)):
        if page["id"] == ident:
            return n, page
    raise ToolError(
        f"com.atlassian.confluence.api.service.exceptions.NotFoundException: No content found with id: ContentId{{id={ident}}}"
    )


def find_title(state: State, title: str) -> dict[str, Any]:
    return next(p for p in pages(state) if p["title"] == title)


def has_label(page: dict[str, Any], label: str) -> bool:
    return _has(page, label)
