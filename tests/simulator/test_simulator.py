"""The call pipeline: validation, fixtures, the model, structured answers, history and journal."""

from __future__ import annotations

import json
import re
from collections.abc import Callable

import anyio
import pytest

from mcp_sim.episodes.hub import EpisodeHub
from mcp_sim.errors import ModelError, ModelTimeout, ModelUnavailable
from mcp_sim.journal import Journal
from mcp_sim.models.base import Completion, CompletionRequest, ProgressCallback, Sampling
from mcp_sim.runtime.session import Session, SessionStore
from mcp_sim.settings import SamplingSettings, Settings
from mcp_sim.simulator.core import Simulator, UnknownTool
from mcp_sim.spec.loading import parse_world
from mcp_sim.spec.world import World
from tests.conftest import BOOKSTORE

GOOD_SEARCH = {
    "results": [{"id": "b3", "title": "C", "author": "L", "price": 22.9, "stock": 7}],
    "total": 1,
}

Answer = str | Completion | ModelError


class ScriptedModel:
    """A unit-level double of the model seam (the ``WorldModel`` protocol): it answers each
    request with the next scripted answer and records the requests. The HTTP path to a real
    OpenAI-compatible server is tested elsewhere, against a real HTTP server."""

    def __init__(self, *answers: Answer) -> None:
        self.answers = list(answers)
        self.requests: list[CompletionRequest] = []

    async def complete(
        self, request: CompletionRequest, progress: ProgressCallback | None = None
    ) -> Completion:
        self.requests.append(request)
        if not self.answers:
            raise AssertionError("the model was asked more often than scripted")
        answer = self.answers.pop(0)
        if isinstance(answer, ModelError):
            raise answer
        if isinstance(answer, str):
            return Completion(
                content=answer, model="scripted", prompt_tokens=100, completion_tokens=10
            )
        return answer

    async def aclose(self) -> None:
        pass


class GatedModel:
    """Answers each session's requests only once that session's gate is open."""

    def __init__(self, *open_sessions: str) -> None:
        self.gates: dict[str, anyio.Event] = {}
        for session in open_sessions:
            self.gate(session).set()
        self.started: list[tuple[str, object]] = []
        self.finished: list[tuple[str, object]] = []

    def gate(self, session: str) -> anyio.Event:
        return self.gates.setdefault(session, anyio.Event())

    async def complete(
        self, request: CompletionRequest, progress: ProgressCallback | None = None
    ) -> Completion:
        session = request.routing_key or ""
        call = (session, last_action(request)["arguments"])
        self.started.append(call)
        await self.gate(session).wait()
        self.finished.append(call)
        return Completion(content=f"<predicted_observation>{call}</predicted_observation>")

    async def aclose(self) -> None:
        pass


def actions(request: CompletionRequest) -> list[dict[str, object]]:
    """Every action (earlier turns and the current one) rendered into a request, in order."""
    found = []
    for message in request.messages:
        if message["role"] == "user":
            for block in re.findall(
                r"\*\*Action:\*\*\n```json\n(.*?)\n```", message["content"], re.DOTALL
            ):
                found.append(json.loads(block))
    return found


def last_action(request: CompletionRequest) -> dict[str, object]:
    return actions(request)[-1]


async def until(condition: Callable[[], bool]) -> None:
    with anyio.fail_after(5):
        while not condition():
            await anyio.sleep(0.005)


def observation(text: str) -> str:
    return f"<think>Let me work it out.</think>Reasoning.\n<predicted_observation>{text}</predicted_observation>"


async def test_invalid_arguments_are_an_error_result_without_a_model_call(bookstore: World) -> None:
    model = ScriptedModel()
    simulator = Simulator(bookstore, model)
    result = await simulator.call("s", "get_book", {"book_id": 5, "extra": True})
    assert result.is_error and result.source == "validation"
    assert result.structured is None
    assert "book_id" in result.text
    assert model.requests == []


async def test_missing_arguments_are_validated_like_an_empty_object(bookstore: World) -> None:
    result = await Simulator(bookstore, ScriptedModel()).call("s", "get_book", None)
    assert result.is_error and result.source == "validation"


async def test_fixture_answers_without_a_model_call(bookstore: World) -> None:
    model = ScriptedModel()
    result = await Simulator(bookstore, model).call("s", "search_books", {"query": "glass"})
    pinned = bookstore.fixtures[1].result
    assert (result.is_error, result.source) == (False, "fixture")
    assert result.structured == pinned
    assert json.loads(result.text) == pinned
    assert model.requests == []


async def test_error_fixture_is_an_error_result_with_its_text(bookstore: World) -> None:
    arguments = {"book_id": "b2", "quantity": 1, "email": "ana@example.pt", "country": "Portugal"}
    result = await Simulator(bookstore, ScriptedModel()).call("s", "place_order", arguments)
    assert (result.is_error, result.source, result.structured) == (True, "fixture", None)
    assert result.text == bookstore.fixtures[2].result


async def test_unknown_tool_raises_and_starts_no_session(bookstore: World) -> None:
    simulator = Simulator(bookstore, ScriptedModel())
    with pytest.raises(UnknownTool) as info:
        await simulator.call("s", "delete_everything", {})
    assert info.value.name == "delete_everything"
    assert "s" not in simulator.sessions


async def test_text_answer_is_extracted_from_the_observation_tags(bookstore: World) -> None:
    model = ScriptedModel(observation('{"id": "b1", "stock": 3}'))
    result = await Simulator(bookstore, model).call("s", "get_book", {"book_id": "b1"})
    assert (result.is_error, result.source, result.structured) == (False, "model", None)
    assert result.text == '{"id": "b1", "stock": 3}'
    (request,) = model.requests
    assert request.response_schema is None
    assert request.routing_key == "s"
    assert [m["role"] for m in request.messages] == ["system", "user"]
    assert last_action(request) == {"name": "get_book", "arguments": {"book_id": "b1"}}
    assert "<predicted_observation>" in request.messages[-1]["content"]


async def test_reasoning_from_the_endpoint_is_passed_through(bookstore: World) -> None:
    model = ScriptedModel(
        Completion(content="<predicted_observation>x</predicted_observation>", reasoning="thoughts")
    )
    result = await Simulator(bookstore, model).call("s", "get_book", {"book_id": "b1"})
    assert (result.text, result.reasoning) == ("x", "thoughts")


async def test_no_observation_twice_is_a_model_error(bookstore: World) -> None:
    # Closed tags around nothing would be an answer (see tests/simulator/test_empty_answers.py);
    # thinking and an unclosed tag are not.
    empty = "<think>only thinking</think><predicted_observation> "
    model = ScriptedModel(empty, empty)
    result = await Simulator(bookstore, model).call("s", "get_book", {"book_id": "b1"})
    assert (result.is_error, result.source) == (True, "model_error")
    assert "empty observation" in result.text and len(model.requests) == 2


async def test_an_empty_completion_is_asked_for_once_more(bookstore: World) -> None:
    empty = ""
    model = ScriptedModel(empty, observation("b1 record"))
    result = await Simulator(bookstore, model).call("s", "get_book", {"book_id": "b1"})
    assert (result.is_error, result.text) == (False, "b1 record")
    first, retry = model.requests
    assert retry.messages[:-2] == first.messages
    assert retry.messages[-2] == {"role": "assistant", "content": empty}
    assert "<predicted_observation>" in retry.messages[-1]["content"]


async def test_no_envelope_from_a_small_model_is_asked_for_once_more(bookstore: World) -> None:
    model = ScriptedModel('{"text": "b1"}', '{"observation": "b1: The Glass River"}')
    simulator = Simulator(bookstore, model, settings=Settings.of(bounded_output=True))
    result = await simulator.call("s", "get_book", {"book_id": "b1"})
    assert (result.is_error, result.text) == (False, "b1: The Glass River")
    retry = model.requests[1]
    assert retry.response_schema == model.requests[0].response_schema
    assert '"observation"' in retry.messages[-1]["content"]


async def test_structured_tool_asks_for_its_output_schema_and_parses_json(bookstore: World) -> None:
    model = ScriptedModel(json.dumps(GOOD_SEARCH))
    result = await Simulator(bookstore, model).call("s", "search_books", {"query": "rain"})
    assert (result.is_error, result.source) == (False, "model")
    assert result.structured == GOOD_SEARCH
    assert json.loads(result.text) == GOOD_SEARCH
    (request,) = model.requests
    tool = bookstore.tool("search_books")
    assert tool is not None
    assert request.response_schema == tool.output_schema
    assert request.schema_name == "search_books"
    assert "<predicted_observation>" not in request.messages[-1]["content"]


async def test_structured_answer_in_a_code_fence_is_accepted(bookstore: World) -> None:
    model = ScriptedModel("```json\n" + json.dumps(GOOD_SEARCH) + "\n```")
    result = await Simulator(bookstore, model).call("s", "search_books", {"query": "rain"})
    assert result.structured == GOOD_SEARCH


async def test_invalid_structured_answer_is_repaired_once(bookstore: World) -> None:
    journal = Journal()
    model = ScriptedModel('{"results": []}', json.dumps(GOOD_SEARCH))
    simulator = Simulator(bookstore, model, journal=journal)
    result = await simulator.call("s", "search_books", {"query": "rain"})
    assert (result.is_error, result.structured) == (False, GOOD_SEARCH)
    first, retry = model.requests
    assert retry.messages[: len(first.messages)] == first.messages
    assert retry.messages[-2] == {"role": "assistant", "content": '{"results": []}'}
    assert retry.messages[-1]["role"] == "user"
    assert "total" in retry.messages[-1]["content"]
    assert retry.response_schema == first.response_schema
    (record,) = journal.records("s")
    assert (record.prompt_tokens, record.completion_tokens) == (200, 20)


async def test_structured_answer_still_invalid_after_repair_is_a_model_error(
    bookstore: World,
) -> None:
    model = ScriptedModel("not json at all", '{"results": "nope", "total": 0}')
    simulator = Simulator(bookstore, model)
    result = await simulator.call("s", "search_books", {"query": "rain"})
    assert (result.is_error, result.source, result.structured) == (True, "model_error", None)
    assert len(model.requests) == 2
    assert simulator.sessions.get("s").history == []


@pytest.mark.parametrize(
    "error", [ModelUnavailable("down"), ModelTimeout("slow"), ModelError("odd")], ids=type
)
async def test_model_error_is_an_error_result_and_the_next_call_works(
    bookstore: World, error: ModelError
) -> None:
    model = ScriptedModel(error, observation("b1 record"))
    simulator = Simulator(bookstore, model)
    failed = await simulator.call("s", "get_book", {"book_id": "b1"})
    assert (failed.is_error, failed.source) == (True, "model_error")
    assert simulator.sessions.get("s").history == []
    answered = await simulator.call("s", "get_book", {"book_id": "b1"})
    assert (answered.is_error, answered.text) == (False, "b1 record")
    assert len(actions(model.requests[1])) == 1


async def test_without_a_model_only_pinned_calls_succeed(bookstore: World) -> None:
    simulator = Simulator(bookstore, None)
    assert not (await simulator.call("s", "search_books", {"query": "glass"})).is_error
    result = await simulator.call("s", "get_book", {"book_id": "b1"})
    assert (result.is_error, result.source) == (True, "model_error")


async def test_history_grows_and_is_sent_as_turns(bookstore: World) -> None:
    # cancel_order is a write tool: its answer carries its state change (none here).
    model = ScriptedModel(
        observation("first"), observation("second") + "<state_patch>[]</state_patch>"
    )
    simulator = Simulator(bookstore, model)
    await simulator.call("s", "search_books", {"query": "glass"})
    await simulator.call("s", "get_book", {"book_id": 1})
    await simulator.call("s", "get_book", {"book_id": "b1"})
    await simulator.call("s", "cancel_order", {"order_id": "ord_1"})
    assert [(t.tool, t.is_error) for t in simulator.sessions.get("s").history] == [
        ("search_books", False),
        ("get_book", True),
        ("get_book", False),
        ("cancel_order", False),
    ]
    last = model.requests[-1]
    assert [a["name"] for a in actions(last)] == [
        "search_books",
        "get_book",
        "get_book",
        "cancel_order",
    ]
    observations = [m["content"] for m in last.messages if m["role"] == "assistant"]
    assert len(observations) == 3
    assert observations[2].endswith("\nfirst")
    assert json.loads(observations[0].split("\n", 1)[1]) == bookstore.fixtures[1].result


async def test_sessions_have_separate_histories(bookstore: World) -> None:
    model = ScriptedModel(observation("a1"), observation("b1"))
    simulator = Simulator(bookstore, model)
    await simulator.call("a", "get_book", {"book_id": "b1"})
    await simulator.call("b", "get_book", {"book_id": "b2"})
    assert len(actions(model.requests[1])) == 1


async def test_journal_records_source_step_and_tokens(bookstore: World) -> None:
    journal = Journal()
    model = ScriptedModel(
        Completion(content=observation("x"), model="m1", prompt_tokens=321, completion_tokens=45)
    )
    simulator = Simulator(bookstore, model, journal=journal)
    await simulator.call("s", "get_book", {"book_id": "b1"})
    await simulator.call("s", "search_books", {"query": "glass"})
    await simulator.call("s", "get_book", {})
    await simulator.call("other", "search_books", {"query": "glass"})
    records = journal.records("s")
    assert [(r.step, r.source, r.tool) for r in records] == [
        (1, "model", "get_book"),
        (2, "fixture", "search_books"),
        (3, "validation", "get_book"),
    ]
    model_record = records[0]
    assert (model_record.prompt_tokens, model_record.completion_tokens, model_record.model) == (
        321,
        45,
        "m1",
    )
    assert model_record.arguments == {"book_id": "b1"}
    assert model_record.observation == "x"
    assert model_record.world == bookstore.content_hash()
    assert model_record.latency_ms is None  # wall-clock time only with --journal-timing
    assert (records[1].prompt_tokens, records[1].structured) == (0, bookstore.fixtures[1].result)
    assert records[2].is_error
    assert [(r.step, r.session) for r in journal.records("other")] == [(1, "other")]


async def test_result_step_matches_the_journal(bookstore: World) -> None:
    journal = Journal()
    simulator = Simulator(bookstore, None, journal=journal)
    steps = [(await simulator.call("s", "search_books", {"query": "glass"})).step for _ in range(3)]
    assert steps == [r.step for r in journal.records("s")] == [1, 2, 3]


async def test_progress_reaches_the_model(bookstore: World) -> None:
    seen: list[tuple[int, str]] = []

    class ReportingModel(ScriptedModel):
        async def complete(
            self, request: CompletionRequest, progress: ProgressCallback | None = None
        ) -> Completion:
            assert progress is not None
            await progress(7, "thinking")
            return await super().complete(request, progress)

    async def on_progress(tokens: int, message: str) -> None:
        seen.append((tokens, message))

    simulator = Simulator(bookstore, ReportingModel(observation("x")))
    await simulator.call("s", "get_book", {"book_id": "b1"}, on_progress)
    assert seen == [(7, "thinking")]


async def test_calls_of_one_session_run_in_order_while_sessions_run_concurrently(
    bookstore: World,
) -> None:
    model = GatedModel("b")
    simulator = Simulator(bookstore, model)
    results: dict[str, str] = {}

    async def call(session: str, book: str) -> None:
        results[f"{session}:{book}"] = (
            await simulator.call(session, "get_book", {"book_id": book})
        ).text

    with anyio.fail_after(5):
        async with anyio.create_task_group() as tg:
            tg.start_soon(call, "a", "b1")
            await until(lambda: len(model.started) == 1)
            tg.start_soon(call, "a", "b2")
            tg.start_soon(call, "b", "b3")
            await until(lambda: "b:b3" in results)
            # Session a's first call is still blocked, and its second has not reached the model.
            assert model.started == [("a", {"book_id": "b1"}), ("b", {"book_id": "b3"})]
            model.gate("a").set()
    assert model.finished == [
        ("b", {"book_id": "b3"}),
        ("a", {"book_id": "b1"}),
        ("a", {"book_id": "b2"}),
    ]
    assert len(simulator.sessions.get("a").history) == 2


WORLD_WITH_MODEL_SECTION = BOOKSTORE.read_text(encoding="utf-8") + (
    "model:\n  temperature: 0.1\n  top_p: 0.5\n  thinking: false\n"
)


def test_sampling_defaults_come_from_the_model_card(bookstore: World) -> None:
    assert SamplingSettings().resolve(bookstore) == Sampling()


def test_world_model_section_overrides_the_defaults() -> None:
    world = parse_world(WORLD_WITH_MODEL_SECTION)
    sampling = SamplingSettings().resolve(world)
    assert (sampling.temperature, sampling.top_p, sampling.thinking) == (0.1, 0.5, False)
    assert (sampling.top_k, sampling.max_tokens) == (Sampling().top_k, Sampling().max_tokens)


async def test_command_line_overrides_beat_the_world_model_section() -> None:
    world = parse_world(WORLD_WITH_MODEL_SECTION)
    model = ScriptedModel(observation("x"))
    overrides = Settings.of(temperature=0.9, max_tokens=256, thinking=True, seed=7)
    await Simulator(world, model, settings=overrides).call("s", "get_book", {"book_id": "b1"})
    # --seed is the base of the session's seed; each request's seed is drawn from the session.
    request_seed = Session.start("s", world, base_seed=7).next_request_seed()
    assert model.requests[0].sampling == Sampling(
        temperature=0.9,
        top_p=0.5,
        top_k=Sampling().top_k,
        max_tokens=256,
        thinking=True,
        seed=request_seed,
    )


def test_backend_defaults_replace_the_model_card_but_not_the_world_or_command_line() -> None:
    world = parse_world(WORLD_WITH_MODEL_SECTION)
    backend = Sampling(temperature=1.0, max_tokens=512)
    assert SamplingSettings().resolve(world, backend) == Sampling(
        temperature=0.1, top_p=0.5, thinking=False, max_tokens=512
    )
    assert SamplingSettings(max_tokens=64).resolve(world, backend).max_tokens == 64


async def test_answers_without_model_tells_which_calls_need_the_model(bookstore: World) -> None:
    simulator = Simulator(bookstore, None)
    assert simulator.answers_without_model("search_books", {"query": "glass"})
    assert simulator.answers_without_model("search_books", {"query": 3})
    assert simulator.answers_without_model("no_such_tool", {})
    assert not simulator.answers_without_model("search_books", {"query": "rain"})


async def test_expired_sessions_leave_the_journal(bookstore: World) -> None:
    clock = [0.0]
    journal = Journal()
    sessions = SessionStore(
        bookstore, idle_timeout=10, clock=lambda: clock[0], on_expire=journal.forget
    )
    simulator = Simulator(bookstore, None, sessions=sessions, journal=journal)
    await simulator.call("old", "search_books", {"query": "glass"})
    clock[0] = 11
    await simulator.call("new", "search_books", {"query": "glass"})
    assert journal.records("old") == []
    assert len(journal.records("new")) == 1
    await simulator.call("old", "search_books", {"query": "glass"})
    assert [r.step for r in journal.records("old")] == [1]


async def test_a_fork_prompts_with_the_same_history_as_its_parent(bookstore: World) -> None:
    from tests.scripted_model import ScriptedModel

    answer = ScriptedModel.answer({"id": "b1", "title": "The Glass River"})
    model = ScriptedModel(*[answer] * 4)
    simulator = Simulator(bookstore, model)
    for book in ("b1", "b3"):
        await simulator.call("parent", "get_book", {"book_id": book})
    hub = EpisodeHub({bookstore.world: simulator})
    await hub.lifecycle.fork_session(bookstore.world, "parent", "fork")
    await simulator.call("parent", "get_book", {"book_id": "b4"})
    await simulator.call("fork", "get_book", {"book_id": "b4"})
    parent_prompt, fork_prompt = (r.messages for r in model.requests[-2:])
    assert fork_prompt == parent_prompt
    assert "### Turn 2" in fork_prompt[3]["content"]


def test_a_simulators_parts_cannot_be_set_after_it_is_built(bookstore: World) -> None:
    simulator = Simulator(bookstore, None)
    for name, value in (("write_through", None), ("watchers", ()), ("model", None)):
        with pytest.raises(AttributeError, match="given when it is built"):
            setattr(simulator, name, value)
