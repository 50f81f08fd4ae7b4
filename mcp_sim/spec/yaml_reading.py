"""Reading a world file's YAML into plain JSON data and the node graph that locates it, within
limits that hold before anything walks the result.

- **Size:** at most :attr:`ReadingLimits.max_bytes` (64 MiB by default; the environment variable
  ``MCP_SIM_WORLD_MAX_MB`` changes it).
- **Nesting:** at most :attr:`ReadingLimits.max_depth` mappings and lists inside one another;
  deeper data is refused while it is parsed, so no later step recurses past Python's stack.
- **Aliases:** ``*alias`` copies of ``&anchor``\\ ed nodes may add at most
  :attr:`ReadingLimits.max_alias_nodes` nodes in all, counted while parsing: a "billion laughs"
  file of nested aliases is refused in milliseconds, instead of every later walk expanding it.
  An alias inside the node it names (a structure that contains itself) is refused too.
- **Plain JSON only:** strings, numbers, true/false, null, lists and mappings with string keys.
  Other tags (``!!timestamp``, ``!!binary``, ``!!set``, ``!!python/...``, custom ``!tags``),
  ``.inf`` and ``.nan``, integers of more than :data:`MAX_INTEGER_DIGITS` digits and strings
  that are not valid Unicode are refused at their line. Dates stay strings.

The C parser of libyaml is used when PyYAML has it (several times faster than the pure-Python
one on worlds of megabytes); both give the same nodes and the same line and column for every
problem, reader errors (control characters, bytes that are not UTF-8) included.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import yaml
from yaml.composer import Composer, ComposerError
from yaml.constructor import ConstructorError, SafeConstructor
from yaml.error import Mark
from yaml.events import AliasEvent, CollectionStartEvent, Event, NodeEvent

from mcp_sim.errors import SpecError, SpecProblem
from mcp_sim.spec.locations import Location, format_location, line_and_column, node_path
from mcp_sim.spec.yaml_syntax import syntax_problem

try:
    from yaml._yaml import CParser
except ImportError:  # PyYAML built without libyaml: the pure-Python parser does the same work
    CParser = None  # type: ignore[assignment,misc]

MAX_INTEGER_DIGITS = 4000
"""Python prints integers of up to 4,300 digits; JSON output of larger ones would fail."""

_LARGEST_INTEGER = 10**MAX_INTEGER_DIGITS
_YAML_TAG = "tag:yaml.org,2002:"
_STR, _INT, _FLOAT, _BOOL, _NULL, _SEQ, _MAP = (
    _YAML_TAG + name for name in ("str", "int", "float", "bool", "null", "seq", "map")
)
MAX_MB_VARIABLE = "MCP_SIM_WORLD_MAX_MB"


@dataclass(frozen=True)
class ReadingLimits:
    """How large a world file may be, in the ways that would make reading it run away."""

    max_bytes: int = 64 * 1024 * 1024
    max_depth: int = 64
    max_alias_nodes: int = 10_000

    @classmethod
    def from_environment(cls) -> ReadingLimits:
        """The defaults, with ``MCP_SIM_WORLD_MAX_MB`` as the size limit when it is set."""
        value = os.environ.get(MAX_MB_VARIABLE, "").strip()
        if not value:
            return cls()
        try:
            megabytes = float(value)
        except ValueError:
            megabytes = math.nan
        if not megabytes > 0 or math.isinf(megabytes):
            raise SpecError(
                [SpecProblem(MAX_MB_VARIABLE, 1, 1, "", f"must be a number of MB, not {value!r}")]
            )
        return cls(max_bytes=int(megabytes * 1024 * 1024))


class _LimitedComposer(Composer):
    """PyYAML's composer, refusing too deep nesting and too many alias expansions as it goes."""

    limits = ReadingLimits()
    peek_event: Callable[[], Event]  # the parser's, which the loader classes below mix in

    def __init__(self) -> None:
        super().__init__()
        self._depth = 0
        self._composed = 0  # nodes so far, aliases counted as what they expand to
        self._expanded = 0  # nodes added by aliases
        self._sizes: dict[str, int] = {}  # anchor -> expanded size of its node

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node | None:
        event = self.peek_event()
        if isinstance(event, AliasEvent):
            node = super().compose_node(parent, index)
            size = self._sizes.get(str(event.anchor))
            if size is None:
                raise ComposerError(
                    None,
                    None,
                    f"alias *{event.anchor} is inside the node it names: a structure that "
                    "contains itself cannot be JSON",
                    _mark(event),
                )
            self._expanded += size
            self._composed += size
            if self._expanded > self.limits.max_alias_nodes:
                raise ComposerError(
                    None,
                    None,
                    f"aliases expand to more than {self.limits.max_alias_nodes:,} nodes "
                    "(nested aliases multiply; write the data out instead)",
                    _mark(event),
                )
            return node
        collection = isinstance(event, CollectionStartEvent)
        if collection and self._depth >= self.limits.max_depth:
            raise ComposerError(
                None,
                None,
                f"mappings and lists nest more than {self.limits.max_depth} deep",
                _mark(event),
            )
        self._depth += collection
        before = self._composed
        node = super().compose_node(parent, index)
        self._depth -= collection
        self._composed += 1
        if isinstance(event, NodeEvent) and event.anchor is not None:
            self._sizes[event.anchor] = self._composed - before
        return node


class _JsonConstructor(SafeConstructor):
    """SafeConstructor for the JSON types only, every failure raised at its node's mark."""

    def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
        try:
            return super().construct_object(node, deep)
        except yaml.YAMLError:
            raise
        except (ArithmeticError, LookupError, TypeError, ValueError):
            # PyYAML's scalar constructors trust the resolver; an explicit tag (!!int abc,
            # !!bool maybe, !!int "") reaches them with text they fail on in these ways.
            raise _refused(node, f"{_excerpt(node)} is not a valid {_short(node.tag)}") from None

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        if isinstance(node, yaml.MappingNode):
            self.flatten_mapping(node)
            for key_node, _ in node.value:
                if key_node.tag != _STR:
                    raise _refused(
                        key_node,
                        f"mapping key {_excerpt(key_node)} is a {_short(key_node.tag)}: keys "
                        "must be strings (JSON object keys are); quote it",
                    )
        return super().construct_mapping(node, deep)

    def _int(self, node: yaml.ScalarNode) -> int:
        digits = sum(c.isdigit() for c in str(node.value))
        if digits > MAX_INTEGER_DIGITS:
            raise _refused(node, f"integer of {digits:,} digits (at most {MAX_INTEGER_DIGITS:,})")
        value = int(self.construct_yaml_int(node))
        if abs(value) >= _LARGEST_INTEGER:
            raise _refused(node, f"integer of more than {MAX_INTEGER_DIGITS:,} digits")
        return value

    def _float(self, node: yaml.ScalarNode) -> float:
        value = float(self.construct_yaml_float(node))
        if not math.isfinite(value):
            raise _refused(
                node, f"{_excerpt(node)} is not a JSON number (infinite or not a number)"
            )
        return value

    def _str(self, node: yaml.ScalarNode) -> str:
        value = str(self.construct_yaml_str(node))
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise _refused(
                node, f"string holds U+{ord(value[exc.start]):04X}, which is not valid Unicode"
            ) from None
        return value

    def _other_tag(self, node: yaml.Node) -> Any:
        raise _refused(
            node,
            f"{_short(node.tag)} values are not allowed: a world file holds plain JSON "
            "(strings, numbers, true/false, null, lists, mappings); quote it if it is text",
        )


_JsonConstructor.yaml_constructors = {
    _NULL: SafeConstructor.construct_yaml_null,
    _BOOL: SafeConstructor.construct_yaml_bool,
    _INT: _JsonConstructor._int,
    _FLOAT: _JsonConstructor._float,
    _STR: _JsonConstructor._str,
    _SEQ: SafeConstructor.construct_yaml_seq,
    _MAP: SafeConstructor.construct_yaml_map,
    None: _JsonConstructor._other_tag,
}
_JsonConstructor.yaml_multi_constructors = {}


class _JsonResolver(yaml.resolver.Resolver):
    """YAML 1.1's implicit types, less timestamps (dates stay strings, as in JSON) and the
    ``=`` value key (a bare ``=`` is text)."""


_JsonResolver.yaml_implicit_resolvers = {
    first: [
        (tag, rx)
        for tag, rx in resolvers
        if tag not in (_YAML_TAG + "timestamp", _YAML_TAG + "value")
    ]
    for first, resolvers in yaml.resolver.Resolver.yaml_implicit_resolvers.items()
}


class _PythonLoader(
    yaml.reader.Reader,
    yaml.scanner.Scanner,
    yaml.parser.Parser,
    _LimitedComposer,
    _JsonConstructor,
    _JsonResolver,
):
    def __init__(self, text: str, limits: ReadingLimits) -> None:
        yaml.reader.Reader.__init__(self, text)
        yaml.scanner.Scanner.__init__(self)
        yaml.parser.Parser.__init__(self)
        _LimitedComposer.__init__(self)
        _JsonConstructor.__init__(self)
        _JsonResolver.__init__(self)
        self.limits = limits


if CParser is not None:

    class _FastLoader(_LimitedComposer, CParser, _JsonConstructor, _JsonResolver):
        """libyaml's parser under the same composer, constructor and resolver."""

        def __init__(self, text: str, limits: ReadingLimits) -> None:
            CParser.__init__(self, text)
            _LimitedComposer.__init__(self)
            _JsonConstructor.__init__(self)
            _JsonResolver.__init__(self)
            self.limits = limits


def read_yaml(
    text: str, file: str, limits: ReadingLimits, *, fast: bool = True
) -> tuple[yaml.Node | None, Any, list[SpecProblem]]:
    """The node graph of ``text``, its data, and its duplicate keys (a problem each). Raises
    :class:`SpecError` for text that is no YAML, breaks a limit or is not plain JSON. ``fast``
    uses libyaml's parser when there is one."""
    check_size(file, len(text.encode("utf-8", "surrogatepass")), limits)
    use_c = fast and CParser is not None
    root = None
    try:
        loader = _FastLoader(text, limits) if use_c else _PythonLoader(text, limits)
        try:
            root = loader.get_single_node()
            if root is None:
                return None, None, []
            duplicates = duplicate_keys(file, root)
            return root, loader.construct_document(root), duplicates
        finally:
            loader.dispose()
    except _Refused as exc:
        path = format_location(node_path(root, exc.node)) if root is not None else ""
        mark = exc.node.start_mark
        raise SpecError(
            [SpecProblem(file, mark.line + 1, mark.column + 1, path, str(exc.problem))]
        ) from None
    except yaml.MarkedYAMLError as exc:
        if use_c and "maximum nesting depth" in str(exc.problem):
            # libyaml (from PyYAML 6.0.4) has a nesting limit of its own in its scanner, which
            # runs ahead of the composer: read it again where our limit says where it is passed.
            return read_yaml(text, file, limits, fast=False)
        if isinstance(exc, ConstructorError | ComposerError):
            # Our own refusals, at the value refused, say what is wrong with it.
            mark = exc.problem_mark or exc.context_mark
            line, column = (mark.line + 1, mark.column + 1) if mark else (1, 1)
            reason = " ".join(x for x in (exc.context, exc.problem) if x)
            raise SpecError([SpecProblem(file, line, column, "", reason)]) from None
        raise SpecError([syntax_problem(exc, text, file)]) from None
    except yaml.reader.ReaderError as exc:
        # libyaml counts the position in bytes of UTF-8, the pure-Python reader in characters.
        offset = exc.position
        if use_c:
            offset = len(text.encode("utf-8", "surrogatepass")[:offset].decode("utf-8", "replace"))
        line, column = line_and_column(text, offset)
        problem = (
            f"character U+{exc.character:04X} is not allowed in YAML (a control or non-character)"
        )
        raise SpecError([SpecProblem(file, line, column, "", problem)]) from None
    except UnicodeEncodeError as exc:
        line, column = line_and_column(text, exc.start)
        problem = f"U+{ord(text[exc.start]):04X} is not valid Unicode"
        raise SpecError([SpecProblem(file, line, column, "", problem)]) from None
    except yaml.YAMLError as exc:
        raise SpecError([SpecProblem(file, 1, 1, "", f"YAML error: {exc}")]) from None


def check_size(file: str, size: int, limits: ReadingLimits) -> None:
    """Raise :class:`SpecError` if a file of ``size`` bytes is over the limit."""
    if size > limits.max_bytes:
        problem = (
            f"file of {size / 2**20:.1f} MB; the limit is {limits.max_bytes / 2**20:g} MB "
            f"(set {MAX_MB_VARIABLE} to raise it)"
        )
        raise SpecError([SpecProblem(file, 1, 1, "", problem)])


def duplicate_keys(file: str, root: yaml.Node) -> list[SpecProblem]:
    """A problem at every key a mapping repeats (YAML would silently keep the last value).
    An aliased node is looked at once, where its anchor is."""
    problems: list[SpecProblem] = []
    seen_nodes: set[int] = set()
    pending: list[tuple[yaml.Node, Location]] = [(root, ())]
    while pending:
        node, path = pending.pop()
        if id(node) in seen_nodes:
            continue
        seen_nodes.add(id(node))
        if isinstance(node, yaml.MappingNode):
            keys: set[str] = set()
            for key_node, value_node in node.value:
                key = key_node.value if isinstance(key_node, yaml.ScalarNode) else None
                if key is not None and key in keys:
                    problems.append(
                        SpecProblem(
                            file,
                            key_node.start_mark.line + 1,
                            key_node.start_mark.column + 1,
                            format_location((*path, key)),
                            f"duplicate key {key!r} (the earlier value would be lost)",
                        )
                    )
                if key is not None:
                    keys.add(key)
                pending.append((value_node, (*path, key if key is not None else "?")))
        elif isinstance(node, yaml.SequenceNode):
            pending += [(item, (*path, i)) for i, item in enumerate(node.value)]
    return problems


class _Refused(ConstructorError):
    """A value the constructor refuses, with the node it sits at (to name its path)."""

    def __init__(self, node: yaml.Node, problem: str) -> None:
        super().__init__(None, None, problem, node.start_mark)
        self.node = node


def _refused(node: yaml.Node, problem: str) -> _Refused:
    return _Refused(node, problem)


def _mark(event: Event) -> Mark:
    """Where ``event`` starts (libyaml's marks are typed apart from PyYAML's, but alike)."""
    return event.start_mark  # type: ignore[return-value]


def _short(tag: str | None) -> str:
    """``tag:yaml.org,2002:timestamp`` as ``!!timestamp``."""
    tag = tag or "?"
    return "!!" + tag[len(_YAML_TAG) :] if tag.startswith(_YAML_TAG) else tag


def _excerpt(node: yaml.Node) -> str:
    value = node.value if isinstance(node, yaml.ScalarNode) else "(a collection)"
    text = str(value)
    return repr(text if len(text) <= 40 else text[:40] + "…")
