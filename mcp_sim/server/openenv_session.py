"""One OpenEnv environment: the episode behind one WebSocket connection (or one stateless HTTP
request), driven by OpenEnv's reset, step, state and mcp messages.

``reset`` starts a new episode (ending the connection's previous one) from its options:
``seed``, ``episode_id``, ``world`` (on a server of several worlds) and ``task`` (the verify
task it is scored on). A ``call_tool`` step is one tool call; its observation is the tool's
result. ``done`` follows the world's ``episode`` rules, and the steps they say carry a reward
(the one that ends the episode, or every step) get the verdict's reward on the episode's task.
A verdict the world model's failure spoiled (``valid`` false in the step's metadata and in the
state) carries no reward: openenv-core's harness takes a rollout without an environment reward
as failed (``CollectRunner`` counts it and writes no record), so an outage is not a score.
A step before any reset starts an episode with no options. The episode ends with its
connection.

Rewards follow what OpenEnv's harnesses assume: with ``reward: every_step`` each step carries
the change in the verdict's reward since the step before, so the steps' rewards add up to the
final verdict (:mod:`mcp_sim.scoring.increments`); a tool call after ``done`` is refused as an
OpenEnv environment refuses a step, with an ``EXECUTION_ERROR`` (openenv-core's client raises
it). What the agent sees is the simulated service's: the observations carry the reward, not
the verdict's checks, and ``state`` the episode's counters, not the hidden world state (the
operator reads both through the episode API, ``/episodes/{episode_id}``).
"""

from __future__ import annotations

import contextlib
import json
import logging
from typing import Any

from pydantic import ValidationError

from mcp_sim.api.episode import Episode
from mcp_sim.api.tool_results import ToolResult
from mcp_sim.api.worlds import Worlds
from mcp_sim.errors import CapacityReached, SimError, VerifyError, shown
from mcp_sim.scoring.increments import RewardIncrements
from mcp_sim.scoring.verdict import Verdict
from mcp_sim.server.episode_requests import seed_of
from mcp_sim.server.openenv_protocol import (
    ACTION,
    CallToolAction,
    EpisodeState,
    Observation,
    call_result,
    mcp_result,
    tool_listing,
    wire,
)
from mcp_sim.simulator.core import UnknownTool

logger = logging.getLogger(__name__)

RESET_OPTIONS = ("seed", "episode_id", "world", "task")
"""What a reset may choose; OpenEnv passes other keys through, and they are ignored here as
its servers ignore what an environment's reset does not take."""
SERVER_ERROR = -32000
"""JSON-RPC's generic server error, OpenEnv's ``JsonRpcErrorCode.SERVER_ERROR``."""


class EpisodeOver(SimError):
    """A tool call on an episode that is done (OpenEnv: reset to start another)."""


def agent_verdict(verdict: Verdict) -> dict[str, Any]:
    """The verdict as an observation may carry it: everything but the checks, whose names and
    details would teach the policy the grader."""
    return {key: value for key, value in verdict.as_dict().items() if key != "checks"}


class OpenEnvSession:
    """The episode of one OpenEnv client."""

    def __init__(self, worlds: Worlds) -> None:
        self.worlds = worlds
        self.episode: Episode | None = None
        self.rewards = RewardIncrements()

    async def reset(self, options: Any) -> dict[str, Any]:
        if not isinstance(options, dict):
            raise ValueError("reset options must be a JSON object")
        seed, episode_id = options.get("seed"), options.get("episode_id")
        world, task = options.get("world"), options.get("task")
        seed = seed_of(seed)
        for key, value in (("episode_id", episode_id), ("world", world), ("task", task)):
            if value is not None and not isinstance(value, str):
                raise ValueError(f"{key} must be a string")
        await self.close()
        self.episode = await self.worlds.episode(world, seed=seed, task=task, episode_id=episode_id)
        self.rewards = RewardIncrements()
        episode = self.episode
        described = episode.world.verify.get(episode.task) if episode.task else None
        metadata = {
            "episode_id": episode.id,
            "world": episode.world_id,
            "task": episode.task,
            "task_description": described.description if described else None,
            "seed": episode.seed,
        }
        return wire(Observation(reward=None, done=False, metadata=metadata))

    async def step(self, action_data: Any) -> dict[str, Any]:
        """Answer one action; raises :class:`pydantic.ValidationError` for a malformed one."""
        action = ACTION.validate_python(action_data)
        episode = await self._started()
        if not isinstance(action, CallToolAction):
            observation = Observation(tools=tool_listing(episode.world), done=episode.done)
            observation.metadata = {"episode_id": episode.id}
            return wire(observation)
        _refuse_when_over(episode)
        try:
            result = await episode.call(action.tool_name, action.arguments)
        except UnknownTool as exc:
            error = {"error_type": "tool_not_found", "message": str(exc)}
            return wire(
                Observation(
                    tool_name=action.tool_name,
                    error=error,
                    done=episode.done,
                    metadata={"episode_id": episode.id},
                )
            )
        return wire(await self._observed(episode, result))

    async def _observed(self, episode: Episode, result: ToolResult) -> Observation:
        metadata: dict[str, Any] = {
            "episode_id": episode.id,
            "step": result.step,
            "version": result.version,
            "source": result.source,
        }
        rules = episode.world.episode
        timing = rules.reward if rules is not None else "on_done"
        reward = None
        if (result.done or timing == "every_step") and episode.world.verify:
            try:
                verdict = await episode.verify()
            except VerifyError as exc:
                metadata["reward_error"] = str(exc)
            else:
                if verdict.valid:
                    reward = self.rewards.owed(verdict.reward, last=result.done)
                metadata["valid"] = verdict.valid
                metadata["verdict"] = agent_verdict(verdict)
        return Observation(
            tool_name=result.tool,
            result=call_result(result),
            done=result.done,
            reward=reward,
            metadata=metadata,
        )

    async def state(self) -> dict[str, Any]:
        episode = self.episode
        if episode is None:
            return EpisodeState().model_dump()
        return EpisodeState(
            episode_id=episode.id,
            step_count=episode.steps,
            world=episode.world_id,
            task=episode.task,
            done=episode.done,
            valid=episode.usage().valid,
            version=await episode.version(),
        ).model_dump()

    async def mcp(self, request: Any) -> dict[str, Any]:
        """A JSON-RPC ``tools/list`` or ``tools/call`` on the episode (OpenEnv's ``mcp``
        message), answered as JSON-RPC."""
        if not isinstance(request, dict) or request.get("jsonrpc") != "2.0":
            return _rpc_error(None, -32600, "Invalid Request: not a JSON-RPC 2.0 request")
        request_id, method = request.get("id"), request.get("method")
        params = request.get("params") or {}
        if not isinstance(params, dict):
            return _rpc_error(request_id, -32602, "Params must be an object")
        episode = await self._started()
        if method == "tools/call" and episode.done:
            return _rpc_error(request_id, SERVER_ERROR, _over_message(episode))
        if method == "tools/list":
            tools = [
                {"name": t.name, "description": t.description, "inputSchema": t.input_schema}
                for t in episode.world.tools
            ]
            return {"jsonrpc": "2.0", "id": request_id, "result": {"tools": tools}}
        if method != "tools/call":
            return _rpc_error(request_id, -32601, f"Method not found: {method}")
        name, arguments = params.get("name"), params.get("arguments") or {}
        if not isinstance(name, str) or not isinstance(arguments, dict):
            return _rpc_error(request_id, -32602, "tools/call needs a name and object arguments")
        try:
            result = await episode.call(name, arguments)
        except UnknownTool as exc:
            return _rpc_error(request_id, -32602, str(exc))
        return {"jsonrpc": "2.0", "id": request_id, "result": mcp_result(result)}

    async def _started(self) -> Episode:
        if self.episode is None:
            await self.reset({})
        assert self.episode is not None
        return self.episode

    async def close(self) -> None:
        """End the episode, if it still lives."""
        episode, self.episode = self.episode, None
        if episode is not None:
            with contextlib.suppress(SimError):  # it expired already
                await episode.close()


def _over_message(episode: Episode) -> str:
    return f"episode {episode.id} is done: reset to start another"


def _refuse_when_over(episode: Episode) -> None:
    if episode.done:
        raise EpisodeOver(_over_message(episode))


def _rpc_error(request_id: Any, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}


async def answer_message(session: OpenEnvSession, raw: str | None) -> dict[str, Any] | None:
    """The reply to one WebSocket message (``None`` for ``close``; ``raw`` is ``None`` for a
    binary frame), errors included, in OpenEnv's ``{"type", "data"}`` envelopes: a client's
    bad message never ends its connection."""
    if raw is None:
        return ws_error("INVALID_JSON", "binary frames are not read: send JSON text frames")
    try:
        message = json.loads(raw)
    except (ValueError, RecursionError) as exc:
        # ValueError: also a number past Python's 4,300 digits, which is valid JSON.
        return ws_error("INVALID_JSON", f"Invalid JSON: {shown(str(exc))}")
    kind = message.get("type") if isinstance(message, dict) else None
    data = message.get("data") if isinstance(message, dict) else None
    try:
        match kind:
            case "reset":
                return {
                    "type": "observation",
                    "data": await session.reset(data if data is not None else {}),
                }
            case "step":
                return {"type": "observation", "data": await session.step(data)}
            case "state":
                return {"type": "state", "data": await session.state()}
            case "mcp":
                return {"type": "mcp", "data": await session.mcp(data)}
            case "close":
                return None
            case _:
                return ws_error("UNKNOWN_TYPE", f"Unknown message type: {shown(kind)}")
    except ValidationError as exc:
        return ws_error("VALIDATION_ERROR", "Invalid message", errors=validation_errors(exc))
    except CapacityReached as exc:
        return ws_error("CAPACITY_REACHED", str(exc))
    except (SimError, ValueError) as exc:
        return ws_error("EXECUTION_ERROR", str(exc))
    except Exception:
        # A fault of the server's, not the client's: logged in full here, and the client
        # keeps its connection and learns only that it happened.
        logger.exception("an OpenEnv message failed")
        return ws_error("EXECUTION_ERROR", "the server failed on this message (see its log)")


def validation_errors(exc: ValidationError) -> list[dict[str, Any]]:
    """Pydantic's errors without the values that failed (which may be megabytes), in JSON."""
    errors: list[dict[str, Any]] = json.loads(exc.json(include_url=False, include_input=False))
    return errors


def ws_error(code: str, message: str, **extra: Any) -> dict[str, Any]:
    return {"type": "error", "data": {"message": message, "code": code, **extra}}
