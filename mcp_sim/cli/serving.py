"""``mcp-sim serve``: a world over MCP, on stdio or streamable HTTP, while the world model
starts beside it (calls that need the model wait for it; pinned ones are answered at once)."""

from __future__ import annotations

from contextlib import AsyncExitStack
from dataclasses import replace

import anyio
import anyio.abc

from mcp_sim.cli import wiring
from mcp_sim.cli.config import ServeConfig
from mcp_sim.cli.console import say
from mcp_sim.errors import EngineError
from mcp_sim.models.starting import StartingModel
from mcp_sim.server.control import Control
from mcp_sim.server.mcp_front import build_server, http_app, serve_http, serve_stdio


def run(config: ServeConfig) -> int:
    anyio.run(_serve, config)
    return 0


async def _serve(config: ServeConfig) -> None:
    world = wiring.load(config.world)
    config = replace(config, simulation=await wiring.with_served_window(config.simulation))
    model = config.simulation.model
    starting = StartingModel(
        "the embedded world model" if not model.vllm else f"vLLM ({model.vllm})"
    )
    async with AsyncExitStack() as stack:
        simulator = wiring.open_simulator(
            stack,
            world,
            config.simulation,
            model=starting,
            journal=config.journal,
            perturbations=wiring.perturber(config.perturb, world),
            replay=config.replay,
            memory=config.world_memory,
            # A stdio process is one session for as long as its host keeps it open.
            idle_timeout=config.session_idle_timeout if config.http is not None else None,
        )
        control = Control(simulator)
        server = build_server(
            simulator,
            default_session="stdio" if config.http is None else "default",
            control=control if config.control_tools else None,
        )
        async with anyio.create_task_group() as tg:
            await tg.start(_run_model, config, starting)
            described = f"{world.world} ({len(world.tools)} tools)"
            if config.http is None:
                say(f"serving {described} on stdio")
                await serve_stdio(server)
            else:
                host, port = config.http
                app = http_app(
                    server,
                    host=host,
                    auth_token=config.auth_token,
                    session_idle_timeout=config.session_idle_timeout,
                    allowed_hosts=list(config.allowed_hosts),
                    control=control,
                    json_response=config.json_response,
                )
                say(f"serving {described} on http://{host}:{port}/mcp")
                await serve_http(app, host, port)
            tg.cancel_scope.cancel()


async def _run_model(
    config: ServeConfig,
    starting: StartingModel,
    *,
    task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED,
) -> None:
    """Launch the world model and keep it until the server stops; a model that cannot start
    turns every call that needs it into an error result, and the server keeps serving."""

    def progress(message: str) -> None:
        starting.loading(message)
        say(message)

    task_status.started()
    try:
        async with wiring.launched_model(config.simulation.model, progress) as model:
            starting.ready(model)
            if not config.simulation.model.urls:
                say("world model ready")
            await anyio.sleep_forever()
    except EngineError as exc:
        starting.failed(str(exc))
        say(f"the world model could not start: {exc}")
