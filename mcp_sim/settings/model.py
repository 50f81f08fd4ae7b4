"""Which world model answers and how it is reached, and how it samples."""

from __future__ import annotations

from argparse import ArgumentTypeError
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from mcp_sim.engine.paths import EMBEDDED_MODEL_NAME
from mcp_sim.errors import SettingsError
from mcp_sim.models.base import Sampling
from mcp_sim.settings import values
from mcp_sim.settings.declare import Flag

if TYPE_CHECKING:
    # Typing only: the command line builds its parser from these models, and must not wait
    # for the world spec's (150 ms) to answer --help.
    from mcp_sim.spec.world import World

EMBEDDED_MAX_TOKENS = 512
"""The tiny embedded model's context is small and it does not think."""

FROZEN = ConfigDict(frozen=True, extra="forbid", protected_namespaces=())
"""Settings are values: built once, checked, never changed (``model_*`` names are ours)."""


class ModelSettings(BaseModel):
    """The world model: an OpenAI-compatible server, a vLLM mcp-sim launches, or (neither
    given) the embedded tiny model."""

    model_config = FROZEN

    model_url: Annotated[
        list[str],
        Flag(
            "URL",
            "OpenAI-compatible base URL, e.g. http://gpu:8000/v1 (repeat for replicas); "
            "stub: (or stub:FILE of scripted answers) for a stand-in that answers from the "
            "output schemas, for wiring tests only; default: the embedded tiny model on vLLM "
            "(CPU)",
            parse=values.model_url,
        ),
    ] = []
    model_urls_file: Annotated[
        Path | None,
        Flag(
            "FILE",
            "read more replica base URLs from FILE, one per line (# comments allowed)",
            parse=values.http_urls_file,
        ),
    ] = None
    model: Annotated[
        str | None, Flag("MODEL", "model id to request (default: the first of /v1/models)")
    ] = None
    api_key: Annotated[
        str | None, Flag("KEY", "bearer key for the model endpoint", secret=True)
    ] = None
    vllm: Annotated[
        str | None,
        Flag(
            "MODEL",
            "start vLLM (found on PATH or in the managed engine) serving MODEL, e.g. "
            "Qwen/Qwen-AgentWorld-35B-A3B",
        ),
    ] = None
    vllm_arg: Annotated[
        list[str], Flag("ARG", "extra argument for the vLLM launched by --vllm (repeatable)")
    ] = []
    timeout: Annotated[float, Field(gt=0), Flag("SECONDS", "seconds per model request")] = 600.0
    retries: Annotated[int, Field(ge=0), Flag("N", "retries on connection errors, 5xx and 429")] = 2
    max_concurrency: Annotated[
        int,
        Field(ge=1),
        Flag("N", "model requests in flight per replica; vLLM queues the rest"),
    ] = 1024

    @property
    def embedded(self) -> bool:
        """No endpoint and no vLLM given: the embedded tiny model answers."""
        return not self.model_url and self.model_urls_file is None and not self.vllm

    @property
    def stub(self) -> str | None:
        """The stand-in model's ``stub:`` URL, when ``--model-url`` names it (then it is the
        only model: see :mod:`mcp_sim.models.stub`)."""
        stubs = [url for url in self.model_url if url.startswith(values.STUB_SCHEME)]
        if not stubs:
            return None
        if len(self.model_url) > 1 or self.model_urls_file is not None or self.vllm:
            raise SettingsError("--model-url", f"{stubs[0]} is the only model when given")
        return stubs[0]

    def base_urls(self) -> list[str]:
        """``--model-url`` then the file's URLs (none for the stand-in model); raises
        :class:`~mcp_sim.errors.SettingsError` on a file that lists none or a URL that is not
        one."""
        if self.stub is not None:
            return []
        if self.model_urls_file is None:
            return list(self.model_url)
        try:
            return [*self.model_url, *values.listed_urls(str(self.model_urls_file))]
        except ArgumentTypeError as exc:
            raise SettingsError("--model-urls-file", str(exc)) from None

    def identity(self) -> str:
        """The model as configured, for cache keys (the served name is only known once
        asked)."""
        if self.model:
            return self.model
        if self.stub is not None:
            return self.stub
        if self.model_url or self.model_urls_file:
            return " ".join(sorted(u.rstrip("/") for u in self.base_urls()))
        if self.vllm:
            return f"vllm:{self.vllm}"
        return f"embedded:{EMBEDDED_MODEL_NAME}"

    def label(self) -> str:
        """The model in messages about starting it."""
        if self.stub is not None:
            return "the stand-in model"
        return f"vLLM ({self.vllm})" if self.vllm else "the embedded world model"


class SamplingSettings(BaseModel):
    """Sampling values given by the user; ``None`` leaves the world's (its ``model:``
    section) or the default."""

    model_config = FROZEN

    thinking: Annotated[
        bool | None,
        Flag(None, "let the model think before answering (default: on)", negatable=True),
    ] = None
    temperature: Annotated[
        float | None, Field(ge=0, le=2), Flag("T", "sampling temperature (default 0.6)")
    ] = None
    top_p: Annotated[
        float | None, Field(gt=0, le=1), Flag("P", "nucleus sampling (default 0.95)")
    ] = None
    top_k: Annotated[
        int | None, Field(ge=-1), Flag("K", "top-k sampling, -1 for no limit (default 20)")
    ] = None
    max_tokens: Annotated[
        int | None,
        Field(ge=1),
        Flag(
            "N",
            f"completion token limit (default 32768; {EMBEDDED_MAX_TOKENS} for the embedded model)",
        ),
    ] = None
    seed: Annotated[
        int | None,
        Flag(
            "N",
            "base seed: each session's RNG (sampling seeds of its model requests, perturbation "
            "decisions) is derived from it and the session id; a session may name its own with "
            "_meta mcp-sim/seed",
        ),
    ] = None

    def resolve(self, world: World, defaults: Sampling | None = None) -> Sampling:
        """What a request of ``world`` samples with: these values, then the world's ``model:``
        section, then ``defaults`` (the model card's unless the model needs others)."""
        chosen: dict[str, Any] = {}
        for name in ("temperature", "top_p", "top_k", "max_tokens", "thinking"):
            value = getattr(self, name)
            if value is None:
                value = getattr(world.model, name)
            if value is not None:
                chosen[name] = value
        if self.seed is not None:
            chosen["seed"] = self.seed
        base = defaults or Sampling()
        return Sampling(**{**vars(base), **chosen})


def default_sampling(model: ModelSettings) -> Sampling | None:
    """What the model is asked when neither the user nor the world says otherwise."""
    return Sampling(max_tokens=EMBEDDED_MAX_TOKENS) if model.embedded else None
