"""Regular expressions from world files, compiled safely and bounded.

A world's regexes (an entity's ``id_pattern``, ``pattern`` and ``patternProperties`` in its JSON
Schemas) are run by the server on text it does not control: observations and call arguments.
``re.compile`` fails in more ways than ``re.error`` (``OverflowError`` for a repetition count
over 4,294,967,295, ``RecursionError`` for deep nesting), and a pattern that compiles can still
backtrack for hours on a short string. So a world's regex must compile, stay within
:data:`MAX_PATTERN_CHARS` characters, :data:`MAX_GROUP_DEPTH` nested groups and repetition
counts of :data:`MAX_REPEAT_COUNT`, and must not repeat a part that itself ends in an
unbounded repetition (``(a+)+``, ``(\\w+\\s?)*``): the classic catastrophic backtracking.
"""

from __future__ import annotations

import importlib
import re
import warnings
from typing import Any

# The parser behind re.compile; its trees are what the backtracking check reads. It is private,
# but has been stable since Python 3.11 (it was sre_parse before, now deprecated).
_parser: Any = importlib.import_module("re._parser")
_constants: Any = importlib.import_module("re._constants")

MAX_PATTERN_CHARS = 4000
MAX_GROUP_DEPTH = 32
MAX_REPEAT_COUNT = 10_000

_REPEATS = {_constants.MAX_REPEAT, _constants.MIN_REPEAT}


def compile_regex(pattern: str) -> re.Pattern[str]:
    """``pattern`` compiled. Raises ``ValueError`` with a message fit for a world file's reader
    when it does not compile, is too large, or backtracks catastrophically."""
    if len(pattern) > MAX_PATTERN_CHARS:
        raise ValueError(
            f"regular expression of {len(pattern):,} characters (at most {MAX_PATTERN_CHARS:,})"
        )
    if _group_depth(pattern) > MAX_GROUP_DEPTH:
        raise ValueError(f"regular expression nests groups more than {MAX_GROUP_DEPTH} deep")
    try:
        with warnings.catch_warnings():
            # FutureWarnings about syntax that may change meaning ("possible nested set").
            warnings.simplefilter("ignore")
            compiled = re.compile(pattern)
            tree = _parser.parse(pattern)
    except re.error as exc:
        raise ValueError(f"not a regular expression: {exc}") from None
    except (OverflowError, RecursionError, MemoryError, ValueError) as exc:
        raise ValueError(f"not a usable regular expression: {exc}") from None
    largest = _largest_count(list(tree))
    if largest > MAX_REPEAT_COUNT:
        raise ValueError(
            f"repetition count {largest:,} in a regular expression (at most {MAX_REPEAT_COUNT:,})"
        )
    if _backtracks_catastrophically(list(tree)):
        raise ValueError(
            "regular expression repeats a part that ends in an unbounded repetition, as in "
            "(a+)+: matching it can take exponential time; repeat a part that ends in a fixed "
            "character instead, e.g. (a+,)+"
        )
    return compiled


def _group_depth(pattern: str) -> int:
    """How deep groups nest in ``pattern`` (escapes and character classes skipped)."""
    depth = deepest = 0
    i, in_class = 0, False
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            i += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
            # A ] right after [ or [^ is a literal, not the end of the class.
            if pattern[i + 1 : i + 2] == "^":
                i += 1
            if pattern[i + 1 : i + 2] == "]":
                i += 1
        elif char == "(":
            depth += 1
            deepest = max(deepest, depth)
        elif char == ")":
            depth = max(depth - 1, 0)
        i += 1
    return deepest


def _largest_count(items: list[tuple[Any, Any]]) -> int:
    """The largest repetition count written in the pattern (``{m,n}``; ``*`` and ``+`` count 1)."""
    largest = 0
    for op, av in items:
        if op in _REPEATS or op == _constants.POSSESSIVE_REPEAT:
            bounds = [n for n in av[:2] if n != _constants.MAXREPEAT]
            largest = max(largest, *bounds, 1)
        for sub in _subpatterns(op, av):
            largest = max(largest, _largest_count(sub))
    return largest


def _backtracks_catastrophically(items: list[tuple[Any, Any]]) -> bool:
    """Whether some repetition of more than one round repeats a part that can end in an
    unbounded (backtracking) repetition."""
    for op, av in items:
        for sub in _subpatterns(op, av):
            if op in _REPEATS and av[1] > 1 and _ends_unbounded(sub):
                return True
            if _backtracks_catastrophically(sub):
                return True
    return False


def _subpatterns(op: Any, av: Any) -> list[list[tuple[Any, Any]]]:
    """The item lists directly inside one parsed item."""
    if op in _REPEATS or op == _constants.POSSESSIVE_REPEAT:
        return [list(av[2])]
    if op == _constants.SUBPATTERN:
        return [list(av[3])]
    if op == _constants.ATOMIC_GROUP:
        return [list(av)]
    if op == _constants.BRANCH:
        return [list(branch) for branch in av[1]]
    if op in (_constants.ASSERT, _constants.ASSERT_NOT):
        return [list(av[1])]
    if op == _constants.GROUPREF_EXISTS:
        return [list(part) for part in av[1:] if part is not None]
    return []


def _ends_unbounded(items: list[tuple[Any, Any]]) -> bool:
    """Whether ``items`` can end in an unbounded backtracking repetition (what follows it, if
    anything, may match nothing)."""
    for op, av in reversed(items):
        if op in _REPEATS:
            if av[1] == _constants.MAXREPEAT or _ends_unbounded(list(av[2])):
                return True
            if av[0] > 0:
                return False
        elif op == _constants.SUBPATTERN:
            return _ends_unbounded(list(av[3]))
        elif op == _constants.BRANCH:
            return any(_ends_unbounded(list(branch)) for branch in av[1])
        elif op != _constants.AT:
            return False
    return False
