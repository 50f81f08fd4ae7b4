"""A search's count and list names, read from the output schema, the tool's earlier answers
or its description, and written in the view, also when no record meets the arguments."""

from __future__ import annotations

import json

from mcp_sim.prompting.answer_shape import AnswerShape
from mcp_sim.prompting.grounding import ground
from mcp_sim.prompting.records_section import records_section
from mcp_sim.prompting.search_count import CountField, count_field
from mcp_sim.runtime.session import SessionStore, Turn
from mcp_sim.settings import Settings
from mcp_sim.simulator.prompt import PromptShaper
from mcp_sim.spec.world import ToolSpec
from tests.prompting.test_field_search import overlay_of, users_state, world_of


def _tool(description: str = "Find users.") -> ToolSpec:
    world = world_of(users_state(), ("find_users", description))
    tool = world.tool("find_users")
    assert tool is not None
    return tool


def test_earlier_answers_tell_the_count_and_list_names() -> None:
    tool = _tool()
    assert count_field(tool) is None
    wrapped = json.dumps({"matches": [{"user_id": "u1"}], "total": 7})
    assert count_field(tool, ["[]", wrapped]) == CountField("total", "matches")
    nested = json.dumps({"data": [], "meta": {"total": 0}})
    assert count_field(tool, [nested]) == CountField("total", "data")
    # A number beside no list, or a list of counts, tells no wrapper.
    assert count_field(tool, [json.dumps({"total": 3}), "not json"]) is None
    assert count_field(tool, [json.dumps({"counts": [1, 2], "total": True})]) is None


def test_a_description_writing_the_count_as_code_names_it() -> None:
    described = _tool('Find users; answers {"results": [...], "hitCount": n}.')
    assert count_field(described) == CountField("hitCount")
    assert count_field(_tool("Find users by city; counts them too.")) is None


def test_a_search_meeting_no_record_is_shown_a_count_of_zero_under_its_name() -> None:
    world = world_of(users_state(), ("find_users", "Find users."))
    tool = world.tool("find_users")
    overlay = overlay_of(world)
    arguments = {"last_name": "Lee", "city": "Nowhere"}
    plain = ground(overlay, world.state, tool, arguments)
    section = records_section(world.state, list(plain.picks.values()), plain.searches, 3_000)
    assert "no record meets all 2 (a count of 0)" in section and '"total"' not in section
    answers = [json.dumps({"users": [{"user_id": "u1"}], "total": 1})]
    told = ground(overlay, world.state, tool, arguments, answers=answers)
    section = records_section(world.state, list(told.picks.values()), told.searches, 3_000)
    assert '(the answer\'s "total": 0 and "users": [])' in section
    found = ground(overlay, world.state, tool, {"last_name": "Lee"}, answers=answers)
    section = records_section(world.state, list(found.picks.values()), found.searches, 3_000)
    assert '(the answer\'s "total": 20) 20 records meet it' in section


def test_a_prompt_reads_the_count_name_from_the_tools_earlier_answers() -> None:
    world = world_of(users_state(), ("find_users", "Find users."), ("get_user", "A user."))
    tool = world.tool("find_users")
    assert tool is not None
    shaper = PromptShaper(world, Settings.of(state_budget=1500).prompt, 1000)
    session = SessionStore(world).get("s")
    wrapped = json.dumps({"users": [{"user_id": "u1"}], "total": 1})
    other = json.dumps({"people": [], "count": 0})
    session.history += [
        Turn("find_users", {"last_name": "Ng"}, wrapped, False),
        Turn("get_user", {"user_id": "u1"}, other, False),
    ]
    shape = AnswerShape(structured=False, envelope=False, writes=False, response_schema=None)
    arguments = {"last_name": "Lee", "city": "Nowhere"}
    prompt = shaper.messages(session, tool, arguments, None, None, shape)
    # The count's name is the one this tool answered with, not another tool's.
    assert '(the answer\'s "total": 0 and "users": [])' in prompt.head
    assert '"count": 0' not in prompt.head


def test_a_count_held_in_an_object_inside_an_envelope_is_read_with_its_key() -> None:
    tool = _tool("Search the index.")
    answer = {
        "took": 3,
        "_shards": {"total": 1, "successful": 1},
        "hits": {"total": {"value": 40, "relation": "eq"}, "hits": [{"_id": "a"}]},
    }
    found = count_field(tool, [json.dumps(answer)])
    assert found == CountField("total", "hits", "value")
    assert found.entry(12) == '"total": {"value": 12}'
    # The shards' total sits beside no list: it is not the search's count.
    del answer["hits"]
    assert count_field(tool, [json.dumps(answer)]) is None
