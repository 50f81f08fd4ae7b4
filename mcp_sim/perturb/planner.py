"""Perturbation profiles, and the seeded decisions of which calls their rules hit.

A *profile* is a named list of rules (:mod:`mcp_sim.spec.perturbations`), built in or under
``perturbations:`` in the world spec.

Decisions are pure functions of the session's perturbation seed and the calls it has made:
each session owns a ``random.Random`` seeded from the server's seed and the session id, and
counters of the calls each rule targeted. Nothing depends on the wall clock or on the model's
answers, so the same seed and the same calls inject the same perturbations, exactly. The one
exception is ``rate_limit``, which counts calls in a window of seconds: waiting out the
retry-after hint is the behaviour it exists to test.

For every call, every active rule that targets it advances its counter and, if its schedule
allows, draws against its probability. All ``latency`` rules that fire add up; of the other
kinds the first one that fires (profiles in the order given, rules in file order) decides
what happens to the call.
"""

from __future__ import annotations

import copy
import hashlib
import json
import math
import random
import secrets
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from mcp_sim.errors import SimError
from mcp_sim.spec.perturbations import (
    LatencyRule,
    PerturbationRule,
    RateLimitRule,
    made_by_model,
    parse_rules,
)

SEED_BITS = 63


# --- profiles -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Profile:
    name: str
    rules: tuple[PerturbationRule, ...]
    description: str = ""
    source: Literal["built-in", "world"] = "built-in"

    def as_json(self) -> dict[str, Any]:
        """Where the profile comes from, what it is for and its rules, as JSON (``mcp-sim
        perturbations --json``)."""
        return {
            "source": self.source,
            "description": self.description,
            "rules": [r.model_dump(mode="json", exclude_defaults=True) for r in self.rules],
        }


def _builtin(name: str, description: str, *rules: dict[str, Any]) -> Profile:
    return Profile(name, parse_rules(list(rules)), description)


BUILTIN_PROFILES: dict[str, Profile] = {
    p.name: p
    for p in (
        _builtin(
            "flaky",
            "Transient failures that a retry gets past: 503 errors and slow timeouts.",
            {
                "kind": "error",
                "probability": 0.15,
                "verbatim": True,
                "message": "503 Service Unavailable: the service is temporarily overloaded; "
                "try again shortly.",
            },
            {"kind": "timeout", "probability": 0.05, "seconds": 3},
        ),
        _builtin(
            "slow",
            "Every answer comes late (log-normal, median 1.5 s, a long tail).",
            {"kind": "latency", "lognormal": {"median": 1.5, "sigma": 0.6}},
        ),
        _builtin(
            "rate-limited",
            "At most 5 calls per 10 s; further calls get 429 with a retry-after hint.",
            {"kind": "rate_limit", "limit": 5, "window": 10},
        ),
        _builtin(
            "paginated",
            "Read tools answer one page of 3 items at a time, with a way to ask for more.",
            {"kind": "paginated", "effect": "read", "page_size": 3},
        ),
        _builtin(
            "stale",
            "A third of read answers carry outdated values.",
            {"kind": "stale", "effect": "read", "probability": 0.3},
        ),
        _builtin(
            "adversarial",
            "Read answers that try to redirect the agent, hide the answer or contradict "
            "earlier ones.",
            {"kind": "injection", "effect": "read", "probability": 0.2},
            {"kind": "hide_answer", "effect": "read", "probability": 0.15},
            {"kind": "contradictory", "effect": "read", "probability": 0.1},
        ),
    )
}


def profiles_for(world_profiles: Mapping[str, Sequence[PerturbationRule]]) -> dict[str, Profile]:
    """The built-in profiles, then the world's (a world profile replaces a built-in of the same
    name)."""
    profiles = dict(BUILTIN_PROFILES)
    for name, rules in world_profiles.items():
        profiles[name] = Profile(name, tuple(rules), source="world")
    return profiles


class UnknownProfile(SimError):
    """A perturbation profile was asked for that neither the world nor mcp-sim defines."""

    def __init__(self, names: Sequence[str], known: Iterable[str]) -> None:
        self.names = list(names)
        super().__init__(
            f"unknown perturbation profile {', '.join(map(repr, names))} "
            f"(profiles are: {', '.join(sorted(known))}; see `mcp-sim perturbations WORLD`)"
        )


def parse_profile_names(value: str | Sequence[str]) -> tuple[str, ...]:
    """``"flaky,slow"`` or ``["flaky", "slow"]`` as names, in order, without repeats."""
    parts = value.split(",") if isinstance(value, str) else list(value)
    return tuple(dict.fromkeys(p.strip() for p in parts if p.strip()))


# --- decisions ------------------------------------------------------------------------------


@dataclass
class PerturbState:
    """One session's perturbation state: its seeded RNG, its active profiles and what each
    rule has counted so far."""

    seed: int
    profiles: tuple[str, ...]
    rng: random.Random
    counters: dict[tuple[str, int, str], int] = field(default_factory=dict)
    windows: dict[tuple[str, int], deque[float]] = field(default_factory=dict)


class PerturbedSession(Protocol):
    """What the perturber needs of a session (``mcp_sim.runtime.session.Session`` has it)."""

    id: str
    perturbation: PerturbState | None


@dataclass(frozen=True)
class Fired:
    """A rule that hit a call."""

    profile: str
    index: int
    rule: PerturbationRule
    call: int
    """The rule's count for this call (what calls, every and sequence looked at)."""
    delay: float = 0.0
    """Seconds drawn, for latency."""
    retry_after: int | None = None
    """Seconds until the window has room again, for rate_limit."""

    @property
    def kind(self) -> str:
        return self.rule.kind

    def record(self) -> dict[str, Any]:
        """The journal's account of this perturbation: which rule, what it did."""
        entry: dict[str, Any] = {
            "profile": self.profile,
            "rule": self.index,
            "kind": self.kind,
            "by": "model" if made_by_model(self.rule) else "server",
            "call": self.call,
            "spec": self.rule.model_dump(mode="json", exclude_defaults=True),
        }
        if isinstance(self.rule, LatencyRule):
            entry["delay_s"] = round(self.delay, 6)
        if self.retry_after is not None:
            entry["retry_after_s"] = self.retry_after
        return entry


@dataclass(frozen=True)
class Plan:
    """What happens to one call: delays that add up, and at most one fault."""

    latency: tuple[Fired, ...] = ()
    fault: Fired | None = None

    @property
    def delay(self) -> float:
        return sum(f.delay for f in self.latency)

    @property
    def fired(self) -> tuple[Fired, ...]:
        return self.latency + ((self.fault,) if self.fault is not None else ())

    def records(self) -> list[dict[str, Any]]:
        return [f.record() for f in self.fired]


NO_PLAN = Plan()


def _counter_key(rule: PerturbationRule, tool: str, args: Mapping[str, Any]) -> str:
    if rule.counter == "tool":
        return tool
    if rule.counter == "arguments":
        return tool + json.dumps(args, sort_keys=True, separators=(",", ":"), default=str)
    return ""


def _draw_delay(rule: LatencyRule, rng: random.Random) -> float:
    if rule.seconds is not None:
        return rule.seconds
    if rule.uniform is not None:
        return rng.uniform(*rule.uniform)
    if rule.lognormal is None:
        raise ValueError("a latency rule without a distribution passed validation")
    return rule.lognormal.median * math.exp(rule.lognormal.sigma * rng.gauss(0.0, 1.0))


class Perturber:
    """Chooses, call by call and session by session, which rules hit a call."""

    def __init__(
        self,
        profiles: Mapping[str, Profile] | None = None,
        active: Sequence[str] = (),
        *,
        seed: int | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.profiles = dict(profiles if profiles is not None else BUILTIN_PROFILES)
        self.active = self.resolve(active)
        self.seed = seed if seed is not None else secrets.randbits(SEED_BITS)
        """The base of every session's seed; random unless given, so pass it on to reproduce."""
        self._clock = clock

    def resolve(self, names: str | Sequence[str]) -> tuple[str, ...]:
        """Profile names as given (comma-separated or a list), checked. Raises
        :class:`UnknownProfile`."""
        parsed = parse_profile_names(names)
        unknown = [n for n in parsed if n not in self.profiles]
        if unknown:
            raise UnknownProfile(unknown, self.profiles)
        return parsed

    def session_seed(self, session_id: str) -> int:
        """A session's seed: a stable hash of the base seed and the session id, so parallel
        sessions differ and each one is reproducible by its id."""
        digest = hashlib.sha256(f"mcp-sim/perturb:{self.seed}:{session_id}".encode()).digest()
        return int.from_bytes(digest[:8], "big") >> (64 - SEED_BITS)

    def state(self, session: PerturbedSession) -> PerturbState:
        if session.perturbation is None:
            seed = self.session_seed(session.id)
            session.perturbation = PerturbState(seed, self.active, random.Random(seed))
        return session.perturbation

    def select(self, session: PerturbedSession, names: str | Sequence[str]) -> None:
        """Make ``names`` the session's profiles from its next call on (an empty list turns
        perturbations off). Counts of rules that stay active carry on."""
        self.state(session).profiles = self.resolve(names)

    def plan(
        self, session: PerturbedSession, tool: str, effect: str, args: Mapping[str, Any]
    ) -> Plan:
        """Decide what happens to this call, and count it."""
        state = self.state(session)
        latency: list[Fired] = []
        fault: Fired | None = None
        for profile_name in state.profiles:
            for index, rule in enumerate(self.profiles[profile_name].rules):
                fired = self._decide(state, profile_name, index, rule, tool, effect, args)
                if fired is None:
                    continue
                if isinstance(rule, LatencyRule):
                    latency.append(fired)
                elif fault is None:
                    fault = fired
        return Plan(tuple(latency), fault)

    def peek(
        self, session: PerturbedSession, tool: str, effect: str, args: Mapping[str, Any]
    ) -> Plan:
        """What :meth:`plan` would decide, without counting the call."""
        state = self.state(session)
        saved = copy.deepcopy(state)
        try:
            return self.plan(session, tool, effect, args)
        finally:
            session.perturbation = saved

    def _decide(
        self,
        state: PerturbState,
        profile: str,
        index: int,
        rule: PerturbationRule,
        tool: str,
        effect: str,
        args: Mapping[str, Any],
    ) -> Fired | None:
        if not rule.targets(tool, effect, args):
            return None
        key = (profile, index, _counter_key(rule, tool, args))
        n = state.counters[key] = state.counters.get(key, 0) + 1
        if not rule.scheduled(n):
            return None
        if rule.probability < 1 and not state.rng.random() < rule.probability:
            return None
        if isinstance(rule, LatencyRule):
            return Fired(profile, index, rule, n, delay=_draw_delay(rule, state.rng))
        if isinstance(rule, RateLimitRule):
            return self._rate_limited(state, profile, index, rule, n)
        return Fired(profile, index, rule, n)

    def _rate_limited(
        self, state: PerturbState, profile: str, index: int, rule: RateLimitRule, n: int
    ) -> Fired | None:
        now = self._clock()
        window = state.windows.setdefault((profile, index), deque())
        while window and window[0] <= now - rule.window:
            window.popleft()
        if len(window) < rule.limit:
            # Only answered calls take a slot, so waiting out the hint is always enough.
            window.append(now)
            return None
        wait = window[0] + rule.window - now
        return Fired(profile, index, rule, n, retry_after=max(1, math.ceil(wait)))
