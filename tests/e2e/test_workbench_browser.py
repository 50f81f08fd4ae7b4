"""``mcp-sim ui`` in a real headless Chromium (Debian's, driven by Playwright): a designer picks a
tool, fills the form generated from its input schema, makes the call and reads what the page
shows: the observation, the state change as a diff, the prompt's state section, the timeline;
then forks, verifies and resets. The page is screenshotted for the README.

The world model is :class:`tests.openai_double.OpenAIDouble` over real HTTP (vLLM needs a GPU
or its slow CPU build, and cannot answer a chosen write on demand); everything between the
browser and it is the real command."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from playwright.sync_api import Page, Route, expect, sync_playwright

from tests.openai_double import OpenAIDouble, RecordedRequest, Reply
from tests.processes import ROOT, free_port, stop, wait_for_log, wait_for_port
from tests.real_model import embedded_like_args

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
SCREENSHOTS = Path(os.environ.get("MCP_SIM_SCREENSHOTS", ROOT / ".cache" / "screenshots"))
TOKEN = "designer-token-1234"
BOOKSTORE = ROOT / "worlds" / "bookstore.yaml"

pytestmark = pytest.mark.skipif(
    not Path(CHROMIUM).exists(),
    reason="needs Debian's chromium (apt-get install chromium; scripts/test does, as root)",
)

# The flags a headless Chromium needs on a machine with no network and no sandbox for root.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def bookstore_model(request: RecordedRequest) -> Reply:
    """Answers as Qwen-AgentWorld does in the native format: an order takes two copies of
    b1 off its stock and adds the order; anything else is a plain observation."""
    turn = request.body["messages"][-1]["content"]
    if '"place_order"' in turn:
        observation = {"order_id": "o1", "status": "confirmed", "total": 25.0}
        patch = [
            {"op": "replace", "path": "/books/0/stock", "value": 1},
            {
                "op": "add",
                "path": "/orders/-",
                "value": {"id": "o1", "book_id": "b1", "quantity": 2},
            },
        ]
        content = (
            f"<predicted_observation>\n{json.dumps(observation)}\n</predicted_observation>\n"
            f"<state_patch>{json.dumps(patch)}</state_patch>"
        )
        return Reply(content=content, reasoning="Two copies of b1 are in stock: confirm the order.")
    answer = {"id": "b3", "title": "Cartographers of Rain", "stock": 7}
    return Reply(content=f"<predicted_observation>\n{json.dumps(answer)}\n</predicted_observation>")


def shop_model(request: RecordedRequest) -> Reply:
    """A model that gets the shop wrong on purpose: an order that changes the shop's currency
    (which never changes), and an order lookup that contradicts the order's status."""
    said = json.dumps(request.body["messages"])
    if "create_order" in said:
        patch = [{"op": "replace", "path": "/shop/currency", "value": "EUR"}]
        if '{"patch": [operations]}' in request.body["messages"][-1]["content"]:
            return Reply(content=json.dumps({"patch": patch}))  # asked for the patch alone
        observation = {"id": "ord_00002", "status": "placed"}
        return Reply(
            content=f"<predicted_observation>\n{json.dumps(observation)}\n</predicted_observation>\n"
            f"<state_patch>{json.dumps(patch)}</state_patch>"
        )
    order = {"id": "ord_00001", "customer": "kari@example.no", "status": "placed"}
    return Reply(content=f"<predicted_observation>\n{json.dumps(order)}\n</predicted_observation>")


@contextmanager
def workbench(
    *worlds: Path,
    log: Path,
    model: Callable[[RecordedRequest], Reply] = bookstore_model,
    extra: tuple[str, ...] = (),
) -> Iterator[tuple[str, OpenAIDouble]]:
    """``mcp-sim ui WORLDS`` on a free port, answering from the double; yields its base URL."""
    with OpenAIDouble() as double:
        double.respond_with(model)
        args = [*map(str, worlds), *extra, "--model-url", double.base_url]
        with ui_process(*args, "--auth-token", TOKEN, "--no-thinking", log=log) as base:
            yield base, double


@contextmanager
def ui_process(*args: str, log: Path) -> Iterator[str]:
    """``mcp-sim ui ARGS`` on a free port; yields its base URL."""
    port = free_port()
    command = [sys.executable, "-m", "mcp_sim", "ui", *args, "--address", f"127.0.0.1:{port}"]
    with log.open("wb") as stderr:  # the child keeps its own copy
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=stderr, cwd=ROOT)
    try:
        wait_for_port(port, process, "mcp-sim ui", log=log)
        yield f"http://127.0.0.1:{port}"
    finally:
        stop(process)


@contextmanager
def browser_page() -> Iterator[Page]:
    with sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1440, "height": 1000})
            page.set_default_timeout(20_000)
            yield page
        finally:
            browser.close()


def test_a_call_shows_its_observation_diff_and_prompt(tmp_path: Path) -> None:
    with workbench(BOOKSTORE, log=tmp_path / "ui.log") as (base, double), browser_page() as page:
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(f"{base}/ui#token={TOKEN}")
        page.click("[data-tool=place_order]")
        # The form follows place_order's input schema: integer quantity, four required fields.
        assert page.get_attribute("#arg-quantity", "type") == "number"
        assert page.locator("#call-form label").count() == 4
        page.fill("#arg-book_id", "b1")
        page.fill("#arg-quantity", "2")
        page.fill("#arg-email", "ana@example.com")
        page.fill("#arg-country", "Portugal")
        assert json.loads(page.input_value("#raw-args"))["quantity"] == 2
        page.click("#call-button")
        page.wait_for_selector("#diff")

        assert "o1" in page.inner_text("#observation")
        diff = page.inner_text("#diff")
        assert "/books/0/stock" in diff and "/orders/-" in diff
        assert page.inner_text("#diff td.before >> nth=0") == "3"
        assert page.inner_text("#diff td.after >> nth=0") == "1"
        state_section = page.inner_text(".state-section >> nth=0")
        assert "Current World State" in state_section and "The Glass River" in state_section
        assert "Two copies of b1" in page.inner_text(".reasoning")
        assert "v0 → v1" in page.inner_text("#result .badges")
        assert page.locator("#calls li").count() == 1
        assert "version 1" in page.inner_text("#episode-info")
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / "workbench.png"), full_page=True)

        # The page shows what the server did: the call reached the model once, over HTTP.
        assert len(double.completion_requests) == 1
        assert errors == []


def test_fork_verify_reset_and_the_timeline(tmp_path: Path) -> None:
    with workbench(BOOKSTORE, log=tmp_path / "ui.log") as (base, _), browser_page() as page:
        page.goto(f"{base}/ui#token={TOKEN}")
        page.click("[data-tool=get_book]")
        page.fill("#arg-book_id", "b3")
        page.click("#call-button")
        page.wait_for_selector("#calls li")
        first_episode = page.input_value("#episode")

        page.click("#fork")
        expect(page.locator("#episode option")).to_have_count(2)
        assert page.input_value("#episode") != first_episode
        # The fork starts with its parent's call, and its trace is the parent's.
        page.wait_for_selector("#calls li")
        page.click("#calls li >> nth=0")
        page.wait_for_selector("#observation")
        assert "Cartographers of Rain" in page.inner_text("#observation")
        assert "Current World State" in page.inner_text(".state-section >> nth=0")

        page.select_option("#task", "gift-order")
        page.click("#verify")
        page.wait_for_selector("#verdict h2")
        assert "gift-order" in (page.text_content("#verdict h2") or "")
        assert "searched before ordering" in page.inner_text("#verdict")

        page.click("#reset")
        expect(page.locator("#calls li")).to_have_count(0)
        assert "0 calls" in page.inner_text("#episode-info")


def test_rejected_patches_violations_and_perturbations_are_shown(tmp_path: Path) -> None:
    shop = ROOT / "worlds" / "shop.yaml"
    extra = ("--perturb", "paginated")
    with (
        workbench(shop, log=tmp_path / "ui.log", model=shop_model, extra=extra) as (base, _),
        browser_page() as page,
    ):
        page.goto(f"{base}/ui#token={TOKEN}")
        page.click("[data-tool=get_order]")
        page.fill("#arg-order_id", "ord_00001")
        page.click("#call-button")
        expect(page.locator("#result")).to_contain_text("Auditor violations")
        result = page.inner_text("#result")
        assert "shipped" in result  # the violation names what the state says
        assert "Perturbations that fired" in result and "paginated" in result
        assert "regenerated" in page.inner_text("#result .badges")
        # The regeneration is a request of its own, told what contradicted the state.
        assert page.locator(".exchange").count() == 2

        page.click("[data-tool=create_order]")
        page.fill("#arg-customer", "ola@example.no")
        page.fill("#arg-sku", "p-tent2")
        page.fill("#arg-quantity", "1")
        page.click("#call-button")
        expect(page.locator("#result")).to_contain_text("rejected:")
        assert "/shop/currency, which never changes" in page.inner_text("#result")
        purposes = [t.split(": ", 1)[1] for t in page.locator(".exchange h3").all_inner_texts()]
        assert purposes == ["answer", "patch correction", "regeneration", "patch correction"]
        assert "EUR" in page.inner_text("#diff td.after")
        assert "patch rejected" in page.inner_text("#calls li >> nth=1")
        page.screenshot(path=str(SCREENSHOTS / "workbench-rejected.png"), full_page=True)


def test_broken_world_files_are_shown_with_their_lines(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yaml"
    broken.write_text("world: broken\ntools:\n  - name: x\n    effect: sometimes\n")
    with workbench(BOOKSTORE, broken, log=tmp_path / "ui.log") as (base, _), browser_page() as page:
        page.goto(f"{base}/ui#token={TOKEN}")
        page.wait_for_selector("#problems:not([hidden]) .problem")
        problems = page.inner_text("#problems")
        assert str(broken) in problems
        assert "4:" in problems and "effect" in problems
        # The world that loads is served all the same.
        page.wait_for_selector("[data-tool=place_order]")

        # Fixed as a copy of a served world: the same world id is a problem of its own.
        broken.write_text(BOOKSTORE.read_text())
        page.click("#check")
        expect(page.locator("#problems")).to_contain_text("is world 'paperlane-books' too")
        fixed = BOOKSTORE.read_text().replace("world: paperlane-books", "world: fixed-books")
        broken.write_text(fixed)
        page.click("#check")
        expect(page.locator("#problems")).to_contain_text("Reload worlds to use it")
        # Reload: the same server, address and token serve the files as they are now.
        page.click("#reload")
        expect(page.locator("#world option")).to_have_count(2, timeout=60_000)
        assert "fixed-books" in page.inner_text("#world")
        expect(page.locator("#problems")).to_be_hidden()
        page.select_option("#world", "fixed-books")
        page.click("[data-tool=get_book]")
        page.fill("#arg-book_id", "b3")
        page.click("#call-button")
        expect(page.locator("#observation")).to_contain_text("Cartographers of Rain")


def test_a_tool_picked_while_a_world_loads_stays_picked(tmp_path: Path) -> None:
    """Choosing a world loads its episodes before showing its first tool; a tool the user
    picks meanwhile must not be replaced by that default (the episodes are held here)."""
    other = tmp_path / "other.yaml"
    other.write_text(BOOKSTORE.read_text().replace("world: paperlane-books", "world: other-books"))
    with workbench(BOOKSTORE, other, log=tmp_path / "ui.log") as (base, _), browser_page() as page:
        page.goto(f"{base}/ui#token={TOKEN}")
        page.wait_for_selector("[data-tool=get_book]")
        held: list[Route] = []
        released = False

        def hold(route: Route) -> None:
            if released:
                route.continue_()
            else:
                held.append(route)

        page.route("**/episodes", hold)
        page.select_option("#world", "other-books")
        page.click("[data-tool=get_book]")
        expect(page.locator("#tool-name")).to_have_text("get_book")
        assert held, "the world's episodes were not requested"
        released = True
        for route in held:
            route.continue_()
        expect(page.locator("#episode option")).not_to_have_count(0)
        page.wait_for_load_state("networkidle")
        expect(page.locator("#tool-name")).to_have_text("get_book")
        expect(page.locator("#arg-book_id")).to_be_visible()


def test_the_api_needs_the_token_and_the_page_does_not(tmp_path: Path) -> None:
    with workbench(BOOKSTORE, log=tmp_path / "ui.log") as (base, _), browser_page() as page:
        page_reply = page.request.get(f"{base}/ui")
        assert page_reply.status == 200
        assert "script-src 'self'" in page_reply.headers["content-security-policy"]
        assert page.request.get(f"{base}/ui/api/overview").status == 401
        # Without the token in its URL the page loads, and says what it could not do.
        page.goto(f"{base}/ui")
        expect(page.locator("#message")).to_contain_text("401")


def test_the_command_says_where_the_page_is(tmp_path: Path) -> None:
    port = free_port()
    log = tmp_path / "ui.log"
    command = [sys.executable, "-m", "mcp_sim", "ui", str(BOOKSTORE)]
    command += ["--address", f"127.0.0.1:{port}", "--model-url", "http://127.0.0.1:9/v1"]
    with log.open("wb") as stderr:  # the child keeps its own copy
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=stderr, cwd=ROOT)
    try:
        wait_for_port(port, process, "mcp-sim ui", log=log)
        said = wait_for_log(log, "#token=", process, "mcp-sim ui")
    finally:
        stop(process)
    # No token given: one is made up and put in the URL, never left open.
    assert f"http://127.0.0.1:{port}/ui#token=" in said
    token = said.split("#token=")[1].split()[0]
    assert len(token) >= 24


@pytest.mark.real_model
def test_a_call_answered_by_the_real_tiny_model_shows_in_the_page(
    real_model_url: str, tmp_path: Path
) -> None:
    """The whole way: Chromium → the page → mcp-sim ui → real vLLM (CPU) with the tiny model
    and back. The tiny model's answer is not checked for sense, only that the page shows it
    and what it was asked."""
    args = (str(BOOKSTORE), *embedded_like_args(real_model_url), "--auth-token", TOKEN)
    with ui_process(*args, log=tmp_path / "ui.log") as base, browser_page() as page:
        page.set_default_timeout(300_000)
        page.goto(f"{base}/ui#token={TOKEN}")
        page.click("[data-tool=get_book]")
        page.fill("#arg-book_id", "b3")
        # The tiny model sometimes loops until max tokens (a model_error result): three tries.
        for tries in range(1, 4):
            page.click("#call-button")
            expect(page.locator("#calls li")).to_have_count(tries, timeout=300_000)
            if page.inner_text("#result .badge >> nth=0") == "model":
                break
        assert page.inner_text("#result .badge >> nth=0") == "model"
        assert page.inner_text("#observation").strip()
        assert "Cartographers of Rain" in page.inner_text(".state-section >> nth=0")
        assert "gemma" in page.inner_text("#result").lower()
