"""The one door to the world model: every request of a call goes through :class:`ModelGateway`,
which gives it the session's next sampling seed, answers it from the answer cache when it can,
times it for the metrics, and notes on the call's :class:`CallUsage` what it cost, what to
cache and whether it failed in a way that may pass."""

from __future__ import annotations

import time
from dataclasses import replace

from mcp_sim.errors import ModelError, ModelTimeout, ModelUnavailable
from mcp_sim.models.base import Completion, CompletionRequest, ProgressCallback, WorldModel
from mcp_sim.runtime.session import Session
from mcp_sim.simulator.answer_cache import AnswerCache, PendingAnswer
from mcp_sim.simulator.context import CallUsage, ModelExchange
from mcp_sim.simulator.metrics import Metrics


class ModelGateway:
    """Sends a world's model requests: seeds, cache and transient-failure accounting.

    ``model`` may be replaced after construction (the CLI launches the embedded model only
    once it knows a call needs it)."""

    def __init__(
        self,
        model: WorldModel | None,
        *,
        cache: AnswerCache | None,
        metrics: Metrics,
        world_hash: str,
        seeds: bool,
    ) -> None:
        self.model = model
        self.cache = cache
        self.metrics = metrics
        self.world_hash = world_hash
        self.seeds = seeds

    async def complete(
        self,
        session: Session,
        request: CompletionRequest,
        progress: ProgressCallback | None,
        usage: CallUsage,
    ) -> Completion:
        """The completion of ``request``, from the cache or the model; raises
        :class:`ModelError` when there is no model or the request fails."""
        if self.model is None:
            raise ModelError("no world model is configured")
        # The seed is drawn even when the cache answers, so the session's later requests get
        # the same seeds as in the run that filled the cache.
        seed = session.next_request_seed() if self.seeds else None
        request = replace(request, sampling=replace(request.sampling, seed=seed))
        key = None
        if self.cache is not None:
            key = self.cache.key(self.world_hash, request)
            cached = await self.cache.get(key)
            self.metrics.observe_cache(cached is not None)
            if cached is not None:
                usage.cache_hits += 1
                usage.add(cached)
                usage.exchanges.append(_exchange(request, cached, cached=True))
                return cached
            usage.cache_misses += 1
        started = time.perf_counter()
        try:
            completion = await self.model.complete(request, progress)
        except ModelError as exc:
            elapsed = time.perf_counter() - started
            usage.model_seconds += elapsed
            self.metrics.observe_model_request(elapsed, None)
            if isinstance(exc, ModelUnavailable | ModelTimeout):
                usage.transient_failure = True
            raise
        elapsed = time.perf_counter() - started
        usage.model_seconds += elapsed
        self.metrics.observe_model_request(elapsed, completion)
        usage.add(completion)
        usage.exchanges.append(_exchange(request, completion, cached=False))
        if key is not None:
            usage.to_cache.append(PendingAnswer(key, self.world_hash, request, completion))
        return completion

    async def keep_answers(self, usage: CallUsage) -> None:
        """Store a finished call's new answers in the cache, unless one of its requests failed
        transiently: an answer shaped by such a failure must be asked for again next run (see
        :mod:`mcp_sim.simulator.answer_cache`)."""
        if self.cache is not None and not usage.transient_failure:
            await self.cache.put(usage.to_cache)


def _exchange(request: CompletionRequest, completion: Completion, *, cached: bool) -> ModelExchange:
    return ModelExchange(
        request.messages, completion.content, completion.reasoning, cached, request.purpose
    )
