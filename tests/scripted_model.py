"""A scripted stand-in for the world model, for tests of the state machinery."""

from __future__ import annotations

import json
from collections.abc import Collection
from typing import Any

from mcp_sim.errors import ModelUnavailable
from mcp_sim.models.base import Completion, CompletionRequest, ProgressCallback


class ScriptedModel:
    """A unit-level double of the model seam (``WorldModel``): it answers each request with the
    next pinned completion text and keeps every request it was sent, so a test can check what
    the simulator asked as well as what it did with the answers. It does not imitate a model;
    tests that need a real one use the embedded engine."""

    def __init__(self, *answers: str) -> None:
        self.answers = list(answers)
        self.requests: list[CompletionRequest] = []

    @staticmethod
    def answer(observation: Any, patch: list[dict[str, Any]] | None = None) -> str:
        """A completion in the native format: the observation in its tags, then the patch."""
        text = observation if isinstance(observation, str) else json.dumps(observation)
        out = f"Reasoning.\n<predicted_observation>\n{text}\n</predicted_observation>"
        if patch is not None:
            out += f"\n<state_patch>{json.dumps(patch)}</state_patch>"
        return out

    async def complete(
        self, request: CompletionRequest, progress: ProgressCallback | None = None
    ) -> Completion:
        self.requests.append(request)
        if not self.answers:
            raise ModelUnavailable("the script has no answer left")
        content = self.answers.pop(0)
        return Completion(
            content=content,
            model="scripted",
            prompt_tokens=sum(len(m["content"]) for m in request.messages) // 4,
            completion_tokens=len(content) // 4,
        )

    async def aclose(self) -> None:
        pass


class OutageModel(ScriptedModel):
    """A scripted model that is down for its requests numbered in ``down`` (from 1) and answers
    the others from its script: the world model failing mid-episode, at a chosen call, which a
    test of how a verdict marks an outage needs to place exactly."""

    def __init__(self, *answers: str, down: Collection[int]) -> None:
        super().__init__(*answers)
        self.down = down
        self.asked = 0

    async def complete(
        self, request: CompletionRequest, progress: ProgressCallback | None = None
    ) -> Completion:
        self.asked += 1
        if self.asked in self.down:
            raise ModelUnavailable("the world model is down")
        return await super().complete(request, progress)
