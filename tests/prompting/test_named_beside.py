"""Records an argument names beside a search's: a fair share, unless the tool names them."""

from __future__ import annotations

from types import SimpleNamespace
from typing import cast

from mcp_sim.prompting.named_beside import answer_itself
from mcp_sim.prompting.search_result import SearchResult
from mcp_sim.spec.world import ToolSpec


def tool(name: str) -> ToolSpec:
    spec = {"name": name, "description": "Reads.", "input_schema": {"type": "object"}}
    return ToolSpec.model_validate(spec)


def search_of(pointer: str) -> SearchResult:
    found = SimpleNamespace(collection=SimpleNamespace(pointer=pointer), full=["/x/0"])
    return cast(SearchResult, found)


# ``node_by_ip(ip)``: the pods whose ``hostIP`` it is meet the search; the node holding it
# among its addresses is the record the call's rarest value names.
EVIDENT = [("/items/172", "/items/@Node")]


def test_the_record_of_the_collection_the_tool_names_keeps_its_room() -> None:
    pods = [search_of("/items/@Pod")]
    assert answer_itself(tool("node_by_ip"), pods, EVIDENT) == ["/items/172"]


def test_beside_a_search_of_the_collection_the_tool_names_it_takes_a_fair_share() -> None:
    pods = [search_of("/items/@Pod")]
    assert answer_itself(tool("pods_by_ip"), pods, EVIDENT) == []
    # Nor is a record of a collection the tool does not name the answer.
    assert answer_itself(tool("host_by_ip"), pods, EVIDENT) == []
