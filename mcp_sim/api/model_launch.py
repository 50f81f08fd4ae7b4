"""The world model that settings name, started when first needed (or at once, when the
caller asks), and the one way mcp-sim starts a model lazily.

A server answers ``initialize`` and ``tools/list`` at once, so hosts such as Claude Desktop do
not time out while the embedded engine loads (~50 s); calls made before the model is up wait
for it, reporting progress, and fail with a clear error if it could not start. ``mcp-sim
call`` makes the same object and never starts it when its call needs no model (a fixture, a
replayed answer).

The launch holds no task group (a launched vLLM is a process, not a task), so it may be started
by whichever task needs it first and closed by another.
"""

from __future__ import annotations

from collections.abc import Callable

import anyio
import anyio.to_thread

from mcp_sim.engine.background import running_engine
from mcp_sim.engine.vllm_server import VLLMServer
from mcp_sim.errors import EngineError, ModelUnavailable
from mcp_sim.models.base import Completion, CompletionRequest, ProgressCallback, WorldModel
from mcp_sim.models.openai import EndpointSettings, OpenAICompatibleModel
from mcp_sim.models.stub import StubModel
from mcp_sim.models.stub_script import StubScript
from mcp_sim.settings.model import ModelSettings
from mcp_sim.settings.values import stub_script_path

PROGRESS_SECONDS = 2.0
"""How often a call waiting for the model is told what the model is doing."""


def endpoint(settings: ModelSettings, base_urls: list[str]) -> OpenAICompatibleModel:
    """The client of the OpenAI-compatible server(s) at ``base_urls``."""
    return OpenAICompatibleModel(
        EndpointSettings(
            base_urls=base_urls,
            api_key=settings.api_key,
            model=settings.model,
            request_timeout=settings.timeout,
            retries=settings.retries,
            max_concurrency=settings.max_concurrency,
        )
    )


def stub_model(settings: ModelSettings) -> StubModel | None:
    """The stand-in model that ``--model-url stub:`` names, with its script (``stub:FILE``)
    read now: a script that cannot be is a :class:`~mcp_sim.errors.SettingsError` before
    anything starts."""
    url = settings.stub
    if url is None:
        return None
    script = stub_script_path(url)
    return StubModel(StubScript.load(script) if script is not None else None)


class LaunchingModel:
    """A :class:`~mcp_sim.models.base.WorldModel` that is the model ``settings`` name once
    :meth:`start` has run: the servers at ``--model-url`` (or the stand-in ``stub:``), the embedded engine already running
    in the background (``mcp-sim engine start``), or a vLLM launched here (``--vllm``, or the
    embedded one). ``say`` is told what the launch is doing."""

    def __init__(self, settings: ModelSettings, say: Callable[[str], None] | None = None) -> None:
        self.settings = settings
        self._say = say or (lambda message: None)
        self._model: WorldModel | None = None
        self._server: VLLMServer | None = None
        self._failure: str | None = None
        self._stub = stub_model(settings)
        self._lock = anyio.Lock()
        self.status = "not started"

    @property
    def label(self) -> str:
        return self.settings.label()

    async def start(self) -> WorldModel:
        """Start the model (once: callers meanwhile wait for the one launch) and return it;
        raises :class:`~mcp_sim.errors.ModelUnavailable` if it could not start."""
        async with self._lock:
            if self._model is None and self._failure is None:
                try:
                    self._model = await self._launch()
                except EngineError as exc:
                    self._failure = str(exc)
                    self.status = "failed"
                    self._say(f"the world model could not start: {exc}")
        if self._model is None:
            raise ModelUnavailable(f"{self.label} could not start: {self._failure}")
        return self._model

    async def _launch(self) -> WorldModel:
        self.status = "starting"
        if self._stub is not None:
            return self._stub
        urls = self.settings.base_urls()
        if urls:
            return endpoint(self.settings, urls)
        background = None
        if self.settings.embedded:
            background = await anyio.to_thread.run_sync(running_engine)
        if background is not None:
            self._say(f"engine: using the running engine at {background.base_url}")
            return endpoint(self.settings, [background.base_url])
        server = (
            VLLMServer.gpu(
                self.settings.vllm, extra_args=list(self.settings.vllm_arg), progress=self._loading
            )
            if self.settings.vllm
            else VLLMServer.embedded(progress=self._loading)
        )
        await server.astart()
        self._server = server
        self._say("world model ready")
        return endpoint(self.settings, [server.base_url])

    def _loading(self, message: str) -> None:
        self.status = message
        self._say(message)

    async def complete(
        self, request: CompletionRequest, progress: ProgressCallback | None = None
    ) -> Completion:
        model = self._model or await self._waiting_start(progress)
        return await model.complete(request, progress)

    async def _waiting_start(self, progress: ProgressCallback | None) -> WorldModel:
        """:meth:`start`; while another task's launch is under way, ``progress`` is told every
        few seconds what it is doing."""
        while progress is not None and self._lock.locked():
            await progress(0, f"waiting for {self.label}: {self.status}")
            with anyio.move_on_after(PROGRESS_SECONDS):
                async with self._lock:
                    pass
        return await self.start()

    async def aclose(self) -> None:
        model, server = self._model, self._server
        self._model = self._server = None
        if model is not None:
            await model.aclose()
        if server is not None:
            await server.astop()
